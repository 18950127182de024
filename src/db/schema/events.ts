/** Events and their dates (sub-events), the teams' event access, meta data and event settings. */
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { organizers, teams } from "./organizers";

export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
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
    /** A seating plan of the same organizer (seating_plans.id; checked by the API). */
    seatingPlanId: integer("seating_plan_id"),
    seatCategoryMapping: text("seat_category_mapping", { mode: "json" })
      .$type<Record<string, number | null>>()
      .notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    /** Item meta properties of this event: name → default value. */
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
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.eventId] }), index("team_events_event_idx").on(t.eventId)],
);

/** Dates of an event series (`has_subevents`). */
export const subevents = sqliteTable(
  "subevents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(false),
    isPublic: integer("is_public", { mode: "boolean" }).notNull().default(true),
    dateFrom: integer("date_from").notNull(),
    dateTo: integer("date_to"),
    dateAdmission: integer("date_admission"),
    presaleStart: integer("presale_start"),
    presaleEnd: integer("presale_end"),
    location: text("location", { mode: "json" }).$type<I18n | null>(),
    frontpageText: text("frontpage_text", { mode: "json" }).$type<I18n | null>(),
    geoLat: real("geo_lat"),
    geoLon: real("geo_lon"),
    /** A seating plan of the same organizer (seating_plans.id; checked by the API). */
    seatingPlanId: integer("seating_plan_id"),
    seatCategoryMapping: text("seat_category_mapping", { mode: "json" })
      .$type<Record<string, number | null>>()
      .notNull()
      .default({}),
    lastModified: integer("last_modified").notNull(),
  },
  (t) => [
    index("subevents_event_date_idx").on(t.eventId, t.dateFrom),
    index("subevents_event_modified_idx").on(t.eventId, t.lastModified),
  ],
);

/** A choice of an event meta property: internal key and public label. */
export type MetaChoice = { key: string; label: I18n | null };

/** Organizer-defined meta data keys of events and sub-events (pretix docs event_meta_properties.rst). */
export const eventMetaProperties = sqliteTable(
  "event_meta_properties",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Value of events (and dates) that set none; "" means no default. */
    defaultValue: text("default_value").notNull().default(""),
    required: integer("required", { mode: "boolean" }).notNull().default(false),
    protected: integer("protected", { mode: "boolean" }).notNull().default(false),
    filterPublic: integer("filter_public", { mode: "boolean" }).notNull().default(false),
    publicLabel: text("public_label", { mode: "json" }).$type<I18n | null>(),
    filterAllowed: integer("filter_allowed", { mode: "boolean" }).notNull().default(true),
    /** Permitted values; null: any value. */
    choices: text("choices", { mode: "json" }).$type<MetaChoice[] | null>(),
  },
  (t) => [uniqueIndex("event_meta_properties_organizer_name_uq").on(t.organizerId, t.name)],
);

export const eventMetaValues = sqliteTable(
  "event_meta_values",
  {
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    propertyId: integer("property_id")
      .notNull()
      .references(() => eventMetaProperties.id, { onDelete: "cascade" }),
    value: text("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.propertyId] }), index("event_meta_values_property_idx").on(t.propertyId)],
);

export const subeventMetaValues = sqliteTable(
  "subevent_meta_values",
  {
    subeventId: integer("subevent_id")
      .notNull()
      .references(() => subevents.id, { onDelete: "cascade" }),
    propertyId: integer("property_id")
      .notNull()
      .references(() => eventMetaProperties.id, { onDelete: "cascade" }),
    value: text("value").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.subeventId, t.propertyId] }),
    index("subevent_meta_values_property_idx").on(t.propertyId),
  ],
);

/** Event-level settings that differ from the organizer's or the global defaults (see services/settings). */
export const eventSettings = sqliteTable(
  "event_settings",
  {
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    value: text("value", { mode: "json" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.key] })],
);
