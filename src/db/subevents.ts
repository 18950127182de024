/**
 * Sub-events (dates of an event series) with their item / variation overrides and meta data
 * values. Every query is scoped by the event (and so by the organizer), or for the
 * organizer-level list by the organizer and the principal's events.
 */
import type { BatchItem } from "drizzle-orm/batch";
import { and, count, eq, exists, not, or, sql, type SQL } from "drizzle-orm";
import type { MetaProperty } from "./event-meta";
import type { DB } from "./client";
import { organizerMetaPropertyRows, toMetaProperty } from "./event-meta";
import { touchInventory } from "./inventory";
import {
  qualified,
  eventAccessCondition,
  endsAfterCondition,
  futureCondition,
  jsonListContains,
  pastCondition,
  type AttrFilter,
  type EventAccess,
} from "./events";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { i18nContains } from "./search";
import {
  changeStamps,
  eventMetaProperties,
  events,
  orderPositions,
  subeventItems,
  subeventItemVariations,
  subeventMetaValues,
  subevents,
} from "./schema";
import { chunks } from "../lib/chunks";
import { rowsPerInsert } from "./util";

export type SubeventRecord = typeof subevents.$inferSelect;
export type SubeventValues = Omit<typeof subevents.$inferInsert, "id" | "eventId">;

export type Override = {
  price: number | null;
  disabled: boolean;
  availableFrom: number | null;
  availableUntil: number | null;
};
export type ItemOverride = Override & { item: number };
export type VariationOverride = Override & { variation: number };

const SUB_ID = qualified(subevents.id);
const SUB_EVENT = qualified(subevents.eventId);

/** One sub-event with its overrides and meta data, each a JSON text from SQLite. */
const subeventWithDetails = {
  subevent: subevents,
  eventSlug: events.slug,
  metaData: sql<string>`(SELECT json_group_object(p.name, v.value) FROM subevent_meta_values v JOIN event_meta_properties p ON p.id = v.property_id WHERE v.subevent_id = ${SUB_ID})`,
  itemOverrides: sql<string>`(SELECT json_group_array(json_object('item', o.item_id, 'price', o.price, 'disabled', o.disabled, 'available_from', o.available_from, 'available_until', o.available_until)) FROM (SELECT * FROM subevent_items WHERE subevent_id = ${SUB_ID} ORDER BY item_id) o)`,
  variationOverrides: sql<string>`(SELECT json_group_array(json_object('variation', o.variation_id, 'price', o.price, 'disabled', o.disabled, 'available_from', o.available_from, 'available_until', o.available_until)) FROM (SELECT * FROM subevent_item_variations WHERE subevent_id = ${SUB_ID} ORDER BY variation_id) o)`,
};

export type SubeventWithDetails = {
  subevent: SubeventRecord;
  eventSlug: string;
  metaData: string | null;
  itemOverrides: string | null;
  variationOverrides: string | null;
};

/** `attr[name]=value` on dates: the date's value, else the series' value, else the default. */
function subeventAttrCondition(f: AttrFilter): SQL {
  const own = (withValue: boolean) =>
    withValue
      ? sql`EXISTS (SELECT 1 FROM subevent_meta_values sv WHERE sv.subevent_id = ${SUB_ID} AND sv.property_id = ${f.propertyId} AND sv.value = ${f.value})`
      : sql`EXISTS (SELECT 1 FROM subevent_meta_values sv WHERE sv.subevent_id = ${SUB_ID} AND sv.property_id = ${f.propertyId})`;
  const parent = (withValue: boolean) =>
    withValue
      ? sql`EXISTS (SELECT 1 FROM event_meta_values ev WHERE ev.event_id = ${SUB_EVENT} AND ev.property_id = ${f.propertyId} AND ev.value = ${f.value})`
      : sql`EXISTS (SELECT 1 FROM event_meta_values ev WHERE ev.event_id = ${SUB_EVENT} AND ev.property_id = ${f.propertyId})`;
  const parts = [own(true), sql`(NOT ${own(false)} AND ${parent(true)})`];
  if (f.defaultValue === f.value) parts.push(sql`(NOT ${own(false)} AND NOT ${parent(false)})`);
  return sql`(${sql.join(parts, sql` OR `)})`;
}

export type SubeventFilter = {
  active?: boolean;
  isFuture?: boolean;
  isPast?: boolean;
  endsAfter?: number;
  search?: string;
  modifiedSince?: number;
  attrs: AttrFilter[];
  /** Organizer-level list only. */
  eventLive?: boolean;
  salesChannel?: string;
  now: number;
};

