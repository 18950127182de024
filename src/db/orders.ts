/**
 * Reading orders: one query returns a page of orders with their positions, fees and payments
 * (JSON-aggregated by SQLite), so a list page or a detail costs one D1 round trip.
 */
import { and, eq, gte, inArray, sql, type SQL } from "drizzle-orm";
import type { OrderConditions } from "./order-filters";
import { type CheckinJson, checkinsJsonSql } from "./checkin/passages";
import { ticketSettingsSql } from "./settings";
import { fetchPage, type ListRequest, type OrderingTable, type Page } from "./paging";
import type { DB } from "./client";
import { type Answer, customers, events, orderPayments, orderPositions, orders, type OrderStatus } from "./schema";
import { chunks } from "../lib/chunks";
import { inIntegers, MAX_PARAMS } from "./util";

export type OrderRow = typeof orders.$inferSelect;

export type PositionJson = {
  id: number;
  positionid: number;
  item: number;
  variation: number | null;
  subevent: number | null;
  price: number;
  attendee_name: string | null;
  attendee_name_parts: Record<string, string>;
  attendee_email: string | null;
  voucher: number | null;
  tax_rate: number;
  tax_value: number;
  tax_rule: number | null;
  secret: string;
  addon_to: number | null;
  is_bundled: number;
  pseudonymization_id: string;
  seat: string | null;
  seat_id: number | null;
  seat_name: string | null;
  answers: Answer[];
  canceled: number;
  valid_from: number | null;
  valid_until: number | null;
  /** pretix `blocked`: the names of the ticket's blocks, or null. */
  blocked: string[] | null;
  /** Successful check-ins (all lists), oldest first. */
  checkins: CheckinJson[];
};
export type FeeJson = {
  id: number;
  fee_type: string;
  value: number;
  description: string;
  internal_type: string;
  tax_rate: number;
  tax_value: number;
  tax_rule: number | null;
  canceled: number;
};
export type PaymentJson = {
  id: number;
  local_id: number;
  state: string;
  amount: number;
  provider: string;
  created: number;
  payment_date: number | null;
  /** The provider's facts (a Stripe payment's Checkout Session and PaymentIntent). */
  info: Record<string, unknown>;
};
export type RefundJson = {
  id: number;
  local_id: number;
  state: string;
  source: string;
  amount: number;
  payment: number | null;
  provider: string;
  created: number;
  execution_date: number | null;
  comment: string | null;
};

/**
 * What deciding the order's ticket downloads needs (services/tickets/tickets.ts), read with the order:
 * per position id its item's `admission` and `generate_tickets`, and the event's stored
 * `ticket_download*` settings.
 */
export type TicketFacts = { items: Record<string, [number, number | null]>; settings: Record<string, unknown> };

export type OrderRecord = {
  order: OrderRow;
  customer: string | null;
  positions: PositionJson[];
  fees: FeeJson[];
  payments: PaymentJson[];
  refunds: RefundJson[];
  ticketFacts: TicketFacts;
  invoicing: InvoicingFacts;
};

/**
 * What deciding whether an order's invoices must follow a change needs (services/invoices/invoices.ts),
 * read with the order: the event's stored `invoice_generate` (null: the default) and how many
 * of the order's invoices are not canceled.
 */
export type InvoicingFacts = { mode: string | null; live: number };

