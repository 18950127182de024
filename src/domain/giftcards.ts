/**
 * Gift card rules (pretix docs giftcards.rst; pretix's GiftCard model): code format, code
 * generation, default expiry, value limits, and the messages clients see.
 */
import { randomString } from "../lib/crypto";
import { MAX_GIFT_CARD_VALUE } from "../db/giftcards";

/** Codes: letters, digits, dots and dashes, starting with a letter or digit, 2–190 characters. */
export const GIFT_CARD_SECRET_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9.-]+$/;
export const GIFT_CARD_SECRET_MESSAGE = "The gift card code may only contain letters, numbers, dots and dashes.";

/** pretix's alphabet for generated codes: upper-case, without easily confused characters. */
const SECRET_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ3789";

/** A random code of `length` characters (organizer setting `giftcard_length`). */
export function generateGiftCardSecret(length: number): string {
  return randomString(length, SECRET_ALPHABET);
}

/**
 * Expiry of a gift card issued now when none is given: the end (23:59:59 UTC) of the calendar
 * year `years` after the current one (organizer setting `giftcard_expiry_years`); null when
 * the setting is empty (no expiry).
 */
export function defaultGiftCardExpiry(years: number | null | undefined, now: number): number | null {
  if (years === null || years === undefined) return null;
  const year = new Date(now).getUTCFullYear() + years;
  return Date.UTC(year, 11, 31, 23, 59, 59);
}

export { MAX_GIFT_CARD_VALUE };

export const INSUFFICIENT_CREDIT = "The gift card does not have sufficient credit for this operation.";
export const VALUE_TOO_HIGH = "The gift card value would exceed the maximum of 99999999999.99.";
export const DUPLICATE_SECRET = "A gift card with the same secret already exists in your or an affiliated organizer account.";
export const ACCEPTED_READ_ONLY = "Accepted gift cards cannot be updated, use transact instead.";

let knownCurrencies: Set<string> | null = null;

/** An ISO 4217 code known to the runtime's Intl data (upper-case, as pretix expects it). */
export function isKnownCurrency(code: string): boolean {
  if (!/^[A-Z]{3}$/.test(code)) return false;
  if (!knownCurrencies) {
    const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
    knownCurrencies = new Set(intl.supportedValuesOf ? intl.supportedValuesOf("currency") : []);
  }
  return knownCurrencies.size === 0 || knownCurrencies.has(code);
}
