/**
 * The tickets of check-in lists as a list (pretix docs checkinlists.rst `.../positions/`, and
 * checkin.rst `checkinrpc/search`): filters, orderings, the total, and pages picked by key over
 * indexes (`KeyedListing`, db/paging.ts); the rows themselves are read by `./ticket-rows.ts`.
 */
import { type SQL, sql } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import type { DB } from "../client";
import { fetchPage, type KeyedListing, type ListRequest, type OrderingTable } from "../paging";
import { rawRows } from "../raw";
import { containsText, indexedTerm, orderIdsMatching, startsWithText } from "../search";
import { inIntegers, integerLiterals } from "../util";
import { type CheckinListRecord, type CheckinListRow, checkinListQuery } from "./lists";
import { type CheckinPositionRow, p, parentNameSql, positionSelect, ticketRows } from "./ticket-rows";

export type CheckinPositionFilter = {
  ignoreStatus?: boolean;
  order?: string;
  search?: string;
  item?: number;
  itemIn?: number[];
  variation?: number;
  variationIn?: number[];
  attendeeName?: string;
  secret?: string;
  orderStatus?: string;
  orderStatusIn?: string[];
  hasCheckin?: boolean;
  subevent?: number;
  subeventIn?: number[];
  addonTo?: number;
  addonToIn?: number[];
  voucher?: number;
  voucherCode?: string;
  /** pretix's order positions list (orders.rst) also filters by these. */
  pseudonymizationId?: string;
  customer?: string;
};

const invoiceNameSql = sql<
  string | null
>`(SELECT group_concat(value, ' ') FROM json_each(o.invoice_address, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_')`;

/** A ticket's last check-in on the lists (null: on any list). */
const lastCheckedInSql = (listIds: readonly number[] | null) =>
  sql`(SELECT max(c.datetime) FROM checkins c WHERE c.position_id = p.id AND c.successful = 1${listIds === null ? sql`` : sql` AND ${inIntegers(sql`c.list_id`, listIds)}`})`;

/**
 * The name a ticket sorts by: its attendee's, or an add-on's base position's
 * (`coalesce(nullif(attendee_name, ''), base's attendee_name)`, kept with the position as
 * `sort_name` so that an index orders it).
 */
const attendeeNameSql = sql`p.sort_name`;

/**
 * The orderings of a list's tickets (pretix: order__code, order__datetime, positionid,
 * attendee_name, last_checked_in, order__email; ascending puts empty values first, descending
 * last, as SQLite does). pretix's default puts tickets without a name last (`_named_first`).
 * Ties go by id in the direction of the last term. Each ordering is served by an index (see
 * `positionKeys`).
 */
export function positionOrdering(listIds: readonly number[]): OrderingTable {
  return {
    fields: {
      order__code: sql`o.code`,
      order__datetime: sql`o.datetime`,
      positionid: sql`p.positionid`,
      attendee_name: attendeeNameSql,
      last_checked_in: lastCheckedInSql(listIds),
      order__email: sql`o.email`,
      // the same expression as the index order_positions_named_first_idx
      _named_first: sql`(${attendeeNameSql} IS NULL)`,
    },
    default: "_named_first,attendee_name,positionid",
    tiebreaker: p.id,
    tiesFollow: true,
  };
}

/**
 * The SELECT of a page's ticket ids (KeyedListing.keys), over indexes only as far as the
 * ordering allows:
 * - an order's field first (order__code, order__datetime, order__email): the event's orders in
 *   that order (orders' indexes), each order's positions after it;
 * - `last_checked_in` on one list: tickets without a check-in on it by id, then the list's
 *   check-ins in time order, each ticket at its last one (both from indexes; ascending puts
 *   those without first, descending last, as the correlated ordering does);
 * - anything else: the positions' indexes (event, canceled, sort name / position number); the
 *   default ordering, for one list of paid orders only (`paidOnly`, when the list is read in the
 *   statement), from the index that has the order's status before the ordering's terms.
 * The order's row is joined only where a filter reads it (`filterNeedsOrder`) or the ordering
 * does; the `order` filter's tickets come from the index by order.
 */
