/**
 * The waiting list (pretix docs waitinglist.rst): people waiting for a product (and variation,
 * and date) that is sold out. An entry that was sent a voucher (`voucher_id`) no longer waits;
 * the voucher blocks one unit of quota until it is redeemed or expires. Deleting the voucher
 * deletes the entry (pretix's cascade). One waiting entry per address and product and date.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { NameParts } from "./customers";
import { events, subevents } from "./events";
import { itemVariations, items } from "./items";
import { vouchers } from "./sales";

/** The partial unique index of waiting entries: SQLite names it when it refuses a duplicate. */
export const WAITING_ENTRY_INDEX = "waitinglist_waiting_uq";

export const waitinglistEntries = sqliteTable(
  "waitinglist_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    variationId: integer("variation_id").references(() => itemVariations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    nameCached: text("name_cached"),
    nameParts: text("name_parts", { mode: "json" }).$type<NameParts>().notNull().default({}),
    phone: text("phone"),
    locale: text("locale").notNull().default("en"),
    priority: integer("priority").notNull().default(0),
    voucherId: integer("voucher_id").references(() => vouchers.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // the order in which vouchers are given out: priority first, then the oldest
    index("waitinglist_event_waiting_idx").on(t.eventId, t.voucherId, t.priority, t.createdAt),
    index("waitinglist_event_created_idx").on(t.eventId, t.createdAt),
    index("waitinglist_voucher_idx").on(t.voucherId),
    uniqueIndex(WAITING_ENTRY_INDEX)
      .on(
        t.eventId,
        t.itemId,
        sql`coalesce(${t.variationId}, 0)`,
        sql`coalesce(${t.subeventId}, 0)`,
        sql`lower(${t.email})`,
      )
      .where(sql`${t.voucherId} IS NULL`),
  ],
);
