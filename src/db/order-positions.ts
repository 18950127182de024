/**
 * The order positions list (pretix docs orders.rst "List of all order positions"): an event's
 * tickets, or an organizer's across the events a credential may see, with pretix's filters
 * (those of a check-in list's tickets, ./checkin/tickets.ts) and orderings, paged by key
 * (`KeyedListing`, ./paging.ts): an order's field first walks the orders' index of the scope and
 * each order's tickets, the others the positions' indexes. Rows are read as a list's tickets are.
 */
import { type SQL, sql } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import type { DB } from "./client";
import {
  BY_ORDER,
  type CheckinPositionFilter,
  filterNeedsOrder,
  foundByIds,
  positionFilterConditions,
} from "./checkin/tickets";
import { type CheckinPositionRow, p, positionSelect, ticketRows } from "./checkin/ticket-rows";
import { rawRows } from "./raw";
import { fetchPage, type KeyedListing, type ListRequest, type OrderingTable, type Page } from "./paging";
import { inIntegers } from "./util";

/** Which positions a list covers: one event's, or an organizer's over its events (all, or these). */
export type PositionScope = { eventId: number } | { organizerId: number; eventIds: readonly number[] | "all" };

export type OrderPositionFilter = Omit<CheckinPositionFilter, "ignoreStatus"> & {
  /** pretix `include_canceled_positions`: also positions canceled on their own (an order's cancellation cancels none). */
  includeCanceled?: boolean;
};

/**
 * pretix's orderings (order__code, order__datetime, positionid, attendee_name, order__status;
 * default `order__datetime,positionid`). `attendee_name` is the name a ticket sorts by (its
 * own, or an add-on's base position's: `sort_name`), empty first ascending, as pretix.
 */
export const ORDER_POSITION_ORDERING: OrderingTable = {
  fields: {
    order__code: sql`o.code`,
    order__datetime: sql`o.datetime`,
    positionid: sql`p.positionid`,
    attendee_name: sql`p.sort_name`,
    order__status: sql`o.status`,
  },
  default: "order__datetime,positionid",
  tiebreaker: p.id,
  tiesFollow: true,
};

/** The scope's condition on a table's `event_id` (`+`: its index not used, for candidates found by id). */
function eventsOf(scope: PositionScope, column: string, byIds: boolean): SQL {
  const col = sql.raw(byIds ? `+${column}` : column);
  if ("eventId" in scope) return sql`${col} = ${scope.eventId}`;
  const ofOrganizer = sql`${col} IN (SELECT id FROM events WHERE organizer_id = ${scope.organizerId})`;
  return scope.eventIds === "all" ? ofOrganizer : sql`${ofOrganizer} AND ${inIntegers(col, scope.eventIds)}`;
}

/** The scope's condition on the orders `o` walked in an order's ordering: the event's, or the organizer's index. */
function ordersOf(scope: PositionScope, byIds: boolean): SQL {
  const plus = byIds ? sql.raw("+") : sql``;
  if ("eventId" in scope) return sql`${plus}o.event_id = ${scope.eventId}`;
  const organizer = sql`${plus}o.organizer_id = ${scope.organizerId}`;
  return scope.eventIds === "all" ? organizer : sql`${organizer} AND ${inIntegers(sql`o.event_id`, scope.eventIds)}`;
}

function positionWhere(scope: PositionScope, f: OrderPositionFilter): SQL {
  const c: SQL[] = [eventsOf(scope, "p.event_id", foundByIds(f))];
  if (!f.includeCanceled) c.push(sql`p.canceled = 0`);
  c.push(...positionFilterConditions(f, null, eventsOf(scope, "event_id", false)));
  return sql.join(c, sql` AND `);
}

/**
 * The SELECT of a page's position ids: the `order` filter's from the order's index; an order's
 * field first: the scope's orders in that order (orders' indexes, the organizer's across its
 * events), each order's positions after it; else the positions' indexes of the event.
 */
function positionKeys(scope: PositionScope, where: SQL, f: OrderPositionFilter): KeyedListing<SQLiteSelect>["keys"] {
  const join = filterNeedsOrder(f) ? sql`JOIN orders o ON o.id = p.order_id` : sql``;
  return ({ order: terms, fields, limit, offset }) => {
    const orderBy = sql.join(terms, sql`, `);
    const first = fields[0]!.replace(/^-/, "");
    if (f.order !== undefined)
      return sql`SELECT p.id FROM order_positions p ${BY_ORDER} JOIN orders o ON o.id = p.order_id
        WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
    if (first.startsWith("order__"))
      return sql`SELECT p.id FROM orders o CROSS JOIN order_positions p ${BY_ORDER} ON p.order_id = o.id
        WHERE ${ordersOf(scope, foundByIds(f))} AND ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
    return sql`SELECT p.id FROM order_positions p ${join} WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
  };
}

const unfiltered = (f: OrderPositionFilter) => Object.values(f).every((v) => v === undefined || v === false);

/**
 * The total: without filters a sum over the tallies of the scope's events
 * (migrations/0016_position_tallies.sql: the positions not canceled per event, product, date
 * and order status); otherwise a count of the matching positions.
 */
function positionCount(scope: PositionScope, where: SQL, f: OrderPositionFilter): SQL {
  if (unfiltered(f))
    return sql`SELECT coalesce(sum(n), 0) AS n FROM position_tallies WHERE ${eventsOf(scope, "event_id", false)}`;
  const join = filterNeedsOrder(f) ? sql`JOIN orders o ON o.id = p.order_id` : sql``;
  return sql`SELECT count(*) AS n FROM order_positions p ${f.order !== undefined ? BY_ORDER : sql``} ${join} WHERE ${where}`;
}

/** A page of the scope's positions matching `f`, each with its check-ins on every list: one round trip. */
export async function listOrderPositions(
  db: DB,
  scope: PositionScope,
  f: OrderPositionFilter,
  req: ListRequest,
): Promise<Page<CheckinPositionRow>> {
  const where = positionWhere(scope, f);
  const page = await fetchPage(
    db,
    {
      keys: positionKeys(scope, where, f),
      rows: ticketRows(null),
      count: positionCount(scope, where, f),
      ordering: ORDER_POSITION_ORDERING,
    },
    req,
  );
  return { count: page.count, rows: page.rows as CheckinPositionRow[] };
}

/** One position of the scope by id (canceled ones only with `includeCanceled`), read as the list reads it. */
export async function findOrderPosition(
  db: DB,
  scope: PositionScope,
  id: number,
  includeCanceled: boolean,
): Promise<CheckinPositionRow | undefined> {
  const canceled = includeCanceled ? sql`` : sql` AND p.canceled = 0`;
  const [row] = await rawRows<CheckinPositionRow>(
    db,
    sql`SELECT ${positionSelect(null)} FROM order_positions p JOIN orders o ON o.id = p.order_id
      WHERE p.id = ${id} AND ${eventsOf(scope, "p.event_id", false)}${canceled}`,
  );
  return row;
}