function positionKeys(
  source: { eventId: number | null; singleList: number | null; lead: SQL; paidOnly: SQL | null },
  where: SQL,
  f: CheckinPositionFilter,
): KeyedListing<SQLiteSelect>["keys"] {
  const order = filterNeedsOrder(f) ? sql`JOIN orders o ON o.id = p.order_id` : sql``;
  const byIds = foundByIds(f);
  const { eventId, lead } = source;
  return ({ order: terms, fields, limit, offset }) => {
    const orderBy = sql.join(terms, sql`, `);
    const first = fields[0]!.replace(/^-/, "");
    if (f.order !== undefined) {
      // the `order` filter: the tickets of one order, found from it and sorted (a handful)
      return sql`SELECT p.id FROM ${lead} order_positions p ${BY_ORDER} JOIN orders o ON o.id = p.order_id
        WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
    }
    if (eventId !== null && first.startsWith("order__")) {
      return sql`SELECT p.id FROM ${lead} orders o CROSS JOIN order_positions p INDEXED BY order_positions_order_positionid_uq ON p.order_id = o.id
        WHERE ${byIds ? sql`+o.event_id` : sql`o.event_id`} = ${eventId} AND ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
    }
    if (eventId !== null && first === "last_checked_in" && fields.length === 1 && source.singleList !== null) {
      const listId = source.singleList;
      const dir = fields[0]!.startsWith("-") ? sql.raw("DESC") : sql.raw("ASC");
      const unchecked = sql`SELECT p.id AS id FROM ${lead} order_positions p INDEXED BY order_positions_event_idx ${order}
        WHERE ${where} AND NOT EXISTS (SELECT 1 FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${listId} AND c.successful = 1)
        ORDER BY p.id ${dir}`;
      const checked = sql`SELECT c.position_id AS id FROM ${lead} checkins c INDEXED BY checkins_list_idx JOIN order_positions p ON p.id = c.position_id ${order}
        WHERE c.list_id = ${listId} AND c.successful = 1 AND ${where}
          AND NOT EXISTS (SELECT 1 FROM checkins c2 WHERE c2.position_id = c.position_id AND c2.list_id = ${listId} AND c2.successful = 1
            AND (c2.datetime > c.datetime OR (c2.datetime = c.datetime AND c2.id > c.id)))
        ORDER BY c.datetime ${dir}, c.position_id ${dir}`;
      // ascending: those without a check-in come first (NULL first); descending: last
      const [head, tail] = fields[0]!.startsWith("-") ? [checked, unchecked] : [unchecked, checked];
      const headPage = sql`SELECT id FROM (${head} LIMIT ${limit} OFFSET ${offset})`;
      const taken = sql`(SELECT count(*) FROM (${headPage}))`;
      // the tail's page starts where the head ends: at once when the page reached into it, else
      // as far past the head's end as the offset is (counted only then)
      return sql`${headPage} UNION ALL SELECT id FROM (${tail} LIMIT ${limit} - ${taken}
        OFFSET CASE WHEN ${taken} > 0 THEN 0 ELSE ${offset} - (SELECT count(*) FROM (${head})) END)`;
    }
    const page = (cond: SQL) =>
      sql`SELECT p.id FROM ${lead} order_positions p ${order} WHERE ${cond} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
    if (source.paidOnly !== null && first === "_named_first") {
      // one list, read in the statement: when it takes paid orders only, its tickets are one range
      // of order_positions_status_named_first_idx, walked without testing the skipped ones; else
      // (pending orders too) the default ordering's index, testing each. SQLite runs only the
      // branch whose guard holds (a condition on the list's row, tested before the tickets).
      return sql`SELECT id FROM (${page(sql`(${source.paidOnly}) AND p.order_status = 'p' AND ${where}`)})
        UNION ALL SELECT id FROM (${page(sql`NOT (${source.paidOnly}) AND ${where}`)})`;
    }
    return page(where);
  };
}

function inList(column: SQL, values: readonly string[]): SQL {
  if (values.length === 0) return sql`0`;
  return sql`${column} IN (${sql.join(
    [...new Set(values)].map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

/** An id of a list or a date as a literal (lists searched together add no parameters). */
const idLiteral = (id: number) => integerLiterals([id]);

/**
 * A list whose tickets are read: its row (read before), or its id in its event, when the list
 * is read in the same batch as its tickets (its settings then come from D1 in the statement).
 */
export type ListSource = { list: CheckinListRow } | { listId: number; eventId: number };

const sourceId = (l: ListSource) => ("list" in l ? l.list.id : l.listId);
const sourceEvent = (l: ListSource) => ("list" in l ? l.list.eventId : l.eventId);

/** A setting of a list read in the statement (an uncorrelated subquery: SQLite evaluates it once per statement). */
const listSetting = (l: { listId: number; eventId: number }, column: string) =>
  sql`(SELECT ${sql.raw(column)} FROM checkin_lists WHERE id = ${idLiteral(l.listId)} AND event_id = ${idLiteral(l.eventId)})`;

/**
 * For `positionKeys`: a condition true when the one list of `lists` takes paid orders only,
 * where that is read in the statement (a list read before says it in its condition, as an
 * equality); null for several lists or when the filters ignore the status.
 */
function paidOnlyGuard(lists: readonly ListSource[], f: CheckinPositionFilter): SQL | null {
  const [l] = lists;
  if (lists.length !== 1 || l === undefined || "list" in l || f.ignoreStatus) return null;
  return sql`${listSetting(l, "include_pending")} = 0`;
}

/** The condition "a ticket of this list" (its event, products, order status and date). */
function onListCondition(l: ListSource, ignoreStatus: boolean | undefined, byIds: boolean): SQL {
  const event = eventColumn(byIds);
  if ("list" in l) {
    const { list } = l;
    // the list's products from D1 (constant size however many the list limits to)
    const products = list.allProducts
      ? sql`1`
      : sql`p.item_id IN (SELECT li.item_id FROM checkin_list_items li WHERE li.list_id = ${idLiteral(list.id)})`;
    // the order's status as its positions keep it: counted and paged without visiting the orders
    const status = ignoreStatus
      ? sql`1`
      : list.includePending
        ? sql`p.order_status IN ('p', 'n')`
        : sql`p.order_status = 'p'`;
    const date = list.subeventId === null ? sql`1` : sql`p.subevent_id = ${idLiteral(list.subeventId)}`;
    return sql`(${event} = ${idLiteral(list.eventId)} AND ${products} AND ${status} AND ${date})`;
  }
  const [id, eventId] = [idLiteral(l.listId), idLiteral(l.eventId)];
  const setting = (column: string) => listSetting(l, column);
  const products = sql`(${setting("all_products")} OR p.item_id IN (SELECT li.item_id FROM checkin_list_items li WHERE li.list_id = ${id}))`;
  const status = ignoreStatus
    ? sql`1`
    : sql`p.order_status IN ('p', CASE WHEN ${setting("include_pending")} THEN 'n' ELSE 'p' END)`;
  const date = sql`(${setting("subevent_id")} IS NULL OR p.subevent_id = ${setting("subevent_id")})`;
  return sql`(${event} = ${eventId} AND ${setting("1")} AND ${products} AND ${status} AND ${date})`;
}

/**
 * Whether the tickets are found by their orders' ids (a search the trigram indexes answer,
 * ./search.ts): then the ticket's event is tested on each candidate, its indexes not used
 * (`+p.event_id`), or SQLite would visit every ticket of the event and look each up among them.
 */
export function foundByIds(f: CheckinPositionFilter): boolean {
  return f.search !== undefined && indexedTerm(f.search);
}

const eventColumn = (byIds: boolean) => (byIds ? sql`+p.event_id` : sql`p.event_id`);

/**
 * Whether the filters read the order's row (`o`; the search does): only then is it joined where
 * a list's tickets are counted and paged (every other filter is on the position, the `order`
 * filter on its order's id; a join would visit every order).
 */
export function filterNeedsOrder(f: CheckinPositionFilter): boolean {
  return f.search !== undefined;
}

/**
 * "On one of the lists" (OR'ed): the event, products, order statuses and date of each, on the
 * columns that positions and their tallies share (`ticketCount`).
 */
function onListsSql(lists: readonly ListSource[], f: CheckinPositionFilter): SQL {
  return sql`(${sql.join(
    lists.map((l) => onListCondition(l, f.ignoreStatus, foundByIds(f))),
    sql` OR `,
  )})`;
}

/** Which of the event's positions the filters select among the tickets of `lists` (one per event); `o` only as `filterNeedsOrder` says. */
export function positionFilterSql(lists: readonly ListSource[], f: CheckinPositionFilter): SQL {
  return ticketWhere(onListsSql(lists, f), lists.map(sourceId), lists.map(sourceEvent), f);
}

/** `onListsSql` for the one list of the row aliased `l` (joined by the caller): its conditions read from the row. */
function onListRowSql(f: CheckinPositionFilter): SQL {
  // an IN list (constant for the list's row), so that the status is an index constraint
  const status = f.ignoreStatus
    ? sql`1`
    : sql`p.order_status IN ('p', CASE WHEN l.include_pending THEN 'n' ELSE 'p' END)`;
  return sql`(${eventColumn(foundByIds(f))} = l.event_id AND (l.all_products OR p.item_id IN (SELECT li.item_id FROM checkin_list_items li WHERE li.list_id = l.id))
    AND ${status} AND (l.subevent_id IS NULL OR p.subevent_id = l.subevent_id))`;
}

/**
 * Whether the filters leave the lists' tickets as the lists define them (`ignoreStatus` aside):
 * then their number is the sum of the tallies of the lists' groups (`ticketCount`).
 */
function unfiltered(f: CheckinPositionFilter): boolean {
  return Object.entries(f).every(([key, value]) => key === "ignoreStatus" || value === undefined);
}

/**
 * The number of tickets that `where` selects, as a SELECT of `n` (after `lead`, the tables
 * joined before the tickets). Without filters it is summed from position_tallies (migration
 * 0016) under `onLists` alone: its triggers count the positions not canceled per event,
 * product, date (0: none) and order status in the statement that changes one, and a list's
 * tickets are whole such groups, so a sum over a few rows however many tickets the event has.
 * With filters the matching tickets are counted (the order joined only where a filter names it).
 */
function ticketCount(lead: SQL, onLists: SQL, where: SQL, f: CheckinPositionFilter): SQL {
  if (unfiltered(f)) return sql`SELECT coalesce(sum(p.n), 0) AS n FROM ${lead} position_tallies p WHERE ${onLists}`;
  const order = filterNeedsOrder(f) ? sql`JOIN orders o ON o.id = p.order_id` : sql``;
  return sql`SELECT count(*) AS n FROM ${lead} order_positions p ${f.order !== undefined ? BY_ORDER : sql``} ${order} WHERE ${where}`;
}

/**
 * The tickets of the order the `order` filter names, from the index by order: SQLite would
 * otherwise walk the list's tickets in an index of the event (its estimate of the order's
 * subquery is no better than of the event's range) and test each.
 */
export const BY_ORDER = sql`INDEXED BY order_positions_order_positionid_uq`;

/** Tickets on the lists (`onLists`), not canceled, matching the filters. */
function ticketWhere(
  onLists: SQL,
  listIds: readonly number[],
  eventIds: readonly number[],
  f: CheckinPositionFilter,
): SQL {
  const orderEvents = inIntegers(sql`event_id`, [...new Set(eventIds)]);
  return sql.join([sql`p.canceled = 0`, onLists, ...positionFilterConditions(f, listIds, orderEvents)], sql` AND `);
}

/**
 * What the filters ask of a position `p` (the order `o` joined where `filterNeedsOrder` says):
 * `checkinLists` are the lists whose check-ins `has_checkin` looks at (null: any list),
 * `orderEvents` a condition on `event_id` of the events the `order` filter's code is looked up in.
 */
export function positionFilterConditions(
  f: CheckinPositionFilter,
  checkinLists: readonly number[] | null,
  orderEvents: SQL,
): SQL[] {
  const c: SQL[] = [];
  // the order by its code in the lists' events (codes are upper case, db/orders.ts orderWhere),
  // its tickets by their order: a seek, not a test of every ticket of the lists
  if (f.order !== undefined)
    c.push(sql`p.order_id IN (SELECT id FROM orders WHERE ${orderEvents} AND code = upper(${f.order}))`);
  if (f.search !== undefined) {
    // matched literally at any length (./search.ts)
    const term = sql`${f.search}`;
    const has = (text: SQL) => containsText(text, term);
    c.push(sql`(${startsWithText(sql`p.secret`, term)} OR ${has(sql`p.attendee_name`)} OR ${has(parentNameSql)}
      OR ${startsWithText(sql`o.code`, term)} OR ${has(invoiceNameSql)} OR ${has(sql`p.attendee_email`)} OR ${has(sql`o.email`)})`);
    // the candidates from the trigram indexes: tickets of orders where the term occurs (an add-on's base position is in its order)
    if (foundByIds(f)) c.push(sql`o.id IN (${orderIdsMatching(f.search)})`);
  }
  if (f.item !== undefined) c.push(sql`p.item_id = ${f.item}`);
  if (f.itemIn !== undefined) c.push(inIntegers(sql`p.item_id`, f.itemIn));
  if (f.variation !== undefined) c.push(sql`p.variation_id = ${f.variation}`);
  if (f.variationIn !== undefined) c.push(inIntegers(sql`p.variation_id`, f.variationIn));
  if (f.attendeeName !== undefined) {
    c.push(
      sql`(lower(p.attendee_name) = lower(${f.attendeeName}) OR (p.addon_to IS NOT NULL AND lower(${parentNameSql}) = lower(${f.attendeeName})))`,
    );
  }
  if (f.secret !== undefined) c.push(sql`p.secret = ${f.secret}`);
  if (f.pseudonymizationId !== undefined) c.push(sql`p.pseudonymization_id = ${f.pseudonymizationId}`);
  if (f.orderStatus !== undefined) c.push(sql`p.order_status = ${f.orderStatus}`);
  if (f.orderStatusIn !== undefined) c.push(inList(sql`p.order_status`, f.orderStatusIn));
  if (f.hasCheckin !== undefined)
    c.push(
      f.hasCheckin
        ? sql`${lastCheckedInSql(checkinLists)} IS NOT NULL`
        : sql`${lastCheckedInSql(checkinLists)} IS NULL`,
    );
  if (f.subevent !== undefined) c.push(sql`p.subevent_id = ${f.subevent}`);
  if (f.subeventIn !== undefined) c.push(inIntegers(sql`p.subevent_id`, f.subeventIn));
  if (f.addonTo !== undefined) c.push(sql`p.addon_to = ${f.addonTo}`);
  if (f.addonToIn !== undefined) c.push(inIntegers(sql`p.addon_to`, f.addonToIn));
  if (f.voucher !== undefined) c.push(sql`p.voucher_id = ${f.voucher}`);
  if (f.voucherCode !== undefined)
    c.push(
      sql`p.voucher_id IN (SELECT v.id FROM vouchers v WHERE v.event_id = p.event_id AND upper(v.code) = upper(${f.voucherCode}))`,
    );
  if (f.customer !== undefined)
    c.push(
      sql`p.order_id IN (SELECT id FROM orders WHERE ${orderEvents} AND customer_id = (SELECT id FROM customers WHERE identifier = ${f.customer}))`,
    );
  return c;
}

/**
 * A page of the tickets of `lists` (with each ticket's check-ins on these lists), and the total:
 * one round trip. The total and the page's ids come from indexes (`positionKeys`); only the
 * page's tickets are read in full.
 */
export async function listCheckinPositions(
  db: DB,
  lists: readonly ListSource[],
  f: CheckinPositionFilter,
  req: ListRequest,
): Promise<{ count: number; rows: CheckinPositionRow[] }> {
  const listIds = lists.map(sourceId);
  const onLists = onListsSql(lists, f);
  const where = ticketWhere(onLists, listIds, lists.map(sourceEvent), f);
  // the orders are joined only where a filter reads them: counting a list's tickets visits no order
  const counted = ticketCount(sql``, onLists, where, f);
  const eventIds = new Set(lists.map(sourceEvent));
  const source = {
    eventId: eventIds.size === 1 ? sourceEvent(lists[0]!) : null,
    singleList: lists.length === 1 ? sourceId(lists[0]!) : null,
    lead: sql``,
    paidOnly: paidOnlyGuard(lists, f),
  };
  const page = await fetchPage(
    db,
    {
      keys: positionKeys(source, where, f),
      rows: ticketRows(listIds),
      count: counted,
      ordering: positionOrdering(listIds),
    },
    req,
  );
  return { count: page.count, rows: page.rows };
}

/**
 * A page of one list's tickets, with the list itself (without its counts), in one round trip:
 * the list's conditions are read from its row in SQL, so it need not be read first. `list`
 * undefined: the event has no such list.
 */
export async function listTicketsOfList(
  db: DB,
  eventId: number,
  listId: number,
  f: CheckinPositionFilter,
  req: ListRequest,
) {
  const lead = sql`checkin_lists l CROSS JOIN`;
  const theList = sql`l.id = ${listId} AND l.event_id = ${eventId}`;
  const onRow = onListRowSql(f);
  const onList = sql`${theList} AND ${onRow}`;
  const where = sql`${theList} AND ${ticketWhere(onRow, [listId], [eventId], f)}`;
  const counted = ticketCount(lead, onList, where, f);
  const page = await fetchPage(
    db,
    {
      keys: positionKeys(
        { eventId, singleList: listId, lead, paidOnly: f.ignoreStatus ? null : sql`l.include_pending = 0` },
        where,
        f,
      ),
      rows: ticketRows([listId]),
      count: counted,
      ordering: positionOrdering([listId]),
    },
    req,
    checkinListQuery(db, eventId, listId, false),
  );
  return {
    list: page.extra[0][0] as CheckinListRecord | undefined,
    count: page.count,
    rows: page.rows as CheckinPositionRow[],
  };
}

/** One ticket of a list by id (no status filter: the detail shows it whatever its order's status). */
export async function findCheckinPosition(
  db: DB,
  list: CheckinListRow,
  id: number,
): Promise<CheckinPositionRow | undefined> {
  const where = positionFilterSql([{ list }], { ignoreStatus: true });
  const found = await rawRows<CheckinPositionRow>(
    db,
    sql`SELECT ${positionSelect([list.id])} FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE ${where} AND p.id = ${id}`,
  );
  return found[0];
}
