/** Ticket layouts of an event and their item assignments; every query is scoped by event. */
import { and, asc, count, eq, type SQL, sql } from "drizzle-orm";
import { lastInsertedId, qualifiedId } from "./catalog-common";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { items, ticketLayoutItems, ticketLayouts } from "./schema";

export type TicketLayoutRow = typeof ticketLayouts.$inferSelect;
export type TicketLayoutValues = Omit<typeof ticketLayouts.$inferInsert, "id" | "eventId">;
export type TicketLayoutRecord = { layout: TicketLayoutRow; assignments: string };
export type LayoutItemRow = { id: number; layoutId: number; itemId: number; salesChannel: string };

const layoutRecordFields = {
  layout: ticketLayouts,
  assignments: sql<string>`(SELECT json_group_array(json_object('sales_channel', a.sales_channel, 'item', a.item_id)) FROM (SELECT sales_channel, item_id FROM ticket_layout_items WHERE layout_id = ${qualifiedId("ticket_layouts")} ORDER BY id) a)`,
};

function selectLayouts(db: DB) {
  return db.select(layoutRecordFields).from(ticketLayouts);
}

function layoutWhere(eventId: number, id: number | SQL) {
  return and(eq(ticketLayouts.eventId, eventId), eq(ticketLayouts.id, id));
}

/** A page of the event's layouts, by name. */
export function listTicketLayouts(db: DB, eventId: number, req: ListRequest) {
  const where = eq(ticketLayouts.eventId, eventId);
  const rows = selectLayouts(db).where(where).orderBy(asc(ticketLayouts.name), asc(ticketLayouts.id)).$dynamic();
  return fetchPage(db, { rows, count: { from: ticketLayouts, where } }, req);
}

export async function findTicketLayout(db: DB, eventId: number, id: number): Promise<TicketLayoutRecord | undefined> {
  return selectLayouts(db).where(layoutWhere(eventId, id)).get();
}

/** The event's default layouts other than `exceptId`. */
function otherDefaults(db: DB, eventId: number, exceptId?: number) {
  return db
    .select({ id: ticketLayouts.id })
    .from(ticketLayouts)
    .where(
      and(
        eq(ticketLayouts.eventId, eventId),
        eq(ticketLayouts.isDefault, true),
        exceptId === undefined ? undefined : sql`${ticketLayouts.id} <> ${exceptId}`,
      ),
    )
    .limit(1);
}

/** Whether the event has a default layout other than `exceptId`. */
export async function hasOtherDefaultLayout(db: DB, eventId: number, exceptId?: number): Promise<boolean> {
  return (await otherDefaults(db, eventId, exceptId)).length > 0;
}

/** A layout of the event and whether another layout is the default, in one batch. */
export async function findTicketLayoutAndOtherDefault(db: DB, eventId: number, id: number) {
  const [found, others] = await db.batch([
    selectLayouts(db).where(layoutWhere(eventId, id)),
    otherDefaults(db, eventId, id),
  ]);
  return { record: found[0] as TicketLayoutRecord | undefined, otherDefault: others.length > 0 };
}

/** Creates a layout and reads it back in the same transaction. */
export async function insertTicketLayout(
  db: DB,
  eventId: number,
  values: TicketLayoutValues,
): Promise<TicketLayoutRecord> {
  const [, found] = await db.batch([
    db.insert(ticketLayouts).values({ ...values, eventId }),
    selectLayouts(db).where(layoutWhere(eventId, lastInsertedId("ticket_layouts"))),
  ]);
  return found[0]!;
}

/** Writes the changed columns and reads the layout back in the same transaction; undefined when it is gone. */
export async function updateTicketLayoutValues(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<TicketLayoutValues>,
) {
  const read = selectLayouts(db).where(layoutWhere(eventId, id));
  if (Object.keys(values).length === 0) return read.get();
  const [, found] = await db.batch([db.update(ticketLayouts).set(values).where(layoutWhere(eventId, id)), read]);
  return found[0];
}

