/**
 * Events, their meta data values and settings. Every query takes the organizer id; lists are
 * limited to the events the principal may access.
 */
import { and, eq, exists, getTableName, not, or, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { MetaProperty } from "./event-meta";
import type { Statement } from "./batch";
import type { DB } from "./client";
import { organizerMetaPropertyRows, toMetaProperty } from "./event-meta";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { containsText, i18nContains } from "./search";
import {
  eventMetaProperties,
  eventMetaValues,
  events,
  itemVariations,
  items,
  orders,
  quotas,
  seatingPlans,
  teamEvents,
} from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type EventRecord = typeof events.$inferSelect;
export type EventValues = Omit<typeof events.$inferInsert, "id" | "organizerId">;

// ---- shared filter pieces (events and sub-events) ----

/**
 * A column with its table name, for correlated subqueries: drizzle writes columns of a
 * single-table select without the table, which a subquery would resolve to its own tables.
 */
export function qualified(column: AnySQLiteColumn): SQL {
  return sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;
}

/** Who asks, as far as event access goes (a principal of rules/permissions.ts). */
export type EventAccess = {
  kind: "token" | "device";
  allEvents: boolean;
  teamId: number | null;
  deviceId: number | null;
};

/** Events the principal may access: all of the organizer, or its team's / device's list. */
export function eventAccessCondition(principal: EventAccess, eventId: AnySQLiteColumn): SQL | undefined {
  if (principal.allEvents) return undefined;
  if (principal.kind === "device") {
    return sql`${qualified(eventId)} IN (SELECT event_id FROM device_events WHERE device_id = ${principal.deviceId})`;
  }
  return sql`${qualified(eventId)} IN (SELECT event_id FROM team_events WHERE team_id = ${principal.teamId})`;
}

type Dated = { dateFrom: AnySQLiteColumn; dateTo: AnySQLiteColumn };

/** Happening now or in the future (pretix's is_future). */
export function futureCondition(t: Dated, now: number): SQL {
  return sql`((${t.dateTo} IS NULL AND ${t.dateFrom} >= ${now}) OR (${t.dateTo} IS NOT NULL AND ${t.dateTo} >= ${now}))`;
}

/** Over (pretix's is_past). */
export function pastCondition(t: Dated, now: number): SQL {
  return sql`((${t.dateTo} IS NULL AND ${t.dateFrom} < ${now}) OR (${t.dateTo} IS NOT NULL AND ${t.dateTo} < ${now}))`;
}

/** Happening during or after `at` (pretix's ends_after). */
export function endsAfterCondition(t: Dated, at: number): SQL {
  return sql`((${t.dateTo} IS NULL AND ${t.dateFrom} >= ${at}) OR ${t.dateTo} >= ${at})`;
}

/** A JSON list column contains `value`. */
export function jsonListContains(column: AnySQLiteColumn, value: string): SQL {
  return sql`EXISTS (SELECT 1 FROM json_each(${qualified(column)}) WHERE json_each.value = ${value})`;
}

export type AttrFilter = { propertyId: number; defaultValue: string; value: string };

/**
 * `attr[name]=value` on events: the event has the value, or it has none and the property's
 * default is the value (so an empty value matches events without a value when there is no
 * default).
 */
export function eventAttrCondition(column: AnySQLiteColumn, f: AttrFilter): SQL {
  const eventId = qualified(column);
  const hasValue = sql`EXISTS (SELECT 1 FROM event_meta_values mv WHERE mv.event_id = ${eventId} AND mv.property_id = ${f.propertyId} AND mv.value = ${f.value})`;
  if (f.defaultValue !== f.value) return hasValue;
  return sql`(${hasValue} OR NOT EXISTS (SELECT 1 FROM event_meta_values mv WHERE mv.event_id = ${eventId} AND mv.property_id = ${f.propertyId}))`;
}

// ---- events ----

export type EventFilter = {
  isPublic?: boolean;
  live?: boolean;
  hasSubevents?: boolean;
  isFuture?: boolean;
  isPast?: boolean;
  endsAfter?: number;
  salesChannel?: string;
  search?: string;
  attrs: AttrFilter[];
  now: number;
};

function eventConditions(organizerId: number, principal: EventAccess, f: EventFilter): SQL | undefined {
  const conds: (SQL | undefined)[] = [eq(events.organizerId, organizerId), eventAccessCondition(principal, events.id)];
  if (f.isPublic !== undefined) conds.push(eq(events.isPublic, f.isPublic));
  if (f.live !== undefined) conds.push(eq(events.live, f.live));
  if (f.hasSubevents !== undefined) conds.push(eq(events.hasSubevents, f.hasSubevents));
  // Series are never returned by is_future, is_past and ends_after (docs/api.md).
  if (f.isFuture !== undefined || f.isPast !== undefined || f.endsAfter !== undefined)
    conds.push(eq(events.hasSubevents, false));
  if (f.isFuture !== undefined)
    conds.push(f.isFuture ? futureCondition(events, f.now) : not(futureCondition(events, f.now)));
  if (f.isPast !== undefined) conds.push(f.isPast ? pastCondition(events, f.now) : not(pastCondition(events, f.now)));
  if (f.endsAfter !== undefined) conds.push(endsAfterCondition(events, f.endsAfter));
  if (f.salesChannel !== undefined) conds.push(jsonListContains(events.salesChannels, f.salesChannel));
  if (f.search !== undefined) {
    conds.push(
      or(
        containsText(events.slug, f.search),
        i18nContains(events.name, f.search),
        i18nContains(events.location, f.search),
      ),
    );
  }
  for (const a of f.attrs) conds.push(eventAttrCondition(events.id, a));
  return and(...conds);
}

/** The event's own meta data values as a JSON object (name → value). */
const eventMetaJson = sql<string>`(SELECT json_group_object(p.name, v.value) FROM event_meta_values v JOIN event_meta_properties p ON p.id = v.property_id WHERE v.event_id = ${qualified(events.id)})`;

/** The event's public key of signed ticket secrets (`pretix_sig1`), in `valid_keys` encoding, or null. */
const sig1KeySql = sql<
  string | null
>`(SELECT k.public_key FROM ticket_signing_keys k WHERE k.event_id = ${qualified(events.id)} AND k.scheme = 'pretix_sig1')`;

const eventWithMeta = { event: events, metaData: eventMetaJson, sig1Key: sig1KeySql };

export type EventWithMeta = { event: EventRecord; metaData: string | null; sig1Key: string | null };

/** The orderings of the events list (docs/api.md: `date_from`, `slug`; default `slug`). */
export const EVENT_ORDERING: OrderingTable = {
  fields: { date_from: events.dateFrom, slug: events.slug },
  default: "slug",
  tiebreaker: events.id,
};

/** A page of the organizer's events the principal may access, matching the filter, with their meta data. */
export function listEvents(db: DB, organizerId: number, principal: EventAccess, f: EventFilter, req: ListRequest) {
  const where = eventConditions(organizerId, principal, f);
  return fetchPage(
    db,
    {
      rows: db.select(eventWithMeta).from(events).where(where).$dynamic(),
      count: { from: events, where },
      ordering: EVENT_ORDERING,
    },
    req,
  );
}

export async function findEvent(db: DB, organizerId: number, eventId: number): Promise<EventWithMeta | undefined> {
  return db
    .select(eventWithMeta)
    .from(events)
    .where(and(eq(events.organizerId, organizerId), eq(events.id, eventId)))
    .get();
}

/**
 * The organizer's event with this slug when the principal may access it (pretix looks the
 * source of a clone up among the events the caller has any permission on).
 */
export async function accessibleEventBySlug(
  db: DB,
  organizerId: number,
  principal: EventAccess,
  slug: string,
): Promise<EventRecord | undefined> {
  return db
    .select()
    .from(events)
    .where(and(eq(events.organizerId, organizerId), eq(events.slug, slug), eventAccessCondition(principal, events.id)))
    .get();
}

export async function eventSlugTaken(db: DB, organizerId: number, slug: string): Promise<boolean> {
  const row = await db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.organizerId, organizerId), eq(events.slug, slug)))
    .get();
  return row !== undefined;
}

