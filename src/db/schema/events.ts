import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { organizers, teams } from "./organizers";

export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id").notNull().references(() => organizers.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    live: integer("live", { mode: "boolean" }).notNull().default(false),
    testmode: integer("testmode", { mode: "boolean" }).notNull().default(false),
    currency: text("currency").notNull(),
    dateFrom: integer("date_from").notNull(),
    dateTo: integer("date_to"),
    dateAdmission: integer("date_admission"),
    isPublic: integer("is_public", { mode: "boolean" }).notNull().default(true),
    presaleStart: integer("presale_start"),
    presaleEnd: integer("presale_end"),
    location: text("location", { mode: "json" }).$type<I18n | null>(),
    geoLat: real("geo_lat"),
    geoLon: real("geo_lon"),
    hasSubevents: integer("has_subevents", { mode: "boolean" }).notNull().default(false),
    plugins: text("plugins", { mode: "json" }).$type<string[]>().notNull(),
    seatingPlanId: integer("seating_plan_id"),
    seatCategoryMapping: text("seat_category_mapping", { mode: "json" }).$type<Record<string, number | null>>().notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    itemMetaProperties: text("item_meta_properties", { mode: "json" }).$type<Record<string, string>>().notNull(),
    salesChannels: text("sales_channels", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    lastModified: integer("last_modified").notNull(),
  },
  (t) => [
    uniqueIndex("events_organizer_slug_uq").on(t.organizerId, t.slug),
    index("events_organizer_date_idx").on(t.organizerId, t.dateFrom),
  ],
);

/** The events a team with `all_events` false may access (`limit_events`). */
export const teamEvents = sqliteTable(
  "team_events",
  {
    teamId: integer("team_id").notNull().references(() => teams.id, { onDelete: "cascade" }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.eventId] }), index("team_events_event_idx").on(t.eventId)],
);

/** Dates of an event series (`has_subevents`). */
export const subevents = sqliteTable(
  "subevents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(false),
    dateFrom: integer("date_from").notNull(),
    dateTo: integer("date_to"),
    seatingPlanId: integer("seating_plan_id"),
    lastModified: integer("last_modified").notNull(),
  },
  (t) => [index("subevents_event_date_idx").on(t.eventId, t.dateFrom)],
);
