/**
 * Sales: order placement and order status changes. An acquisition (new holds, and an on-sale
 * queue admission's order count: waiting-room-admissions.ts) is decided and recorded with its outbox
 * entry without yielding, then written to D1; a release is written to D1 first, then taken from
 * the ledger, so an in-flight write never frees capacity twice. A failed D1 write is asked about:
 * not written gives the capacity back, unknown leaves it to the alarm. The object writes every
 * order (holds: order-book.ts), so it indexes the new tickets for check-in too.
 */
import { runBatch } from "../../db/batch";
import { type OrderWrite, orderExists, orderStatusQuery, statusChangedAtSql } from "../../db/order-writes";
import { statusResultIndex, statusWriteStatements } from "../../db/payments";
import type { OrderStatus } from "../../db/schema";
import { ticketChangeStatements } from "../../db/ticket-secrets";
import { onList } from "../../rules/checkin";
import type { Refusal } from "../../rules/inventory";
import { releaseCartHold, restoreCartHolds } from "./carts";
import type { Held, OutboxKind } from "./outbox";
import { answerOrder, writeOrders } from "./orders-answered";
import { handToAlarm, writeOwn } from "./write-own";
import type { EventState } from "./state";
import { admissionHasRoom, countAdmissionOrder, uncountAdmissionOrder } from "./waiting-room-admissions";
import { forgetRowsOfOrder } from "./scan-answers";
import { applyTicketChanges } from "./tickets";
import type { AnsweredOrder, AutoCheckin, OrderDecision, OrderRequest, StatusChange, StatusDecision } from "./types";

const STATUS_RELEASES = new Set(["c", "e"]);

export async function placeOrder(s: EventState, stamp: number, req: OrderRequest): Promise<OrderDecision> {
  await s.ensureCatalog(stamp);
  // priced on a copy that had not seen what the object has: read again at the primary (services/orders/replica-first.ts)
  if (req.catalogFromReplica && stamp < s.ledger.stamp) return { ok: false, refusals: [], staleCatalog: true };
  const d = decideOrder(s, req, Date.now());
  if (d.admissionUsed) return { ok: false, refusals: [], admissionUsed: true };
  if (d.cartGone) return { ok: false, refusals: [], cartGone: true };
  if (d.refusals.length) return { ok: false, refusals: d.refusals };
  // answered now (orders-answered.ts): the outbox's writer gives D1 the order after the answer
  if (d.answered) return { ok: true, order: null, answered: d.answered };
  return writeOrderFirst(s, req, d);
}

/** What `decideOrder` decided and recorded. */
type PlacedOrder = {
  refusals: Refusal[];
  admissionUsed: boolean;
  /** Fewer of the consumed carts' positions are held than the request needs (`cartHolds`). */
  cartGone: boolean;
  /** The cart positions the order consumed (their holds released). */
  consumed: string[];
  answered: AnsweredOrder | null;
  outbox: Held<OutboxKind<"order">> | null;
};

/** The decision, without yielding: the holds, the quotas it closes, its answer when the object can give it, its outbox entry. */
function decideOrder(s: EventState, req: OrderRequest, now: number): PlacedOrder {
  const d: PlacedOrder = {
    refusals: [],
    admissionUsed: false,
    cartGone: false,
    consumed: [],
    answered: null,
    outbox: null,
  };
  const admission = req.admission ?? null;
  s.storage.transactionSync(() => {
    if (admission && !admissionHasRoom(s, admission, now)) {
      d.admissionUsed = true;
      return;
    }
    d.consumed = s.ledger.cartHoldKeysOf(req.consumeCartIds);
    if (req.cartHolds !== undefined && d.consumed.length < req.cartHolds) {
      d.cartGone = true;
      return;
    }
    const holds = { cartHoldKeys: new Set(d.consumed) };
    d.refusals = s.ledger.check(req.demands, now, holds, { ignoreQuota: req.ignoreQuota });
    if (d.refusals.length) return;
    if (admission) countAdmissionOrder(s, admission, now);
    for (const hk of d.consumed) releaseCartHold(s, hk);
    s.ledger.addOrder(req.code, req.demands, req.paid);
    const closedQuotaIds = closeSoldOut(s, req, now);
    const autoCheckins = autoCheckinsOf(s, req.write);
    d.answered = req.answerHere ? answerOrder(s, req.write, autoCheckins, req.scanRows) : null;
    const entry: OutboxKind<"order"> = {
      kind: "order",
      write: d.answered?.write ?? req.write,
      voucherUses: [...voucherUsesOf(req.demands)],
      closedQuotaIds,
      autoCheckins: d.answered?.autoCheckins ?? autoCheckins,
      ...(d.answered ? { answered: true } : {}),
    };
    d.outbox = { id: s.outbox.write(entry, now), entry };
  });
  return d;
}

