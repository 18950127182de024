/**
 * Gift cards (docs/api.md, pretix docs giftcards.rst): list, detail, create, update,
 * `transact` and the transaction list. Needs can_manage_gift_cards (devices have it).
 * `include_accepted=true` also reaches cards of issuers whose cards this organizer accepts
 * (see api/giftcard-acceptance.ts); such cards can be read and transacted on, not edited. The
 * routes parse, scope, call the gift card services (services/payments/giftcards.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  findGiftCard,
  type GiftCardRow,
  type GiftCardTransactionRecord,
  listGiftCards,
  listTransactions,
} from "../services/payments/payment-reads";
import { notFound } from "../lib/failure";
import {
  changeGiftCard,
  createGiftCard,
  giftCardInput,
  giftCardPatch,
  giftCardPut,
  giftCardTransactInput,
  transactGiftCard,
} from "../services/payments/giftcards";
import { type AppContext, type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, id, money } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";

/** A gift card (docs/api.md). */
export const giftCardResponse = z
  .object({
    id: id(),
    secret: z.string(),
    value: money(),
    currency: z.string(),
    testmode: z.boolean(),
    expires: dateTime().nullable(),
    conditions: z.string().nullable(),
  })
  .meta({ id: "GiftCard" });
export type GiftCardResponse = z.infer<typeof giftCardResponse>;

/** A transaction of a gift card (docs/api.md). */
export const giftCardTransactionResponse = z
  .object({
    id: id(),
    datetime: dateTime(),
    value: money(),
    event: z.string().nullable().meta({ description: "event slug" }),
    order: z.string().nullable().meta({ description: "order code" }),
    text: z.string().nullable(),
  })
  .meta({ id: "GiftCardTransaction" });
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
  return {
    id: t.id,
    datetime: toIso(t.datetime)!,
    value: formatMoney(t.value),
    event: t.event,
    order: t.order,
    text: t.text,
  };
}

async function loadCard(c: AppContext, accepted: boolean): Promise<GiftCardRow> {
  const card = await findGiftCard(organizerContext(c), pathId(c, "id"), accepted);
  if (!card) throw notFound();
  return card;
}

export const giftCardRoutes = new Hono<AppEnv>();
const doc = apiDocs("Gift cards");
const includeAccepted = q.bool("also cards of issuers whose cards this organizer accepts (read and transact only)");
const acceptedQuery = queryParams({ include_accepted: includeAccepted });
const giftCardFilters = queryParams({ include_accepted: includeAccepted, secret: q.string(), testmode: q.bool() });
const perm = organizerScope("can_manage_gift_cards");
const base = "/organizers/:organizer/giftcards";

giftCardRoutes.get(
  base,
  perm,
  doc.list(giftCardResponse, { summary: "List gift cards" }),
  giftCardFilters,
  async (c) => {
    const f = c.req.valid("query");
    const filters = { includeAccepted: f.include_accepted ?? false, secret: f.secret, testmode: f.testmode };
    const req = listRequest(c);
    return respondPage(c, req, await listGiftCards(organizerContext(c), filters, req), serializeGiftCard);
  },
);

giftCardRoutes.post(
  base,
  perm,
  doc.created(giftCardResponse, { summary: "Create a gift card" }),
  jsonBody(giftCardInput),
  async (c) => c.json(serializeGiftCard(await createGiftCard(organizerContext(c), c.req.valid("json"))), 201),
);

giftCardRoutes.get(
  `${base}/:id`,
  perm,
  doc.ok(giftCardResponse, { summary: "Gift card detail" }),
  acceptedQuery,
  async (c) => c.json(serializeGiftCard(await loadCard(c, c.req.valid("query").include_accepted ?? false))),
);

giftCardRoutes.put(
  `${base}/:id`,
  perm,
  doc.ok(giftCardResponse, { summary: "Replace a gift card" }),
  jsonBody(giftCardPut),
  acceptedQuery,
  async (c) => {
    const accepted = c.req.valid("query").include_accepted ?? false;
    const card = await changeGiftCard(organizerContext(c), pathId(c, "id"), c.req.valid("json"), {
      mode: "put",
      includeAccepted: accepted,
    });
    return c.json(serializeGiftCard(card));
  },
);

giftCardRoutes.patch(
  `${base}/:id`,
  perm,
  doc.ok(giftCardResponse, { summary: "Change a gift card" }),
  jsonBody(giftCardPatch),
  acceptedQuery,
  async (c) => {
    const accepted = c.req.valid("query").include_accepted ?? false;
    const card = await changeGiftCard(organizerContext(c), pathId(c, "id"), c.req.valid("json"), {
      mode: "patch",
      includeAccepted: accepted,
    });
    return c.json(serializeGiftCard(card));
  },
);

giftCardRoutes.post(
  `${base}/:id/transact`,
  perm,
  doc.ok(giftCardResponse, { summary: "Add to or take from a gift card's value", failures: ["insufficient_credit"] }),
  jsonBody(giftCardTransactInput),
  acceptedQuery,
  async (c) => {
    const accepted = c.req.valid("query").include_accepted ?? false;
    const card = await transactGiftCard(organizerContext(c), pathId(c, "id"), c.req.valid("json"), {
      includeAccepted: accepted,
    });
    return c.json(serializeGiftCard(card));
  },
);

giftCardRoutes.get(
  `${base}/:id/transactions`,
  perm,
  doc.list(giftCardTransactionResponse, { summary: "List a gift card's transactions" }),
  acceptedQuery,
  async (c) => {
    const card = await loadCard(c, c.req.valid("query").include_accepted ?? false);
    const req = listRequest(c);
    return respondPage(c, req, await listTransactions(organizerContext(c), card.id, req), serializeGiftCardTransaction);
  },
);