/** The organizer's meta properties and the event's own meta data values (name → value), in one round trip. */
export async function eventMetaState(
  db: DB,
  organizerId: number,
  eventId: number,
): Promise<{ properties: MetaProperty[]; current: Record<string, string> }> {
  const [properties, values] = await db.batch([
    organizerMetaPropertyRows(db, organizerId),
    db
      .select({ name: eventMetaProperties.name, value: eventMetaValues.value })
      .from(eventMetaValues)
      .innerJoin(eventMetaProperties, eq(eventMetaProperties.id, eventMetaValues.propertyId))
      .where(eq(eventMetaValues.eventId, eventId)),
  ]);
  return {
    properties: properties.map(toMetaProperty),
    current: Object.fromEntries(values.map((r) => [r.name, r.value])),
  };
}

/**
 * Statements that write an event's meta data values; `eventId` may be a subquery with at most
 * two bound parameters. (Query builders only: drizzle's D1 batch cannot run raw SQL with
 * parameters.)
 */
export function metaValueStatements(
  db: DB,
  eventId: number | SQL,
  values: { propertyId: number; value: string }[],
  replace: boolean,
) {
  const statements: Statement[] = [];
  if (replace) statements.push(db.delete(eventMetaValues).where(eq(eventMetaValues.eventId, eventId as number)));
  // three parameters a row, plus those of `eventId` when it is a subquery (the new event's
  // natural key: two): at most five a row
  for (const part of chunks(values, Math.floor(MAX_PARAMS / 5))) {
    statements.push(
      db.insert(eventMetaValues).values(part.map((v) => ({ eventId, propertyId: v.propertyId, value: v.value }))),
    );
  }
  return statements;
}

