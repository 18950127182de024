/**
 * Check-in lists and check-ins in D1 (pretix docs checkinlists.rst, checkin.rst). Every
 * statement is scoped by event (or organizer). A list's tickets are the positions of its event
 * that are not canceled, of its products and date, of paid orders (and pending ones with
 * `include_pending`), as pretix's `CheckinList.positions`.
 */
import { and, asc, eq, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import { alias, type SQLiteSelect } from "drizzle-orm/sqlite-core";
import { linkedItemIdsJson, qualifiedId, type Statement } from "./catalog-common";
import type { DB } from "./client";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import { ticketSettingsSql } from "./settings";
import { fetchPage, type KeyedListing, type KeyedRowsSource, type ListRequest, type OrderingTable } from "./paging";
import { rawRows, statement } from "./raw";
import {
  type Answer,
  changeStamps,
  checkinListItems,
  checkinLists,
  checkins,
  type CheckinType,
  events,
  itemCategories,
  items,
  itemVariations,
  orderPositions,
  orders,
  questions,
  subevents,
} from "./schema";
import type { QuestionRecord } from "./questions";
import { containsText, indexedTerm, orderIdsMatching, startsWithText } from "./search";
import { chunks } from "../lib/chunks";
import { inIntegers, integerLiterals } from "./util";

/** Check-in lists are listed with their changes stamped under this resource name. */
export const CHECKIN_LISTS_RESOURCE = "checkinlists";

export type CheckinListRow = typeof checkinLists.$inferSelect;
export type CheckinListValues = Omit<typeof checkinLists.$inferInsert, "id" | "eventId">;
export type CheckinInsert = typeof checkins.$inferInsert;

/** A successful check-in as positions show it (pretix: `checkins` of an order position). */
export type CheckinJson = {
  id: number;
  list: number;
  type: CheckinType;
  datetime: number;
  device: number | null;
  auto_checked_in: number;
};

// ---- the tickets of a list ----

/**
 * The condition "position `p` (of order `o`) is a ticket of list `l`", on SQL aliases: the
 * list's columns may be literal values or columns of a correlated list row.
 */
function onListSql(
  l: { id: SQL; allProducts: SQL; subeventId: SQL; includePending: SQL | null },
  opts: { ignoreStatus?: boolean; tallies?: boolean } = {},
): SQL {
  // the order's status as its positions keep it (order_positions.order_status): no order is visited
  const status =
    opts.ignoreStatus || l.includePending === null
      ? sql`1`
      : sql`(p.order_status = 'p' OR (p.order_status = 'n' AND ${l.includePending}))`;
  // `tallies`: `p` is a row of position_tallies (only positions not canceled are tallied)
  return sql`${opts.tallies ? sql`1` : sql`p.canceled = 0`} AND (${l.subeventId} IS NULL OR p.subevent_id = ${l.subeventId})
    AND (${l.allProducts} OR p.item_id IN (SELECT li.item_id FROM checkin_list_items li WHERE li.list_id = ${l.id}))
    AND ${status}`;
}

/**
 * The tickets of one list, as a condition on positions `p` of orders `o`: the list's values as
 * literals, its products read from `checkin_list_items` (pretix's `CheckinList.positions`).
 */
export function checkinListTicketsSql(list: {
  id: number;
  allProducts: boolean;
  subeventId: number | null;
  includePending: boolean;
}): SQL {
  return onListSql({
    id: sql`${list.id}`,
    allProducts: sql`${list.allProducts ? 1 : 0}`,
    subeventId: list.subeventId === null ? sql`NULL` : sql`${list.subeventId}`,
    includePending: sql`${list.includePending ? 1 : 0}`,
  });
}

const correlated = {
  id: sql`"checkin_lists"."id"`,
  allProducts: sql`"checkin_lists"."all_products"`,
  subeventId: sql`"checkin_lists"."subevent_id"`,
  includePending: sql`"checkin_lists"."include_pending"`,
};

// summed from the tallies of the list's products, date and statuses (ticketCount)
const positionCountSql = sql<number>`(SELECT coalesce(sum(p.n), 0) FROM position_tallies p
  WHERE p.event_id = "checkin_lists"."event_id" AND ${onListSql(correlated, { tallies: true })})`;
// from the list's check-ins (not every ticket of the event): the tickets among them still on the
// list. CROSS JOIN keeps SQLite on that path: as `p.id IN (correlated subquery)` it walked every
// ticket and ran the subquery for each (no answer after 40 s at 100,000 tickets and 28,000
// check-ins).
const checkinCountSql = sql<number>`(SELECT count(*)
  FROM (SELECT DISTINCT c.position_id AS id FROM checkins c WHERE c.list_id = "checkin_lists"."id" AND c.successful = 1 AND c.type = 'entry') x
  CROSS JOIN order_positions p ON p.id = x.id
  WHERE p.event_id = "checkin_lists"."event_id" AND ${onListSql(correlated)})`;

// distinct column names: batched D1 results are keyed by name (see db/tenancy.ts)
const listRecordFields = (withCounts: boolean) => ({
  list: checkinLists,
  limitProducts:
    sql<string>`(SELECT json_group_array(item_id) FROM (SELECT item_id FROM checkin_list_items WHERE list_id = "checkin_lists"."id" ORDER BY item_id))`.as(
      "limit_products",
    ),
  positionCount: (withCounts ? positionCountSql : sql<number>`0`).as("position_count"),
  checkinCount: (withCounts ? checkinCountSql : sql<number>`0`).as("checkin_count"),
});

export type CheckinListRecord = {
  list: CheckinListRow;
  limitProducts: string;
  positionCount: number;
  checkinCount: number;
};

export type CheckinListFilter = { subevent?: number; subeventMatch?: number; endsAfter?: number };

function listWhere(eventId: number, f: CheckinListFilter): SQL {
  const c: SQL[] = [eq(checkinLists.eventId, eventId)];
  if (f.subevent !== undefined) c.push(eq(checkinLists.subeventId, f.subevent));
  if (f.subeventMatch !== undefined)
    c.push(sql`(${checkinLists.subeventId} = ${f.subeventMatch} OR ${checkinLists.subeventId} IS NULL)`);
  if (f.endsAfter !== undefined) {
    c.push(sql`(${checkinLists.subeventId} IS NULL OR EXISTS (SELECT 1 FROM subevents s WHERE s.id = ${checkinLists.subeventId}
      AND ((s.date_to IS NULL AND s.date_from >= ${f.endsAfter}) OR (s.date_to IS NOT NULL AND s.date_to >= ${f.endsAfter}))))`);
  }
  return and(...c)!;
}

const subeventDateFrom = sql`(SELECT s.date_from FROM subevents s WHERE s.id = "checkin_lists"."subevent_id")`;

/** The orderings of the lists (pretix: `id`, `name`, `subevent__date_from`; default `subevent__date_from,name`). */
export const CHECKIN_LIST_ORDERING: OrderingTable = {
  fields: { id: checkinLists.id, name: checkinLists.name, subevent__date_from: subeventDateFrom },
  default: "subevent__date_from,name",
  tiebreaker: checkinLists.id,
};

/** A page of the event's lists, and the Last-Modified stamp of the family (one round trip). */
export async function listCheckinLists(
  db: DB,
  eventId: number,
  f: CheckinListFilter,
  req: ListRequest,
  withCounts: boolean,
) {
  const where = listWhere(eventId, f);
  const page = await fetchPage(
    db,
    {
      rows: db.select(listRecordFields(withCounts)).from(checkinLists).where(where).$dynamic(),
      count: { from: checkinLists, where },
      ordering: CHECKIN_LIST_ORDERING,
    },
    req,
    lastChangeQuery(db, eventScopeKey(eventId), CHECKIN_LISTS_RESOURCE),
  );
  return {
    count: page.count,
    rows: page.rows as CheckinListRecord[],
    lastModified: page.extra[0][0]?.modifiedAt ?? null,
  };
}

/** A list by id; `withCounts` false leaves its counts at 0 (they count every ticket of the event: only the list's own detail shows them). */
export function checkinListQuery(db: DB, eventId: number, id: number, withCounts = true) {
  return db
    .select(listRecordFields(withCounts))
    .from(checkinLists)
    .where(and(eq(checkinLists.eventId, eventId), eq(checkinLists.id, id)));
}

export async function findCheckinList(
  db: DB,
  eventId: number,
  id: number,
  withCounts = true,
): Promise<CheckinListRecord | undefined> {
  return (await checkinListQuery(db, eventId, id, withCounts).get()) as CheckinListRecord | undefined;
}

const touchLists = (db: DB, eventId: number, now: number) =>
  touchStatement(db, eventScopeKey(eventId), CHECKIN_LISTS_RESOURCE, now);

function itemRows(listId: number | SQL, itemIds: readonly number[]) {
  return itemIds.map((itemId) => ({ listId: listId as number, itemId }));
}

/** Creates a list with its products; returns it as read back in the same batch. */
export async function createCheckinList(
  db: DB,
  eventId: number,
  values: CheckinListValues,
  itemIds: number[],
  now: number,
): Promise<CheckinListRecord> {
  const self = sql<number>`(SELECT max(id) FROM checkin_lists WHERE event_id = ${eventId})`;
  const stmts: Statement[] = [db.insert(checkinLists).values({ ...values, eventId })];
  for (const part of chunks(itemRows(self, itemIds), 40)) stmts.push(db.insert(checkinListItems).values(part));
  stmts.push(touchLists(db, eventId, now));
  stmts.push(
    db
      .select(listRecordFields(true))
      .from(checkinLists)
      .where(and(eq(checkinLists.eventId, eventId), sql`${checkinLists.id} = ${self}`)),
  );
  const results = (await db.batch(stmts as [Statement, ...Statement[]])) as unknown[];
  return (results.at(-1) as CheckinListRecord[])[0]!;
}

/**
 * After a write whose answer was lost: the list `createCheckinList` made at `now` — the
 * event's newest list, with that name, and the lists' change stamp is that write's — or
 * undefined (lists have no key of their own a retry could be matched by).
 */
export function createdCheckinList(
  db: DB,
  eventId: number,
  name: string,
  now: number,
): Promise<CheckinListRecord | undefined> {
  return db
    .select(listRecordFields(true))
    .from(checkinLists)
    .where(
      and(
        eq(checkinLists.eventId, eventId),
        eq(checkinLists.name, name),
        sql`${checkinLists.id} = (SELECT max(id) FROM checkin_lists WHERE event_id = ${eventId})`,
        sql`EXISTS (SELECT 1 FROM change_stamps WHERE scope = ${eventScopeKey(eventId)} AND resource = ${CHECKIN_LISTS_RESOURCE} AND modified_at = ${now})`,
      ),
    )
    .get() as Promise<CheckinListRecord | undefined>;
}

/** Changes a list (and, when given, its products); the list afterwards, or undefined when it is gone. */
export async function updateCheckinList(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<CheckinListValues>,
  itemIds: number[] | undefined,
  now: number,
): Promise<CheckinListRecord | undefined> {
  const ofEvent = and(eq(checkinLists.eventId, eventId), eq(checkinLists.id, id));
  const exists = sql`EXISTS (SELECT 1 FROM checkin_lists WHERE id = ${id} AND event_id = ${eventId})`;
  const stmts: Statement[] = [];
  if (Object.keys(values).length) stmts.push(db.update(checkinLists).set(values).where(ofEvent));
  if (itemIds !== undefined) {
    stmts.push(db.delete(checkinListItems).where(and(eq(checkinListItems.listId, id), exists)));
    for (const part of chunks(itemIds, 40)) {
      stmts.push(
        db.insert(checkinListItems).select(
          sql`SELECT ${id}, i.id FROM items i WHERE i.event_id = ${eventId} AND i.id IN (${sql.join(
            part.map((x) => sql`${x}`),
            sql`, `,
          )}) AND ${exists}`,
        ),
      );
    }
  }
  stmts.push(touchLists(db, eventId, now));
  stmts.push(checkinListQuery(db, eventId, id));
  const results = (await db.batch(stmts as [Statement, ...Statement[]])) as unknown[];
  return (results.at(-1) as CheckinListRecord[])[0];
}

/** Moves a list's `exit_all_at` from `fired` to `next`, once (a second replay changes nothing). */
export function moveExitAllAt(db: DB, eventId: number, listId: number, fired: number, next: number) {
  return db
    .update(checkinLists)
    .set({ exitAllAt: next })
    .where(and(eq(checkinLists.eventId, eventId), eq(checkinLists.id, listId), eq(checkinLists.exitAllAt, fired)));
}

/** Deletes a list and every check-in made on it (pretix: DELETE deletes the list's check-ins). */
export async function deleteCheckinList(db: DB, eventId: number, id: number, now: number): Promise<boolean> {
  const [, gone] = await db.batch([
    db.delete(checkins).where(and(eq(checkins.eventId, eventId), eq(checkins.listId, id))),
    db
      .delete(checkinLists)
      .where(and(eq(checkinLists.eventId, eventId), eq(checkinLists.id, id)))
      .returning({ id: checkinLists.id }),
    touchLists(db, eventId, now),
  ]);
  return gone.length > 0;
}

export async function subeventOfEvent(db: DB, eventId: number, id: number): Promise<boolean> {
  const row = await db
    .select({ id: subevents.id })
    .from(subevents)
    .where(and(eq(subevents.eventId, eventId), eq(subevents.id, id)))
    .get();
  return row !== undefined;
}

export async function itemOfEvent(db: DB, eventId: number, id: number): Promise<boolean> {
  const row = await db
    .select({ id: items.id })
    .from(items)
    .where(and(eq(items.eventId, eventId), eq(items.id, id)))
    .get();
  return row !== undefined;
}

export async function variationOfEvent(db: DB, eventId: number, id: number): Promise<boolean> {
  const row = await db
    .select({ id: itemVariations.id })
    .from(itemVariations)
    .innerJoin(items, eq(items.id, itemVariations.itemId))
    .where(and(eq(items.eventId, eventId), eq(itemVariations.id, id)))
    .get();
  return row !== undefined;
}

/** The events of lists, by list id (for routing a scan to its event's object). */
export async function listEvents(db: DB, listIds: number[]) {
  if (listIds.length === 0) return [];
  return db
    .select({
      listId: checkinLists.id,
      eventId: checkinLists.eventId,
      organizerId: events.organizerId,
      eventSlug: events.slug,
      geoLat: events.geoLat,
      geoLon: events.geoLon,
    })
    .from(checkinLists)
    .innerJoin(events, eq(events.id, checkinLists.eventId))
    .where(inIntegers(checkinLists.id, listIds));
}

// ---- status ----

/** Scans on a list by how they reached the service (successful ones, and refused ones). */
export type ScanCounts = {
  online: number;
  uploaded: number;
  automatic: number;
  failedOnline: number;
  failedUploaded: number;
};

/** The numbers of the list's status (pretix: `.../checkinlists/{id}/status/`), one round trip. */
export async function checkinListStatus(db: DB, list: CheckinListRow) {
  const onList = checkinListTicketsSql(list);
  const entered = sql`EXISTS (SELECT 1 FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 AND c.type = 'entry')`;
  const inside = sql`(SELECT c.type FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 ORDER BY c.datetime DESC, c.id DESC LIMIT 1) = 'entry'`;
  const byKey = (key: SQL) =>
    rawRows<{ k: number | null; positions: number; checkins: number }>(
      db,
      sql`SELECT ${key} AS k, count(*) AS positions, sum(CASE WHEN ${entered} THEN 1 ELSE 0 END) AS checkins
      FROM order_positions p WHERE p.event_id = ${list.eventId} AND ${onList} GROUP BY ${key}`,
    );
  const listItems = list.allProducts
    ? db
        .select({ id: items.id, name: items.name, admission: items.admission })
        .from(items)
        .leftJoin(itemCategories, eq(itemCategories.id, items.categoryId))
        .where(eq(items.eventId, list.eventId))
        .orderBy(asc(itemCategories.position), asc(items.position), asc(items.id))
    : db
        .select({ id: items.id, name: items.name, admission: items.admission })
        .from(items)
        .innerJoin(checkinListItems, and(eq(checkinListItems.itemId, items.id), eq(checkinListItems.listId, list.id)))
        .leftJoin(itemCategories, eq(itemCategories.id, items.categoryId))
        .where(eq(items.eventId, list.eventId))
        .orderBy(asc(itemCategories.position), asc(items.position), asc(items.id));
  const ok = (cond: SQL) => sql`coalesce(sum(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`;
  const [totals, itemCounts, variationCounts, itemRowsRead, variationRows, eventRow, subeventRow, scanRows] =
    await db.batch([
      rawRows<{ positions: number; checkins: number; inside: number }>(
        db,
        sql`SELECT count(*) AS positions, coalesce(sum(CASE WHEN ${entered} THEN 1 ELSE 0 END), 0) AS checkins,
      coalesce(sum(CASE WHEN ${inside} THEN 1 ELSE 0 END), 0) AS inside
      FROM order_positions p WHERE p.event_id = ${list.eventId} AND ${onList}`,
      ),
      byKey(sql`p.item_id`),
      byKey(sql`p.variation_id`),
      listItems,
      db
        .select({ id: itemVariations.id, itemId: itemVariations.itemId, value: itemVariations.value })
        .from(itemVariations)
        .innerJoin(items, eq(items.id, itemVariations.itemId))
        .where(eq(items.eventId, list.eventId))
        .orderBy(asc(itemVariations.position), asc(itemVariations.id)),
      db.select({ name: events.name }).from(events).where(eq(events.id, list.eventId)),
      db
        .select({ name: subevents.name })
        .from(subevents)
        .where(eq(subevents.id, list.subeventId ?? -1)),
      // scans on the list: decided at once, or made offline and uploaded later (the client sent force)
      rawRows<ScanCounts>(
        db,
        sql`SELECT ${ok(sql`successful = 1 AND auto_checked_in = 0 AND force_sent = 0`)} AS online,
      ${ok(sql`successful = 1 AND force_sent = 1`)} AS uploaded, ${ok(sql`successful = 1 AND auto_checked_in = 1`)} AS automatic,
      ${ok(sql`successful = 0 AND force_sent = 0`)} AS failedOnline, ${ok(sql`successful = 0 AND force_sent = 1`)} AS failedUploaded
      FROM checkins WHERE list_id = ${list.id}`,
      ),
    ]);
  return {
    totals: totals[0] ?? { positions: 0, checkins: 0, inside: 0 },
    itemCounts,
    variationCounts,
    items: itemRowsRead,
    variations: variationRows,
    eventName: (subeventRow[0] ?? eventRow[0])?.name ?? {},
    scans: scanRows[0] ?? { online: 0, uploaded: 0, automatic: 0, failedOnline: 0, failedUploaded: 0 },
  };
}

// ---- the tickets of a list, as a list ----

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
};

