/**
 * Orders answered at the event's object (docs/scaling.md "Orders answered at the event's
 * object"): an accepted order takes its D1 ids from the leased blocks, its tickets go into the
 * index, and the answer leaves. D1 gets it afterwards from the outbox, several to a batch, each
 * once, with `last_modified` the time D1 gets it (so `modified_since` never misses it); its mails
 * and webhook calls are handed on then.
 */
import { autoCheckinStatement } from "../../db/checkin/passages";
import { checkinIdsOfOrder, scanRowsOfOrder } from "../../db/checkin/scan-rows";
import type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
import { runBatch, type Statement } from "../../db/batch";
import type { LeasedTable } from "../../db/id-leases";
import { type OrderWrite, orderWriteStatements, ordersPresent } from "../../db/order-writes";
import { dispatchMail, dispatchWebhooks } from "../../lib/queues";
import { idsLeft, leaseRefill, ORDER_TABLES, takeIds } from "./id-leases";
import { type OutboxKind, outboxSize } from "./outbox";
import { rememberCheckinIds, rememberRows } from "./scan-answers";
import type { EventState } from "./state";
import type { AnsweredOrder, AutoCheckin, ScanRowTemplate } from "./types";

export type AnsweredEntry = OutboxKind<"order"> & { answered: true };

/** At most this many statements go into one batch of answered orders (a batch holds at least one order). */
const BATCH_STATEMENTS = 200;

/**
 * How many decisions D1 may be behind the object by before an order waits for D1 again: what
 * D1 owes (lists, mails, webhooks) stays within what its writer clears in a few seconds, and a
 * rush beyond the writer's pace is slowed to it instead of piling up.
 */
export const AHEAD_LIMIT = 200;

/**
 * Inside the decision's transaction: the order with its D1 ids, its tickets indexed; null when
 * the object cannot answer it alone (a block lacks ids, the code is one the index knows, or D1
 * is `AHEAD_LIMIT` decisions behind: D1 then decides, before the answer).
 */
export function answerOrder(
  s: EventState,
  w: OrderWrite,
  auto: readonly AutoCheckin[],
  scanRows: readonly ScanRowTemplate[] | undefined,
): AnsweredOrder | null {
  if (s.ci.order(w.order.code) || outboxSize(s) >= AHEAD_LIMIT) return null;
  const need: [LeasedTable, number][] = [
    ["orders", 1],
    ["order_positions", w.positions.length],
    ["order_fees", w.fees.length],
    ["order_payments", w.payments.length],
    ["checkins", auto.length],
  ];
  if (need.some(([t, n]) => idsLeft(s, t) < n)) return null;
  const [orderId, positionIds, feeIds, paymentIds, checkinIds] = need.map(([t, n]) => takeIds(s, t, n)!);
  const write: OrderWrite = {
    ...w,
    order: { ...w.order, id: orderId![0]! },
    positions: w.positions.map((p, i) => ({ ...p, id: positionIds![i]! })),
    fees: w.fees.map((f, i) => ({ ...f, id: feeIds![i]! })),
    payments: w.payments.map((p, i) => ({ ...p, id: paymentIds![i]! })),
  };
  const autoCheckins = auto.map((a, i) => ({ ...a, id: checkinIds![i]! }));
  const idOf = new Map(write.positions.map((p) => [p.positionid, p.id!]));
  const baseOf = (p: OrderWrite["positions"][number]) =>
    p.addonToPositionid === null ? null : (idOf.get(p.addonToPositionid) ?? null);
  s.ci.indexOrder(
    {
      code: write.order.code,
      status: write.order.status,
      requireApproval: write.order.requireApproval ?? false,
      validIfPending: false,
      checkinAttention: write.order.checkinAttention ?? false,
      salesChannel: write.order.salesChannel ?? "web",
      locale: write.order.locale ?? null,
    },
    write.positions.map((p) => ({
      id: p.id!,
      secret: p.secret,
      addonTo: baseOf(p),
      itemId: p.itemId,
      variationId: p.variationId ?? null,
      subeventId: p.subeventId ?? null,
      canceled: p.canceled ?? false,
      validFrom: p.validFrom ?? null,
      validUntil: p.validUntil ?? null,
      answers: p.answers,
      blocked: false,
    })),
    true,
  );
  for (const a of autoCheckins)
    s.ci.addPassage({
      uid: a.uid,
      listId: a.listId,
      ticketId: idOf.get(a.positionid)!,
      type: "entry",
      datetime: write.order.datetime,
      nonce: null,
      deviceId: null,
      auto: true,
    });
  rememberCheckinIds(s, autoCheckins);
  // its tickets' scans are answered from these until D1 has the order (which then replaces them)
  if (scanRows?.length === write.positions.length)
    rememberRows(
      s,
      write.positions.map((p, i) => ({
        ...scanRows[i]!,
        id: p.id!,
        addonTo: baseOf(p),
        checkins: "[]",
      })),
    );
  return { write, autoCheckins };
}

