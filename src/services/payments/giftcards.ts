/**
 * Gift cards (pretix docs giftcards.rst; pretix's GiftCard model): code format, code
 * generation, default expiry, value limits, the messages clients see, the request bodies, and
 * the services that issue, change and transact on cards. Organizer-level balances need no event
 * object: every balance change is one conditional D1 batch (db/giftcards.ts).
 */
import { z } from "zod";
import {
  giftCardCreationRefs,
  findGiftCard,
  type GiftCardRow,
  insertGiftCard,
  issuedGiftCard,
  MAX_GIFT_CARD_VALUE,
  transact,
  transactionRecorded,
  type TransactResult,
  updateGiftCard,
} from "../../db/giftcards";
import { confirmedWrite, survivingD1Faults } from "../faults";
import { randomString } from "../../lib/crypto";
import type { ChangeMode, OrganizerContext } from "../context";
import { Failure, fieldError, forbidden, notFound } from "../../lib/failure";
import { dateTime, decimal } from "../../rules/fields";
import { effectiveSettings } from "../events/settings";

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
export const DUPLICATE_SECRET =
  "A gift card with the same secret already exists in your or an affiliated organizer account.";
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

// ---- input ----

const secret = () =>
  z.string().trim().min(1).max(190).regex(GIFT_CARD_SECRET_PATTERN, { message: GIFT_CARD_SECRET_MESSAGE });
const balance = () => decimal({ min: 0, max: MAX_GIFT_CARD_VALUE });

/** POST: a new card. */
export const giftCardInput = z.object({
  secret: secret(),
  currency: z.string().refine(isKnownCurrency, { message: "Enter a valid ISO 4217 currency code." }),
  value: balance(),
  testmode: z.boolean().optional(),
  expires: dateTime().nullable().optional(),
  conditions: z.string().nullable().optional(),
});
export type GiftCardInput = z.output<typeof giftCardInput>;

// `id`, `secret`, `testmode` and `currency` cannot change: sent values are ignored (as pretix does).
/** PUT: `value` required, omitted fields reset. */
export const giftCardPut = giftCardInput.pick({ value: true, expires: true, conditions: true });
/** PATCH: only the sent fields change. */
export const giftCardPatch = giftCardPut.partial();
export type GiftCardPatch = z.output<typeof giftCardPatch>;

/** POST transact: a signed amount and an optional text. */
export const giftCardTransactInput = z.object({
  value: decimal({ min: -MAX_GIFT_CARD_VALUE, max: MAX_GIFT_CARD_VALUE }),
  text: z.string().max(10_000).nullable().optional(),
});
export type GiftCardTransactInput = z.output<typeof giftCardTransactInput>;

// ---- services ----

/**
 * Issues a card with its initial value (one transaction). The secret must be free in the
 * organizer's and its affiliated organizers' cards; without `expires`, the organizer's default
 * validity applies (explicit null: never expires).
 */
export const createGiftCard = survivingD1Faults(async function createGiftCard(
  ctx: OrganizerContext,
  input: GiftCardInput,
): Promise<GiftCardRow> {
  const { db, organizer, now } = ctx;
  const refs = await giftCardCreationRefs(db, organizer.id, input.secret);
  if (refs.secretTaken) throw fieldError("secret", DUPLICATE_SECRET);
  const expires =
    input.expires !== undefined
      ? input.expires
      : defaultGiftCardExpiry(effectiveSettings(refs.settings).giftcard_expiry_years as number | null, now);
  const values = {
    secret: input.secret,
    currency: input.currency,
    testmode: input.testmode ?? false,
    expires,
    conditions: input.conditions ?? null,
  };
  const card = await confirmedWrite(
    () => insertGiftCard(db, organizer.id, values, input.value, now),
    () => issuedGiftCard(db, organizer.id, input.secret, now),
  );
  // a card issued meanwhile with the same secret: the unique index refused this one
  if (!card) throw fieldError("secret", DUPLICATE_SECRET);
  return card;
});

/**
 * PUT (`put`: omitted fields reset) or PATCH of one of the organizer's own cards; a new
 * `value` is recorded as a transaction of the difference. Accepted cards (`includeAccepted`)
 * are read-only.
 */
export const changeGiftCard = survivingD1Faults(async function changeGiftCard(
  ctx: OrganizerContext,
  id: number,
  input: GiftCardPatch,
  opts: { mode: ChangeMode; includeAccepted: boolean },
): Promise<GiftCardRow> {
  if (opts.includeAccepted) throw forbidden(ACCEPTED_READ_ONLY);
  const full = opts.mode === "put";
  const values: { expires?: number | null; conditions?: string | null } = {};
  if (input.expires !== undefined || full) values.expires = input.expires ?? null;
  if (input.conditions !== undefined || full) values.conditions = input.conditions ?? null;
  // a repeat sets the same balance again: the difference is recorded only when there is one
  const card = await updateGiftCard(ctx.db, ctx.organizer.id, id, values, input.value, ctx.now);
  if (!card) throw notFound();
  return card;
});

/**
 * Adds a signed amount to a card the organizer reaches (with `includeAccepted`, an accepted
 * issuer's too), atomically: never below zero (409, insufficient credit), never above the
 * maximum (400).
 */
export const transactGiftCard = survivingD1Faults(async function transactGiftCard(
  ctx: OrganizerContext,
  id: number,
  input: GiftCardTransactInput,
  opts: { includeAccepted: boolean },
): Promise<GiftCardRow> {
  const card = await findGiftCard(ctx.db, ctx.organizer.id, id, opts.includeAccepted);
  if (!card) throw notFound();
  const text = input.text ?? null;
  const result = await confirmedWrite(
    () => transact(ctx.db, card.id, input.value, text, ctx.organizer.id, ctx.now),
    async (): Promise<TransactResult | undefined> => {
      const value = await transactionRecorded(ctx.db, card.id, input.value, text, ctx.organizer.id, ctx.now);
      return value === undefined ? undefined : { ok: true, value };
    },
  );
  if (!result.ok) {
    if (result.reason === "missing") throw notFound();
    if (result.reason === "too_high") throw fieldError("value", VALUE_TOO_HIGH);
    // pretix answers {"value": [...]}; `detail` is the general error form (docs/api.md).
    throw new Failure("insufficient_credit", INSUFFICIENT_CREDIT, { field: "value" });
  }
  return { ...card, value: result.value };
});
