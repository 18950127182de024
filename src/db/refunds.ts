/**
 * Refunds of an order's payments (pretix docs orders.rst, "Order refund endpoints"): the list of an
 * order's refunds, and the conditional statements that create a refund and move it on. Every change
 * is written with its webhook notification under the same condition and touches the order's
 * `last_modified`; the changes Stripe's events bring also hold to the event's claim (db/stripe.ts).
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import type { RefundJson } from "./orders";
import { fetchPage, type ListRequest, type Page } from "./paging";
import { orderPayments, orderRefunds, orders, type RefundSource, type RefundState } from "./schema";
import { claimHeld, claimStatement, type EventClaim } from "./stripe";
import { notificationStatement, REFUND_ACTIONS } from "./webhooks";

/** The states whose refunds count against what a payment has left (pretix's `refunded_amount`). */
const COUNTED = sql`('created', 'transit', 'done')`;

/** What the payment `paymentId` has left to refund (SQL). */
export function leftToRefund(paymentId: number | SQL): SQL<number> {
  return sql<number>`((SELECT y.amount FROM order_payments y WHERE y.id = ${paymentId}) - coalesce((SELECT sum(r.amount) FROM order_refunds r WHERE r.payment_id = ${paymentId} AND r.state IN ${COUNTED}), 0))`;
}

const refundColumns = {
  id: orderRefunds.id,
  local_id: orderRefunds.localId,
  state: orderRefunds.state,
  source: orderRefunds.source,
  amount: orderRefunds.amount,
  payment: sql<number | null>`(SELECT y.local_id FROM order_payments y WHERE y.id = ${orderRefunds.paymentId})`,
  provider: orderRefunds.provider,
  created: orderRefunds.created,
  execution_date: orderRefunds.executionDate,
  comment: orderRefunds.comment,
};

/** A page of an order's refunds, by local id. */
export function listRefunds(db: DB, orderId: number, req: ListRequest): Promise<Page<RefundJson>> {
  const where = eq(orderRefunds.orderId, orderId);
  const rows = db.select(refundColumns).from(orderRefunds).where(where).orderBy(orderRefunds.localId).$dynamic();
  return fetchPage(db, { rows, count: { from: orderRefunds, where } }, req) as Promise<Page<RefundJson>>;
}

/** A refund as its provider's events need it: with its payment, order and event. */
export type RefundFacts = {
  id: number;
  localId: number;
  state: RefundState;
  amount: number;
  paymentId: number | null;
  orderId: number;
  code: string;
  eventId: number;
};

function refundFacts(db: DB, where: SQL) {
  return db
    .select({
      id: orderRefunds.id,
      localId: orderRefunds.localId,
      state: orderRefunds.state,
      amount: orderRefunds.amount,
      paymentId: orderRefunds.paymentId,
      orderId: orders.id,
      code: orders.code,
      eventId: orders.eventId,
    })
    .from(orderRefunds)
    .innerJoin(orders, eq(orders.id, orderRefunds.orderId))
    .where(where)
    .limit(1);
}

/** The refund of a payment that the provider knows as `reference`. */
export function refundOfReference(db: DB, paymentId: number, provider: string, reference: string) {
  return refundFacts(
    db,
    and(
      eq(orderRefunds.paymentId, paymentId),
      eq(orderRefunds.provider, provider),
      eq(orderRefunds.reference, reference),
    )!,
  ).get();
}

/** A refund of a payment by its id (what the service told the provider in the refund's metadata). */
export function refundOfPayment(db: DB, paymentId: number, refundId: number) {
  return refundFacts(db, and(eq(orderRefunds.paymentId, paymentId), eq(orderRefunds.id, refundId))!).get();
}

export type NewRefund = {
  orderId: number;
  eventId: number;
  code: string;
  paymentId: number | null;
  amount: number;
  provider: string;
  source: RefundSource;
  state: RefundState;
  comment: string | null;
  reference: string | null;
  executionDate: number | null;
  now: number;
};