// Correlated subqueries name the outer table literally (drizzle renders bare column names).
// D1 allows 32 arguments per SQL function: a position's object is built in two steps.
const nested = {
  positions: sql<string>`(SELECT json_group_array(json_insert(json_object(
      'id', p.id, 'positionid', p.positionid, 'item', p.item_id, 'variation', p.variation_id, 'subevent', p.subevent_id,
      'price', p.price, 'attendee_name', p.attendee_name, 'attendee_name_parts', json(p.attendee_name_parts),
      'attendee_email', p.attendee_email, 'voucher', p.voucher_id, 'tax_rate', p.tax_rate, 'tax_value', p.tax_value,
      'tax_rule', p.tax_rule_id, 'secret', p.secret, 'addon_to', p.addon_to),
      '$.is_bundled', p.is_bundled, '$.pseudonymization_id', p.pseudonymization_id, '$.seat', p.seat, '$.seat_id', p.seat_id,
      '$.seat_name', p.seat_name, '$.answers', json(p.answers), '$.canceled', p.canceled, '$.valid_from', p.valid_from,
      '$.valid_until', p.valid_until, '$.blocked', json(p.blocked), '$.checkins', json(${checkinsJsonSql(sql`p.id`, null)})))
    FROM (SELECT * FROM order_positions WHERE order_id = "orders"."id" ORDER BY positionid) p)`,
  fees: sql<string>`(SELECT json_group_array(json_object(
      'id', f.id, 'fee_type', f.fee_type, 'value', f.value, 'description', f.description, 'internal_type', f.internal_type,
      'tax_rate', f.tax_rate, 'tax_value', f.tax_value, 'tax_rule', f.tax_rule_id, 'canceled', f.canceled))
    FROM (SELECT * FROM order_fees WHERE order_id = "orders"."id" ORDER BY id) f)`,
  payments: sql<string>`(SELECT json_group_array(json_object(
      'id', y.id, 'local_id', y.local_id, 'state', y.state, 'amount', y.amount, 'provider', y.provider,
      'created', y.created, 'payment_date', y.payment_date, 'info', json(y.info)))
    FROM (SELECT * FROM order_payments WHERE order_id = "orders"."id" ORDER BY local_id) y)`,
  refunds: sql<string>`(SELECT json_group_array(json_object(
      'id', r.id, 'local_id', r.local_id, 'state', r.state, 'source', r.source, 'amount', r.amount,
      'payment', (SELECT y.local_id FROM order_payments y WHERE y.id = r.payment_id), 'provider', r.provider,
      'created', r.created, 'execution_date', r.execution_date, 'comment', r.comment))
    FROM (SELECT * FROM order_refunds WHERE order_id = "orders"."id" ORDER BY local_id) r)`,
  ticketFacts: sql<string>`json_object(
    'items', (SELECT json_group_object(p.id, json_array(i.admission, i.generate_tickets)) FROM order_positions p JOIN items i ON i.id = p.item_id WHERE p.order_id = "orders"."id"),
    'settings', ${ticketSettingsSql(sql`"orders"."event_id"`)})`,
  invoicing: sql<string>`json_object(
    'mode', (SELECT json_extract(s.value, '$') FROM event_settings s WHERE s.event_id = "orders"."event_id" AND s.key = 'invoice_generate'),
    'live', (SELECT count(*) FROM invoices i WHERE i.order_id = "orders"."id" AND i.is_cancellation = 0
      AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.refers_id = i.id AND c.is_cancellation = 1)))`,
};

/** An order row as the reading query returns it (`toOrderRecord` parses it). */
export type RawOrder = {
  order: OrderRow;
  customer: string | null;
  positions: string;
  fees: string;
  payments: string;
  refunds: string;
  ticketFacts: string;
  invoicing: string;
};

export function toOrderRecord(r: RawOrder): OrderRecord {
  return {
    order: r.order,
    customer: r.customer,
    positions: JSON.parse(r.positions) as PositionJson[],
    fees: JSON.parse(r.fees) as FeeJson[],
    payments: JSON.parse(r.payments) as PaymentJson[],
    refunds: JSON.parse(r.refunds) as RefundJson[],
    ticketFacts: JSON.parse(r.ticketFacts) as TicketFacts,
    invoicing: JSON.parse(r.invoicing) as InvoicingFacts,
  };
}

function selectOrders(
  db: Pick<DB, "select">,
  more: { __page_total?: SQL.Aliased<number>; eventSlug?: SQL.Aliased<string> } = {},
) {
  return db
    .select({ order: orders, customer: customers.identifier, ...nested, ...more })
    .from(orders)
    .leftJoin(customers, eq(customers.id, orders.customerId));
}

export type OrderFilter = {
  code?: string;
  status?: OrderStatus;
  testmode?: boolean;
  email?: string;
  locale?: string;
  modifiedSince?: number;
  customer?: string;
  /** Further conditions on `orders` (the list's documented filters, ./order-filters.ts). */
  extra?: OrderConditions;
};

/**
 * Which orders a list covers: one event's (its id), or an organizer's across the events the
 * credential may see (`eventIds`: all of them, or these).
 */
export type OrderScope = number | { organizerId: number; eventIds: readonly number[] | "all" };

/** The scope's condition on `orders`; `byIds`: the orders are found by id, the scope's indexes not used (`+`). */
function scopeWhere(scope: OrderScope, byIds: boolean): SQL {
  // orders found by id (a text search's candidates): the event is tested on each, its index not
  // used (`+`), or SQLite would visit every order of the event and look each up among them
  if (typeof scope === "number") return byIds ? sql`+${orders.eventId} = ${scope}` : eq(orders.eventId, scope);
  const organizer = byIds
    ? sql`+${orders.organizerId} = ${scope.organizerId}`
    : eq(orders.organizerId, scope.organizerId);
  if (scope.eventIds === "all") return organizer;
  return and(organizer, inIntegers(sql`${orders.eventId}`, scope.eventIds))!;
}