/** Quotas the order sold out that close when sold out: closed in the ledger (D1 follows with the order). */
function closeSoldOut(s: EventState, req: OrderRequest, now: number): number[] {
  const closed: number[] = [];
  for (const q of s.ledger.touchedQuotas(req.demands)) {
    if (q.closeWhenSoldOut && !q.closed && s.ledger.availability(q, now).available_number === 0) {
      s.ledger.markQuotaClosed(q.id);
      closed.push(q.id);
    }
  }
  return closed;
}

/**
 * An order the object cannot answer alone: its entry is written before the answer (write-own.ts),
 * read back with its D1 ids. Should the write fail, D1 is asked whether it has the order: yes,
 * it is a success after all (its mails were stored queued; the housekeeping sweep hands them
 * on); no, the capacity goes back; unknown, the alarm finishes the write.
 */
async function writeOrderFirst(s: EventState, req: OrderRequest, d: PlacedOrder): Promise<OrderDecision> {
  const held = d.outbox!;
  const outcome = await writeOwn(
    s,
    held.id,
    () => writeOrders(s, [held], Date.now()),
    () => orderExists(s.db(), s.eventId, req.code),
  );
  if ("written" in outcome) return { ok: true, order: outcome.written.get(req.code) ?? null };
  if (outcome.asked) {
    s.outbox.remove(held.id);
    return { ok: true, order: null };
  }
  s.storage.transactionSync(() => {
    s.ledger.removeOrder(req.code);
    if (req.admission) uncountAdmissionOrder(s, req.admission);
    s.outbox.remove(held.id);
  });
  // The consumed carts stay consumed in the ledger only if D1 deleted them; D1 did not.
  await restoreCartHolds(s, d.consumed);
  throw outcome.error;
}

/** The automatic check-ins of a new order: its positions on lists that check in its sales channel (pretix `auto_checkin_sales_channels`). */
function autoCheckinsOf(s: EventState, w: OrderWrite): AutoCheckin[] {
  const out: AutoCheckin[] = [];
  const channel = w.order.salesChannel ?? "web";
  for (const list of s.config.lists.values()) {
    if (!list.autoCheckinSalesChannels.includes(channel)) continue;
    for (const p of w.positions) {
      if (p.canceled) continue;
      if (onList(list, { itemId: p.itemId, subeventId: p.subeventId ?? null }))
        out.push({ uid: crypto.randomUUID(), listId: list.id, positionid: p.positionid });
    }
  }
  return out;
}

/**
 * Changes an order's status: `to` p (paid), n (pending), c (canceled), e (expired), from one
 * of `from`. Leaving n/p releases the order's holds; entering n/p from c/e needs capacity
 * again (`demands`). Payment rows follow (`confirmPaymentId` marks one confirmed). With
 * `giftCard`, the order is paid by debiting the card in the same D1 transaction as the status
 * change: both happen or neither (insufficient credit → `changed` false, nothing written).
 */
export async function changeOrderStatus(s: EventState, stamp: number, req: StatusChange): Promise<StatusDecision> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  const holding = s.ledger.orderHolds(req.code) !== undefined;
  // a cancellation with a fee keeps the status but no position: its holds go too
  const wantHolding = !STATUS_RELEASES.has(req.to) && req.extra?.cancellationFee === undefined;
  const change: Holding = { holding, acquires: wantHolding && !holding, releases: !wantHolding };
  const entry = statusEntry(req, now);
  let refusals: Refusal[] = [];
  let id = 0;
  s.storage.transactionSync(() => {
    // acquisition: decide and record first
    if (change.acquires) {
      refusals = s.ledger.check(req.demands, now, undefined, { ignoreQuota: req.ignoreQuota });
      if (refusals.length) return;
      s.ledger.addOrder(req.code, req.demands, req.to === "p");
    }
    id = s.outbox.write(entry, now);
  });
  if (refusals.length) return { ok: false, refusals };
  const outcome = await writeOwn(
    s,
    id,
    async () => {
      const { changed } = await writeStatus(s, entry);
      s.storage.transactionSync(() => statusWritten(s, req, change, changed));
      return changed;
    },
    () => orderStatusQuery(s.db(), req.orderId).get(),
  );
  if ("written" in outcome) return { ok: true, changed: outcome.written };
  // Did the write commit? D1's status of the order tells; if it cannot be read, the alarm
  // replays the (idempotent) write and settles the holds by what D1 then says.
  const row = outcome.asked;
  // a change that keeps the status cannot be told from the status: the alarm replays it (idempotent)
  if (row === undefined || req.from.includes(req.to) || (row.status !== req.to && !req.from.includes(row.status))) {
    await handToAlarm(s, id);
    throw outcome.error;
  }
  s.storage.transactionSync(() => {
    if (row.status !== req.to && change.acquires) s.ledger.removeOrder(req.code);
    if (row.status === req.to) statusWritten(s, req, change, true);
    s.outbox.remove(id);
  });
  if (row.status !== req.to) throw outcome.error;
  return { ok: true, changed: true };
}

