/**
 * Order status writes (the event object's D1 side of changeOrderStatus: one conditional batch per
 * change, `statusWriteStatements`) and the payment rows the customer-facing payment pages create.
 */
import { and, eq, gte, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { grantMembershipsStatement } from "./order-writes";
import { claimHeld, claimStatement, type EventClaim } from "./stripe";
import {
  extraAfterStatements,
  extraBeforeStatements,
  extraGate,
  extraOrderColumns,
  type StatusExtra,
} from "./order-actions";
import { reconcileTransactions } from "./transactions";
import { notificationStatement, ORDER_ACTIONS, statusNotification } from "./webhooks";
import {
  type OrderStatus,
  type PaymentState,
  orderPayments,
  orderPositions,
  orders,
  giftCards,
  giftCardTransactions,
  vouchers,
} from "./schema";

/**
 * A gift card paying a payment in the same transaction as the order becomes paid. `reference`
 * is a random value unique to the request: the payment row records it when this request
 * claims the payment, and the debit applies only under that claim.
 */
export type GiftCardDebit = {
  cardId: number;
  amount: number;
  paymentId: number;
  reference: string;
  /** The organizer of the event: the card must be its own or one it accepts. */
  organizerId: number;
  currency: string;
  testmode: boolean;
  /** Text of the gift card transaction. */
  text: string;
};

export type StatusWrite = {
  orderId: number;
  code: string;
  from: OrderStatus[];
  to: OrderStatus;
  now: number;
  confirmPaymentId: number | null;
  cancelPayments: boolean;
  giftCard: GiftCardDebit | null;
  /**
   * A payment provider's event that brings the change (a Stripe webhook): recorded first in the
   * batch, and the whole change conditional on that record being this delivery's (db/stripe.ts).
   */
  eventClaim?: EventClaim | null;
  /** What the change does besides the status (order-actions.ts): a new term, an approval, a cancellation fee. */
  extra?: StatusExtra;
  /**
   * The order becomes paid only if its payments cover its total (pretix's `OrderPayment.confirm`):
   * confirmed payments, and the payment this change confirms (`confirmPaymentId`, or the gift
   * card's) while it is still open, less the refunds that count.
   */
  covered?: boolean;
};

const HOLDING: OrderStatus[] = ["n", "p"];

function list(values: readonly (string | number)[]): SQL {
  return sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );
}

/** The order's status before this batch is one of `statuses`. */
function statusIn(orderId: number, statuses: OrderStatus[]): SQL {
  return sql`(SELECT o.status FROM orders o WHERE o.id = ${orderId}) IN (${list(statuses)})`;
}

