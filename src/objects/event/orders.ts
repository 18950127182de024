/**
 * Sales: order placement and order status changes. An acquisition (new holds, and an on-sale
 * queue admission's order count: waiting-room-admissions.ts) is decided and recorded with its outbox
 * entry without yielding, then written to D1; a release is written to D1 first, then taken from
 * the ledger, so an in-flight write never frees capacity twice. A failed D1 write is asked about:
 * not written gives the capacity back, unknown leaves it to the alarm. The object writes every
 * order (holds: order-book.ts), so it indexes the new tickets for check-in too.
 */
import { eq, sql } from "drizzle-orm";
import { runBatch, type Statement } from "../../db/catalog-common";
import { autoCheckinStatement } from "../../db/checkin/passages";
import { checkinIdsOfOrder, scanRowsOfOrder } from "../../db/checkin/scan-rows";
import type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
import type { DB } from "../../db/client";
import { type OrderWrite, orderExists, orderWriteStatements } from "../../db/inventory";
import { orderByCode, type PositionJson, type RawOrder } from "../../db/orders";
import { statusResultIndex, statusWriteStatements } from "../../db/payments";
import { type OrderStatus, orders } from "../../db/schema";
import { ticketChangeStatements } from "../../db/ticket-secrets";
import { dispatchMail } from "../../lib/queues";
import { onList } from "../../rules/checkin";
import type { Refusal } from "../../rules/inventory";
import { releaseCartHold, restoreCartHolds } from "./carts";
import { clearOutbox, handToAlarm, type OutboxKind, writeOutbox } from "./outbox";
import { leaseRefill, ORDER_TABLES } from "./id-leases";
import { answeredUntried, answerOrder } from "./orders-answered";
import type { EventState } from "./state";
import { admissionHasRoom, countAdmissionOrder, uncountAdmissionOrder } from "./waiting-room-admissions";
import { forgetRowsOfOrder, rememberCheckinIds, rememberRows } from "./scan-answers";
import { applyTicketChanges } from "./tickets";
import type { AnsweredOrder, AutoCheckin, OrderDecision, OrderRequest, StatusChange, StatusDecision } from "./types";

