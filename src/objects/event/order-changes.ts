/**
 * Order changes (pretix docs orders.rst "Changing order contents", a position's DELETE): one
 * decision on the whole change. Without yielding, the order's holds become what it keeps, the
 * new and changed positions are checked against that, and the holds it will have are recorded
 * with an outbox entry; then D1 is written, conditionally on the order's version. A change D1
 * did not take (stale, or the order left n/p) gives the old holds back. One change per order at
 * a time: a second one while the first is written is stale.
 */
import { runBatch } from "../../db/batch";
import { changeWriteStatements, orderVersion } from "../../db/order-changes";
import { orderByCode, type RawOrder } from "../../db/orders";
import { type Demand, type Hold, keyOf, type Refusal } from "../../rules/inventory";
import { indexWrittenOrder } from "./orders";
import { clearOutbox, handToAlarm, type OutboxKind, writeOutbox } from "./outbox";
import { forgetRowsOfOrder } from "./scan-answers";
import { applyTicketChanges } from "./tickets";
import type { EventState } from "./state";
import type { OrderChangeDecision, OrderChangeRequest } from "./types";

/** Orders with a change being written, per object state. */
const changing = new WeakMap<EventState, Set<string>>();

function inFlight(s: EventState): Set<string> {
  let set = changing.get(s);
  if (!set) changing.set(s, (set = new Set()));
  return set;
}

/**
 * pretix checks a change against a quota only where the change takes more of it than it gives
 * back (its positions added less those removed or moved away): a quota refusal elsewhere, a
 * quota already over its size that the change does not grow, is no refusal.
 */
function growsQuotas(s: EventState, before: readonly Hold[], kept: readonly Demand[], demands: readonly Demand[]) {
  const net = new Map<number, number>();
  const count = (key: string, d: number) => {
    for (const q of s.ledger.quotasOfKey(key)) net.set(q.id, (net.get(q.id) ?? 0) + d);
  };
  for (const h of before) count(h.key, -1);
  for (const d of [...kept, ...demands]) count(keyOf(d.itemId, d.variationId, d.subeventId), 1);
  return (r: Refusal) => r.code !== "quota" || r.quotaId === null || (net.get(r.quotaId) ?? 0) > 0;
}

/** Takes the decision and records it (sync); the outbox entry's id, or why not. */
function decide(
  s: EventState,
  req: OrderChangeRequest,
  now: number,
): { outboxId: number } | { refusals: Refusal[] } | { stale: true } {
  let out: { outboxId: number } | { refusals: Refusal[] } | { stale: true } = { stale: true };
  s.storage.transactionSync(() => {
    // an order kept with a cancellation fee holds nothing: its change starts from no holds
    const before = s.ledger.orderHolds(req.code) ?? { positions: [], paid: req.paid };
    s.ledger.replaceOrder(req.code, req.kept, before.paid);
    // pretix does not check a kept voucher's validity again when its position changes
    const grows = growsQuotas(s, before.positions, req.kept, req.demands);
    const refusals = s.ledger
      .check(req.demands, now, undefined, { ignoreQuota: req.ignoreQuota })
      .filter((r) => r.code !== "voucher_expired" && grows(r));
    if (refusals.length) {
      s.ledger.replaceOrder(req.code, before.positions, before.paid);
      out = { refusals };
      return;
    }
    s.ledger.replaceOrder(req.code, [...req.kept, ...req.demands], before.paid);
    const entry: OutboxKind<"change"> = { kind: "change", write: req.write, before: before.positions };
    out = { outboxId: writeOutbox(s, entry, now) };
  });
  return out;
}

/** Gives the order its old holds back (the change did not reach D1; none: it holds nothing again); not when it holds nothing any more (canceled meanwhile). */
function undo(s: EventState, code: string, before: readonly Hold[]): void {
  const now = s.ledger.orderHolds(code);
  if (now && before.length === 0) s.ledger.removeOrder(code);
  else if (now) s.ledger.replaceOrder(code, before, now.paid);
}

export async function changeOrder(s: EventState, stamp: number, req: OrderChangeRequest): Promise<OrderChangeDecision> {
  await s.ensureCatalog(stamp);
  const flight = inFlight(s);
  if (flight.has(req.code)) return { ok: false, stale: true };
  const before = s.ledger.orderHolds(req.code)?.positions ?? [];
  const decision = decide(s, req, Date.now());
  if ("stale" in decision) return { ok: false, stale: true };
  if ("refusals" in decision) return { ok: false, refusals: decision.refusals };
  const { outboxId } = decision;
  flight.add(req.code);
  s.inflight.add(outboxId);
  try {
    let took: boolean;
    let raw: RawOrder | null = null;
    let status: string | null = null;
    try {
      const db = s.db();
      const results = await runBatch(db, [
        ...changeWriteStatements(db, req.write),
        orderByCode(db, req.write.eventId, req.code),
      ]);
      took = (results[0] as { id: number }[]).length > 0;
      raw = (results[results.length - 1] as RawOrder[])[0] ?? null;
      status = raw?.order.status ?? null;
    } catch (e) {
      // did the batch commit? The order's version tells; unknown → the alarm replays it
      const version = await orderVersion(s.db(), req.write.orderId).catch(() => null);
      if (version === null) {
        await handToAlarm(s, outboxId);
        throw e;
      }
      if (version?.m !== req.write.now) {
        s.storage.transactionSync(() => {
          undo(s, req.code, before);
          clearOutbox(s, outboxId);
        });
        throw e;
      }
      took = true;
      status = version.status;
    }
    s.storage.transactionSync(() => {
      if (!took) undo(s, req.code, before);
      else applyTicketChanges(s, req.write.tickets);
      if (took && raw) indexWrittenOrder(s, raw, [], req.write.now);
      // a paid order whose total grew beyond what was paid is pending now
      if (took && status !== null) s.ledger.setOrderPaid(req.code, status === "p");
      forgetRowsOfOrder(s, req.code);
      clearOutbox(s, outboxId);
    });
    return took ? { ok: true, order: raw } : { ok: false, stale: true };
  } finally {
    flight.delete(req.code);
  }
}

/** The alarm's replay (idempotent: the write applies only to the version it was decided on); the holds follow what D1 then says. */
export async function replayChange(s: EventState, entry: OutboxKind<"change">): Promise<void> {
  const db = s.db();
  await runBatch(db, changeWriteStatements(db, entry.write));
  const version = await orderVersion(db, entry.write.orderId);
  s.storage.transactionSync(() => {
    if (version?.m !== entry.write.now) undo(s, entry.write.code, entry.before);
    else {
      s.ledger.setOrderPaid(entry.write.code, version.status === "p");
      applyTicketChanges(s, entry.write.tickets);
    }
  });
  forgetRowsOfOrder(s, entry.write.code);
}
