/**
 * Gift cards (spec "Gift cards", pretix docs giftcards.rst): list, detail, create, update,
 * `transact` and the transaction list. Needs can_manage_gift_cards (devices have it).
 * `include_accepted=true` also reaches cards of issuers whose cards this organizer accepts
 * (see api/giftcard-acceptance.ts); such cards can be read and transacted on, not edited. The
 * routes parse, scope, call the gift card services (domain/giftcards.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { findGiftCard, type GiftCardRow, type GiftCardTransactionRecord, listGiftCards, listTransactions } from "../db/giftcards";
import { notFound } from "../domain/failure";
import { changeGiftCard, createGiftCard, giftCardInput, giftCardPatch, giftCardPut, giftCardTransactInput, transactGiftCard } from "../domain/giftcards";
import { type AppContext, type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, id, money } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryString } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";

/** A gift card (spec "Gift card and transaction"). */
export const giftCardResponse = z.object({
  id: id(),
  secret: z.string(),
  value: money(),
  currency: z.string(),
  testmode: z.boolean(),
  expires: dateTime().nullable(),
  conditions: z.string().nullable(),
});
export type GiftCardResponse = z.infer<typeof giftCardResponse>;

/** A transaction of a gift card (spec "Gift card and transaction"). */
export const giftCardTransactionResponse = z.object({
  id: id(),
  datetime: dateTime(),
  value: money(),
  event: z.string().nullable().meta({ description: "event slug" }),
  order: z.string().nullable().meta({ description: "order code" }),
  text: z.string().nullable(),
});
export type GiftCardTransactionResponse = z.infer<typeof giftCardTransactionResponse>;

export function serializeGiftCard(card: GiftCardRow): GiftCardResponse {
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

export function serializeGiftCardTransaction(t: GiftCardTransactionRecord): GiftCardTransactionResponse {
  return { id: t.id, datetime: toIso(t.datetime)!, value: formatMoney(t.value), event: t.event, order: t.order, text: t.text };
}

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
  const req = listRequest(c);
  return respondPage(c, req, await listGiftCards(c.var.db, c.var.organizer.id, filters, req), serializeGiftCard);
});

giftCardRoutes.post(base, perm, jsonBody(giftCardInput), async (c) => c.json(serializeGiftCard(await createGiftCard(organizerContext(c), c.req.valid("json"))), 201));

giftCardRoutes.get(`${base}/:id`, perm, async (c) => c.json(serializeGiftCard(await loadCard(c))));

giftCardRoutes.put(`${base}/:id`, perm, jsonBody(giftCardPut), async (c) => {
  const accepted = includeAccepted(c);
  const card = await changeGiftCard(organizerContext(c), pathId(c, "id"), c.req.valid("json"), { full: true, includeAccepted: accepted });
  return c.json(serializeGiftCard(card));
});

giftCardRoutes.patch(`${base}/:id`, perm, jsonBody(giftCardPatch), async (c) => {
  const accepted = includeAccepted(c);
  const card = await changeGiftCard(organizerContext(c), pathId(c, "id"), c.req.valid("json"), { full: false, includeAccepted: accepted });
  return c.json(serializeGiftCard(card));
});

giftCardRoutes.post(`${base}/:id/transact`, perm, jsonBody(giftCardTransactInput), async (c) => {
  const accepted = includeAccepted(c);
  const card = await transactGiftCard(organizerContext(c), pathId(c, "id"), c.req.valid("json"), { includeAccepted: accepted });
  return c.json(serializeGiftCard(card));
});

giftCardRoutes.get(`${base}/:id/transactions`, perm, async (c) => {
  const card = await loadCard(c);
  const req = listRequest(c);
  return respondPage(c, req, await listTransactions(c.var.db, card.id, req), serializeGiftCardTransaction);
});