/** A list's ticket as the reading query returns it (order fields beside the position's). */
export type CheckinPositionRow = {
  id: number;
  eventId: number;
  orderCode: string;
  orderStatus: string;
  orderLocale: string;
  orderRequireApproval: number;
  orderCheckinAttention: number;
  invoiceNameParts: string | null;
  positionid: number;
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  price: number;
  attendeeName: string | null;
  attendeeNameParts: string;
  attendeeEmail: string | null;
  parentAttendeeName: string | null;
  voucherId: number | null;
  taxRate: number;
  taxValue: number;
  taxRuleId: number | null;
  secret: string;
  addonTo: number | null;
  isBundled: number;
  pseudonymizationId: string;
  seat: string | null;
  seatId: number | null;
  seatName: string | null;
  answers: string;
  validFrom: number | null;
  validUntil: number | null;
  blocked: string | null;
  itemAttention: number;
  variationAttention: number | null;
  checkins: string;
  /** The event's slug (the ticket's download URL). */
  eventSlug: string;
  /** What decides the ticket's `downloads` (services/tickets.ts): its item's [admission, generate_tickets] as JSON... */
  ticketItem: string;
  /** ... and the event's stored ticket_download settings as a JSON object. */
  ticketSettings: string;
};

const invoiceNameSql = sql<
  string | null
