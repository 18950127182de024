/**
 * Check-in: check-in lists and the check-ins (scans) made on them, successful or not (pretix
 * docs checkinlists.rst, checkin.rst). Admission is decided by the event's Durable Object
 * (src/objects/event/), which writes every successful check-in; failed scans are
 * kept for statistics.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { devices } from "./devices";
import { events, subevents } from "./events";
import { items } from "./items";

export const checkinLists = sqliteTable(
  "checkin_lists",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    allProducts: integer("all_products", { mode: "boolean" }).notNull().default(false),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "cascade" }),
    includePending: integer("include_pending", { mode: "boolean" }).notNull().default(false),
    allowMultipleEntries: integer("allow_multiple_entries", { mode: "boolean" }).notNull().default(false),
    allowEntryAfterExit: integer("allow_entry_after_exit", { mode: "boolean" }).notNull().default(true),
    addonMatch: integer("addon_match", { mode: "boolean" }).notNull().default(false),
    /** Opaque JSON logic, stored and returned as sent (not a stable interface, docs/open-points.md row 9). */
    rules: text("rules", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Next automatic exit of everyone inside; moved one day ahead each time it happens. */
    exitAllAt: integer("exit_all_at"),
    autoCheckinSalesChannels: text("auto_checkin_sales_channels", { mode: "json" }).$type<string[]>().notNull(),
  },
  (t) => [index("checkin_lists_event_idx").on(t.eventId, t.subeventId)],
);

/** `limit_products` of a list. */
export const checkinListItems = sqliteTable(
  "checkin_list_items",
  {
    listId: integer("list_id")
      .notNull()
      .references(() => checkinLists.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.listId, t.itemId] }), index("checkin_list_items_item_idx").on(t.itemId)],
);

export const CHECKIN_TYPES = ["entry", "exit"] as const;
export type CheckinType = (typeof CHECKIN_TYPES)[number];

/** pretix's reasons of a refused scan (checkin.rst); `error_reason` of failed check-ins. */
export const CHECKIN_REASONS = [
  "canceled",
  "invalid",
  "unpaid",
  "product",
  "rules",
  "revoked",
  "incomplete",
  "already_redeemed",
  "ambiguous",
  "blocked",
  "unapproved",
  "invalid_time",
  "error",
] as const;
export type CheckinReason = (typeof CHECKIN_REASONS)[number];

/** `error_reason` of a stored check-in: a refusal's reason, or `annulled` (a check-in its scanner took back, pretix checkin.rst). */
export const CHECKIN_ERROR_REASONS = [...CHECKIN_REASONS, "annulled"] as const;
export type CheckinErrorReason = (typeof CHECKIN_ERROR_REASONS)[number];

/**
 * Scans: successful check-ins (entries and exits, including the automatic ones) and failed
 * scans (`successful` false, with a reason; reported by scanners or refused online). `uid` is
 * the check-in's own id, chosen by whoever decides it (the event object), so that writing it
 * again (an outbox replay) never makes a second row.
 */
export const checkins = sqliteTable(
  "checkins",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    uid: text("uid").notNull().unique(),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    listId: integer("list_id")
      .notNull()
      .references(() => checkinLists.id, { onDelete: "cascade" }),
    /** null: a scan of an unknown code. */
    positionId: integer("position_id"),
    type: text("type", { enum: CHECKIN_TYPES }).notNull(),
    /** When the scan happened (the scanner's clock for offline scans). */
    datetime: integer("datetime").notNull(),
    /** When the service learned of it. */
    created: integer("created").notNull(),
    successful: integer("successful", { mode: "boolean" }).notNull().default(true),
    errorReason: text("error_reason", { enum: CHECKIN_ERROR_REASONS }),
    errorExplanation: text("error_explanation"),
    autoCheckedIn: integer("auto_checked_in", { mode: "boolean" }).notNull().default(false),
    forced: integer("forced", { mode: "boolean" }).notNull().default(false),
    /** The client sent `force` (pretix `force_sent`): a scan that already happened offline, uploaded later. */
    forceSent: integer("force_sent", { mode: "boolean" }).notNull().default(false),
    deviceId: integer("device_id").references(() => devices.id, { onDelete: "set null" }),
    nonce: text("nonce"),
    rawBarcode: text("raw_barcode"),
    rawSourceType: text("raw_source_type"),
    rawItem: integer("raw_item"),
    rawVariation: integer("raw_variation"),
    rawSubevent: integer("raw_subevent"),
  },
  (t) => [
    // a ticket's check-ins on a list (and its last one); a list's check-ins in time order
    index("checkins_position_idx").on(t.positionId, t.listId, t.successful, t.datetime),
    index("checkins_list_idx").on(t.listId, t.successful, t.datetime, t.positionId),
    index("checkins_event_idx").on(t.eventId, t.created),
    // an annulment names its check-in by the scan's nonce (pretix checkinrpc/annul)
    index("checkins_list_nonce_idx").on(t.listId, t.nonce).where(sql`${t.nonce} IS NOT NULL`),
  ],
);
