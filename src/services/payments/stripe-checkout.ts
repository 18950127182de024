/**
 * The hand-off of a `stripe` payment to Stripe's hosted checkout: one Checkout Session per payment
 * (Stripe's idempotency key names the payment and the attempt; a failed attempt is counted, so the next
 * one sends a new key), stored and reused until shortly before it expires, expiring with the order's
 * reservation (rules/stripe.ts). The PaymentIntent's metadata names the payment, so later events find it.
 */
import type { DB } from "../../db/client";
import type { PaymentJson } from "../../db/orders";
import { paymentInfo, recordFailedCheckout, storeCheckout } from "../../db/stripe";
import type { Env } from "../../lib/env";
import { i18nText, type I18n } from "../../lib/i18n";
import { log } from "../../lib/log";
import { paymentFullId } from "../../rules/payments";
import { checkoutExpiresAt, toStripeAmount } from "../../rules/stripe";
import { logStripeError, Stripe, stripeClient, stripeKeys } from "./stripe-client";

/** A session still this long before its expiry is reused; closer to it, the next attempt makes a new one. */
const REUSE_MARGIN_MS = 2 * 60_000;

export type CheckoutScope = {
  env: Env;
  db: DB;
  organizerId: number;
  event: { id: number; name: I18n; currency: string };
};

export type CheckoutOrder = { code: string; email: string | null; locale: string; expires: number | null };

/**
 * `url`: Stripe's checkout page for the customer. `unavailable`: Stripe could not be reached
 * or refused (the order and payment unchanged). `not_configured`: the organizer has no Stripe key. `changed`:
 * the payment closed meanwhile, or another request started it differently.
 */
export type CheckoutStart =
  | { ok: true; url: string }
  | { ok: false; reason: "unavailable" | "not_configured" | "changed" };

/** The metadata that ties a Stripe object to the payment. */
export function paymentMetadata(eventId: number, code: string, localId: number): Record<string, string> {
  return { event: String(eventId), order: code, payment: String(localId) };
}

/** The attempt after the last stored session and the last failed attempt (each attempt its own key). */
function nextAttempt(info: Record<string, unknown>): number {
  const stored = typeof info.checkout_attempt === "number" ? info.checkout_attempt : 0;
  const failed = typeof info.checkout_failed_attempt === "number" ? info.checkout_failed_attempt : 0;
  return Math.max(stored, failed) + 1;
}

function liveSession(info: Record<string, unknown>, now: number): string | null {
  const url = info.checkout_url;
  const expires = info.checkout_expires;
  return typeof url === "string" && typeof expires === "number" && expires > now + REUSE_MARGIN_MS ? url : null;
}

/**
 * Starts (or resumes) the payment's checkout; the caller checked that the order can be paid. An
 * expired session is followed by the next attempt; two requests at once get the same session from
 * Stripe, and only one attempt is stored. When Stripe cannot be reached only the failed attempt is counted.
 */
export async function startCheckout(
  scope: CheckoutScope,
  order: CheckoutOrder,
  payment: PaymentJson,
  urls: { success: string; cancel: string },
  now: number,
): Promise<CheckoutStart> {
  const live = liveSession(payment.info, now);
  if (live) return { ok: true, url: live };
  const { secretKey } = await stripeKeys(scope.env, scope.db, scope.organizerId);
  if (!secretKey) return { ok: false, reason: "not_configured" };
  const attempt = nextAttempt(payment.info);
  const metadata = paymentMetadata(scope.event.id, order.code, payment.local_id);
  const currency = scope.event.currency.toLowerCase();
  const expiresAt = checkoutExpiresAt(order.expires, now);
  let session: Stripe.Checkout.Session;
  try {
    session = await stripeClient(scope.env, secretKey).checkout.sessions.create(
      {
        mode: "payment",
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency,
              unit_amount: toStripeAmount(payment.amount, scope.event.currency),
              product_data: { name: `${i18nText(scope.event.name, order.locale)} – ${order.code}` },
            },
          },
        ],
        success_url: urls.success,
        cancel_url: urls.cancel,
        client_reference_id: paymentFullId(order.code, payment.local_id),
        ...(order.email ? { customer_email: order.email } : {}),
        ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
        metadata,
        payment_intent_data: { metadata },
      },
      { idempotencyKey: `checkout-${scope.event.id}-${order.code}-${payment.local_id}-${attempt}` },
    );
  } catch (e) {
    const fields = { order: order.code, payment: payment.local_id };
    logStripeError("a Stripe Checkout Session could not be created", e, fields);
    // the same attempt started with other parameters (another return_url, at another minute)
    if (e instanceof Stripe.errors.StripeIdempotencyError) return resumeStored(scope.db, payment.id, now);
    // Stripe keeps a 500 answer under its key: the next attempt must not send this key again
    await recordFailedCheckout(scope.db, payment.id, attempt);
    return { ok: false, reason: "unavailable" };
  }
  if (!session.url) {
    log.error("Stripe answered a Checkout Session without a URL", { order: order.code, payment: payment.local_id });
    return { ok: false, reason: "unavailable" };
  }
  const stored = await storeCheckout(
    scope.db,
    scope.organizerId,
    payment.id,
    { session: session.id, url: session.url, expires: session.expires_at * 1000, attempt },
    now,
  );
  return stored ? { ok: true, url: session.url } : resumeStored(scope.db, payment.id, now);
}

/** The session another request stored for the payment, if the payment is still open. */
async function resumeStored(db: DB, paymentId: number, now: number): Promise<CheckoutStart> {
  const current = await paymentInfo(db, paymentId);
  const url =
    current && (current.state === "created" || current.state === "pending") ? liveSession(current.info, now) : null;
  return url ? { ok: true, url } : { ok: false, reason: "changed" };
}
