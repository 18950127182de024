/**
 * The transactions ledger of orders (pretix docs transactions.rst; schema/transactions.ts). One
 * idempotent statement keeps it (`reconcileTransactions`, as pretix's `Order.create_transactions`):
 * what an order owes now (its positions and fees not canceled, while it is pending or paid) less
 * the sum of its transactions, written as new rows. Every batch that changes an order's positions,
 * fees or status ends with it, so a replayed write books nothing twice. Also the lists' queries.
 */
import { and, asc, eq, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { DB } from "./client";
import type { ListRequest, OrderingTable } from "./paging";
import { fetchPage } from "./paging";
import { statement } from "./raw";
import { events, orders, orderTransactions } from "./schema";

/** The key of a transaction (pretix `Transaction.key`): rows of one key add up their counts. */
const KEY = sql.raw(
  "positionid, item_id, variation_id, subevent_id, price, tax_rate, tax_rule_id, tax_value, fee_type, internal_type",
);

/**
 * The statement that books an order's change in the ledger: for every key (position number,
 * product, variation, date, price, tax rate, tax rule, tax value, fee type), what the order owes
 * now less what its transactions already say, written as a row of that count (none when they
 * agree). `order`: the order's id, or a subquery that finds it (an order written in the same
 * batch). `datetime`: when the change is financially relevant; `now`: when the row is written.
 */
export function reconcileTransactions(db: DB, order: number | SQL, datetime: number, now: number) {
  return statement(
    db,
    sql`WITH o AS (SELECT id, event_id, status FROM orders WHERE id = ${order}),
      owed AS (
        SELECT p.positionid, p.item_id, p.variation_id, p.subevent_id, p.price, p.tax_rate, p.tax_rule_id,
          p.tax_value, NULL AS fee_type, NULL AS internal_type, 1 AS n
        FROM order_positions p JOIN o ON p.order_id = o.id WHERE p.canceled = 0 AND o.status IN ('n', 'p')
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, f.value, f.tax_rate, f.tax_rule_id, f.tax_value, f.fee_type, f.internal_type, 1
        FROM order_fees f JOIN o ON f.order_id = o.id WHERE f.canceled = 0 AND o.status IN ('n', 'p')
        UNION ALL
        SELECT t.positionid, t.item_id, t.variation_id, t.subevent_id, t.price, t.tax_rate, t.tax_rule_id,
          t.tax_value, t.fee_type, t.internal_type, -t.count
        FROM order_transactions t JOIN o ON t.order_id = o.id
      )
    INSERT INTO order_transactions (order_id, event_id, created, datetime, positionid, count, item_id, variation_id,
      subevent_id, price, tax_rate, tax_rule_id, tax_value, fee_type, internal_type)
    SELECT (SELECT id FROM o), (SELECT event_id FROM o), ${now}, ${datetime}, positionid, sum(n), item_id,
      variation_id, subevent_id, price, tax_rate, tax_rule_id, tax_value, fee_type, internal_type
    FROM owed GROUP BY ${KEY} HAVING sum(n) <> 0`,
  );
}

export type TransactionRow = typeof orderTransactions.$inferSelect & { orderCode: string; eventSlug: string };

/** pretix's filters of the transaction lists (transactions.rst); `*In` are the `__in` variants, merged with the single value. */
export type TransactionFilter = {
  order?: string;
  event?: string;
  datetimeSince?: number;
  datetimeBefore?: number;
  createdSince?: number;
  createdBefore?: number;
  items?: number[];
  variations?: number[];
  subevents?: number[];
  taxRules?: number[];
  /** The service keeps no tax codes: a `tax_code` filter matches no transaction. */
  taxCodes?: string[];
  /** Percent in hundredths. */
  taxRates?: number[];
  feeTypes?: string[];
};

export const TRANSACTION_ORDERING: OrderingTable = {
  fields: { datetime: orderTransactions.datetime, created: orderTransactions.created, id: orderTransactions.id },
  default: "datetime",
  tiebreaker: orderTransactions.id,
};

/** Which events a list covers: one event, or the organizer's events (all, or those of `eventIds`). */
export type TransactionScope = { eventId: number } | { organizerId: number; eventIds: readonly number[] | "all" };

function scopeCondition(scope: TransactionScope): SQL {
  if ("eventId" in scope) return eq(orderTransactions.eventId, scope.eventId);
  const ofOrganizer = sql`${orderTransactions.eventId} IN (SELECT id FROM events WHERE organizer_id = ${scope.organizerId})`;
  if (scope.eventIds === "all") return ofOrganizer;
  return and(ofOrganizer, inArrayOrNone(orderTransactions.eventId, scope.eventIds))!;
}

function inArrayOrNone<T>(column: Parameters<typeof inArray>[0], values: readonly T[]): SQL {
  return values.length ? inArray(column, [...values]) : sql`0`;
}

function filterConditions(f: TransactionFilter): SQL[] {
  const conds: SQL[] = [];
  if (f.order !== undefined) conds.push(eq(orders.code, f.order));
  if (f.event !== undefined) conds.push(eq(events.slug, f.event));
  if (f.datetimeSince !== undefined) conds.push(gte(orderTransactions.datetime, f.datetimeSince));
  if (f.datetimeBefore !== undefined) conds.push(lt(orderTransactions.datetime, f.datetimeBefore));
  if (f.createdSince !== undefined) conds.push(gte(orderTransactions.created, f.createdSince));
  if (f.createdBefore !== undefined) conds.push(lt(orderTransactions.created, f.createdBefore));
  if (f.items) conds.push(inArrayOrNone(orderTransactions.itemId, f.items));
  if (f.variations) conds.push(inArrayOrNone(orderTransactions.variationId, f.variations));
  if (f.subevents) conds.push(inArrayOrNone(orderTransactions.subeventId, f.subevents));
  if (f.taxRules) conds.push(inArrayOrNone(orderTransactions.taxRuleId, f.taxRules));
  if (f.taxCodes) conds.push(sql`0`);
  if (f.taxRates) conds.push(inArrayOrNone(orderTransactions.taxRate, f.taxRates));
  if (f.feeTypes) conds.push(inArrayOrNone(orderTransactions.feeType, f.feeTypes));
  return conds;
}

function selectRows(db: DB, where: SQL | undefined) {
  return db
    .select({
      id: orderTransactions.id,
      orderId: orderTransactions.orderId,
      eventId: orderTransactions.eventId,
      created: orderTransactions.created,
      datetime: orderTransactions.datetime,
      positionid: orderTransactions.positionid,
      count: orderTransactions.count,
      itemId: orderTransactions.itemId,
      variationId: orderTransactions.variationId,
      subeventId: orderTransactions.subeventId,
      price: orderTransactions.price,
      taxRate: orderTransactions.taxRate,
      taxRuleId: orderTransactions.taxRuleId,
      taxValue: orderTransactions.taxValue,
      feeType: orderTransactions.feeType,
      internalType: orderTransactions.internalType,
      orderCode: orders.code,
      eventSlug: events.slug,
    })
    .from(orderTransactions)
    .innerJoin(orders, eq(orders.id, orderTransactions.orderId))
    .innerJoin(events, eq(events.id, orderTransactions.eventId))
    .where(where);
}

/** A page of the transactions in `scope` matching `f`. */
export async function listTransactions(db: DB, scope: TransactionScope, f: TransactionFilter, req: ListRequest) {
  const where = and(scopeCondition(scope), ...filterConditions(f));
  const count = db
    .select({ n: sql<number>`count(*)` })
    .from(orderTransactions)
    .innerJoin(orders, eq(orders.id, orderTransactions.orderId))
    .innerJoin(events, eq(events.id, orderTransactions.eventId))
    .where(where);
  const page = await fetchPage(
    db,
    { rows: selectRows(db, where).$dynamic(), count, ordering: TRANSACTION_ORDERING },
    req,
  );
  return { count: page.count, rows: page.rows as TransactionRow[] };
}

/** One transaction of the event, or undefined. */
export async function transactionOfEvent(db: DB, eventId: number, id: number): Promise<TransactionRow | undefined> {
  const [row] = await selectRows(db, and(eq(orderTransactions.eventId, eventId), eq(orderTransactions.id, id))).limit(
    1,
  );
  return row;
}

/** An order's transactions in the order they were written (tests of the ledger's sums, the invariant checks). */
export async function transactionsOfOrder(db: DB, orderId: number) {
  return db
    .select()
    .from(orderTransactions)
    .where(eq(orderTransactions.orderId, orderId))
    .orderBy(asc(orderTransactions.id));
}