/**
 * Runs a batch whose first statement inserts an event returning its id (one transaction);
 * returns the new id. A slug taken meanwhile fails with the UNIQUE violation of
 * (organizer, slug) (`SLUG_UNIQUE`).
 */
export async function insertEventBatch(db: DB, statements: readonly [Statement, ...Statement[]]): Promise<number> {
  const [rows] = (await db.batch(statements)) as [{ id: number }[], ...unknown[]];
  return rows[0]!.id;
}

/** The column named by the UNIQUE violation of an event's slug (db/constraints.ts `isUniqueError`). */
export const SLUG_UNIQUE = "events.slug";

/**
 * Creates an event with its meta data values (and, for a team limited to some events, adds
 * the event to that team) in one transaction; returns its id.
 */
export async function insertEvent(
  db: DB,
  organizerId: number,
  values: EventValues,
  meta: { propertyId: number; value: string }[],
  addToTeam: number | null,
): Promise<number> {
  const insert = db
    .insert(events)
    .values({ ...values, organizerId })
    .returning({ id: events.id });
  const newId = sql`(SELECT id FROM events WHERE organizer_id = ${organizerId} AND slug = ${values.slug})`;
  const rest = metaValueStatements(db, newId, meta, false);
  if (addToTeam !== null)
    rest.push(db.insert(teamEvents).values({ teamId: addToTeam, eventId: newId }).onConflictDoNothing());
  return insertEventBatch(db, [insert, ...rest]);
}

/** Updates an event; `meta` replaces its meta data values when given. */
export async function updateEvent(
  db: DB,
  organizerId: number,
  eventId: number,
  values: Partial<EventValues>,
  meta: { propertyId: number; value: string }[] | undefined,
) {
  const update = db
    .update(events)
    .set(values)
    .where(and(eq(events.organizerId, organizerId), eq(events.id, eventId)));
  const rest = meta ? metaValueStatements(db, eventId, meta, true) : [];
  await db.batch([update, ...rest]);
}

/**
 * Deletes an event unless it has orders (checked in the same statement). Returns false when
 * orders exist.
 */
export async function deleteEventWithoutOrders(db: DB, organizerId: number, eventId: number): Promise<boolean> {
  const rows = await db
    .delete(events)
    .where(
      and(
        eq(events.organizerId, organizerId),
        eq(events.id, eventId),
        not(exists(db.select({ one: sql`1` }).from(orders).where(eq(orders.eventId, eventId)))),
      ),
    )
    .returning({ id: events.id });
  return rows.length > 0;
}

export async function eventHasOrders(db: DB, eventId: number): Promise<boolean> {
  const row = await db.select({ id: orders.id }).from(orders).where(eq(orders.eventId, eventId)).limit(1).get();
  return row !== undefined;
}

/** What decides whether an event may go live: quotas and paid products. */
export async function liveFacts(db: DB, eventId: number): Promise<{ hasQuota: boolean; hasPaidItems: boolean }> {
  const [q, i, v] = await db.batch([
    db.select({ id: quotas.id }).from(quotas).where(eq(quotas.eventId, eventId)).limit(1),
    db
      .select({ id: items.id })
      .from(items)
      .where(and(eq(items.eventId, eventId), sql`${items.defaultPrice} > 0`))
      .limit(1),
    db
      .select({ id: itemVariations.id })
      .from(itemVariations)
      .innerJoin(items, eq(items.id, itemVariations.itemId))
      .where(and(eq(items.eventId, eventId), sql`${itemVariations.defaultPrice} > 0`))
      .limit(1),
  ]);
  return { hasQuota: q.length > 0, hasPaidItems: i.length > 0 || v.length > 0 };
}

export async function seatingPlanOfOrganizer(db: DB, organizerId: number, planId: number): Promise<boolean> {
  const row = await db
    .select({ id: seatingPlans.id })
    .from(seatingPlans)
    .where(and(eq(seatingPlans.organizerId, organizerId), eq(seatingPlans.id, planId)))
    .get();
  return row !== undefined;
}
