/**
 * Order rules: codes and secrets, the payment term (event settings payment_term_*), the
 * built-in payment providers, and the mails an order sends.
 */
import { addDays, parseDate, zonedDate, zonedTimeToUtc } from "../lib/datetime";
import { randomString, UNAMBIGUOUS } from "../lib/crypto";
import { parseRelative, resolveRelativeDate } from "../lib/reldate";
import type { EventRow } from "../db/tenancy";

/** Order codes: 6 characters without look-alikes (0/O, 1/I/L). */
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ3456789";

export function newOrderCode(): string {
  return randomString(6, CODE_ALPHABET);
}

/** Ticket secrets: 32 characters of a 31-letter alphabet (~158 bits), unguessable. */
export function newTicketSecret(): string {
  return randomString(32, UNAMBIGUOUS);
}

export function newOrderSecret(): string {
  return randomString(16, UNAMBIGUOUS);
}

export function newPseudonymizationId(): string {
  return randomString(10, CODE_ALPHABET);
}

/**
 * The built-in payment providers. `manual`: paid outside the service, confirmed through the
 * API (advised for imported and externally paid orders). `free`: orders of total 0.
 * `giftcard`: the buyer pays on the payment page with a gift card of the organizer. `stripe`:
 * the buyer pays by card on Stripe's hosted checkout, into the organizer's Stripe account;
 * Stripe's webhooks confirm (docs/payments.md).
 */
export const PAYMENT_PROVIDERS = {
  manual: { name: "Manual payment", online: false },
  free: { name: "Free of charge", online: false },
  giftcard: { name: "Gift card", online: true },
  stripe: { name: "Credit card (Stripe)", online: true },
} as const;
export type PaymentProvider = keyof typeof PAYMENT_PROVIDERS;

export function isPaymentProvider(p: string): p is PaymentProvider {
  return Object.hasOwn(PAYMENT_PROVIDERS, p);
}

/**
 * The last moment any payment is accepted (event setting `payment_term_last`, a date or a
 * relative date, meaning the end of that day in the event's timezone), or null when unset.
 */
export function lastPaymentTime(event: EventRow, settings: Record<string, unknown>): number | null {
  const last = settings.payment_term_last;
  if (typeof last !== "string" || last === "") return null;
  let lastDay: string | null = null;
  const spec = parseRelative(last);
  if (spec) {
    lastDay = resolveRelativeDate(spec, {
      timezone: event.timezone,
      date_from: event.dateFrom,
      date_to: event.dateTo,
      date_admission: event.dateAdmission,
      presale_start: event.presaleStart,
      presale_end: event.presaleEnd,
    });
  } else if (parseDate(last)) {
    lastDay = last;
  }
  if (!lastDay) return null;
  return zonedTimeToUtc(event.timezone, ...addDays(parseDate(lastDay)!, 1)) - 1000;
}

/**
 * When a new pending order expires: `payment_term_days` after now, at the end of that day in
 * the event's timezone, moved to Monday when it falls on a weekend (`payment_term_weekdays`),
 * never later than `payment_term_last` (a date or relative date).
 */
export function orderExpiry(event: EventRow, settings: Record<string, unknown>, now: number): number {
  const tz = event.timezone;
  let day = addDays(zonedDate(now, tz), Number(settings.payment_term_days ?? 14));
  if (settings.payment_term_weekdays !== false) {
    const weekday = new Date(Date.UTC(day[0], day[1] - 1, day[2])).getUTCDay();
    if (weekday === 6) day = addDays(day, 2);
    else if (weekday === 0) day = addDays(day, 1);
  }
  let expires = zonedTimeToUtc(tz, ...addDays(day, 1)) - 1000;
  const limit = lastPaymentTime(event, settings);
  if (limit !== null) expires = Math.min(expires, limit);
  return Math.max(expires, now);
}
