/**
 * Stripe's webhook events for an organizer (`POST /api/v1/organizers/{o}/stripe/webhook`), verified
 * with the official SDK and acted on once however often and in whatever order Stripe delivers
 * (docs/payments.md "What happens"). Once: each delivery draws a claim, and its one D1 batch records
 * the event and holds every statement to that claim (db/stripe.ts). Any order: each change is also
 * conditional on the state it changes from; a refund before its payment's completion confirms it first.
 */
import { findOrder } from "../../db/orders";
import type { DB } from "../../db/client";
import { eventById } from "../../db/invoices";
import { changeRefund, recordExternalRefund, refundOfPayment, refundOfReference } from "../../db/refunds";
import type { PaymentState, RefundState } from "../../db/schema/index";
import {
  type EventClaim,
  eventHolder,
  eventRecorded,
  linkIntent,
  paymentChangeStatements,
  paymentOfOrder,
  paymentOfReference,
  recordEvent,
  reopenPayment,
  runPaymentChange,
  type StripePayment,
} from "../../db/stripe";
import type { OrganizerRow } from "../../db/tenancy";
import { randomString } from "../../lib/crypto";
import type { Env } from "../../lib/env";
import { badRequest, Failure, MESSAGES, Problems } from "../../lib/failure";
import { log } from "../../lib/log";
import { fromStripeAmount, pendingSum, refundStateOf } from "../../rules/stripe";
import { changeOrderStatus, notifyOrder } from "../orders/order-status";
import { logStripeError, type Stripe, stripeClient, stripeKeys, verifiedEvent } from "./stripe-client";

export type WebhookScope = { env: Env; db: DB; organizer: OrganizerRow; baseUrl: string; now: number };

export const NO_WEBHOOK_SECRET =
  "Stripe webhooks are not set up for this organizer: set its organizer setting payment_stripe_webhook_secret.";
export const BAD_SIGNATURE =
  "The Stripe-Signature header does not sign this body with the organizer's webhook secret within five minutes.";

/** Verifies and acts on one delivery of a webhook; a forged, tampered or stale one fails with 400 and changes nothing. */
export async function receiveStripeWebhook(scope: WebhookScope, payload: string, signature: string | undefined) {
  const keys = await stripeKeys(scope.env, scope.db, scope.organizer.id);
  if (!keys.webhookSecret) throw badRequest(NO_WEBHOOK_SECRET);
  const event = await verifiedEvent(payload, signature, keys.webhookSecret);
  if (!event) throw badRequest(BAD_SIGNATURE);
  checkEventShape(event);
  if (await eventRecorded(scope.db, scope.organizer.id, event.id)) return;
  const claim: EventClaim = {
    organizerId: scope.organizer.id,
    eventId: event.id,
    type: event.type,
    claim: randomString(24),
    now: scope.now,
  };
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded":
    case "checkout.session.async_payment_failed":
    case "checkout.session.expired":
      return sessionEvent(scope, claim, event.type, event.data.object);
    case "refund.created":
    case "refund.updated":
    case "refund.failed":
    case "charge.refund.updated":
      return refundEvent(scope, claim, keys.secretKey, event.data.object);
    default:
      return recordEvent(scope.db, claim);
  }
}

/**
 * A signed body that is no Stripe event (its signature is right, its fields are not): 400 with
 * field errors, nothing recorded.
 */
function checkEventShape(event: Stripe.Event): void {
  const e = event as unknown as Record<string, unknown>;
  const problems = new Problems();
  for (const field of ["id", "type"] as const) {
    if (e[field] === undefined || e[field] === null) problems.add(field, MESSAGES.required);
    else if (typeof e[field] !== "string" || e[field] === "") problems.add(field, "Not a valid string.");
  }
  const data = e.data as Record<string, unknown> | null | undefined;
  if (data === undefined || data === null) problems.add("data", MESSAGES.required);
  else if (
    typeof data !== "object" ||
    typeof data.object !== "object" ||
    data.object === null ||
    Array.isArray(data.object)
  )
    problems.nest("data", { object: ["Expected an object."] });
  problems.throwIfAny();
}

const idOf = (x: string | { id: string } | null | undefined): string | null =>
  typeof x === "string" ? x : (x?.id ?? null);

