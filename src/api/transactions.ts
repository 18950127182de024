/**
 * The transactions ledger (pretix docs transactions.rst): every change to what an order owes,
 * immutable, listed per event (`.../events/{event}/transactions/`, one by id) and per organizer
 * (`.../transactions/`, over the events whose orders the credential may see). The routes parse,
 * scope, call services/orders/transactions.ts and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { TRANSACTION_ORDERING } from "../services/orders/order-reads";
import { type AppContext, type AppEnv, eventContext, organizerContext } from "../http/context";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, decimalString, id, money } from "../http/responses";
import { eventScope, organizerScope } from "../http/tenancy";
import { pathId, q, type QueryValues, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";
import {
  eventTransaction,
  eventTransactions,
  organizerTransactions,
  type TransactionFilter,
  type TransactionRow,
} from "../services/orders/transactions";

const fields = {
  id: id(),
  order: z.string().meta({ description: "The order's code." }),
  created: dateTime().meta({ description: "When the row was written." }),
  datetime: dateTime().meta({ description: "When the change is financially relevant." }),
  positionid: z.number().int().nullable().meta({ description: "The position's number in the order; null for a fee." }),
  count: z.number().int().meta({ description: "Units; negative for what is no longer owed." }),
  item: id().nullable(),
  variation: id().nullable(),
  subevent: id().nullable(),
  price: money().meta({ description: "Gross price of one unit." }),
  tax_rate: decimalString(),
  tax_rule: id().nullable(),
  tax_code: z.string().nullable().meta({ description: "Always null: the service's tax rules carry no tax code." }),
  tax_value: money(),
  fee_type: z.string().nullable(),
  internal_type: z.string().nullable(),
};
export const transactionResponse = z.object(fields).meta({ id: "Transaction" });
export const organizerTransactionResponse = z
  .object({ ...fields, event: z.string().meta({ description: "The event's slug." }) })
  .meta({ id: "OrganizerTransaction" });
export type TransactionResponse = z.infer<typeof transactionResponse>;

export function serializeTransaction(t: TransactionRow): TransactionResponse {
  return {
    id: t.id,
    order: t.orderCode,
    created: toIso(t.created),
    datetime: toIso(t.datetime),
    positionid: t.positionid,
    count: t.count,
    item: t.itemId,
    variation: t.variationId,
    subevent: t.subeventId,
    price: formatMoney(t.price),
    tax_rate: formatDecimal(t.taxRate),
    tax_rule: t.taxRuleId,
    tax_code: null,
    tax_value: formatMoney(t.taxValue),
    fee_type: t.feeType,
    internal_type: t.internalType,
  };
}

const serializeOrganizerTransaction = (t: TransactionRow) => ({ ...serializeTransaction(t), event: t.eventSlug });

/** pretix's filters of both lists (transactions.rst); each `x__in` adds to `x`. */
const FILTER_PARAMS = {
  order: q.string("order code"),
  datetime_since: q.dateTime("transactions with a datetime at or after then"),
  datetime_before: q.dateTime("transactions with a datetime before then"),
  created_since: q.dateTime("transactions written at or after then"),
  created_before: q.dateTime("transactions written before then"),
  item: q.int(),
  item__in: q.intList(),
  variation: q.int(),
  variation__in: q.intList(),
  subevent: q.int(),
  subevent__in: q.intList(),
  tax_rule: q.int(),
  tax_rule__in: q.intList(),
  tax_code: q.string("the service keeps no tax codes: matches no transaction"),
  tax_code__in: q.list("the service keeps no tax codes: matches no transaction", { commaSeparated: true }),
  tax_rate: q.decimal(),
  tax_rate__in: q.decimalList(),
  fee_type: q.string(),
  fee_type__in: q.list(undefined, { commaSeparated: true }),
};
const ORGANIZER_PARAMS = { ...FILTER_PARAMS, event: q.string("the event's slug") };

/** A filter and its `__in` variant as one list (absent: undefined). */
function either<T>(one: T | undefined, many: T[] | undefined): T[] | undefined {
  if (one === undefined && many === undefined) return undefined;
  return [...(one === undefined ? [] : [one]), ...(many ?? [])];
}

function filterOf(f: QueryValues<typeof ORGANIZER_PARAMS> | QueryValues<typeof FILTER_PARAMS>): TransactionFilter {
  return {
    order: f.order,
    event: "event" in f ? f.event : undefined,
    datetimeSince: f.datetime_since,
    datetimeBefore: f.datetime_before,
    createdSince: f.created_since,
    createdBefore: f.created_before,
    items: either(f.item, f.item__in),
    variations: either(f.variation, f.variation__in),
    subevents: either(f.subevent, f.subevent__in),
    taxRules: either(f.tax_rule, f.tax_rule__in),
    taxCodes: either(f.tax_code, f.tax_code__in),
    taxRates: either(f.tax_rate, f.tax_rate__in),
    feeTypes: either(f.fee_type, f.fee_type__in),
  };
}

export const transactionRoutes = new Hono<AppEnv>();
const doc = apiDocs("Transactions");
const DESCRIPTION =
  "Every change to what an order owes, immutable: placed, changed, canceled, expired, reactivated. " +
  "The sum of `price × count` of an order is its total while it is pending or paid, and zero otherwise.";

transactionRoutes.get(
  "/organizers/:organizer/events/:event/transactions",
  eventScope("can_view_orders"),
  doc.list(transactionResponse, {
    summary: "List an event's transactions",
    description: DESCRIPTION,
    ordering: TRANSACTION_ORDERING,
  }),
  queryParams(FILTER_PARAMS),
  async (c) => {
    const req = listRequest(c);
    const page = await eventTransactions(eventContext(c), filterOf(c.req.valid("query")), req);
    return respondPage(c, req, page, serializeTransaction);
  },
);

transactionRoutes.get(
  "/organizers/:organizer/events/:event/transactions/:id",
  eventScope("can_view_orders"),
  doc.ok(transactionResponse, { summary: "Transaction detail" }),
  async (c: AppContext) => c.json(serializeTransaction(await eventTransaction(eventContext(c), pathId(c, "id")))),
);

transactionRoutes.get(
  "/organizers/:organizer/transactions",
  organizerScope("can_view_orders", { perObject: true }),
  doc.list(organizerTransactionResponse, {
    summary: "List an organizer's transactions",
    description: `${DESCRIPTION} Only of the events whose orders the credential may see (none without \`can_view_orders\`: an empty list).`,
    ordering: TRANSACTION_ORDERING,
  }),
  queryParams(ORGANIZER_PARAMS),
  async (c) => {
    const req = listRequest(c);
    const f = filterOf(c.req.valid("query"));
    const page = await organizerTransactions(organizerContext(c), c.var.principal, f, req);
    return respondPage(c, req, page, serializeOrganizerTransaction);
  },
);
