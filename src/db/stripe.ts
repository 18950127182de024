/**
 * Stripe's side of card payments in D1: the events delivered to an organizer's webhook (each recorded
 * once), the Stripe objects of a payment, its Checkout Session, and the changes Stripe's events bring.
 * Each change is one batch that records the event, every statement conditional on the record holding
 * this delivery's claim (`claimHeld`) and on the state it changes from: it happens once, in any order.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import {
  events,
  orderPayments,
  orders,
  type OrderStatus,
  type PaymentState,
  stripeEvents,
  stripeObjects,
} from "./schema";
import { notificationStatement, ORDER_ACTIONS } from "./webhooks";

/** A delivery's claim on one of Stripe's events: recorded with the change it brings. */
export type EventClaim = { organizerId: number; eventId: string; type: string; claim: string; now: number };

/** Records the event for this delivery, unless a delivery recorded it before (then nothing). */
export function claimStatement(db: DB, c: EventClaim) {
  return db
    .insert(stripeEvents)
    .values({ organizerId: c.organizerId, eventId: c.eventId, type: c.type, claim: c.claim, received: c.now })
    .onConflictDoNothing();
}

/** The event's record is this delivery's: the condition of every statement of its change. */
export function claimHeld(c: EventClaim): SQL {
  return sql`EXISTS (SELECT 1 FROM stripe_events se WHERE se.organizer_id = ${c.organizerId} AND se.event_id = ${c.eventId} AND se.claim = ${c.claim})`;
}

/** Whether an event of the organizer was recorded (by any delivery). */
export async function eventRecorded(db: DB, organizerId: number, eventId: string): Promise<boolean> {
  const row = await db
    .select({ id: stripeEvents.eventId })
    .from(stripeEvents)
    .where(and(eq(stripeEvents.organizerId, organizerId), eq(stripeEvents.eventId, eventId)))
    .get();
  return row !== undefined;
}

/** Who recorded the event: this delivery (`mine`), another one (`other`), or none yet (null). */
export async function eventHolder(db: DB, c: EventClaim): Promise<"mine" | "other" | null> {
  const row = await db
    .select({ claim: stripeEvents.claim })
    .from(stripeEvents)
    .where(and(eq(stripeEvents.organizerId, c.organizerId), eq(stripeEvents.eventId, c.eventId)))
    .get();
  return row === undefined ? null : row.claim === c.claim ? "mine" : "other";
}

/** Records an event that changes nothing (of no interest, or about nothing of the organizer). */
export async function recordEvent(db: DB, c: EventClaim): Promise<void> {
  await claimStatement(db, c).run();
}

// ---- payments and their Stripe objects ----

/** A payment of provider `stripe` with its order, as an event's handling needs it. */
export type StripePayment = {
  paymentId: number;
  localId: number;
  state: PaymentState;
  amount: number;
  info: Record<string, unknown>;
  orderId: number;
  code: string;
  orderStatus: OrderStatus;
  eventId: number;
};

function paymentQuery(db: DB, organizerId: number, where: SQL) {
  return db
    .select({
      paymentId: orderPayments.id,
      localId: orderPayments.localId,
      state: orderPayments.state,
      amount: orderPayments.amount,
      info: orderPayments.info,
      orderId: orders.id,
      code: orders.code,
      orderStatus: orders.status,
      eventId: orders.eventId,
    })
    .from(orderPayments)
    .innerJoin(orders, eq(orders.id, orderPayments.orderId))
    .innerJoin(events, eq(events.id, orders.eventId))
    .where(and(eq(events.organizerId, organizerId), eq(orderPayments.provider, "stripe"), where))
    .limit(1);
}

/** The organizer's payment a Stripe object (a Checkout Session, a PaymentIntent) belongs to. */
export function paymentOfReference(db: DB, organizerId: number, reference: string): Promise<StripePayment | undefined> {
  return paymentQuery(
    db,
    organizerId,
    sql`${orderPayments.id} = (SELECT so.payment_id FROM stripe_objects so WHERE so.organizer_id = ${organizerId} AND so.reference = ${reference})`,
  ).get();
}

/** The organizer's payment named by a Stripe object's metadata (event id, order code, local id). */
export function paymentOfOrder(
  db: DB,
  organizerId: number,
  p: { eventId: number; code: string; localId: number },
): Promise<StripePayment | undefined> {
  return paymentQuery(
    db,
    organizerId,
    and(eq(orders.eventId, p.eventId), eq(orders.code, p.code), eq(orderPayments.localId, p.localId))!,
  ).get();
}

/** Links a Stripe object to a payment (kept when it is linked already). */
export function referenceStatement(db: DB, organizerId: number, reference: string, paymentId: number, now: number) {
  return db.insert(stripeObjects).values({ organizerId, reference, paymentId, created: now }).onConflictDoNothing();
}

const OPEN: PaymentState[] = ["created", "pending"];

/** What a payment keeps of its Checkout Session: id, URL, expiry and the attempt that made it. */
export type CheckoutInfo = { session: string; url: string; expires: number; attempt: number };

/**
 * Stores a new Checkout Session of an open payment (unless a later attempt stored one
 * meanwhile) and links the session to it, both in one batch and only when the payment took it:
 * a payment canceled or paid while Stripe made the session keeps neither. Returns whether it did.
 */