export function orderWhere(scope: OrderScope, f: OrderFilter): SQL {
  const c: SQL[] = [scopeWhere(scope, !!f.extra?.byIds)];
  // codes are upper case (generated so, or validated so when a client gives one): the filter
  // folds only its own side, and the event's code index finds the order
  if (f.code !== undefined) c.push(sql`${orders.code} = upper(${f.code})`);
  if (f.status !== undefined) c.push(eq(orders.status, f.status));
  if (f.testmode !== undefined) c.push(eq(orders.testmode, f.testmode));
  // any case, as pretix (`iexact`): found through the index on the lower-cased address
  if (f.email !== undefined) c.push(sql`lower(${orders.email}) = lower(${f.email})`);
  if (f.locale !== undefined) c.push(eq(orders.locale, f.locale));
  // inclusive, as pretix: an order changed at exactly that time is listed
  if (f.modifiedSince !== undefined) c.push(gte(orders.lastModified, f.modifiedSince));
  if (f.customer !== undefined)
    c.push(sql`${orders.customerId} = (SELECT id FROM customers WHERE identifier = ${f.customer})`);
  if (f.extra) c.push(...f.extra.conditions);
  return and(...c)!;
}

/** The events of a scope, as a condition on a table's `event_id` (the tallies'). */
function scopeEvents(scope: OrderScope): SQL {
  if (typeof scope === "number") return sql`event_id = ${scope}`;
  const ofOrganizer = sql`event_id IN (SELECT id FROM events WHERE organizer_id = ${scope.organizerId})`;
  return scope.eventIds === "all" ? ofOrganizer : sql`${ofOrganizer} AND ${inIntegers(sql`event_id`, scope.eventIds)}`;
}

/**
 * How many orders match: without filters, or with `status` and `testmode` only, a sum over the
 * tallies of the scope's events (`migrations/0019_order_tallies.sql`: at most eight rows an
 * event, kept by triggers); otherwise a count of the matching orders.
 */
function orderCount(scope: OrderScope, f: OrderFilter, where: SQL): SQL {
  const { status, testmode, extra, ...others } = f;
  if (Object.values(others).some((v) => v !== undefined) || (extra?.conditions.length ?? 0) > 0)
    return sql`SELECT count(*) AS n FROM ${orders} WHERE ${where}`;
  const c = [scopeEvents(scope)];
  if (status !== undefined) c.push(sql`status = ${status}`);
  if (testmode !== undefined) c.push(sql`testmode = ${testmode ? 1 : 0}`);
  return sql`SELECT coalesce(sum(n), 0) AS n FROM order_tallies WHERE ${sql.join(c, sql` AND `)}`;
}

/** The orderings of the orders list (pretix docs orders.rst); each has an index on (event, field). */
export const ORDER_ORDERING: OrderingTable = {
  fields: {
    datetime: orders.datetime,
    code: orders.code,
    status: orders.status,
    last_modified: orders.lastModified,
    cancellation_date: orders.cancellationDate,
  },
  default: "datetime",
  tiebreaker: orders.id,
  tiesFollow: true,
};

/**
 * The index a page's keys are read from, where SQLite would choose worse: with the `email`
 * filter it walks the list's ordering index and tests each order of the event (its estimate
 * of the matching orders is no better than of the event's), instead of seeking the address.
 * Not for a search's candidates (found by id, the event's indexes turned off).
 */
function keysIndex(scope: OrderScope, f: OrderFilter): SQL {
  return typeof scope === "number" && f.email !== undefined && !f.extra?.byIds
    ? sql`INDEXED BY orders_event_email_lower_idx`
    : sql``;
}

/** An order of a list with its event's slug (an organizer's list spans events). */
export type ListedOrder = OrderRecord & { eventSlug: string };

const eventSlugOfOrder = sql<string>`(SELECT e.slug FROM events e WHERE e.id = "orders"."event_id")`;

/**
 * A page of the scope's orders matching the filter, read with their positions, fees and
 * payments: the page's ids from the orders' indexes (the event's, or the organizer's across its
 * events), then only those orders in full.
 */
