import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { events } from "./events";
import { organizers } from "./organizers";

export const taxRules = sqliteTable(
  "tax_rules",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    /** Percent in hundredths (19.00 % = 1900). */
    rate: integer("rate").notNull(),
    priceIncludesTax: integer("price_includes_tax", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [index("tax_rules_event_idx").on(t.eventId)],
);

export const questions = sqliteTable(
  "questions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
    question: text("question", { mode: "json" }).$type<I18n>().notNull(),
    type: text("type").notNull(),
    required: integer("required", { mode: "boolean" }).notNull().default(false),
    position: integer("position").notNull().default(0),
  },
  (t) => [index("questions_event_idx").on(t.eventId)],
);

/** Seating plans belong to the organizer; events and sub-events refer to one. */
export const seatingPlans = sqliteTable(
  "seating_plans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id").notNull().references(() => organizers.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    layout: text("layout", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index("seating_plans_organizer_idx").on(t.organizerId)],
);
