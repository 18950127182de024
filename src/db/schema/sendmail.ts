/** Automated email rules (pretix docs sendmail_rules.rst) and the products they are limited to. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { events } from "./events";
import { items } from "./items";

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
