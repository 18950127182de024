/**
 * Rules of card payments through Stripe: amounts in Stripe's units, how long a Checkout Session
 * may stay open, what a Stripe refund's status means for the refund, and what a refund leaves
 * an order (pretix's `pending_sum`).
 */
import type { RefundState } from "../db/schema";
import { currencyPlaces } from "../lib/money";

/**
 * An amount (hundredths) in Stripe's units: the currency's smallest unit (cents; whole yen for
 * zero-decimal currencies; thousandths, always ending in 0, for three-decimal ones).
 */
export function toStripeAmount(hundredths: number, currency: string): number {
  const places = currencyPlaces(currency);
  return places >= 2 ? hundredths * 10 ** (places - 2) : Math.round(hundredths / 10 ** (2 - places));
}

/** Stripe's units back to hundredths. */
export function fromStripeAmount(units: number, currency: string): number {
  const places = currencyPlaces(currency);
  return places >= 2 ? Math.round(units / 10 ** (places - 2)) : units * 10 ** (2 - places);
}

/** Stripe's limits for a Checkout Session's `expires_at`: 30 minutes to 24 hours after its creation. */
const MIN_SESSION_MS = 30 * 60_000;
const MAX_SESSION_MS = 24 * 3_600_000;

/**
 * When a payment's Checkout Session expires (Unix seconds), so that the customer cannot pay
 * after the order's reservation ends: the order's expiry, where Stripe allows it; an order
 * expiring within 30 minutes gets Stripe's shortest session (30 minutes, a minute more for the
 * way to Stripe, rounded up to the minute); undefined (Stripe's default, 24 hours) when the
 * order is reserved longer. The value depends on `now` only in the shortest case, so repeated
 * creations with the same idempotency key send the same parameters.
 */
export function checkoutExpiresAt(orderExpires: number | null, now: number): number | undefined {
  if (orderExpires === null || orderExpires >= now + MAX_SESSION_MS) return undefined;
  if (orderExpires >= now + MIN_SESSION_MS + 60_000) return Math.floor(orderExpires / 1000);
  return Math.ceil((now + MIN_SESSION_MS + 60_000) / 60_000) * 60;
}

/** A Stripe refund's `status` as the refund's state. */
export function refundStateOf(status: string | null | undefined): RefundState {
  switch (status) {
    case "succeeded":
      return "done";
    case "failed":
      return "failed";
    case "canceled":
      return "canceled";
    default:
      return "transit";
  }
}

/** The refund states that count against what a payment has left to refund (pretix's `refunded_amount`). */
export const COUNTED_REFUND_STATES: RefundState[] = ["created", "transit", "done"];

/**
 * pretix's `pending_sum`: what is left to pay of the order, the total minus confirmed (and
 * refunded) payments plus the refunds that count. Negative: overpaid.
 */
export function pendingSum(
  total: number,
  payments: readonly { state: string; amount: number }[],
  refunds: readonly { state: string; amount: number }[],
): number {
  const paid = payments
    .filter((y) => y.state === "confirmed" || y.state === "refunded")
    .reduce((s, y) => s + y.amount, 0);
  const back = refunds
    .filter((r) => (COUNTED_REFUND_STATES as string[]).includes(r.state))
    .reduce((s, r) => s + r.amount, 0);
  return total - paid + back;
}