/** The card exists, is the organizer's or accepted by it, fits the order and holds `amount`. */
function cardUsable(d: GiftCardDebit, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM gift_cards gc WHERE gc.id = ${d.cardId} AND gc.value >= ${d.amount}
    AND gc.currency = ${d.currency} AND gc.testmode = ${d.testmode ? 1 : 0} AND (gc.expires IS NULL OR gc.expires >= ${now})
    AND (gc.issuer_id = ${d.organizerId} OR gc.issuer_id IN
      (SELECT a.issuer_id FROM gift_card_acceptances a WHERE a.acceptor_id = ${d.organizerId} AND a.active = 1)))`;
}

/**
 * The order's payments cover its total (pretix: payment sum less refund sum not below the
 * total): the confirmed and refunded payments, and `paymentId` while it is open (it is being
 * confirmed in the same batch), less the refunds in state created, transit or done.
 */
export function coveredCondition(orderId: number, paymentId: number | null): SQL {
  const open = paymentId === null ? sql`0` : sql`(y.id = ${paymentId} AND y.state IN ('created', 'pending'))`;
  return sql`(SELECT coalesce(sum(y.amount), 0) FROM order_payments y WHERE y.order_id = ${orderId}
      AND (y.state IN ('confirmed', 'refunded') OR ${open}))
    - (SELECT coalesce(sum(r.amount), 0) FROM order_refunds r WHERE r.order_id = ${orderId}
      AND r.state IN ('created', 'transit', 'done'))
    >= (SELECT o.total FROM orders o WHERE o.id = ${orderId})`;
}

/** This request's claim on the payment is recorded. */
function claimed(d: GiftCardDebit): SQL {
  return sql`EXISTS (SELECT 1 FROM order_payments op WHERE op.id = ${d.paymentId} AND op.state = 'confirmed'
    AND json_extract(op.info, '$.reference') = ${d.reference})`;
}

/**
 * The statements of a status change; the last one is the status update, returning the id when
 * the order changed. `voucherUses` are the order's voucher redemptions (voucher id → count):
 * given back when the order stops holding capacity (to c/e), taken again when it starts
 * holding again (from c/e to n/p), untouched between n and p. Every statement carries the same
 * precondition on the status before the change (and, for a gift card payment, this request's claim
 * on the payment), so the batch applies whole or not at all, and a replay after it committed finds
 * the status moved on and changes nothing: outbox replays are safe.
 */
export function statusWriteStatements(
  db: DB,
  eventId: number,
  w: StatusWrite,
  voucherUses: Map<number, number>,
): BatchItem<"sqlite">[] {
  const stmts: BatchItem<"sqlite">[] = [];
  let gate = statusGate(w);
  if (w.eventClaim) {
    stmts.push(claimStatement(db, w.eventClaim));
    gate = sql`${gate} AND ${claimHeld(w.eventClaim)}`;
  }
  if (w.covered)
    gate = sql`${gate} AND ${coveredCondition(w.orderId, w.confirmPaymentId ?? w.giftCard?.paymentId ?? null)}`;
  if (w.giftCard) {
    stmts.push(...giftCardDebitStatements(db, w, w.giftCard, gate));
    gate = sql`${gate} AND ${claimed(w.giftCard)}`;
  }
  stmts.push(...voucherUseStatements(db, eventId, w, voucherUses, gate));
  stmts.push(...paymentStatements(db, w, gate));
  // the webhook calls reporting the change, under the same precondition (db/webhooks.ts)
  const paymentConfirmed = w.confirmPaymentId !== null || w.giftCard !== null;
  const notification = statusNotification(
    db,
    { eventId, code: w.code, to: w.to, now: w.now, actions: w.extra?.actions, paymentConfirmed },
    gate,
  );
  if (notification) stmts.push(notification);
  stmts.push(...extraBeforeStatements(db, eventId, w.orderId, w.extra, voucherUses, gate));
  stmts.push(orderStatusUpdate(db, eventId, w, gate));
  stmts.push(...extraAfterStatements(db, w.orderId, w.extra, w.now));
  // the positions' copy of the status follows whatever the order's is now (changed or not)
  stmts.push(
    db
      .update(orderPositions)
      .set({ orderStatus: sql`(SELECT o.status FROM orders o WHERE o.id = ${w.orderId})` })
      .where(eq(orderPositions.orderId, w.orderId)),
  );
  // what the order owes after the change, in the ledger (idempotent: nothing when the status did not change)
  stmts.push(reconcileTransactions(db, w.orderId, w.now, w.now));
  // paid now: the memberships its positions grant (after the status; idempotent per position).
  // Callers read the status update's result back; statusResultIndex says where it stands.
  if (grantsMemberships(w)) stmts.push(grantMembershipsStatement(db, w.orderId, w.now));
  return stmts;
}

/** The precondition on the status before the change, and the extra one the change names. */
function statusGate(w: StatusWrite): SQL {
  const gate = statusIn(w.orderId, w.from);
  const more = extraGate(w.orderId, w.extra);
  return more ? sql`${gate} AND ${more}` : gate;
}

/**
 * A gift card payment: 1. claim the payment, only while it is open, the order can be paid and
 * the card covers it; 2. + 3. the debit and its transaction, under the claim (same guard on the balance).
 */
function giftCardDebitStatements(db: DB, w: StatusWrite, d: GiftCardDebit, gate: SQL): BatchItem<"sqlite">[] {
  const underClaim = sql`${gate} AND ${claimed(d)}`;
  return [
    db
      .update(orderPayments)
      .set({ state: "confirmed", paymentDate: w.now, info: { gift_card: d.cardId, reference: d.reference } })
      .where(
        and(
          eq(orderPayments.id, d.paymentId),
          eq(orderPayments.orderId, w.orderId),
          inArray(orderPayments.state, ["created", "pending"]),
          eq(orderPayments.provider, "giftcard"),
          gate,
          cardUsable(d, w.now),
        ),
      ),
    db
      .insert(giftCardTransactions)
      .select(
        sql`SELECT NULL, gc.id, ${w.now}, ${-d.amount}, ${w.orderId}, ${d.text}, ${d.organizerId} FROM gift_cards gc WHERE gc.id = ${d.cardId} AND gc.value >= ${d.amount} AND ${underClaim}`,
      ),
    db
      .update(giftCards)
      .set({ value: sql`${giftCards.value} - ${d.amount}` })
      .where(and(eq(giftCards.id, d.cardId), gte(giftCards.value, d.amount), underClaim)),
  ];
}

/** The vouchers' redemptions given back or taken again when the order stops or starts holding capacity. */
function voucherUseStatements(
  db: DB,
  eventId: number,
  w: StatusWrite,
  voucherUses: Map<number, number>,
  gate: SQL,
): BatchItem<"sqlite">[] {
  const toHolding = HOLDING.includes(w.to);
  const crossing = w.from.filter((s) => HOLDING.includes(s) !== toHolding);
  if (!crossing.length) return [];
  return [...voucherUses].map(([voucherId, n]) =>
    db
      .update(vouchers)
      .set({ redeemed: toHolding ? sql`${vouchers.redeemed} + ${n}` : sql`max(0, ${vouchers.redeemed} - ${n})` })
      .where(and(eq(vouchers.id, voucherId), eq(vouchers.eventId, eventId), gate, statusIn(w.orderId, crossing))),
  );
}

/** The payment the change confirms, and the open payments a cancellation cancels. */
function paymentStatements(db: DB, w: StatusWrite, gate: SQL): BatchItem<"sqlite">[] {
  const stmts: BatchItem<"sqlite">[] = [];
  if (w.confirmPaymentId !== null) {
    stmts.push(
      db
        .update(orderPayments)
        .set({ state: "confirmed", paymentDate: sql`coalesce(${orderPayments.paymentDate}, ${w.now})` })
        .where(
          and(
            eq(orderPayments.id, w.confirmPaymentId),
            eq(orderPayments.orderId, w.orderId),
            inArray(orderPayments.state, ["created", "pending"]),
            gate,
          ),
        ),
    );
  }
  if (w.cancelPayments) {
    stmts.push(
      db
        .update(orderPayments)
        .set({ state: "canceled" })
        .where(and(eq(orderPayments.orderId, w.orderId), inArray(orderPayments.state, ["created", "pending"]), gate)),
    );
  }
  return stmts;
}

/** The status update itself, returning the id when the order changed. */
function orderStatusUpdate(db: DB, eventId: number, w: StatusWrite, gate: SQL) {
  // canceled: since now (a canceled order's fields changed: as it was); reactivated: no cancellation date
  const toHolding = HOLDING.includes(w.to);
  const cancellation =
    w.to === "c" && !w.from.includes("c")
      ? { cancellationDate: w.now }
      : toHolding && w.from.includes("c")
        ? { cancellationDate: null }
        : {};
  return db
    .update(orders)
    .set({ status: w.to, lastModified: w.now, ...cancellation, ...extraOrderColumns(w.extra) })
    .where(and(eq(orders.id, w.orderId), eq(orders.eventId, eventId), inArray(orders.status, w.from), gate))
    .returning({ id: orders.id });
}

const grantsMemberships = (w: Pick<StatusWrite, "to" | "extra">) =>
  w.to === "p" && w.extra?.cancellationFee === undefined;

/** Where the status update's result stands among the batch's results (from the end). */
export function statusResultIndex(w: Pick<StatusWrite, "to" | "extra">, resultCount: number): number {
  const after = w.extra?.cancellationFee !== undefined ? 1 : 0;
  return resultCount - 3 - after - (grantsMemberships(w) ? 1 : 0);
}

/**
 * Adds a payment in state `created` to an order that can still be paid (pending or expired),
 * with the next local id; with `cancelOpen`, the order's other payments in state `created`
 * are canceled in the same transaction (the customer changed the payment method). Returns the
 * new payment's id and local id, or null when the order's status did not allow it.
 */
export async function createPayment(
  db: DB,
  p: { orderId: number; provider: string; amount: number; now: number; cancelOpen: boolean },
): Promise<{ id: number; localId: number } | null> {
  const payable = statusIn(p.orderId, ["n", "e"]);
  const stmts: BatchItem<"sqlite">[] = [];
  if (p.cancelOpen) {
    stmts.push(
      db
        .update(orderPayments)
        .set({ state: "canceled" })
        .where(and(eq(orderPayments.orderId, p.orderId), eq(orderPayments.state, "created"), payable)),
    );
  }
  // columns in table order: id, order_id, local_id, state, amount, provider, created, payment_date, info
  stmts.push(
    db
      .insert(orderPayments)
      .select(
        sql`SELECT NULL, o.id, (SELECT coalesce(max(y.local_id), 0) + 1 FROM order_payments y WHERE y.order_id = o.id), 'created', ${p.amount}, ${p.provider}, ${p.now}, NULL, '{}' FROM orders o WHERE o.id = ${p.orderId} AND o.status IN ('n', 'e')`,
      )
      .returning({ id: orderPayments.id, localId: orderPayments.localId }),
  );
  stmts.push(
    db
      .update(orders)
      .set({ lastModified: p.now })
      .where(and(eq(orders.id, p.orderId), inArray(orders.status, ["n", "e"]))),
  );
  const results = (await db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  const inserted = results[p.cancelOpen ? 1 : 0] as { id: number; localId: number }[];
  return inserted[0] ?? null;
}

/** Removes a payment that is still in state `created` (one made for a status change that was then refused). */
export async function deleteOpenPayment(db: DB, paymentId: number): Promise<void> {
  await db.delete(orderPayments).where(and(eq(orderPayments.id, paymentId), eq(orderPayments.state, "created")));
}

/**
 * A payment recorded through the API (pretix's `POST .../payments/`) in any order status, with
 * the next local id; the order's `last_modified` follows. Its id and local id (null: no such order).
 */
export async function insertPayment(
  db: DB,
  p: {
    orderId: number;
    state: PaymentState;
    amount: number;
    provider: string;
    paymentDate: number | null;
    info: Record<string, unknown>;
    now: number;
  },
): Promise<{ id: number; localId: number } | null> {
  const results = (await db.batch([
    // columns in table order: id, order_id, local_id, state, amount, provider, created, payment_date, info
    db
      .insert(orderPayments)
      .select(
        sql`SELECT NULL, o.id, (SELECT coalesce(max(y.local_id), 0) + 1 FROM order_payments y WHERE y.order_id = o.id), ${p.state}, ${p.amount}, ${p.provider}, ${p.now}, ${p.paymentDate}, ${JSON.stringify(p.info)} FROM orders o WHERE o.id = ${p.orderId}`,
      )
      .returning({ id: orderPayments.id, localId: orderPayments.localId }),
    db.update(orders).set({ lastModified: p.now }).where(eq(orders.id, p.orderId)),
  ])) as unknown[];
  return (results[0] as { id: number; localId: number }[])[0] ?? null;
}

/**
 * Moves a payment from one of `from` to `to` without a change of the order's status (pretix's
 * payment `confirm` of an order that stays as it is, `cancel`): with the notification of a
 * confirmation and the order's `last_modified`, written exactly when the payment changes.
 * Whether it changed.
 */
export async function setPaymentState(
  db: DB,
  p: { paymentId: number; orderId: number; eventId: number; code: string; from: PaymentState[]; to: PaymentState },
  now: number,
): Promise<boolean> {
  const changes = sql`EXISTS (SELECT 1 FROM order_payments y WHERE y.id = ${p.paymentId} AND y.state IN (${list(p.from)}))`;
  const stmts: BatchItem<"sqlite">[] = [];
  if (p.to === "confirmed")
    stmts.push(
      notificationStatement(db, {
        eventId: p.eventId,
        code: p.code,
        actions: [ORDER_ACTIONS.paymentConfirmed],
        now,
        condition: changes,
      }),
    );
  stmts.push(
    db
      .update(orders)
      .set({ lastModified: now })
      .where(and(eq(orders.id, p.orderId), changes)),
  );
  stmts.push(
    db
      .update(orderPayments)
      .set({
        state: p.to,
        ...(p.to === "confirmed" ? { paymentDate: sql`coalesce(${orderPayments.paymentDate}, ${now})` } : {}),
      })
      .where(and(eq(orderPayments.id, p.paymentId), inArray(orderPayments.state, p.from)))
      .returning({ id: orderPayments.id }),
  );
  const results = (await db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return (results[results.length - 1] as unknown[]).length > 0;
}