async function sessionEvent(scope: WebhookScope, claim: EventClaim, type: string, session: Stripe.Checkout.Session) {
  const payment = await paymentOfReference(scope.db, scope.organizer.id, session.id);
  if (!payment) {
    log.warn("a Stripe event names a Checkout Session that is no payment of this organizer", {
      stripe_event: claim.eventId,
      stripe_event_type: type,
    });
    return recordEvent(scope.db, claim);
  }
  const intent = idOf(session.payment_intent);
  if (intent) await linkIntent(scope.db, scope.organizer.id, payment.paymentId, intent, scope.now);
  if (type === "checkout.session.async_payment_succeeded") return paid(scope, claim, payment);
  if (type === "checkout.session.async_payment_failed") return failed(scope, claim, payment);
  if (type === "checkout.session.expired") {
    // only the payment's current session ends it (an earlier attempt's expiry changes nothing)
    const current = payment.info.checkout_session === session.id;
    return change(scope, claim, payment, current ? ["created"] : [], "canceled");
  }
  if (session.payment_status === "paid") return paid(scope, claim, payment);
  // completed, the money still on its way (a debit that settles later)
  return change(scope, claim, payment, session.payment_status === "unpaid" ? ["created"] : [], "pending");
}

/** A payment change without the order's status; false when nothing changed. */
function change(scope: WebhookScope, claim: EventClaim, p: StripePayment, from: PaymentState[], to: PaymentState) {
  return runPaymentChange(
    scope.db,
    paymentChangeStatements(scope.db, claim, {
      paymentId: p.paymentId,
      orderId: p.orderId,
      eventId: p.eventId,
      code: p.code,
      from,
      to,
    }),
  );
}

/** The money arrived: confirm the payment, and the order becomes paid where it can. */
async function paid(scope: WebhookScope, claim: EventClaim, p: StripePayment): Promise<void> {
  if (p.state === "confirmed" || p.state === "refunded") {
    await change(scope, claim, p, [], "confirmed");
    return;
  }
  if (p.orderStatus === "n" || p.orderStatus === "e") {
    // the customer paid a payment that was canceled meanwhile (or had failed): it is open again
    if (p.state === "canceled" || p.state === "failed") await reopenPayment(scope.db, p.paymentId);
    const [event, record] = await Promise.all([eventById(scope.db, p.eventId), findOrder(scope.db, p.eventId, p.code)]);
    if (event && record) {
      const orderScope = { env: scope.env, db: scope.db, event };
      const result = await changeOrderStatus(orderScope, record, {
        from: ["n", "e"],
        to: "p",
        confirmPaymentId: p.paymentId,
        eventClaim: claim,
        // paid only where the payments cover the total (an order changed since: confirmed, not paid)
        covered: true,
      });
      if (result.ok) {
        // the mail's facts are the order as read before: the status change did not touch them
        await notifyOrder(
          { ...orderScope, organizer: scope.organizer, baseUrl: scope.baseUrl },
          "order_paid",
          record,
          undefined,
          record.invoicing.live,
        );
        return;
      }
      // another delivery of this event got there first
      if (result.reason === "unchanged" && (await eventHolder(scope.db, claim)) === "other") return;
    }
  }
  // paid or canceled meanwhile, or expired with its quota gone: the payment is confirmed, the order stays
  const confirmed = await change(scope, claim, p, ["created", "pending", "canceled", "failed"], "confirmed");
  if (confirmed) {
    log.warn("a Stripe payment was confirmed for an order that could not be marked paid", {
      order: p.code,
      payment: p.localId,
      order_status: p.orderStatus,
    });
  }
}

/** A payment that settles later failed: recorded, with pretix's "payment failed" mail. */
async function failed(scope: WebhookScope, claim: EventClaim, p: StripePayment): Promise<void> {
  if (!(await change(scope, claim, p, ["created", "pending"], "failed"))) return;
  const [event, record] = await Promise.all([eventById(scope.db, p.eventId), findOrder(scope.db, p.eventId, p.code)]);
  if (event && record)
    await notifyOrder(
      { env: scope.env, db: scope.db, event, organizer: scope.organizer, baseUrl: scope.baseUrl },
      "order_payment_failed",
      record,
    );
}