const STATUS_RELEASES = new Set(["c", "e"]);

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-writer (issue 36)
export async function placeOrder(s: EventState, stamp: number, req: OrderRequest): Promise<OrderDecision> {
  await s.ensureCatalog(stamp);
  // priced on a copy that had not seen what the object has: read again at the primary (services/orders/replica-first.ts)
  if (req.catalogFromReplica && stamp < s.ledger.stamp) return { ok: false, refusals: [], staleCatalog: true };
  const now = Date.now();
  let outboxId = 0;
  let refusals: Refusal[] = [];
  const closed: number[] = [];
  let consumed: string[] = [];
  let autoCheckins: AutoCheckin[] = [];
  let answered: AnsweredOrder | null = null;
  const voucherUses = voucherUsesOf(req.demands);
  const admission = req.admission ?? null;
  let admissionUsed = false;

  s.storage.transactionSync(() => {
    if (admission && !admissionHasRoom(s, admission, now)) {
      admissionUsed = true;
      return;
    }
    consumed = s.ledger.cartHoldKeysOf(req.consumeCartIds);
    refusals = s.ledger.check(req.demands, now, { cartHoldKeys: new Set(consumed) }, { ignoreQuota: req.ignoreQuota });
    if (refusals.length) return;
    if (admission) countAdmissionOrder(s, admission, now);
    for (const hk of consumed) releaseCartHold(s, hk);
    s.ledger.addOrder(req.code, req.demands, req.paid);
    for (const q of s.ledger.touchedQuotas(req.demands)) {
      if (q.closeWhenSoldOut && !q.closed && s.ledger.availability(q, now).available_number === 0) {
        s.ledger.markQuotaClosed(q.id);
        closed.push(q.id);
      }
    }
    autoCheckins = autoCheckinsOf(s, req.write);
    // answered now when it can be (orders-answered.ts): the outbox's writer gives D1 the order after the answer
    answered = req.answerHere ? answerOrder(s, req.write, autoCheckins, req.scanRows) : null;
    outboxId = writeOutbox(
      s,
      answered
        ? {
            kind: "order",
            write: answered.write,
            voucherUses: [...voucherUses],
            closedQuotaIds: closed,
            autoCheckins: answered.autoCheckins,
            answered: true,
          }
        : { kind: "order", write: req.write, voucherUses: [...voucherUses], closedQuotaIds: closed, autoCheckins },
      now,
    );
  });
  if (admissionUsed) return { ok: false, refusals: [], admissionUsed };
  if (refusals.length) return { ok: false, refusals };
  if (answered) {
    answeredUntried(s, outboxId);
    return { ok: true, order: null, answered };
  }

  s.inflight.add(outboxId);
  let mailIds: number[] = [];
  let written: RawOrder | null = null;
  let scanRows: CheckinPositionRow[] = [];
  let checkinIds: { uid: string; id: number }[] = [];
  let lease: ReturnType<typeof leaseRefill> | null = null;
  let results: unknown[] | null = null;
  try {
    const db = s.db();
    // the write, then the order read back in the same transaction (saves the caller a round trip)
    const stmts: Statement[] = [
      ...orderWriteStatements(
        db,
        req.write,
        voucherUses,
        closed,
        now,
        autoCheckinStatements(s, db, req.write, autoCheckins, now),
      ),
      orderByCode(db, req.write.order.eventId, req.code),
      // what scans of its tickets are answered from (scan-answers.ts)
      scanRowsOfOrder(db, s.eventId, req.code),
      checkinIdsOfOrder(db, s.eventId, req.code),
    ];
    const last = stmts.length - 3;
    // the id blocks the next orders are answered from (orders-answered.ts)
    lease = leaseRefill(s, db, ORDER_TABLES);
    stmts.push(...lease.statements);
    results = await runBatch(db, stmts);
    mailIds = results
      .slice(last - req.write.mails.length, last)
      .flatMap((r) => (r as { id: number }[]).map((m) => m.id));
    written = (results[last] as RawOrder[])[0] ?? null;
    scanRows = results[last + 1] as CheckinPositionRow[];
    checkinIds = results[last + 2] as { uid: string; id: number }[];
  } catch (e) {
    // A batch is one transaction, but a failed call does not always say whether it committed:
    // ask D1. Written → it is a success after all; not written → give the capacity back;
    // unknown → keep everything for the alarm, which finishes the write.
    const exists = await orderExists(s.db(), req.write.order.eventId, req.code).catch(() => undefined);
    if (exists === undefined) {
      await handToAlarm(s, outboxId);
      throw e;
    }
    if (!exists) {
      s.storage.transactionSync(() => {
        s.ledger.removeOrder(req.code);
        if (admission) uncountAdmissionOrder(s, admission);
        clearOutbox(s, outboxId);
      });
      // The consumed carts stay consumed in the ledger only if D1 deleted them; D1 did not.
      await restoreCartHolds(s, consumed);
      throw e;
    }
    // written: its mails were stored queued; the housekeeping sweep hands them on
  }
  s.storage.transactionSync(() => {
    if (written) indexWrittenOrder(s, written, autoCheckins, now);
    rememberRows(s, scanRows);
    rememberCheckinIds(s, checkinIds);
    if (results) lease?.keep(results);
    clearOutbox(s, outboxId);
  });
  if (mailIds.length) await dispatchMail(s.env, mailIds);
  return { ok: true, order: written };
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

function autoCheckinStatements(
  s: EventState,
  db: DB,
  w: OrderWrite,
  auto: readonly AutoCheckin[],
  now: number,
): Statement[] {
  return auto.map((a) => autoCheckinStatement(db, s.eventId, w.order.code, a.positionid, a.uid, a.listId, now));
}

/** Indexes an order the object just wrote (read back from D1 with its ids), with its automatic check-ins. */
export function indexWrittenOrder(s: EventState, raw: RawOrder, auto: readonly AutoCheckin[], now: number): void {
  const positions = JSON.parse(raw.positions) as PositionJson[];
  s.ci.indexOrder(
    {
      code: raw.order.code,
      status: raw.order.status,
      requireApproval: raw.order.requireApproval,
      validIfPending: false,
      checkinAttention: raw.order.checkinAttention,
      salesChannel: raw.order.salesChannel,
      locale: raw.order.locale,
    },
    positions.map(ticketOfPosition),
    true,
  );
  for (const a of auto) {
    const p = positions.find((x) => x.positionid === a.positionid);
    if (p)
      s.ci.addPassage({
        uid: a.uid,
        listId: a.listId,
        ticketId: p.id,
        type: "entry",
        datetime: now,
        nonce: null,
        deviceId: null,
        auto: true,
      });
  }
}

/** A position of an order read back from D1, as the ticket index takes it. */
function ticketOfPosition(p: PositionJson) {
  return {
    id: p.id,
    secret: p.secret,
    addonTo: p.addon_to,
    itemId: p.item,
    variationId: p.variation,
    subeventId: p.subevent,
    canceled: p.canceled === 1,
    validFrom: p.valid_from,
    validUntil: p.valid_until,
    answers: p.answers,
    blocked: (p.blocked?.length ?? 0) > 0,
  };
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
  let outboxId = 0;
  const entry: OutboxKind<"status"> = {
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

  if (wantHolding && !holding) {
    // acquisition: decide and record first
    let refusals: Refusal[] = [];
    s.storage.transactionSync(() => {
      refusals = s.ledger.check(req.demands, now, undefined, { ignoreQuota: req.ignoreQuota });
      if (refusals.length) return;
      s.ledger.addOrder(req.code, req.demands, req.to === "p");
      outboxId = writeOutbox(s, entry, now);
    });
    if (refusals.length) return { ok: false, refusals };
  } else {
    outboxId = writeOutbox(s, entry, now);
  }
  s.inflight.add(outboxId);
  let changed: boolean;
  try {
    ({ changed } = await writeStatus(s, entry));
  } catch (e) {
    // Did the write commit? D1's status of the order tells; if it cannot be read, the alarm
    // replays the (idempotent) write and settles the holds by what D1 then says.
    const row = await orderStatusQuery(s.db(), req.orderId)
      .get()
      .catch(() => undefined);
    // a change that keeps the status cannot be told from the status: the alarm replays it (idempotent)
    if (row === undefined || req.from.includes(req.to) || (row.status !== req.to && !req.from.includes(row.status))) {
      await handToAlarm(s, outboxId);
      throw e;
    }
    if (row.status !== req.to) {
      if (wantHolding && !holding) s.ledger.removeOrder(req.code);
      clearOutbox(s, outboxId);
      throw e;
    }
    changed = true;
  }
  s.storage.transactionSync(() => {
    if (!changed) {
      if (wantHolding && !holding) s.ledger.removeOrder(req.code);
    } else if (!wantHolding) {
      s.ledger.removeOrder(req.code);
    } else if (holding) {
      s.ledger.setOrderPaid(req.code, req.to === "p");
    }
    if (changed) {
      s.ci.setOrderStatus(req.code, req.to);
      if (req.extra?.requireApproval !== undefined) s.ci.setOrderApproval(req.code, req.extra.requireApproval);
      if (req.extra?.cancellationFee !== undefined) s.ci.cancelTicketsOfOrder(req.code);
      if (req.extra?.fields) s.ci.setOrderFields(req.code, req.extra.fields);
      applyTicketChanges(s, req.tickets ?? []);
      forgetRowsOfOrder(s, req.code);
    }
    clearOutbox(s, outboxId);
  });
  return { ok: true, changed };
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
  const changedNow = sql`EXISTS (SELECT 1 FROM orders o WHERE o.id = ${e.orderId} AND o.status = ${e.to} AND o.last_modified = ${e.now})`;
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

/** The alarm's replay of an order: the decision was taken and recorded; D1 gets the order unless it has it. */
export async function replayOrder(s: EventState, entry: OutboxKind<"order">, now: number): Promise<void> {
  const db = s.db();
  if (!(await orderExists(db, entry.write.order.eventId, entry.write.order.code))) {
    const auto = autoCheckinStatements(s, db, entry.write, entry.autoCheckins ?? [], now);
    const stmts = orderWriteStatements(db, entry.write, new Map(entry.voucherUses), entry.closedQuotaIds, now, auto);
    await runBatch(db, stmts);
  }
}

/** The alarm's replay of a status change (idempotent); the holds and the index follow what D1 then says. */
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

/** The order's status, and how many of its positions are not canceled. */
const orderStatusQuery = (db: DB, orderId: number) =>
  db
    .select({
      status: orders.status,
      open: sql<number>`(SELECT count(*) FROM order_positions p WHERE p.order_id = ${orderId} AND p.canceled = 0)`,
    })
    .from(orders)
    .where(eq(orders.id, orderId));

/** Uses per voucher among positions (demands or holds). */
function voucherUsesOf(positions: readonly { voucherId: number | null }[]): Map<number, number> {
  const uses = new Map<number, number>();
  for (const p of positions) if (p.voucherId !== null) uses.set(p.voucherId, (uses.get(p.voucherId) ?? 0) + 1);
  return uses;
}
