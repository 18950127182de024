/**
 * The filters of the orders list that pretix documents (orders.rst, "List of all orders") beyond
 * the plain column matches of `orderWhere` (code, status, email, locale, testmode, customer,
 * modified_since): `search`, `item`, `variation`, `subevent`, `require_approval`,
 * `created_since`, `created_before`, `subevent_after`, `subevent_before`, `sales_channel`,
 * `payment_provider`. Each becomes one condition on the `orders` table of the list query;
 * text is matched with the shared helpers of ./search.ts (literally, at any length).
 */
import { and, eq, gte, lt, or, sql, type SQL } from "drizzle-orm";
import { orders } from "./schema";
import { containsText, indexedTerm, jsonValuesContain, orderIdsMatching, startsWithText } from "./search";

export type OrderListFilter = {
  /** Order code (also as `<event slug>-<code>`), email, invoice name and company, comment, attendee names and emails, start of a ticket secret. */
  search?: string;
  /** Orders with a position (canceled ones included, as pretix does) of this item / variation / date. */
  item?: number;
  variation?: number;
  subevent?: number;
  requireApproval?: boolean;
  /** Created at or after (inclusive). */
  createdSince?: number;
  /** Created before (exclusive). */
  createdBefore?: number;
  /** A position's date ends after this time (its start when it has no end). */
  subeventAfter?: number;
  /** A position's date starts before this time. */
  subeventBefore?: number;
  salesChannel?: string;
  /** A payment (in any state) of this provider. */
  paymentProvider?: string;
};

const orderId = sql`"orders"."id"`;
const invoiceAddress = sql`"orders"."invoice_address"`;
// a position's date is looked up by its id (never a scan of every event's dates)
const positionsWhere = (condition: SQL) =>
  sql`EXISTS (SELECT 1 FROM order_positions p WHERE p.order_id = ${orderId} AND ${condition})`;

/** The event's slug of the order (an organizer's list spans events). */
const eventSlugOfOrder = sql`(SELECT e.slug FROM events e WHERE e.id = "orders"."event_id")`;

function searchCondition(eventSlug: string | null, term: string): { condition: SQL; byIds: boolean } {
  const parts: SQL[] = [];
  // "<event slug>-<code>" as printed on tickets; in one event's list the slug part is known, in
  // an organizer's it is matched against each order's event (pretix: `event__slug__icontains`)
  const dash = term.lastIndexOf("-");
  const prefix = dash < 0 ? "" : term.slice(0, dash);
  const codeTerm =
    dash < 0
      ? undefined
      : eventSlug === null || eventSlug.toLowerCase().includes(prefix.toLowerCase())
        ? term.slice(dash + 1)
        : null;
  if (codeTerm === undefined) parts.push(containsText(orders.code, term));
  else if (codeTerm !== null && eventSlug !== null) parts.push(containsText(orders.code, codeTerm));
  else if (codeTerm !== null)
    parts.push(and(containsText(orders.code, codeTerm), containsText(eventSlugOfOrder, prefix))!);
  parts.push(
    containsText(orders.email, term),
    containsText(orders.comment, term),
    containsText(sql`json_extract(${invoiceAddress}, '$.company')`, term),
    jsonValuesContain(invoiceAddress, term, "$.name_parts"),
    // the whole name as the parts make it up ("Jane Doe" across given and family name)
    containsText(
      sql`(SELECT group_concat(value, ' ') FROM json_each(${invoiceAddress}, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_')`,
      term,
    ),
    positionsWhere(
      or(
        containsText(sql`p.attendee_name`, term),
        containsText(sql`p.attendee_email`, term),
        startsWithText(sql`p.secret`, term),
      )!,
    ),
  );
  const exact = or(...parts)!;
  // the candidates from the trigram indexes (./search.ts), each tested exactly; terms they cannot find: every order of the event
  if (!indexedTerm(term) || (codeTerm != null && !indexedTerm(codeTerm))) return { condition: exact, byIds: false };
  return {
    condition: sql`(${orderId} IN (${orderIdsMatching(term, codeTerm ?? undefined)}) AND ${exact})`,
    byIds: true,
  };
}

/**
 * Conditions on the `orders` table; `byIds`: one of them selects orders by id from an index (the
 * candidates of a text search, few against the event's orders), which the list then starts from.
 */
export type OrderConditions = { conditions: SQL[]; byIds: boolean };

/** The conditions of `f` on the `orders` table of the event with slug `eventSlug` (null: an organizer's orders, of any event). */
export function orderFilterConditions(eventSlug: string | null, f: OrderListFilter): OrderConditions {
  const c: SQL[] = [];
  let byIds = false;
  if (f.search !== undefined) {
    const search = searchCondition(eventSlug, f.search);
    c.push(search.condition);
    byIds = search.byIds;
  }
  if (f.item !== undefined) c.push(positionsWhere(sql`p.item_id = ${f.item}`));
  if (f.variation !== undefined) c.push(positionsWhere(sql`p.variation_id = ${f.variation}`));
  if (f.subevent !== undefined) c.push(positionsWhere(sql`p.subevent_id = ${f.subevent}`));
  if (f.requireApproval !== undefined) c.push(eq(orders.requireApproval, f.requireApproval));
  if (f.createdSince !== undefined) c.push(gte(orders.datetime, f.createdSince));
  if (f.createdBefore !== undefined) c.push(lt(orders.datetime, f.createdBefore));
  if (f.subeventAfter !== undefined) {
    c.push(
      positionsWhere(
        sql`EXISTS (SELECT 1 FROM subevents s WHERE s.id = p.subevent_id AND (s.date_to > ${f.subeventAfter} OR (s.date_to IS NULL AND s.date_from > ${f.subeventAfter})))`,
      ),
    );
  }
  if (f.subeventBefore !== undefined)
    c.push(
      positionsWhere(
        sql`EXISTS (SELECT 1 FROM subevents s WHERE s.id = p.subevent_id AND s.date_from < ${f.subeventBefore})`,
      ),
    );
  if (f.salesChannel !== undefined) c.push(eq(orders.salesChannel, f.salesChannel));
  if (f.paymentProvider !== undefined)
    c.push(
      sql`EXISTS (SELECT 1 FROM order_payments y WHERE y.order_id = ${orderId} AND y.provider = ${f.paymentProvider})`,
    );
  return { conditions: c.length ? [and(...c)!] : [], byIds };
}