function filterConditions(f: SubeventFilter): (SQL | undefined)[] {
  const conds: (SQL | undefined)[] = [];
  if (f.active !== undefined) conds.push(eq(subevents.active, f.active));
  if (f.isFuture !== undefined)
    conds.push(f.isFuture ? futureCondition(subevents, f.now) : not(futureCondition(subevents, f.now)));
  if (f.isPast !== undefined)
    conds.push(f.isPast ? pastCondition(subevents, f.now) : not(pastCondition(subevents, f.now)));
  if (f.endsAfter !== undefined) conds.push(endsAfterCondition(subevents, f.endsAfter));
  if (f.search !== undefined)
    conds.push(or(i18nContains(subevents.name, f.search), i18nContains(subevents.location, f.search)));
  if (f.modifiedSince !== undefined) conds.push(sql`${subevents.lastModified} >= ${f.modifiedSince}`);
  if (f.eventLive !== undefined) conds.push(eq(events.live, f.eventLive));
  if (f.salesChannel !== undefined) conds.push(jsonListContains(events.salesChannels, f.salesChannel));
  for (const a of f.attrs) conds.push(subeventAttrCondition(a));
  return conds;
}

/** The orderings of the date lists (`date_from`, `id`, `last_modified`; default `date_from`). */
export const SUBEVENT_ORDERING: OrderingTable = {
  fields: { date_from: subevents.dateFrom, id: subevents.id, last_modified: subevents.lastModified },
  default: "date_from",
  tiebreaker: subevents.id,
};

function listing(db: DB, where: SQL | undefined) {
  return {
    rows: db
      .select(subeventWithDetails)
      .from(subevents)
      .innerJoin(events, eq(events.id, subevents.eventId))
      .where(where)
      .$dynamic(),
    count: db.select({ n: count() }).from(subevents).innerJoin(events, eq(events.id, subevents.eventId)).where(where),
    ordering: SUBEVENT_ORDERING,
  };
}

// ---- dates of one series ----

/**
 * A page of the series' dates matching the filter, with the list's last change (Last-Modified)
 * in the same batch.
 */
export async function listSubevents(db: DB, eventId: number, f: SubeventFilter, req: ListRequest) {
  const page = await fetchPage(
    db,
    listing(db, and(eq(subevents.eventId, eventId), ...filterConditions(f))),
    req,
    lastChangeQuery(db, eventScopeKey(eventId), SUBEVENTS_RESOURCE),
  );
  const [stamp] = page.extra;
  return { count: page.count, rows: page.rows, lastModified: stamp[0]?.modifiedAt ?? null };
}

export async function findSubevent(db: DB, eventId: number, id: number): Promise<SubeventWithDetails | undefined> {
  return db
    .select(subeventWithDetails)
    .from(subevents)
    .innerJoin(events, eq(events.id, subevents.eventId))
    .where(and(eq(subevents.eventId, eventId), eq(subevents.id, id)))
    .get();
}

// ---- dates of all series of the organizer ----

/** A page of the dates of all series of the organizer that the principal may access, matching the filter. */
export function listOrganizerSubevents(
  db: DB,
  organizerId: number,
  principal: EventAccess,
  f: SubeventFilter,
  req: ListRequest,
) {
  const where = and(
    eq(events.organizerId, organizerId),
    eq(events.hasSubevents, true),
    eventAccessCondition(principal, events.id),
    ...filterConditions(f),
  );
  return fetchPage(db, listing(db, where), req);
}

// ---- writes ----

export const SUBEVENTS_RESOURCE = "subevents";

/** Records a change of the event's sub-event list (list-level conditional fetching). */
const touch = (db: DB, eventId: number, now: number) =>
  touchStatement(db, eventScopeKey(eventId), SUBEVENTS_RESOURCE, now);

export type SubeventChildren = {
  items?: ItemOverride[];
  variations?: VariationOverride[];
  meta?: { propertyId: number; value: string }[];
};

/**
 * Statements that write the overrides and meta values given (replacing the stored ones when
 * `replace`); `id` may be a subquery. Query builders only: drizzle's D1 batch cannot run raw
 * SQL with parameters.
 */
