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
import { indexWrittenOrder } from "./orders-answered";
import type { OutboxKind } from "./outbox";
import { forgetRowsOfOrder } from "./scan-answers";
import { applyTicketChanges } from "./tickets";
import type { EventState } from "./state";
import type { OrderChangeDecision, OrderChangeRequest } from "./types";
import { writeOwn } from "./write-own";

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
    out = { outboxId: s.outbox.write(entry, now) };
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
  const flight = s.changingOrders;
  if (flight.has(req.code)) return { ok: false, stale: true };
  const before = s.ledger.orderHolds(req.code)?.positions ?? [];
  const decision = decide(s, req, Date.now());
  if ("stale" in decision) return { ok: false, stale: true };
  if ("refusals" in decision) return { ok: false, refusals: decision.refusals };
  flight.add(req.code);
  try {
    return await writeChange(s, req, decision.outboxId, before);
  } finally {
    flight.delete(req.code);
  }
}

/** D1 gets the change, conditionally on the order's version, before the answer; the holds follow what it took. */
async function writeChange(
  s: EventState,
  req: OrderChangeRequest,
  outboxId: number,
  before: readonly Hold[],
): Promise<OrderChangeDecision> {
  const settle = (took: boolean, raw: RawOrder | null, status: string | null) =>
    s.storage.transactionSync(() => {
      if (!took) undo(s, req.code, before);
      else applyTicketChanges(s, req.write.tickets);
      if (took && raw) indexWrittenOrder(s, raw, [], req.write.now);
      // a paid order whose total grew beyond what was paid is pending now
      if (took && status !== null) s.ledger.setOrderPaid(req.code, status === "p");
      forgetRowsOfOrder(s, req.code);
    });
  // did the batch commit? The order's version tells; unknown → the alarm replays it
  const outcome = await writeOwn(
    s,
    outboxId,
    async () => {
      const db = s.db();
      const results = await runBatch(db, [
        ...changeWriteStatements(db, req.write),
        orderByCode(db, req.write.eventId, req.code),
      ]);
      const took = (results[0] as { id: number }[]).length > 0;
      const raw = (results[results.length - 1] as RawOrder[])[0] ?? null;
      settle(took, raw, raw?.order.status ?? null);
      return took ? raw : undefined;
    },
    () => orderVersion(s.db(), req.write.orderId),
  );
  if ("written" in outcome)
    return outcome.written === undefined ? { ok: false, stale: true } : { ok: true, order: outcome.written };
  const version = outcome.asked;
  const took = version?.m === req.write.now;
  settle(took, null, took ? version!.status : null);
  s.outbox.remove(outboxId);
  if (!took) throw outcome.error;
  return { ok: true, order: null };
}

/** The writer's replay (idempotent: the write applies only to the version it was decided on); the holds follow what D1 then says. */
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
