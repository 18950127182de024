/** Questions asked when selling (pretix docs questions.rst), the items they are asked for, and their options. */
import { sql } from "drizzle-orm";
import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { events } from "./events";
import { items } from "./items";

/** Question type codes (pretix docs questions.rst). */
export const QUESTION_TYPES = ["N", "S", "T", "B", "C", "M", "F", "D", "H", "W", "CC", "TEL"] as const;

export type QuestionType = (typeof QUESTION_TYPES)[number];

/** The unique index of a question identifier in its event (any case): SQLite names it when it refuses one. */
export const QUESTION_IDENTIFIER_INDEX = "questions_event_identifier_lower_uq";

export const questions = sqliteTable(
  "questions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    question: text("question", { mode: "json" }).$type<I18n>().notNull(),
    helpText: text("help_text", { mode: "json" }).$type<I18n | null>(),
    type: text("type").$type<QuestionType>().notNull(),
    required: integer("required", { mode: "boolean" }).notNull().default(false),
    position: integer("position").notNull().default(0),
    identifier: text("identifier").notNull(),
    askDuringCheckin: integer("ask_during_checkin", { mode: "boolean" }).notNull().default(false),
    /** Scanners show the ticket's answer when it is scanned (pretix `show_during_checkin`). */
    showDuringCheckin: integer("show_during_checkin", { mode: "boolean" }).notNull().default(false),
    hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
    printOnInvoice: integer("print_on_invoice", { mode: "boolean" }).notNull().default(false),
    /** Decimal strings with six places (number questions). */
    validNumberMin: text("valid_number_min"),
    validNumberMax: text("valid_number_max"),
    /** YYYY-MM-DD (date questions). */
    validDateMin: text("valid_date_min"),
    validDateMax: text("valid_date_max"),
    /** Epoch milliseconds (date and time questions). */
    validDatetimeMin: integer("valid_datetime_min"),
    validDatetimeMax: integer("valid_datetime_max"),
    validFilePortrait: integer("valid_file_portrait", { mode: "boolean" }).notNull().default(false),
    dependencyQuestionId: integer("dependency_question_id").references((): AnySQLiteColumn => questions.id, {
      onDelete: "set null",
    }),
    dependencyValues: text("dependency_values", { mode: "json" }).$type<string[]>().notNull(),
  },
  (t) => [
    index("questions_event_idx").on(t.eventId, t.position),
    // unique in any case, as the API compares them (src/services/catalog/questions.ts)
    uniqueIndex(QUESTION_IDENTIFIER_INDEX).on(t.eventId, sql`lower(${t.identifier})`),
    index("questions_dependency_idx").on(t.dependencyQuestionId),
  ],
);

/** The items a question is asked for. */
export const questionItems = sqliteTable(
  "question_items",
  {
    questionId: integer("question_id")
      .notNull()
      .references(() => questions.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.questionId, t.itemId] }), index("question_items_item_idx").on(t.itemId)],
);

/** Options of choice questions; identifiers are unique within the event. */
export const questionOptions = sqliteTable(
  "question_options",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    questionId: integer("question_id")
      .notNull()
      .references(() => questions.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    identifier: text("identifier").notNull(),
    answer: text("answer", { mode: "json" }).$type<I18n>().notNull(),
    position: integer("position").notNull().default(0),
  },
  (t) => [
    index("question_options_question_idx").on(t.questionId, t.position),
    uniqueIndex("question_options_event_identifier_uq").on(t.eventId, t.identifier),
  ],
);