>`(SELECT group_concat(value, ' ') FROM json_each(o.invoice_address, '$.name_parts') WHERE type = 'text' AND substr(key, 1, 1) <> '_')`;
const parentNameSql = sql<string | null>`(SELECT pp.attendee_name FROM order_positions pp WHERE pp.id = p.addon_to)`;

/** Successful check-ins of a position (on the given lists, or all), oldest first, as JSON. */
export function checkinsJsonSql(positionId: SQL, listIds: readonly number[] | null): SQL<string> {
  const onLists = listIds === null ? sql`` : sql`AND ${inIntegers(sql`list_id`, listIds)}`;
  return sql<string>`(SELECT json_group_array(json_object('id', c.id, 'list', c.list_id, 'type', c.type, 'datetime', c.datetime,
      'device', c.device_id, 'auto_checked_in', c.auto_checked_in))
    FROM (SELECT * FROM checkins WHERE position_id = ${positionId} AND successful = 1 ${onLists} ORDER BY datetime, id) c)`;
}

/** The tables of a list's tickets, aliased as the conditions here name them. */
const p = alias(orderPositions, "p");
const o = alias(orders, "o");

/** A list's ticket, as the reading query selects it (distinct names: batched results are keyed by name). */
function positionFields(listIds: readonly number[]) {
  const f = <T>(expr: SQL, name: string) => sql<T>`${expr}`.as(name);
  return {
    id: f<number>(sql`p.id`, "id"),
    eventId: f<number>(sql`p.event_id`, "eventId"),
    orderCode: f<string>(sql`o.code`, "orderCode"),
    orderStatus: f<string>(sql`o.status`, "orderStatus"),
    orderLocale: f<string>(sql`o.locale`, "orderLocale"),
    orderRequireApproval: f<number>(sql`o.require_approval`, "orderRequireApproval"),
    orderCheckinAttention: f<number>(sql`o.checkin_attention`, "orderCheckinAttention"),
    invoiceNameParts: f<string | null>(sql`json_extract(o.invoice_address, '$.name_parts')`, "invoiceNameParts"),
    positionid: f<number>(sql`p.positionid`, "positionid"),
    itemId: f<number>(sql`p.item_id`, "itemId"),
    variationId: f<number | null>(sql`p.variation_id`, "variationId"),
    subeventId: f<number | null>(sql`p.subevent_id`, "subeventId"),
    price: f<number>(sql`p.price`, "price"),
    attendeeName: f<string | null>(sql`p.attendee_name`, "attendeeName"),
    attendeeNameParts: f<string>(sql`p.attendee_name_parts`, "attendeeNameParts"),
    attendeeEmail: f<string | null>(sql`p.attendee_email`, "attendeeEmail"),
    parentAttendeeName: f<string | null>(parentNameSql, "parentAttendeeName"),
    voucherId: f<number | null>(sql`p.voucher_id`, "voucherId"),
    taxRate: f<number>(sql`p.tax_rate`, "taxRate"),
    taxValue: f<number>(sql`p.tax_value`, "taxValue"),
    taxRuleId: f<number | null>(sql`p.tax_rule_id`, "taxRuleId"),
    secret: f<string>(sql`p.secret`, "secret"),
    addonTo: f<number | null>(sql`p.addon_to`, "addonTo"),
    isBundled: f<number>(sql`p.is_bundled`, "isBundled"),
    pseudonymizationId: f<string>(sql`p.pseudonymization_id`, "pseudonymizationId"),
    seat: f<string | null>(sql`p.seat`, "seat"),
    seatId: f<number | null>(sql`p.seat_id`, "seatId"),
    seatName: f<string | null>(sql`p.seat_name`, "seatName"),
    answers: f<string>(sql`p.answers`, "answers"),
    validFrom: f<number | null>(sql`p.valid_from`, "validFrom"),
    validUntil: f<number | null>(sql`p.valid_until`, "validUntil"),
    blocked: f<string | null>(sql`p.blocked`, "blocked"),
    itemAttention: f<number>(sql`(SELECT i.checkin_attention FROM items i WHERE i.id = p.item_id)`, "itemAttention"),
    variationAttention: f<number | null>(
      sql`(SELECT v.checkin_attention FROM item_variations v WHERE v.id = p.variation_id)`,
      "variationAttention",
    ),
    checkins: f<string>(checkinsJsonSql(sql`p.id`, listIds), "checkins"),
    eventSlug: f<string>(sql`(SELECT e.slug FROM events e WHERE e.id = p.event_id)`, "eventSlug"),
    ticketItem: f<string>(
      sql`(SELECT json_array(i.admission, i.generate_tickets) FROM items i WHERE i.id = p.item_id)`,
      "ticketItem",
    ),
    ticketSettings: f<string>(ticketSettingsSql(sql`p.event_id`), "ticketSettings"),
  };
}

