/**
 * The event catalog around items: tax rules, questions and their options, discounts,
 * automated email rules, ticket layouts, and the organizer's seating plans with the seats
 * read from their layouts.
 */
import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import type { I18n } from "../../lib/i18n";
import { events } from "./events";
import { items } from "./items";
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
    // unique in any case, as the API compares them (src/domain/questions.ts)
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

export const DISCOUNT_SUBEVENT_MODES = ["mixed", "same", "distinct"] as const;
export type DiscountSubeventMode = (typeof DISCOUNT_SUBEVENT_MODES)[number];

/** Automatic discounts (pretix docs discounts.rst), applied in `position` order. */
export const discounts = sqliteTable(
  "discounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    internalName: text("internal_name").notNull(),
    position: integer("position").notNull().default(0),
    salesChannels: text("sales_channels", { mode: "json" }).$type<string[]>().notNull(),
    availableFrom: integer("available_from"),
    availableUntil: integer("available_until"),
    subeventMode: text("subevent_mode").$type<DiscountSubeventMode>().notNull().default("mixed"),
    conditionAllProducts: integer("condition_all_products", { mode: "boolean" }).notNull().default(true),
    conditionApplyToAddons: integer("condition_apply_to_addons", { mode: "boolean" }).notNull().default(true),
    conditionIgnoreVoucherDiscounted: integer("condition_ignore_voucher_discounted", { mode: "boolean" })
      .notNull()
      .default(false),
    conditionMinCount: integer("condition_min_count").notNull().default(0),
    /** Hundredths of the event currency. */
    conditionMinValue: integer("condition_min_value").notNull().default(0),
    /** Percent in hundredths. */
    benefitDiscountMatchingPercent: integer("benefit_discount_matching_percent").notNull().default(0),
    benefitOnlyApplyToCheapestNMatches: integer("benefit_only_apply_to_cheapest_n_matches"),
  },
  (t) => [index("discounts_event_idx").on(t.eventId, t.position)],
);

/** `condition_limit_products` of a discount. */
export const discountItems = sqliteTable(
  "discount_items",
  {
    discountId: integer("discount_id")
      .notNull()
      .references(() => discounts.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.discountId, t.itemId] }), index("discount_items_item_idx").on(t.itemId)],
);

export const SENDMAIL_SEND_TO = ["orders", "attendees", "both"] as const;
export type SendmailSendTo = (typeof SENDMAIL_SEND_TO)[number];

/** Automated email rules (pretix docs sendmail_rules.rst). */
export const sendmailRules = sqliteTable(
  "sendmail_rules",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    subject: text("subject", { mode: "json" }).$type<I18n>().notNull(),
    template: text("template", { mode: "json" }).$type<I18n>().notNull(),
    allProducts: integer("all_products", { mode: "boolean" }).notNull().default(true),
    includePending: integer("include_pending", { mode: "boolean" }).notNull().default(false),
    dateIsAbsolute: integer("date_is_absolute", { mode: "boolean" }).notNull().default(true),
    sendDate: integer("send_date"),
    sendOffsetDays: integer("send_offset_days"),
    /** HH:MM:SS */
    sendOffsetTime: text("send_offset_time"),
    offsetToEventEnd: integer("offset_to_event_end", { mode: "boolean" }).notNull().default(false),
    offsetIsAfter: integer("offset_is_after", { mode: "boolean" }).notNull().default(false),
    sendTo: text("send_to").$type<SendmailSendTo>().notNull().default("orders"),
  },
  (t) => [index("sendmail_rules_event_idx").on(t.eventId)],
);

/** `limit_products` of an email rule. */
export const sendmailRuleItems = sqliteTable(
  "sendmail_rule_items",
  {
    ruleId: integer("rule_id")
      .notNull()
      .references(() => sendmailRules.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.itemId] }), index("sendmail_rule_items_item_idx").on(t.itemId)],
);

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
