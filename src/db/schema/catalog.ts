/**
 * The parts of an event's catalog that items refer to: tax rules, quotas (capacity shared by
 * items and variations), and the organizer's seating plans with the seats read from their layouts.
 */
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { events, subevents } from "./events";
import { organizers } from "./organizers";

export const taxRules = sqliteTable(
  "tax_rules",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    internalName: text("internal_name"),
    /** Percent in hundredths (19.00 % = 1900). */
    rate: integer("rate").notNull(),
    priceIncludesTax: integer("price_includes_tax", { mode: "boolean" }).notNull().default(true),
    euReverseCharge: integer("eu_reverse_charge", { mode: "boolean" }).notNull().default(false),
    /** ISO 3166-1 alpha-2 code, "" or null (as sent). */
    homeCountry: text("home_country"),
    keepGrossIfRateChanges: integer("keep_gross_if_rate_changes", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("tax_rules_event_idx").on(t.eventId)],
);

/** Quotas: capacity shared by items / variations of one (sub-)event. */
export const quotas = sqliteTable(
  "quotas",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** null: unlimited. */
    size: integer("size"),
    closeWhenSoldOut: integer("close_when_sold_out", { mode: "boolean" }).notNull().default(false),
    closed: integer("closed", { mode: "boolean" }).notNull().default(false),
    releaseAfterExit: integer("release_after_exit", { mode: "boolean" }).notNull().default(false),
    ignoreForEventAvailability: integer("ignore_for_event_availability", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("quotas_event_idx").on(t.eventId, t.subeventId)],
);

/** Seating plans belong to the organizer; events and sub-events refer to one. */
export const seatingPlans = sqliteTable(
  "seating_plans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Stored and returned exactly as sent. */
    layout: text("layout", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index("seating_plans_organizer_idx").on(t.organizerId, t.name)],
);

/**
 * The seats of a plan, read from its layout (zones → rows → seats) when the plan is written.
 * Selling looks seats up here by `seat_guid`.
 */
export const seatingPlanSeats = sqliteTable(
  "seating_plan_seats",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    planId: integer("plan_id")
      .notNull()
      .references(() => seatingPlans.id, { onDelete: "cascade" }),
    seatGuid: text("seat_guid").notNull(),
    zoneName: text("zone_name").notNull().default(""),
    rowName: text("row_name").notNull().default(""),
    rowLabel: text("row_label"),
    seatNumber: text("seat_number").notNull().default(""),
    seatLabel: text("seat_label"),
    /** Name of the layout category (mapped to items by the event's seat_category_mapping). */
    category: text("category").notNull(),
    sortingRank: integer("sorting_rank").notNull().default(0),
    x: real("x"),
    y: real("y"),
  },
  (t) => [
    uniqueIndex("seating_plan_seats_guid_uq").on(t.planId, t.seatGuid),
    index("seating_plan_seats_rank_idx").on(t.planId, t.sortingRank),
  ],
);