/** A raw SELECT of the fields (for the statements the object batches with its writes). */
function positionSelect(listIds: readonly number[]) {
  return sql.join(
    Object.values(positionFields(listIds)).map((a) => sql`${a.getSQL()} AS ${sql.identifier(a.fieldAlias)}`),
    sql`, `,
  );
}

const lastCheckedInSql = (listIds: readonly number[]) =>
  sql`(SELECT max(c.datetime) FROM checkins c WHERE c.position_id = p.id AND c.successful = 1 AND ${inIntegers(sql`c.list_id`, listIds)})`;

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
function foundByIds(f: CheckinPositionFilter): boolean {
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
const BY_ORDER = sql`INDEXED BY order_positions_order_positionid_uq`;

/** Tickets on the lists (`onLists`), not canceled, matching the filters. */
function ticketWhere(
  onLists: SQL,
  listIds: readonly number[],
  eventIds: readonly number[],
  f: CheckinPositionFilter,
): SQL {
  const c: SQL[] = [sql`p.canceled = 0`, onLists];
  // the order by its code in the lists' events (codes are upper case, db/orders.ts orderWhere),
  // its tickets by their order: a seek, not a test of every ticket of the lists
  if (f.order !== undefined)
    c.push(
      sql`p.order_id IN (SELECT id FROM orders WHERE ${inIntegers(sql`event_id`, [...new Set(eventIds)])} AND code = upper(${f.order}))`,
    );
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
  if (f.orderStatus !== undefined) c.push(sql`p.order_status = ${f.orderStatus}`);
  if (f.orderStatusIn !== undefined) c.push(inList(sql`p.order_status`, f.orderStatusIn));
  if (f.hasCheckin !== undefined)
    c.push(f.hasCheckin ? sql`${lastCheckedInSql(listIds)} IS NOT NULL` : sql`${lastCheckedInSql(listIds)} IS NULL`);
  if (f.subevent !== undefined) c.push(sql`p.subevent_id = ${f.subevent}`);
  if (f.subeventIn !== undefined) c.push(inIntegers(sql`p.subevent_id`, f.subeventIn));
  if (f.addonTo !== undefined) c.push(sql`p.addon_to = ${f.addonTo}`);
  if (f.addonToIn !== undefined) c.push(inIntegers(sql`p.addon_to`, f.addonToIn));
  if (f.voucher !== undefined) c.push(sql`p.voucher_id = ${f.voucher}`);
  if (f.voucherCode !== undefined)
    c.push(
      sql`p.voucher_id IN (SELECT v.id FROM vouchers v WHERE v.event_id = p.event_id AND upper(v.code) = upper(${f.voucherCode}))`,
    );
  return sql.join(c, sql` AND `);
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

/** The tickets whose ids a page's key query picked, as lists show them. */
function ticketRows(listIds: readonly number[]) {
  return ({ ids, qb, total }: KeyedRowsSource) =>
    qb
      .select({ ...positionFields(listIds), __page_total: total })
      .from(p)
      .innerJoin(o, sql`o.id = p.order_id`)
      .where(sql`p.id IN (${ids})`)
      .$dynamic();
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

/** Check-in positions by id, read as lists show them (for a redeem's answer when the object had to fall back). */
export function checkinPositionsByIds(db: DB, eventId: number, ids: readonly number[], listId: number) {
  return rawRows<CheckinPositionRow>(
    db,
    sql`SELECT ${positionSelect([listId])} FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE p.event_id = ${eventId} AND ${inIntegers(sql`p.id`, ids)}`,
  );
}

// ---- writes ----

/** A scan that did not pass (failed check-ins, for statistics). */
export function insertCheckin(db: DB, row: CheckinInsert) {
  return db.insert(checkins).values(row).onConflictDoNothing({ target: checkins.uid });
}

/**
 * The condition "the check-in configuration did not change since `stamps` were read" (items,
 * questions, lists): the event object's writes of a decision carry it, so that a decision
 * taken on an outdated configuration writes nothing and is taken again.
 */
export function configUnchangedSql(eventId: number, stamps: Record<string, number>): SQL {
  const resources = ["items", "questions", CHECKIN_LISTS_RESOURCE];
  const newer = sql.join(
    resources.map((r) => sql`(resource = ${r} AND modified_at > ${stamps[r] ?? 0})`),
    sql` OR `,
  );
  return sql`NOT EXISTS (SELECT 1 FROM change_stamps WHERE scope = ${eventScopeKey(eventId)} AND (${newer}))`;
}

const CHECKIN_COLUMNS = [
  "uid",
  "event_id",
  "list_id",
  "position_id",
  "type",
  "datetime",
  "created",
  "successful",
  "error_reason",
  "error_explanation",
  "auto_checked_in",
  "forced",
  "force_sent",
  "device_id",
  "nonce",
  "raw_barcode",
  "raw_source_type",
  "raw_item",
  "raw_variation",
  "raw_subevent",
] as const;

/** A check-in written only while `condition` holds (and once per uid). */
export function insertCheckinIf(db: DB, r: CheckinInsert, condition: SQL) {
  const values = [
    r.uid,
    r.eventId,
    r.listId,
    r.positionId ?? null,
    r.type,
    r.datetime,
    r.created,
    r.successful === false ? 0 : 1,
    r.errorReason ?? null,
    r.errorExplanation ?? null,
    r.autoCheckedIn ? 1 : 0,
    r.forced ? 1 : 0,
    r.forceSent ? 1 : 0,
    r.deviceId ?? null,
    r.nonce ?? null,
    r.rawBarcode ?? null,
    r.rawSourceType ?? null,
    r.rawItem ?? null,
    r.rawVariation ?? null,
    r.rawSubevent ?? null,
  ];
  return statement(
    db,
    sql`INSERT INTO checkins (${sql.raw(CHECKIN_COLUMNS.join(", "))}) SELECT ${sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    )} WHERE ${condition} ON CONFLICT (uid) DO NOTHING`,
  );
}

/** The order of a position changed (a check-in): it shows up again in incremental syncs. */
export function touchOrderOfPosition(db: DB, positionId: number, now: number, condition: SQL = sql`1`) {
  return db
    .update(orders)
    .set({ lastModified: sql`max(${orders.lastModified}, ${now})` })
    .where(sql`${orders.id} = (SELECT order_id FROM order_positions WHERE id = ${positionId}) AND ${condition}`);
}

/** Answers given at the door, stored with the position. */
export function setPositionAnswers(db: DB, positionId: number, answers: Answer[], condition: SQL = sql`1`) {
  return db
    .update(orderPositions)
    .set({ answers })
    .where(and(eq(orderPositions.id, positionId), condition));
}

/** The condition "no check-in with this uid is stored yet" (what is written with a check-in, once, goes under it). */
export function checkinMissingSql(uid: string): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM checkins ck WHERE ck.uid = ${uid})`;
}

export function checkinExists(db: DB, uid: string) {
  return db.select({ id: checkins.id }).from(checkins).where(eq(checkins.uid, uid));
}

/** Whether a failed scan with this nonce was already stored (a scanner's upload repeated). */
export async function failedCheckinWithNonce(
  db: DB,
  listId: number,
  nonce: string,
  positionId: number | null,
  rawBarcode: string,
): Promise<boolean> {
  const row = await db
    .select({ id: checkins.id })
    .from(checkins)
    .where(
      and(
        eq(checkins.nonce, nonce),
        eq(checkins.successful, false),
        positionId !== null
          ? eq(checkins.positionId, positionId)
          : and(eq(checkins.listId, listId), eq(checkins.rawBarcode, rawBarcode)),
      ),
    )
    .get();
  return row !== undefined;
}

/** A position of the event by secret (failed scans name the ticket they matched). */
export async function positionIdBySecret(db: DB, eventId: number, secret: string): Promise<number | undefined> {
  const row = await db
    .select({ id: orderPositions.id })
    .from(orderPositions)
    .where(and(eq(orderPositions.eventId, eventId), eq(orderPositions.secret, secret)))
    .get();
  return row?.id;
}

export async function positionOfEvent(db: DB, eventId: number, id: number): Promise<boolean> {
  const row = await db
    .select({ id: orderPositions.id })
    .from(orderPositions)
    .where(and(eq(orderPositions.eventId, eventId), eq(orderPositions.id, id)))
    .get();
  return row !== undefined;
}

// ---- what the event object reads ----

/**
 * The orders (with all their positions and the positions' check-ins) of the ticket with a
 * secret (or, for the legacy per-list redeem, an id): the object's fallback on a miss.
 */
export function ticketOrderQuery(db: DB, eventId: number, secret: string, id: number | null) {
  // the ticket of the secret, of a revoked secret of it, or of the id
  const revoked = sql`id IN (SELECT position_id FROM revoked_secrets WHERE event_id = ${eventId} AND secret = ${secret})`;
  const match =
    id === null ? sql`(secret = ${secret} OR ${revoked})` : sql`(secret = ${secret} OR ${revoked} OR id = ${id})`;
  return rawRows<TicketOrderRow>(
    db,
    sql`SELECT o.code AS code, o.status AS status, o.require_approval AS requireApproval, o.checkin_attention AS checkinAttention,
      o.sales_channel AS salesChannel, o.datetime AS datetime,
      (SELECT json_group_array(json_object('id', p.id, 'secret', p.secret, 'addonTo', p.addon_to, 'itemId', p.item_id,
          'variationId', p.variation_id, 'subeventId', p.subevent_id, 'canceled', p.canceled, 'validFrom', p.valid_from,
          'validUntil', p.valid_until, 'answers', json(p.answers),
          'blocked', CASE WHEN p.blocked IS NULL OR p.blocked = '[]' THEN 0 ELSE 1 END))
        FROM order_positions p WHERE p.order_id = o.id) AS positions,
      (SELECT json_group_array(json_object('uid', c.uid, 'listId', c.list_id, 'positionId', c.position_id, 'type', c.type,
          'datetime', c.datetime, 'nonce', c.nonce, 'deviceId', c.device_id, 'auto', c.auto_checked_in))
        FROM checkins c JOIN order_positions p2 ON p2.id = c.position_id WHERE p2.order_id = o.id AND c.successful = 1) AS passages
    FROM orders o WHERE o.event_id = ${eventId} AND o.id IN (SELECT order_id FROM order_positions WHERE event_id = ${eventId} AND ${match})`,
  );
}

/** An automatic check-in of a new order's position (by its number in the order), in the order's own batch. */
export function autoCheckinStatement(
  db: DB,
  eventId: number,
  orderCode: string,
  positionid: number,
  uid: string,
  listId: number,
  now: number,
) {
  return statement(
    db,
    sql`INSERT INTO checkins (uid, event_id, list_id, position_id, type, datetime, created, successful, auto_checked_in, forced)
    SELECT ${uid}, ${eventId}, ${listId}, p.id, 'entry', ${now}, ${now}, 1, 1, 0
    FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE o.event_id = ${eventId} AND o.code = ${orderCode} AND p.positionid = ${positionid}
    ON CONFLICT (uid) DO NOTHING`,
  );
}

export type TicketOrderRow = {
  code: string;
  status: string;
  requireApproval: number;
  checkinAttention: number;
  salesChannel: string;
  datetime: number;
  positions: string;
  passages: string;
};

/** The check-in configuration of an event as the object decides with it (one batch of statements). */
export function checkinCatalogStatements(db: DB, eventId: number) {
  return [
    db.select().from(checkinLists).where(eq(checkinLists.eventId, eventId)),
    db
      .select({ listId: checkinListItems.listId, itemId: checkinListItems.itemId })
      .from(checkinListItems)
      .innerJoin(checkinLists, eq(checkinLists.id, checkinListItems.listId))
      .where(eq(checkinLists.eventId, eventId)),
    rawRows<{ id: number; identifier: string; type: string; items: string; options: string }>(
      db,
      sql`SELECT q.id AS id, q.identifier AS identifier, q.type AS type,
        (SELECT json_group_array(item_id) FROM question_items WHERE question_id = q.id) AS items,
        (SELECT json_group_array(json_object('id', o.id, 'identifier', o.identifier, 'answer', json(o.answer))) FROM question_options o WHERE o.question_id = q.id) AS options
      FROM questions q WHERE q.event_id = ${eventId} AND q.ask_during_checkin = 1 ORDER BY q.position, q.id`,
    ),
    db
      .select({
        timezone: events.timezone,
        locale: sql<
          string | null
        >`(SELECT json_extract(value, '$') FROM event_settings WHERE event_id = ${eventId} AND key = 'locale')`,
        dateFrom: events.dateFrom,
        dateTo: events.dateTo,
        dateAdmission: events.dateAdmission,
      })
      .from(events)
      .where(eq(events.id, eventId)),
    db
      .select({
        id: subevents.id,
        dateFrom: subevents.dateFrom,
        dateTo: subevents.dateTo,
        dateAdmission: subevents.dateAdmission,
      })
      .from(subevents)
      .where(eq(subevents.eventId, eventId)),
    checkinStampsQuery(db, eventId),
  ] as const;
}

/** The change stamps the object watches for catalog edits that reach it only through D1. */
export function checkinStampsQuery(db: DB, eventId: number) {
  return db
    .select({ resource: changeStamps.resource, modifiedAt: changeStamps.modifiedAt })
    .from(changeStamps)
    .where(
      and(
        eq(changeStamps.scope, eventScopeKey(eventId)),
        inArray(changeStamps.resource, ["items", "questions", CHECKIN_LISTS_RESOURCE]),
      ),
    );
}

// ---- the check-in history ----

export type HistoryFilter = {
  createdSince?: number;
  createdBefore?: number;
  datetimeSince?: number;
  datetimeBefore?: number;
  successful?: boolean;
  errorReason?: string;
  list?: number;
  type?: CheckinType;
  device?: number;
  /** Check-ins carry no gate (the service has no gates): a gate filter matches nothing. */
  gate?: number;
  autoCheckedIn?: boolean;
};

export const HISTORY_ORDERING: OrderingTable = {
  fields: { datetime: checkins.datetime, created: checkins.created, id: checkins.id },
  default: "id",
  tiebreaker: checkins.id,
};

/** A page of the event's check-ins, successful and failed (pretix checkin.rst "Check-in history"). */
export async function checkinHistory(db: DB, eventId: number, f: HistoryFilter, req: ListRequest) {
  const c: SQL[] = [eq(checkins.eventId, eventId)];
  if (f.createdSince !== undefined) c.push(sql`${checkins.created} >= ${f.createdSince}`);
  if (f.createdBefore !== undefined) c.push(sql`${checkins.created} < ${f.createdBefore}`);
  if (f.datetimeSince !== undefined) c.push(sql`${checkins.datetime} >= ${f.datetimeSince}`);
  if (f.datetimeBefore !== undefined) c.push(sql`${checkins.datetime} < ${f.datetimeBefore}`);
  if (f.successful !== undefined) c.push(eq(checkins.successful, f.successful));
  if (f.errorReason !== undefined) c.push(sql`${checkins.errorReason} = ${f.errorReason}`);
  if (f.list !== undefined) c.push(eq(checkins.listId, f.list));
  if (f.type !== undefined) c.push(eq(checkins.type, f.type));
  if (f.device !== undefined) c.push(eq(checkins.deviceId, f.device));
  if (f.gate !== undefined) c.push(sql`0`);
  if (f.autoCheckedIn !== undefined) c.push(eq(checkins.autoCheckedIn, f.autoCheckedIn));
  const where = and(...c);
  const rows = db
    .select({
      ...getTableColumns(checkins),
      deviceNumber: sql<number | null>`(SELECT d.device_id FROM devices d WHERE d.id = ${checkins.deviceId})`,
    })
    .from(checkins)
    .where(where)
    .$dynamic();
  return fetchPage(db, { rows, count: { from: checkins, where }, ordering: HISTORY_ORDERING }, req);
}

// ---- questions, as their family serializes them ----

/** Questions of the event by id, with their items and options (the shape of db/questions.ts `QuestionRecord`). */
export async function questionRecordsByIds(db: DB, eventId: number, ids: readonly number[]): Promise<QuestionRecord[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return db
    .select({
      question: questions,
      items: linkedItemIdsJson("question_items", "question_id", "questions"),
      options: sql<string>`(SELECT json_group_array(json_object('id', o.id, 'identifier', o.identifier, 'position', o.position, 'answer', json(o.answer))) FROM (SELECT id, identifier, position, answer FROM question_options WHERE question_id = ${qualifiedId("questions")} ORDER BY position, id) o)`,
    })
    .from(questions)
    .where(and(eq(questions.eventId, eventId), inIntegers(questions.id, unique)))
    .orderBy(asc(questions.position), asc(questions.id));
}

// ---- devices: event selection ----

/** Live events and dates of an organizer for a device's event selection, with their lists (one round trip). */
export async function eventSelectionCandidates(db: DB, organizerId: number) {
  const [evs, subs, lists] = await db.batch([
    db
      .select({
        id: events.id,
        slug: events.slug,
        name: events.name,
        live: events.live,
        timezone: events.timezone,
        dateFrom: events.dateFrom,
        dateTo: events.dateTo,
        dateAdmission: events.dateAdmission,
        hasSubevents: events.hasSubevents,
      })
      .from(events)
      .where(eq(events.organizerId, organizerId)),
    db
      .select({
        id: subevents.id,
        eventId: subevents.eventId,
        active: subevents.active,
        dateFrom: subevents.dateFrom,
        dateTo: subevents.dateTo,
        dateAdmission: subevents.dateAdmission,
      })
      .from(subevents)
      .innerJoin(events, eq(events.id, subevents.eventId))
      .where(eq(events.organizerId, organizerId)),
    db
      .select({
        id: checkinLists.id,
        eventId: checkinLists.eventId,
        subeventId: checkinLists.subeventId,
        name: checkinLists.name,
        subeventDate: subeventDateFrom.mapWith(Number).as("subevent_date"),
      })
      .from(checkinLists)
      .innerJoin(events, eq(events.id, checkinLists.eventId))
      .where(eq(events.organizerId, organizerId)),
  ]);
  return { events: evs, subevents: subs, lists };
}
