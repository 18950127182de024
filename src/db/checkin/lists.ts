/**
 * Check-in lists in D1 (pretix docs checkinlists.rst): the lists, their products and counts, and
 * the checks of what a list or a scan names. Every statement is scoped by event. A list's tickets
 * are the positions of its event that are not canceled, of its products and date, of paid orders
 * (and pending ones with `include_pending`), as pretix's `CheckinList.positions`.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import { chunks } from "../../lib/chunks";
import type { Statement } from "../batch";
import { eventScopeKey, lastChangeQuery, touchStatement } from "../changes";
import type { DB } from "../client";
import { fetchPage, type ListRequest, type OrderingTable } from "../paging";
import { checkinListItems, checkinLists, checkins, events, items, itemVariations, subevents } from "../schema";
import { inIntegers } from "../util";

/** Check-in lists are listed with their changes stamped under this resource name. */
export const CHECKIN_LISTS_RESOURCE = "checkinlists";

export type CheckinListRow = typeof checkinLists.$inferSelect;
export type CheckinListValues = Omit<typeof checkinLists.$inferInsert, "id" | "eventId">;

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
// list. CROSS JOIN keeps SQLite on that path: as `p.id IN (correlated subquery)` it would walk
// every ticket of the event and run the subquery for each.
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

/** When a list's date starts (null for a list of the whole event): its ordering, and the device's event selection. */
export const subeventDateFrom = sql`(SELECT s.date_from FROM subevents s WHERE s.id = "checkin_lists"."subevent_id")`;

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

/**
 * The events of a list's products and date among the organizer's (pretix tells an object of
 * another event apart from one that does not exist): item id → event id, and the date's event
 * (undefined: no such date of the organizer).
 */
export async function listTargetEvents(
  db: DB,
  organizerId: number,
  itemIds: readonly number[],
  subeventId: number | null,
): Promise<{ items: Map<number, number>; subeventEvent: number | undefined }> {
  const [itemRows, subRows] = await Promise.all([
    itemIds.length === 0
      ? Promise.resolve([])
      : db
          .select({ id: items.id, eventId: items.eventId })
          .from(items)
          .innerJoin(events, eq(events.id, items.eventId))
          .where(and(eq(events.organizerId, organizerId), inIntegers(items.id, [...new Set(itemIds)]))),
    subeventId === null
      ? Promise.resolve([])
      : db
          .select({ eventId: subevents.eventId })
          .from(subevents)
          .innerJoin(events, eq(events.id, subevents.eventId))
          .where(and(eq(events.organizerId, organizerId), eq(subevents.id, subeventId))),
  ]);
  return { items: new Map(itemRows.map((r) => [r.id, r.eventId])), subeventEvent: subRows[0]?.eventId };
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