// ---- refunds ----

/** Where a refund's new state may come from: Stripe's word moves a refund on, never back. */
const REFUND_FROM: Record<RefundState, RefundState[]> = {
  done: ["created", "transit", "failed"],
  transit: ["created"],
  failed: ["created", "transit", "external"],
  canceled: ["created", "transit", "external"],
  created: [],
  external: [],
};

async function refundEvent(scope: WebhookScope, claim: EventClaim, secretKey: string | null, refund: Stripe.Refund) {
  const intent = idOf(refund.payment_intent);
  if (!intent) return recordEvent(scope.db, claim);
  let payment = await paymentOfReference(scope.db, scope.organizer.id, intent);
  if (!payment) {
    // the payment's own events have not arrived yet: Stripe's PaymentIntent says what happened
    const found = await paymentOfIntent(scope, secretKey, intent);
    if (!found) return recordEvent(scope.db, claim);
    await linkIntent(scope.db, scope.organizer.id, found.payment.paymentId, intent, scope.now);
    if (found.succeeded) await paid(scope, claim, found.payment);
    payment = (await paymentOfReference(scope.db, scope.organizer.id, intent)) ?? found.payment;
  }
  const to = refundStateOf(refund.status);
  const ours =
    (await refundOfReference(scope.db, payment.paymentId, "stripe", refund.id)) ??
    (refund.metadata?.refund
      ? await refundOfPayment(scope.db, payment.paymentId, Number(refund.metadata.refund))
      : undefined);
  if (ours) {
    await changeRefund(
      scope.db,
      { ...ours, paymentId: ours.paymentId },
      { from: REFUND_FROM[to], to, reference: refund.id, now: scope.now },
      claim,
    );
    return;
  }
  // made outside the service (Stripe's dashboard); pretix records none that failed or was canceled
  if (to === "failed" || to === "canceled") return recordEvent(scope.db, claim);
  const record = await findOrder(scope.db, payment.eventId, payment.code);
  if (!record) return recordEvent(scope.db, claim);
  const amount = fromStripeAmount(refund.amount, refund.currency);
  // pretix's create_external_refund: done at once when it only returns an overpayment
  const overpaid = pendingSum(record.order.total, record.payments, record.refunds) + amount === 0;
  await recordExternalRefund(scope.db, claim, {
    orderId: payment.orderId,
    eventId: payment.eventId,
    code: payment.code,
    paymentId: payment.paymentId,
    amount,
    provider: "stripe",
    source: "external",
    state: overpaid ? "done" : "external",
    comment: null,
    reference: refund.id,
    executionDate: scope.now,
    now: scope.now,
  });
}

async function retrieveIntent(
  env: Env,
  secretKey: string,
  intent: string,
): Promise<{ ok: true; intent: Stripe.PaymentIntent } | { ok: false }> {
  try {
    return { ok: true, intent: await stripeClient(env, secretKey).paymentIntents.retrieve(intent) };
  } catch (e) {
    logStripeError("a PaymentIntent could not be read from Stripe", e, { payment_intent: intent });
    return { ok: false };
  }
}

/** The organizer's payment a PaymentIntent's metadata names, and whether Stripe has its money. */
async function paymentOfIntent(
  scope: WebhookScope,
  secretKey: string | null,
  intent: string,
): Promise<{ payment: StripePayment; succeeded: boolean } | null> {
  if (!secretKey) throw new Failure("unavailable", "The organizer's Stripe secret key is not set.");
  const read = await retrieveIntent(scope.env, secretKey, intent);
  // answered 503: Stripe delivers the event again later
  if (!read.ok) throw new Failure("unavailable", "Stripe could not be reached; deliver the event again later.");
  const pi = read.intent;
  const eventId = Number(pi.metadata?.event);
  const localId = Number(pi.metadata?.payment);
  const code = pi.metadata?.order;
  if (!Number.isInteger(eventId) || !Number.isInteger(localId) || typeof code !== "string") return null;
  const payment = await paymentOfOrder(scope.db, scope.organizer.id, { eventId, code, localId });
  return payment ? { payment, succeeded: pi.status === "succeeded" } : null;
}
