/**
 * Rules of the customer-facing payment pages (docs/api.md: payment
 * page, `pay/change`): whether an order can be paid now, whether a gift card can pay a
 * payment, which built-in providers a customer may choose, and the coded reasons a payment
 * step fails. The codes double as the `error` query parameter appended to a `return_url`
 * (which integrators must not rely on: the payment state is read through the API).
 */
import type { OrderStatus, PaymentState } from "../db/schema";
import { i18nText, type I18n } from "../lib/i18n";
import { formatMoney } from "../lib/money";
import { fillPlaceholders } from "../lib/placeholders";
import { PAYMENT_PROVIDERS, type PaymentProvider } from "./orders";

/** Why a payment step failed; the key is the short code sent as `error=`. */
export const PAYMENT_ERRORS = {
  order_paid: "This order has already been paid.",
  order_canceled: "This order has been canceled and cannot be paid.",
  late: "The payment cannot be accepted as the order has expired and late payments are not accepted.",
  late_lastdate: "The payment cannot be accepted as the last date of payments is over.",
  payment_closed: "This payment is no longer open.",
  not_free: "This order is not free of charge; choose another payment method.",
  sold_out: "The order has expired and the products in it are no longer available.",
  card_unknown: "This gift card is not known.",
  card_currency: "This gift card does not support this currency.",
  card_expired: "This gift card is no longer valid.",
  card_testmode: "This gift card can only be used in test mode.",
  card_not_testmode: "Only test gift cards can be used in test mode.",
  insufficient_credit: "The gift card does not have sufficient credit to pay this order.",
  provider: "This payment method is not available for this order.",
  changed: "The order changed while the payment was processed. Please try again.",
  busy: "The payment could not be processed right now. Please try again in a moment.",
  too_many_attempts: "Too many gift card codes were tried for this order. Please try again later.",
  expired: "This order has expired. Card payments are only taken while the order is reserved.",
  stripe_unavailable: "Card payments cannot be started right now. Please try again in a few minutes.",
  payment_aborted: "The payment was not completed.",
} as const;

/**
 * Gift card codes tried on one order's payment page, at most this many per hour: codes can
 * be as short as six characters (organizer setting giftcard_length), so guessing is capped.
 */
export const GIFT_CARD_ATTEMPTS = { perOrder: 10, windowSeconds: 3600 } as const;
export type PaymentError = keyof typeof PAYMENT_ERRORS;

export const ORDER_STATUS_WORDS: Record<OrderStatus, string> = { n: "pending", p: "paid", e: "expired", c: "canceled" };

export const PAYMENT_STATE_WORDS: Record<PaymentState, string> = {
  created: "open",
  pending: "pending",
  confirmed: "confirmed",
  canceled: "canceled",
  failed: "failed",
  refunded: "refunded",
};

export const OPEN_PAYMENT_STATES: readonly string[] = ["created", "pending"];

export function providerName(provider: string): string {
  return (PAYMENT_PROVIDERS as Record<string, { name: string }>)[provider]?.name ?? provider;
}

/**
 * Whether a customer may pay the order now (pretix's Order._can_be_paid, without the quota
 * check, which the event object does): not when paid or canceled, never after the last date
 * of payments, and an expired order only when late payments are accepted.
 */
export function orderPaymentRefusal(
  order: { status: OrderStatus },
  settings: Record<string, unknown>,
  lastPayment: number | null,
  now: number,
): PaymentError | null {
  if (order.status === "p") return "order_paid";
  if (order.status === "c") return "order_canceled";
  if (lastPayment !== null && now > lastPayment) return "late_lastdate";
  if (order.status === "e" && settings.payment_term_accept_late === false) return "late";
  return null;
}

/** pretix's `Order._can_be_paid` refusals, as the API answers them (none with `force`). */
export const PAYMENT_ACCEPTANCE_ERRORS = {
  require_approval: "This order is not yet approved by the event organizer.",
  late_lastdate:
    "The payment can not be accepted as the last date of payments configured in the payment settings is over.",
  late: "The payment can not be accepted as the order is expired and you configured that no late payments should be accepted in the payment settings.",
} as const;

/**
 * Whether a payment the organizer confirms may make the order paid (pretix's `_can_be_paid`
 * without its quota check, which the event object does): not while the order awaits approval,
 * not after the last date of payments, an expired order only when late payments are accepted.
 */
export function paymentAcceptanceRefusal(
  order: { status: OrderStatus; requireApproval: boolean },
  settings: Record<string, unknown>,
  lastPayment: number | null,
  now: number,
): string | null {
  if (order.requireApproval) return PAYMENT_ACCEPTANCE_ERRORS.require_approval;
  if (lastPayment !== null && now > lastPayment) return PAYMENT_ACCEPTANCE_ERRORS.late_lastdate;
  if (order.status === "e" && settings.payment_term_accept_late === false) return PAYMENT_ACCEPTANCE_ERRORS.late;
  return null;
}

export type GiftCardFacts = { currency: string; testmode: boolean; expires: number | null; value: number };

/** Whether a gift card (already known to be the organizer's or accepted by it) can pay `amount`. */
export function giftCardRefusal(
  card: GiftCardFacts,
  want: { currency: string; testmode: boolean; amount: number },
  now: number,
): PaymentError | null {
  if (card.currency !== want.currency) return "card_currency";
  if (card.testmode && !want.testmode) return "card_testmode";
  if (!card.testmode && want.testmode) return "card_not_testmode";
  if (card.expires !== null && card.expires < now) return "card_expired";
  if (card.value < want.amount) return "insufficient_credit";
  return null;
}

/**
 * The providers a customer can choose on `pay/change`: `free` when nothing is due; otherwise
 * `giftcard`, `stripe` when the event enabled pretix's Stripe plugin and the organizer set its
 * Stripe keys, and `manual` when the event enabled pretix's manual payment plugin (the
 * organizer then confirms the payment through the API).
 */
export const MANUAL_PAYMENT_PLUGIN = "pretix.plugins.manualpayment";
export const STRIPE_PLUGIN = "pretix.plugins.stripe";

/** The placeholders the manual payment's texts may use (pretix's ManualPayment). */
export const MANUAL_PAYMENT_PLACEHOLDERS = ["order", "total", "currency", "total_with_currency"] as const;

/**
 * A text of the manual payment (event settings `payment_manual_pending_description`,
 * `payment_manual_email_instructions`) for an order: in the order's language, its placeholders
 * filled with the order code and total. Empty when the organizer wrote none.
 */
export function manualPaymentText(
  template: I18n | null | undefined,
  locale: string,
  order: { code: string; total: number; currency: string },
): string {
  const total = formatMoney(order.total);
  return fillPlaceholders(i18nText(template, locale), {
    order: order.code,
    total,
    currency: order.currency,
    total_with_currency: `${total} ${order.currency}`,
  }).trim();
}

export function offeredProviders(plugins: string[], amountDue: number, stripeReady = false): PaymentProvider[] {
  if (amountDue <= 0) return ["free"];
  const offered: PaymentProvider[] = ["giftcard"];
  if (stripeReady && plugins.includes(STRIPE_PLUGIN)) offered.push("stripe");
  if (plugins.includes(MANUAL_PAYMENT_PLUGIN)) offered.push("manual");
  return offered;
}

/** pretix's full payment id, used as the text of a gift card transaction that pays it. */
export function paymentFullId(orderCode: string, localId: number): string {
  return `${orderCode}-P-${localId}`;
}
