/** Ticket layouts of an event and their item assignments; every query is scoped by event. */
import { and, asc, count, eq, sql } from "drizzle-orm";
import { qualifiedId } from "./catalog-common";
import type { DB } from "./client";
import { ticketLayoutItems, ticketLayouts } from "./schema";

export type TicketLayoutRow = typeof ticketLayouts.$inferSelect;
export type TicketLayoutValues = Omit<typeof ticketLayouts.$inferInsert, "id" | "eventId">;
export type TicketLayoutRecord = { layout: TicketLayoutRow; assignments: string };

const layoutRecordFields = {
  layout: ticketLayouts,
  assignments: sql<string>`(SELECT json_group_array(json_object('sales_channel', a.sales_channel, 'item', a.item_id)) FROM (SELECT sales_channel, item_id FROM ticket_layout_items WHERE layout_id = ${qualifiedId("ticket_layouts")} ORDER BY id) a)`,
};

export function ticketLayoutCount(db: DB, eventId: number) {
  return db.select({ n: count() }).from(ticketLayouts).where(eq(ticketLayouts.eventId, eventId));
}

export function ticketLayoutPage(db: DB, eventId: number, limit: number, offset: number) {
  return db
    .select(layoutRecordFields)
    .from(ticketLayouts)
    .where(eq(ticketLayouts.eventId, eventId))
    .orderBy(asc(ticketLayouts.name), asc(ticketLayouts.id))
    .limit(limit)
    .offset(offset);
}

export async function findTicketLayout(db: DB, eventId: number, id: number): Promise<TicketLayoutRecord | undefined> {
  return db
    .select(layoutRecordFields)
    .from(ticketLayouts)
    .where(and(eq(ticketLayouts.eventId, eventId), eq(ticketLayouts.id, id)))
    .get();
}

/** The event's default layout other than `exceptId`, if any. */
export async function otherDefaultLayout(db: DB, eventId: number, exceptId?: number): Promise<number | undefined> {
  const row = await db
    .select({ id: ticketLayouts.id })
    .from(ticketLayouts)
    .where(
      and(
        eq(ticketLayouts.eventId, eventId),
        eq(ticketLayouts.isDefault, true),
        exceptId === undefined ? undefined : sql`${ticketLayouts.id} <> ${exceptId}`,
      ),
    )
    .get();
  return row?.id;
}

export async function createTicketLayout(db: DB, eventId: number, values: TicketLayoutValues): Promise<number> {
  const [row] = await db.insert(ticketLayouts).values({ ...values, eventId }).returning({ id: ticketLayouts.id });
  return row!.id;
}

export async function updateTicketLayout(db: DB, eventId: number, id: number, values: Partial<TicketLayoutValues>) {
  if (Object.keys(values).length === 0) return;
  await db
    .update(ticketLayouts)
    .set(values)
    .where(and(eq(ticketLayouts.eventId, eventId), eq(ticketLayouts.id, id)));
}

/** Deletes a layout; when it was the default, the first remaining layout (by name) becomes the default. */
export async function deleteTicketLayout(db: DB, eventId: number, id: number) {
  await db.batch([
    db.delete(ticketLayouts).where(and(eq(ticketLayouts.eventId, eventId), eq(ticketLayouts.id, id))),
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

const assignmentFields = { id: ticketLayoutItems.id, layoutId: ticketLayoutItems.layoutId, itemId: ticketLayoutItems.itemId, salesChannel: ticketLayoutItems.salesChannel };

function eventAssignments(eventId: number) {
  return eq(ticketLayouts.eventId, eventId);
}

export function layoutItemCount(db: DB, eventId: number) {
  return db
    .select({ n: count() })
    .from(ticketLayoutItems)
    .innerJoin(ticketLayouts, eq(ticketLayouts.id, ticketLayoutItems.layoutId))
    .where(eventAssignments(eventId));
}

export function layoutItemPage(db: DB, eventId: number, limit: number, offset: number) {
  return db
    .select(assignmentFields)
    .from(ticketLayoutItems)
    .innerJoin(ticketLayouts, eq(ticketLayouts.id, ticketLayoutItems.layoutId))
    .where(eventAssignments(eventId))
    .orderBy(asc(ticketLayoutItems.id))
    .limit(limit)
    .offset(offset);
}

export async function findLayoutItem(db: DB, eventId: number, id: number) {
  return db
    .select(assignmentFields)
    .from(ticketLayoutItems)
    .innerJoin(ticketLayouts, eq(ticketLayouts.id, ticketLayoutItems.layoutId))
    .where(and(eventAssignments(eventId), eq(ticketLayoutItems.id, id)))
    .get();
}

/** Whether the item already has a layout on the sales channel. */
export async function itemChannelAssigned(db: DB, itemId: number, salesChannel: string): Promise<boolean> {
  const row = await db
    .select({ id: ticketLayoutItems.id })
    .from(ticketLayoutItems)
    .where(and(eq(ticketLayoutItems.itemId, itemId), eq(ticketLayoutItems.salesChannel, salesChannel)))
    .get();
  return row !== undefined;
}

/**
 * Assigns a layout of the event to an item of the event; both conditions are part of the
 * statement. Returns the new row, or undefined when layout or item is not of the event.
 */
export async function createLayoutItem(db: DB, eventId: number, layoutId: number, itemId: number, salesChannel: string) {
  const rows = await db.all<{ id: number }>(
    sql`INSERT INTO ticket_layout_items (layout_id, item_id, sales_channel) SELECT l.id, i.id, ${salesChannel} FROM ticket_layouts l, items i WHERE l.id = ${layoutId} AND l.event_id = ${eventId} AND i.id = ${itemId} AND i.event_id = ${eventId} RETURNING id`,
  );
  return rows[0] ? { id: rows[0].id, layoutId, itemId, salesChannel } : undefined;
}

export async function deleteLayoutItem(db: DB, eventId: number, id: number) {
  await db
    .delete(ticketLayoutItems)
    .where(and(eq(ticketLayoutItems.id, id), sql`${ticketLayoutItems.layoutId} IN (SELECT id FROM ticket_layouts WHERE event_id = ${eventId})`));
}

