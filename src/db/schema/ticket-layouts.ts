/** PDF ticket layouts (pretix docs ticketoutputpdf.rst) and which layout prints which item. */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { items } from "./items";

/** PDF ticket layouts (pretix docs ticketoutputpdf.rst); `layout` is stored as sent. */
export const ticketLayouts = sqliteTable(
  "ticket_layouts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    layout: text("layout", { mode: "json" }).$type<unknown[]>().notNull(),
    /** Storage key of the background PDF (see http/files.ts), or null. */
    background: text("background"),
  },
  (t) => [
    index("ticket_layouts_event_idx").on(t.eventId, t.name),
    uniqueIndex("ticket_layouts_one_default_uq").on(t.eventId).where(sql`is_default = 1`),
  ],
);

/** Which layout prints an item sold on a sales channel: at most one per item and channel. */
export const ticketLayoutItems = sqliteTable(
  "ticket_layout_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    layoutId: integer("layout_id")
      .notNull()
      .references(() => ticketLayouts.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    salesChannel: text("sales_channel").notNull().default("web"),
  },
  (t) => [
    uniqueIndex("ticket_layout_items_item_channel_uq").on(t.itemId, t.salesChannel),
    index("ticket_layout_items_layout_idx").on(t.layoutId),
  ],
);