/** Deletes a layout; when it was the default, the first remaining layout (by name) becomes the default. */
export async function deleteTicketLayoutRow(db: DB, eventId: number, id: number) {
  await db.batch([
    db.delete(ticketLayouts).where(layoutWhere(eventId, id)),
    db
      .update(ticketLayouts)
      .set({ isDefault: true })
      .where(
        and(
          eq(ticketLayouts.eventId, eventId),
          sql`${qualifiedId("ticket_layouts")} = (SELECT id FROM ticket_layouts WHERE event_id = ${eventId} ORDER BY name, id LIMIT 1)`,
          sql`NOT EXISTS (SELECT 1 FROM ticket_layouts WHERE event_id = ${eventId} AND is_default = 1)`,
        ),
      ),
  ]);
}

// ---- layout-item assignments ----

const assignmentFields = {
  id: ticketLayoutItems.id,
  layoutId: ticketLayoutItems.layoutId,
  itemId: ticketLayoutItems.itemId,
  salesChannel: ticketLayoutItems.salesChannel,
};

function selectAssignments(db: DB) {
  return db
    .select(assignmentFields)
    .from(ticketLayoutItems)
    .innerJoin(ticketLayouts, eq(ticketLayouts.id, ticketLayoutItems.layoutId));
}

/** A page of the event's assignments (of its layouts), by id. */
export function listLayoutItems(db: DB, eventId: number, req: ListRequest) {
  const where = eq(ticketLayouts.eventId, eventId);
  const counted = db
    .select({ n: count() })
    .from(ticketLayoutItems)
    .innerJoin(ticketLayouts, eq(ticketLayouts.id, ticketLayoutItems.layoutId))
    .where(where);
  return fetchPage(
    db,
    { rows: selectAssignments(db).where(where).orderBy(asc(ticketLayoutItems.id)).$dynamic(), count: counted },
    req,
  );
}

export async function findLayoutItem(db: DB, eventId: number, id: number): Promise<LayoutItemRow | undefined> {
  return selectAssignments(db)
    .where(and(eq(ticketLayouts.eventId, eventId), eq(ticketLayoutItems.id, id)))
    .get();
}

/**
 * What an assignment needs, in one batch: whether the layout and the item are of the event,
 * and whether the item already has a layout on the sales channel.
 */
export async function assignmentFacts(db: DB, eventId: number, layoutId: number, itemId: number, salesChannel: string) {
  const [layout, item, assigned] = await db.batch([
    db.select({ id: ticketLayouts.id }).from(ticketLayouts).where(layoutWhere(eventId, layoutId)),
    db
      .select({ id: items.id })
      .from(items)
      .where(and(eq(items.eventId, eventId), eq(items.id, itemId))),
    db
      .select({ id: ticketLayoutItems.id })
      .from(ticketLayoutItems)
      .where(and(eq(ticketLayoutItems.itemId, itemId), eq(ticketLayoutItems.salesChannel, salesChannel))),
  ]);
  return { layoutExists: layout.length > 0, itemExists: item.length > 0, assigned: assigned.length > 0 };
}

/**
 * Assigns a layout of the event to an item of the event; both conditions are part of the
 * statement. Returns the new row, or undefined when layout or item is not of the event.
 */
export async function insertLayoutItem(
  db: DB,
  eventId: number,
  layoutId: number,
  itemId: number,
  salesChannel: string,
): Promise<LayoutItemRow | undefined> {
  const rows = await db.all<{ id: number }>(
    sql`INSERT INTO ticket_layout_items (layout_id, item_id, sales_channel) SELECT l.id, i.id, ${salesChannel} FROM ticket_layouts l, items i WHERE l.id = ${layoutId} AND l.event_id = ${eventId} AND i.id = ${itemId} AND i.event_id = ${eventId} RETURNING id`,
  );
  return rows[0] ? { id: rows[0].id, layoutId, itemId, salesChannel } : undefined;
}

/** Removes an assignment of the event's layouts; false when there is none. */
export async function deleteLayoutItemRow(db: DB, eventId: number, id: number): Promise<boolean> {
  const deleted = await db
    .delete(ticketLayoutItems)
    .where(
      and(
        eq(ticketLayoutItems.id, id),
        sql`${ticketLayoutItems.layoutId} IN (SELECT id FROM ticket_layouts WHERE event_id = ${eventId})`,
      ),
    )
    .returning({ id: ticketLayoutItems.id });
  return deleted.length > 0;
}