/** Whether the order held capacity before the change, takes it with it, or gives it back with it. */
type Holding = { holding: boolean; acquires: boolean; releases: boolean };

/** The outbox entry of a status change. */
function statusEntry(req: StatusChange, now: number): OutboxKind<"status"> {
  return {
    kind: "status",
    orderId: req.orderId,
    code: req.code,
    to: req.to,
    from: req.from,
    now,
    confirmPaymentId: req.confirmPaymentId ?? null,
    cancelPayments: req.cancelPayments ?? false,
    giftCard: req.giftCard ?? null,
    ...(req.eventClaim ? { eventClaim: req.eventClaim } : {}),
    ...(req.tickets?.length ? { tickets: req.tickets } : {}),
    ...(req.extra ? { extra: req.extra } : {}),
    ...(req.covered ? { covered: true } : {}),
  };
}

/** After D1's answer (inside transactionSync): the holds and the ticket index follow whether the order `changed`. */
function statusWritten(s: EventState, req: StatusChange, h: Holding, changed: boolean): void {
  if (!changed) {
    if (h.acquires) s.ledger.removeOrder(req.code);
    return;
  }
  if (h.releases) s.ledger.removeOrder(req.code);
  else if (h.holding) s.ledger.setOrderPaid(req.code, req.to === "p");
  s.ci.setOrderStatus(req.code, req.to);
  if (req.extra?.requireApproval !== undefined) s.ci.setOrderApproval(req.code, req.extra.requireApproval);
  if (req.extra?.cancellationFee !== undefined) s.ci.cancelTicketsOfOrder(req.code);
  if (req.extra?.fields) s.ci.setOrderFields(req.code, req.extra.fields);
  applyTicketChanges(s, req.tickets ?? []);
  forgetRowsOfOrder(s, req.code);
}

/**
 * The conditional D1 write of a status change (db/payments.ts): whether the order changed,
 * and its status afterwards (read in the same batch). Voucher redemptions follow the order's
 * holds as the ledger has them.
 */
async function writeStatus(
  s: EventState,
  e: OutboxKind<"status">,
): Promise<{ changed: boolean; status: string | undefined; open: number }> {
  const db = s.db();
  const stmts = statusWriteStatements(db, s.eventId, e, voucherUsesOf(s.ledger.orderHolds(e.code)?.positions ?? []));
  // the tickets change with the status only: in this batch the order got the new status at `now`
  const changedNow = statusChangedAtSql(e.orderId, e.to, e.now);
  const tickets = e.tickets?.length
    ? ticketChangeStatements(db, s.eventId, e.orderId, e.tickets, e.now, { condition: changedNow })
    : [];
  const results = await runBatch(db, [...stmts, ...tickets, orderStatusQuery(db, e.orderId)]);
  return {
    changed: (results[statusResultIndex(e, stmts.length)] as { id: number }[]).length > 0,
    status: (results[results.length - 1] as { status: string }[])[0]?.status,
    open: (results[results.length - 1] as { open: number }[])[0]?.open ?? 0,
  };
}

/** The writer's replay of a status change (idempotent); the holds and the index follow what D1 then says. */
export async function replayStatus(s: EventState, entry: OutboxKind<"status">): Promise<void> {
  const { status, open } = await writeStatus(s, entry);
  // kept with a fee: no position holds anything any more (D1 says whether the cancellation landed)
  const keptWithFee = entry.extra?.cancellationFee !== undefined && open === 0;
  s.storage.transactionSync(() => {
    if ((status === "n" || status === "p") && !keptWithFee) s.ledger.setOrderPaid(entry.code, status === "p");
    else s.ledger.removeOrder(entry.code);
    if (status !== undefined) s.ci.setOrderStatus(entry.code, status as OrderStatus);
    if (keptWithFee) s.ci.cancelTicketsOfOrder(entry.code);
    if (status === entry.to && entry.extra?.fields) s.ci.setOrderFields(entry.code, entry.extra.fields);
    if (status === entry.to && entry.extra?.requireApproval !== undefined)
      s.ci.setOrderApproval(entry.code, entry.extra.requireApproval);
    forgetRowsOfOrder(s, entry.code);
    // the tickets changed if the status did (changeSecret changes only from the old secret)
    if (status === entry.to) applyTicketChanges(s, entry.tickets ?? []);
  });
}

/** Uses per voucher among positions (demands or holds). */
function voucherUsesOf(positions: readonly { voucherId: number | null }[]): Map<number, number> {
  const uses = new Map<number, number>();
  for (const p of positions) if (p.voucherId !== null) uses.set(p.voucherId, (uses.get(p.voucherId) ?? 0) + 1);
  return uses;
}