/** Per instance: the outbox entries of orders it answered and has not tried to write yet (D1 cannot have those). */
const untried = new WeakMap<EventState, Set<number>>();

/** An order was answered with outbox entry `id` (this instance writes it first). */
export function answeredUntried(s: EventState, id: number): void {
  let set = untried.get(s);
  if (!set) untried.set(s, (set = new Set()));
  set.add(id);
}

export const isAnswered = (e: { kind: string; answered?: boolean }): boolean =>
  e.kind === "order" && e.answered === true;

/** How many of `entries`, from the first, go into one batch. */
export function answeredBatchLength(entries: readonly AnsweredEntry[]): number {
  let statements = 0;
  let n = 0;
  for (const e of entries) {
    statements += 12 + e.write.positions.length + e.write.fees.length + e.write.mails.length;
    if (n > 0 && statements > BATCH_STATEMENTS) break;
    n++;
  }
  return n;
}

/**
 * Writes answered orders to D1: those it does not have yet, in one batch that also reads back
 * what scans of their tickets are answered from, and refills the id blocks; then hands on their
 * mails and webhook calls. Safe to repeat.
 */
export async function writeAnsweredOrders(
  s: EventState,
  held: readonly { id: number; entry: AnsweredEntry }[],
  now: number,
): Promise<void> {
  const db = s.db();
  const entries = held.map((h) => h.entry);
  // D1 may have an order only from an earlier try (whose answer was lost): asked then alone
  const fresh = untried.get(s);
  const tried = held.filter((h) => !fresh?.has(h.id)).map((h) => h.entry.write.order.code);
  for (const h of held) fresh?.delete(h.id);
  const present = await ordersPresent(db, s.eventId, tried);
  const stmts: Statement[] = [];
  const mailsAt: [number, number][] = [];
  const readsAt: number[] = [];
  const written: string[] = [];
  for (const e of entries) {
    const code = e.write.order.code;
    if (present.has(code)) continue;
    // the time D1 has it: what `modified_since` sees
    const write = { ...e.write, order: { ...e.write.order, lastModified: now } };
    const auto = (e.autoCheckins ?? []).map((a) =>
      autoCheckinStatement(db, s.eventId, code, a.positionid, a.uid, a.listId, e.write.order.datetime, a.id ?? null),
    );
    const own = orderWriteStatements(db, write, new Map(e.voucherUses), e.closedQuotaIds, now, auto);
    stmts.push(...own);
    mailsAt.push([stmts.length - write.mails.length, stmts.length]);
    readsAt.push(stmts.length);
    stmts.push(scanRowsOfOrder(db, s.eventId, code), checkinIdsOfOrder(db, s.eventId, code));
    written.push(code);
  }
  if (!stmts.length) return;
  const lease = leaseRefill(s, db, ORDER_TABLES);
  stmts.push(...lease.statements);
  const results = await runBatch(db, stmts);
  s.storage.transactionSync(() => {
    for (const at of readsAt) {
      rememberRows(s, results[at] as CheckinPositionRow[]);
      rememberCheckinIds(s, results[at + 1] as { uid: string; id: number }[]);
    }
    lease.keep(results);
  });
  const mailIds = mailsAt.flatMap(([from, to]) =>
    results.slice(from, to).flatMap((r) => (r as { id: number }[]).map((m) => m.id)),
  );
  if (mailIds.length) await dispatchMail(s.env, mailIds);
  dispatchWebhooks(
    s.env,
    written.map((code) => ({ eventId: s.eventId, code })),
  );
}