/**
 * Inserts a refund with the next local id, only where `condition` holds, with its notifications
 * (`actions`) under the same condition, and touches the order. The insert comes last and
 * returns the refund's id and local id (none: the condition did not hold).
 */
function insertRefundStatements(db: DB, r: NewRefund, condition: SQL, actions: string[]): BatchItem<"sqlite">[] {
  // columns in table order: id, order_id, local_id, payment_id, state, source, amount, provider, created, execution_date, comment, reference
  return [
    notificationStatement(db, { eventId: r.eventId, code: r.code, actions, now: r.now, condition }),
    db
      .update(orders)
      .set({ lastModified: r.now })
      .where(and(eq(orders.id, r.orderId), condition)),
    db
      .insert(orderRefunds)
      .select(
        sql`SELECT NULL, ${r.orderId}, (SELECT coalesce(max(x.local_id), 0) + 1 FROM order_refunds x WHERE x.order_id = ${r.orderId}), ${r.paymentId}, ${r.state}, ${r.source}, ${r.amount}, ${r.provider}, ${r.now}, ${r.executionDate}, ${r.comment}, ${r.reference} WHERE ${condition}`,
      )
      .onConflictDoNothing()
      .returning({ id: orderRefunds.id, localId: orderRefunds.localId }),
  ];
}

async function runInsert(db: DB, stmts: BatchItem<"sqlite">[]): Promise<{ id: number; localId: number } | null> {
  const results = (await db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return (results[results.length - 1] as { id: number; localId: number }[])[0] ?? null;
}

/**
 * A refund the organizer starts (state `created`, source `admin`): only while the payment is
 * confirmed and has at least the amount left. Null: it did not fit (any more). The check is part of
 * the statement that inserts, so two refunds at once never take more than the payment has.
 */
export function createRefund(
  db: DB,
  r: Omit<NewRefund, "source" | "state" | "reference" | "executionDate"> & { paymentId: number },
) {
  const fits = sql`EXISTS (SELECT 1 FROM order_payments y WHERE y.id = ${r.paymentId} AND y.state = 'confirmed') AND ${leftToRefund(r.paymentId)} >= ${r.amount}`;
  return runInsert(
    db,
    insertRefundStatements(
      db,
      { ...r, source: "admin", state: "created", reference: null, executionDate: null },
      fits,
      [REFUND_ACTIONS.created],
    ),
  );
}

/**
 * A refund made outside the service (Stripe's dashboard, a dispute), as an event reports it:
 * recorded once per provider reference, with the event's claim (pretix's
 * `create_external_refund`: state `external`, or `done` when it returns an overpayment).
 */
export async function recordExternalRefund(db: DB, c: EventClaim, r: NewRefund) {
  const stmts: BatchItem<"sqlite">[] = [
    claimStatement(db, c),
    ...insertRefundStatements(
      db,
      r,
      sql`${claimHeld(c)} AND NOT EXISTS (SELECT 1 FROM order_refunds x WHERE x.provider = ${r.provider} AND x.reference = ${r.reference})`,
      [REFUND_ACTIONS.createdExternally],
    ),
  ];
  if (r.state === "done" && r.paymentId !== null) stmts.push(paymentRefundedStatement(db, r.paymentId));
  const results = (await db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return (results[3] as { id: number; localId: number }[])[0] ?? null;
}

/**
 * A refund the organizer records directly (pretix's `POST .../refunds/`: any state and source),
 * with `refund.created` and, for a refund created done, canceled or failed, that state's
 * notification. Of a payment, and in a state that counts against it, only while the payment has
 * at least the amount left (checked in the statement that inserts). Null: it did not fit.
 */
export function recordRefund(db: DB, r: NewRefund) {
  const counts = r.paymentId !== null && ["created", "transit", "done"].includes(r.state);
  const fits = counts ? sql`${leftToRefund(r.paymentId!)} >= ${r.amount}` : sql`1`;
  const actions: string[] = [REFUND_ACTIONS.created];
  const stateAction = REFUND_STATE_ACTION[r.state];
  if (stateAction) actions.push(stateAction);
  const stmts = insertRefundStatements(db, r, fits, actions);
  if (r.state === "done" && r.paymentId !== null) stmts.push(paymentRefundedStatement(db, r.paymentId));
  return db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]).then((results) => {
    return ((results as unknown[])[2] as { id: number; localId: number }[])[0] ?? null;
  });
}

