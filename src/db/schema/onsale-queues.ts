/**
 * On-sale queues (docs/onsale-queue.md): a waiting room in front of an event's sales, or of one
 * date's. At most one queue per event and date; `subevent_id` null means the whole event.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { events, subevents } from "./events";
import { organizers } from "./organizers";

export const ARRIVAL_ORDERS = ["shuffle", "first_come"] as const;
export type ArrivalOrder = (typeof ARRIVAL_ORDERS)[number];

export const onsaleQueues = sqliteTable(
  "onsale_queues",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "cascade" }),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /** Epoch milliseconds. */
    opensAt: integer("opens_at").notNull(),
    arrivalOrder: text("arrival_order").$type<ArrivalOrder>().notNull().default("shuffle"),
    admissionsPerMinute: integer("admissions_per_minute").notNull(),
    admissionMinutes: integer("admission_minutes").notNull().default(15),
    ordersPerAdmission: integer("orders_per_admission").notNull().default(1),
    bypassSalesChannels: text("bypass_sales_channels", { mode: "json" }).$type<string[]>().notNull(),
    bypassDevices: integer("bypass_devices", { mode: "boolean" }).notNull().default(true),
    /** Team ids of the organizer whose tokens skip the queue. */
    bypassTeams: text("bypass_teams", { mode: "json" }).$type<number[]>().notNull(),
    secretVersion: integer("secret_version").notNull().default(1),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("onsale_queues_event_subevent_uq").on(t.eventId, t.subeventId),
    // NULLs are distinct in a unique index: the one event-wide queue has its own
    uniqueIndex("onsale_queues_event_wide_uq").on(t.eventId).where(sql`${t.subeventId} IS NULL`),
    index("onsale_queues_subevent_idx").on(t.subeventId),
    index("onsale_queues_organizer_idx").on(t.organizerId),
  ],
);