export async function listOrders(
  db: DB,
  scope: OrderScope,
  filter: OrderFilter,
  req: ListRequest,
): Promise<Page<ListedOrder>> {
  const where = orderWhere(scope, filter);
  const page = await fetchPage(
    db,
    {
      keys: ({ order, limit, offset }) =>
        sql`SELECT ${orders.id} AS id FROM ${orders} ${keysIndex(scope, filter)} WHERE ${where} ORDER BY ${sql.join(order, sql`, `)} LIMIT ${limit} OFFSET ${offset}`,
      rows: ({ ids, qb, total }) =>
        selectOrders(qb, { __page_total: total, eventSlug: eventSlugOfOrder.as("eventSlug") })
          .where(sql`${orders.id} IN (${ids})`)
          .$dynamic(),
      count: orderCount(scope, filter, where),
      ordering: ORDER_ORDERING,
    },
    req,
  );
  return { count: page.count, rows: page.rows.map((r) => ({ ...toOrderRecord(r), eventSlug: r.eventSlug! })) };
}

/** A page of an order's payments, by local id. */
export function listPayments(db: DB, orderId: number, req: ListRequest) {
  const where = eq(orderPayments.orderId, orderId);
  const rows = db
    .select({
      id: orderPayments.id,
      local_id: orderPayments.localId,
      state: orderPayments.state,
      amount: orderPayments.amount,
      provider: orderPayments.provider,
      created: orderPayments.created,
      payment_date: orderPayments.paymentDate,
      info: orderPayments.info,
    })
    .from(orderPayments)
    .where(where)
    .orderBy(orderPayments.localId)
    .$dynamic();
  return fetchPage(db, { rows, count: { from: orderPayments, where } }, req);
}

/** The reading query of one order (for a batch: the event object reads a new order back with its write). */
export function orderByCode(db: DB, eventId: number, code: string) {
  return selectOrders(db).where(and(eq(orders.eventId, eventId), eq(orders.code, code)));
}

/** The order of one of the event's positions (pretix `orderpositions/{id}`), or undefined. */
export async function findOrderOfPosition(
  db: DB,
  eventId: number,
  positionId: number,
): Promise<OrderRecord | undefined> {
  const row = await selectOrders(db)
    .where(
      and(
        eq(orders.eventId, eventId),
        sql`${orders.id} = (SELECT order_id FROM order_positions WHERE id = ${positionId} AND event_id = ${eventId})`,
      ),
    )
    .get();
  return row ? toOrderRecord(row) : undefined;
}

export async function findOrder(db: DB, eventId: number, code: string): Promise<OrderRecord | undefined> {
  const row = await orderByCode(db, eventId, code).get();
  return row ? toOrderRecord(row) : undefined;
}

/** An order by its code and secret (customer-facing pages). */
export async function findOrderBySecret(
  db: DB,
  eventId: number,
  code: string,
  secret: string,
): Promise<OrderRecord | undefined> {
  const row = await selectOrders(db)
    .where(and(eq(orders.eventId, eventId), eq(orders.code, code), eq(orders.secret, secret)))
    .get();
  return row ? toOrderRecord(row) : undefined;
}

/** Pending orders past their expiry, across events, with their event's organizer (for the cron job). */
export async function overdueOrders(db: DB, now: number, limit = 200) {
  return db
    .select({ id: orders.id, eventId: orders.eventId, code: orders.code, organizerId: events.organizerId })
    .from(orders)
    .innerJoin(events, eq(events.id, orders.eventId))
    .where(and(eq(orders.status, "n"), sql`${orders.expires} < ${now}`))
    .limit(limit);
}

/** What the positions of these orders demand from the event object, per order id (one round trip). */
/** What a position demands of the event object (the domain's `Demand`). */
export type PositionDemand = {
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  seat: string | null;
  voucherId: number | null;
};

export async function orderDemands(
  db: DB,
  orderIds: number[],
): Promise<Map<number, (PositionDemand & { canceled: boolean })[]>> {
  const out = new Map<number, (PositionDemand & { canceled: boolean })[]>(orderIds.map((id) => [id, []]));
  const [first, ...rest] = chunks(orderIds, MAX_PARAMS).map((part) =>
    db
      .select({
        orderId: orderPositions.orderId,
        itemId: orderPositions.itemId,
        variationId: orderPositions.variationId,
        subeventId: orderPositions.subeventId,
        seat: orderPositions.seat,
        voucherId: orderPositions.voucherId,
        canceled: orderPositions.canceled,
      })
      .from(orderPositions)
      .where(inArray(orderPositions.orderId, part)),
  );
  if (!first) return out;
  for (const { orderId, ...demand } of (await db.batch([first, ...rest])).flat()) out.get(orderId)!.push(demand);
  return out;
}