const REFUND_STATE_ACTION: Partial<Record<RefundState, string>> = {
  done: REFUND_ACTIONS.done,
  failed: REFUND_ACTIONS.failed,
  canceled: REFUND_ACTIONS.canceled,
};

/**
 * A payment whose refunds that are done cover its amount becomes `refunded` (pretix's
 * `OrderRefund.done`). Placed after the refund's change in the batch.
 */
function paymentRefundedStatement(db: DB, paymentId: number) {
  return db
    .update(orderPayments)
    .set({ state: "refunded" })
    .where(
      and(
        eq(orderPayments.id, paymentId),
        eq(orderPayments.state, "confirmed"),
        sql`coalesce((SELECT sum(r.amount) FROM order_refunds r WHERE r.payment_id = ${paymentId} AND r.state = 'done'), 0) >= ${orderPayments.amount}`,
      ),
    );
}

/**
 * Moves a refund from one of `from` to `to` (with the provider's reference when it becomes
 * known; `done` sets the execution date), with the notification of its new state, only where
 * `condition` holds (an event's claim). Returns whether the refund changed.
 */
export async function changeRefund(
  db: DB,
  r: { id: number; orderId: number; eventId: number; code: string; paymentId: number | null },
  change: { from: RefundState[]; to: RefundState; reference: string | null; now: number },
  claim: EventClaim | null,
): Promise<boolean> {
  const held = claim ? claimHeld(claim) : sql`1`;
  const applies = sql`EXISTS (SELECT 1 FROM order_refunds x WHERE x.id = ${r.id} AND x.state IN (${sql.join(
    change.from.map((s) => sql`${s}`),
    sql`, `,
  )})) AND ${held}`;
  const stmts: BatchItem<"sqlite">[] = claim ? [claimStatement(db, claim)] : [];
  const action = REFUND_STATE_ACTION[change.to];
  if (action)
    stmts.push(
      notificationStatement(db, {
        eventId: r.eventId,
        code: r.code,
        actions: [action],
        now: change.now,
        condition: applies,
      }),
    );
  stmts.push(
    db
      .update(orders)
      .set({ lastModified: change.now })
      .where(and(eq(orders.id, r.orderId), applies)),
  );
  stmts.push(
    db
      .update(orderRefunds)
      .set({
        state: change.to,
        ...(change.reference ? { reference: change.reference } : {}),
        ...(change.to === "done" ? { executionDate: change.now } : {}),
      })
      .where(and(eq(orderRefunds.id, r.id), inArray(orderRefunds.state, change.from), held))
      .returning({ id: orderRefunds.id }),
  );
  const refundAt = stmts.length - 1;
  if (change.to === "done" && r.paymentId !== null) stmts.push(paymentRefundedStatement(db, r.paymentId));
  const results = (await db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  const updated = results[refundAt];
  return Array.isArray(updated) && updated.length > 0;
}

/** Keeps the provider's reference of a refund (once known), whatever its state. */
export async function setRefundReference(db: DB, refundId: number, reference: string): Promise<void> {
  await db
    .update(orderRefunds)
    .set({ reference })
    .where(and(eq(orderRefunds.id, refundId), sql`${orderRefunds.reference} IS NULL`));
}

/** A new expiry for a paid order that is about to be pending again (changes nothing once it is not paid). */
export async function setPaidOrderExpiry(db: DB, orderId: number, expires: number): Promise<void> {
  await db
    .update(orders)
    .set({ expires })
    .where(and(eq(orders.id, orderId), eq(orders.status, "p")));
}