function childStatements(db: DB, id: number | SQL, c: SubeventChildren, replace: boolean) {
  const out: BatchItem<"sqlite">[] = [];
  if (c.items) {
    if (replace) out.push(db.delete(subeventItems).where(eq(subeventItems.subeventId, id as number)));
    for (const part of chunks(c.items, rowsPerInsert(6, 10))) {
      out.push(
        db.insert(subeventItems).values(part.map((o) => ({ subeventId: id, itemId: o.item, ...overrideColumns(o) }))),
      );
    }
  }
  if (c.variations) {
    if (replace) out.push(db.delete(subeventItemVariations).where(eq(subeventItemVariations.subeventId, id as number)));
    for (const part of chunks(c.variations, rowsPerInsert(6, 10))) {
      out.push(
        db
          .insert(subeventItemVariations)
          .values(part.map((o) => ({ subeventId: id, variationId: o.variation, ...overrideColumns(o) }))),
      );
    }
  }
  if (c.meta) {
    if (replace) out.push(db.delete(subeventMetaValues).where(eq(subeventMetaValues.subeventId, id as number)));
    for (const part of chunks(c.meta, rowsPerInsert(3, 10))) {
      out.push(
        db
          .insert(subeventMetaValues)
          .values(part.map((m) => ({ subeventId: id, propertyId: m.propertyId, value: m.value }))),
      );
    }
  }
  return out;
}

function overrideColumns(o: Override) {
  return { price: o.price, disabled: o.disabled, availableFrom: o.availableFrom, availableUntil: o.availableUntil };
}

/** Creates a date with its overrides and meta values in one transaction; returns its id. */
export async function insertSubevent(
  db: DB,
  eventId: number,
  values: SubeventValues,
  children: SubeventChildren,
): Promise<number> {
  const insert = db
    .insert(subevents)
    .values({ ...values, eventId })
    .returning({ id: subevents.id });
  // In the batch's transaction the date just inserted has the highest id of the series.
  const newId = sql`(SELECT max(id) FROM subevents WHERE event_id = ${eventId})`;
  const [rows] = await db.batch([
    insert,
    ...childStatements(db, newId, children, false),
    touch(db, eventId, values.lastModified),
  ]);
  return rows[0]!.id;
}

/** Updates a date; overrides and meta values given replace the stored ones. */
export async function updateSubevent(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<SubeventValues> & { lastModified: number },
  children: SubeventChildren,
) {
  const update = db
    .update(subevents)
    .set(values)
    .where(and(eq(subevents.eventId, eventId), eq(subevents.id, id)));
  await db.batch([update, ...childStatements(db, id, children, true), touch(db, eventId, values.lastModified)]);
}

/**
 * Deletes a date unless order positions refer to it (checked in the same statement); the list
 * is marked changed only when the date is gone. Returns false when the date is in use.
 */
export async function deleteSubeventUnlessUsed(db: DB, eventId: number, id: number, now: number): Promise<boolean> {
  const [rows] = await db.batch([
    db
      .delete(subevents)
      .where(
        and(
          eq(subevents.eventId, eventId),
          eq(subevents.id, id),
          not(exists(db.select({ one: sql`1` }).from(orderPositions).where(eq(orderPositions.subeventId, id)))),
        ),
      )
      .returning({ id: subevents.id }),
    // the date's quotas and vouchers go with it: the event object reloads
    touchInventory(db, eventId, now),
    db
      .insert(changeStamps)
      .select(
        sql`SELECT ${eventScopeKey(eventId)}, ${SUBEVENTS_RESOURCE}, ${now} WHERE NOT EXISTS (SELECT 1 FROM subevents WHERE id = ${id})`,
      )
      .onConflictDoUpdate({
        target: [changeStamps.scope, changeStamps.resource],
        set: { modifiedAt: sql`max(${changeStamps.modifiedAt}, excluded.modified_at)` },
      }),
  ]);
  return rows.length > 0;
}

/** The organizer's meta properties and the date's own meta data values (name → value), in one round trip. */
export async function subeventMetaState(
  db: DB,
  organizerId: number,
  id: number,
): Promise<{ properties: MetaProperty[]; current: Record<string, string> }> {
  const [properties, values] = await db.batch([
    organizerMetaPropertyRows(db, organizerId),
    db
      .select({ name: eventMetaProperties.name, value: subeventMetaValues.value })
      .from(subeventMetaValues)
      .innerJoin(eventMetaProperties, eq(eventMetaProperties.id, subeventMetaValues.propertyId))
      .where(eq(subeventMetaValues.subeventId, id)),
  ]);
  return {
    properties: properties.map(toMetaProperty),
    current: Object.fromEntries(values.map((r) => [r.name, r.value])),
  };
}
