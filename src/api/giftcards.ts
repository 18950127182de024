/**
 * Gift cards (spec "Gift cards", pretix docs giftcards.rst): list, detail, create, update,
 * `transact` and the transaction list. Needs can_manage_gift_cards (devices have it).
 * `include_accepted=true` also reaches cards of issuers whose cards this organizer accepts
 * (see api/giftcard-acceptance.ts); such cards can be read and transacted on, not edited.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  createGiftCard,
  findGiftCard,
  type GiftCardRow,
  giftCardCount,
  giftCardPage,
  secretTaken,
  transact,
  transactionCount,
  transactionPage,
  updateGiftCard,
} from "../db/giftcards";
import { storedOrganizerSettings } from "../db/settings";
import {
  ACCEPTED_READ_ONLY,
  DUPLICATE_SECRET,
  defaultGiftCardExpiry,
  GIFT_CARD_SECRET_MESSAGE,
  GIFT_CARD_SECRET_PATTERN,
  INSUFFICIENT_CREDIT,
  isKnownCurrency,
  MAX_GIFT_CARD_VALUE,
  VALUE_TOO_HIGH,
} from "../domain/giftcards";
import { effectiveSettings } from "../domain/settings";
import type { AppContext, AppEnv } from "../http/context";
import { Failure, fieldError, forbidden, notFound } from "../domain/failure";
import { dateTime, decimal } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryString } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";

export function serializeGiftCard(card: GiftCardRow) {
  return {
    id: card.id,
    secret: card.secret,
    value: formatMoney(card.value),
    currency: card.currency,
    testmode: card.testmode,
    expires: toIso(card.expires),
    conditions: card.conditions,
  };
}

const secret = () =>
  z.string().trim().min(1).max(190).regex(GIFT_CARD_SECRET_PATTERN, { message: GIFT_CARD_SECRET_MESSAGE });
const balance = () => decimal({ min: 0, max: MAX_GIFT_CARD_VALUE });

const createSchema = z.object({
  secret: secret(),
  currency: z.string().refine(isKnownCurrency, { message: "Enter a valid ISO 4217 currency code." }),
  value: balance(),
  testmode: z.boolean().optional(),
  expires: dateTime().nullable().optional(),
  conditions: z.string().nullable().optional(),
});

// `id`, `secret`, `testmode` and `currency` cannot change: sent values are ignored (as pretix does).
const putSchema = z.object({
  value: balance(),
  expires: dateTime().nullable().optional(),
  conditions: z.string().nullable().optional(),
});
const patchSchema = putSchema.partial();

const transactSchema = z.object({
  value: decimal({ min: -MAX_GIFT_CARD_VALUE, max: MAX_GIFT_CARD_VALUE }),
  text: z.string().max(10_000).nullable().optional(),
});

const includeAccepted = (c: AppContext) => queryBool(c, "include_accepted") ?? false;

async function loadCard(c: AppContext): Promise<GiftCardRow> {
  const accepted = includeAccepted(c);
  const card = await findGiftCard(c.var.db, c.var.organizer.id, pathId(c, "id"), accepted);
  if (!card) throw notFound();
  return card;
}

export const giftCardRoutes = new Hono<AppEnv>();
const perm = organizerScope("can_manage_gift_cards");
const base = "/organizers/:organizer/giftcards";

giftCardRoutes.get(base, perm, async (c) => {
  const filters = { includeAccepted: includeAccepted(c), secret: queryString(c, "secret"), testmode: queryBool(c, "testmode") };
  const page = pageRequest(c);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const [[total], rows] = await db.batch([giftCardCount(db, orgId, filters), giftCardPage(db, orgId, filters, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeGiftCard)));
});

giftCardRoutes.post(base, perm, jsonBody(createSchema), async (c) => {
  const input = c.req.valid("json");
  const db = c.var.db;
  const org = c.var.organizer;
  if (await secretTaken(db, org.id, input.secret)) throw fieldError("secret", DUPLICATE_SECRET);
  const now = Date.now();
  let expires = input.expires;
  if (expires === undefined) {
    // Not sent: the organizer's default validity applies (explicit null means "never expires").
    const settings = effectiveSettings(await storedOrganizerSettings(db, org.id));
    expires = defaultGiftCardExpiry(settings.giftcard_expiry_years as number | null, now);
  }
  const card = await createGiftCard(
    db,
    org.id,
    { secret: input.secret, currency: input.currency, testmode: input.testmode ?? false, expires, conditions: input.conditions ?? null },
    input.value,
    now,
  );
  if (!card) throw fieldError("secret", DUPLICATE_SECRET);
  return c.json(serializeGiftCard(card), 201);
});

giftCardRoutes.get(`${base}/:id`, perm, async (c) => c.json(serializeGiftCard(await loadCard(c))));

async function changeCard(c: AppContext, input: z.output<typeof patchSchema>, full: boolean) {
  if (includeAccepted(c)) throw forbidden(ACCEPTED_READ_ONLY);
  const id = pathId(c, "id");
  const values: { expires?: number | null; conditions?: string | null } = {};
  if (input.expires !== undefined || full) values.expires = input.expires ?? null;
  if (input.conditions !== undefined || full) values.conditions = input.conditions ?? null;
  // only the organizer's own cards: accepted ones are read-only
  const card = await updateGiftCard(c.var.db, c.var.organizer.id, id, values, input.value, Date.now());
  if (!card) throw notFound();
  return c.json(serializeGiftCard(card));
}

giftCardRoutes.put(`${base}/:id`, perm, jsonBody(putSchema), (c) => changeCard(c, c.req.valid("json"), true));
giftCardRoutes.patch(`${base}/:id`, perm, jsonBody(patchSchema), (c) => changeCard(c, c.req.valid("json"), false));

giftCardRoutes.post(`${base}/:id/transact`, perm, jsonBody(transactSchema), async (c) => {
  const card = await loadCard(c);
  const input = c.req.valid("json");
  const result = await transact(c.var.db, card.id, input.value, input.text ?? null, c.var.organizer.id, Date.now());
  if (!result.ok) {
    if (result.reason === "missing") throw notFound();
    if (result.reason === "too_high") throw fieldError("value", VALUE_TOO_HIGH);
    // pretix answers {"value": [...]}; `detail` is the spec's general error form.
    throw new Failure("insufficient_credit", INSUFFICIENT_CREDIT, { field: "value" });
  }
  return c.json(serializeGiftCard({ ...card, value: result.value }));
});

giftCardRoutes.get(`${base}/:id/transactions`, perm, async (c) => {
  const card = await loadCard(c);
  const page = pageRequest(c);
  const db = c.var.db;
  const [[total], rows] = await db.batch([transactionCount(db, card.id), transactionPage(db, card.id, page.limit, page.offset)]);
  return c.json(
    envelope(
      c,
      page,
      total?.n ?? 0,
      rows.map((t) => ({ id: t.id, datetime: toIso(t.datetime), value: formatMoney(t.value), event: t.event, order: t.order, text: t.text })),
    ),
  );
});