export async function storeCheckout(
  db: DB,
  organizerId: number,
  paymentId: number,
  info: CheckoutInfo,
  now: number,
): Promise<boolean> {
  const [updated] = (await db.batch([
    db
      .update(orderPayments)
      .set({
        info: sql`json_set(${orderPayments.info}, '$.checkout_session', ${info.session}, '$.checkout_url', ${info.url}, '$.checkout_expires', ${info.expires}, '$.checkout_attempt', ${info.attempt})`,
      })
      .where(
        and(
          eq(orderPayments.id, paymentId),
          inArray(orderPayments.state, OPEN),
          sql`coalesce(json_extract(${orderPayments.info}, '$.checkout_attempt'), 0) < ${info.attempt}`,
        ),
      )
      .returning({ id: orderPayments.id }),
    db
      .insert(stripeObjects)
      .select(
        db
          .select({
            organizerId: sql<number>`${organizerId}`.as("organizer_id"),
            reference: sql<string>`${info.session}`.as("reference"),
            paymentId: orderPayments.id,
            created: sql<number>`${now}`.as("created"),
          })
          .from(orderPayments)
          .where(
            and(
              eq(orderPayments.id, paymentId),
              sql`json_extract(${orderPayments.info}, '$.checkout_session') = ${info.session}`,
            ),
          ),
      )
      .onConflictDoNothing(),
  ])) as [{ id: number }[], unknown];
  return updated.length > 0;
}

/**
 * Records that an attempt to create the payment's Checkout Session failed, so that the next one
 * sends a new idempotency key (Stripe keeps a 500 answer under its key for 24 hours).
 */
export async function recordFailedCheckout(db: DB, paymentId: number, attempt: number): Promise<void> {
  await db
    .update(orderPayments)
    .set({ info: sql`json_set(${orderPayments.info}, '$.checkout_failed_attempt', ${attempt})` })
    .where(
      and(
        eq(orderPayments.id, paymentId),
        inArray(orderPayments.state, OPEN),
        sql`coalesce(json_extract(${orderPayments.info}, '$.checkout_failed_attempt'), 0) < ${attempt}`,
      ),
    );
}

/** The payment's stored info (its Checkout Session), read again. */
export async function paymentInfo(
  db: DB,
  paymentId: number,
): Promise<{ state: PaymentState; info: Record<string, unknown> } | undefined> {
  return db
    .select({ state: orderPayments.state, info: orderPayments.info })
    .from(orderPayments)
    .where(eq(orderPayments.id, paymentId))
    .get();
}

/**
 * A payment change an event brings, without a change of the order's status: to `pending` (a
 * payment that settles later), `failed`, `canceled`, or `confirmed` (the money arrived for an
 * order that cannot become paid: pretix confirms the payment and leaves the order). `from`: the
 * states it changes from (none: the event is only recorded). The notification (payment
 * confirmed) and the order's `last_modified` are written exactly when the payment changes.
 */
export function paymentChangeStatements(
  db: DB,
  c: EventClaim,
  p: { paymentId: number; orderId: number; eventId: number; code: string; from: PaymentState[]; to: PaymentState },
): BatchItem<"sqlite">[] {
  const stmts: BatchItem<"sqlite">[] = [claimStatement(db, c)];
  if (p.from.length === 0) return stmts;
  const held = claimHeld(c);
  const states = sql.join(
    p.from.map((s) => sql`${s}`),
    sql`, `,
  );
  const changes = sql`EXISTS (SELECT 1 FROM order_payments y WHERE y.id = ${p.paymentId} AND y.state IN (${states})) AND ${held}`;
  if (p.to === "confirmed") {
    stmts.push(
      notificationStatement(db, {
        eventId: p.eventId,
        code: p.code,
        actions: [ORDER_ACTIONS.paymentConfirmed],
        now: c.now,
        condition: changes,
      }),
    );
  }
  stmts.push(
    db
      .update(orders)
      .set({ lastModified: c.now })
      .where(and(eq(orders.id, p.orderId), changes)),
  );
  stmts.push(
    db
      .update(orderPayments)
      .set({ state: p.to, ...(p.to === "confirmed" ? { paymentDate: c.now } : {}) })
      .where(and(eq(orderPayments.id, p.paymentId), inArray(orderPayments.state, p.from), held))
      .returning({ id: orderPayments.id }),
  );
  return stmts;
}

/** Runs a payment change; whether the payment changed. */
export async function runPaymentChange(db: DB, stmts: BatchItem<"sqlite">[]): Promise<boolean> {
  const results = (await db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  const last = results[results.length - 1];
  return Array.isArray(last) && last.length > 0;
}

/** Reopens a canceled or failed payment whose money Stripe reports as arrived, so that it can be confirmed. */
export async function reopenPayment(db: DB, paymentId: number): Promise<void> {
  await db
    .update(orderPayments)
    .set({ state: "pending" })
    .where(and(eq(orderPayments.id, paymentId), inArray(orderPayments.state, ["canceled", "failed"])));
}

/** Keeps the PaymentIntent of a payment (linked and in its info), whatever its state. */
export async function linkIntent(
  db: DB,
  organizerId: number,
  paymentId: number,
  intent: string,
  now: number,
): Promise<void> {
  await db.batch([
    referenceStatement(db, organizerId, intent, paymentId, now),
    db
      .update(orderPayments)
      .set({ info: sql`json_set(${orderPayments.info}, '$.payment_intent', ${intent})` })
      .where(eq(orderPayments.id, paymentId)),
  ]);
}
