/**
 * Background work: data exports (docs/api.md, pretix docs exporters.rst) and the record of
 * what automated email rules sent (pretix's sendmail plugin).
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sendmailRules } from "./sendmail";
import { events } from "./events";
import { organizers } from "./organizers";
import { orders } from "./sales";

/** An export's state as the download URL reports it. */
export const EXPORT_STATES = ["waiting", "running", "done", "failed"] as const;
export type ExportState = (typeof EXPORT_STATES)[number];

/**
 * One run of an exporter. The job advances one step per queue message; `step` counts the steps
 * done and is the guard that makes a message delivered twice act once. `cursor` holds what the
 * next step needs (where the reading stopped, the file writer's state, the parts uploaded).
 */
export const exportJobs = sqliteTable(
  "export_jobs",
  {
    /** Random (UUID): part of the download URL. */
    id: text("id").primaryKey(),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    /** The event of an event-level export; null for organizer-level exports. */
    eventId: integer("event_id").references(() => events.id, { onDelete: "cascade" }),
    /** The credential that started it (Principal.identity): at most two running per credential. */
    owner: text("owner").notNull(),
    identifier: text("identifier").notNull(),
    /** The validated inputs (organizer exports: the event ids chosen). */
    params: text("params", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    state: text("state", { enum: EXPORT_STATES }).notNull().default("waiting"),
    /** 0–100 while running; null while waiting. */
    percentage: integer("percentage"),
    /** Why it failed (shown with 410). */
    message: text("message"),
    step: integer("step").notNull().default(0),
    cursor: text("cursor", { mode: "json" }).$type<Record<string, unknown> | null>(),
    /** A step in progress holds the job until then (a second delivery of the same step waits). */
    leaseUntil: integer("lease_until"),
    /** Failed attempts of the current step. */
    attempts: integer("attempts").notNull().default(0),
    filename: text("filename"),
    contentType: text("content_type"),
    /** R2 key of the finished file. */
    storageKey: text("storage_key"),
    size: integer("size"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** After this the download answers 404 and the cron removes the job and its file. */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [
    index("export_jobs_owner_state_idx").on(t.owner, t.state),
    index("export_jobs_state_updated_idx").on(t.state, t.updatedAt),
    index("export_jobs_expires_idx").on(t.expiresAt),
  ],
);

/**
 * One mail of an email rule: to an order (`position_id` 0) or to an attendee (the position),
 * for the event (`subevent_id` 0) or one date of a series. Written in the same transaction as
 * the mail itself, and checked by it, so a mail goes out once however often the cron runs.
 */
export const sendmailRuleSends = sqliteTable(
  "sendmail_rule_sends",
  {
    ruleId: integer("rule_id")
      .notNull()
      .references(() => sendmailRules.id, { onDelete: "cascade" }),
    subeventId: integer("subevent_id").notNull().default(0),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    positionId: integer("position_id").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ruleId, t.subeventId, t.orderId, t.positionId] }),
    index("sendmail_rule_sends_order_idx").on(t.orderId),
  ],
);

/**
 * A rule's sending for the event (`subevent_id` 0) or a date of a series that went through all
 * its recipients (pretix's ScheduledMail in state "completed"): orders placed afterwards do
 * not get it.
 */
export const sendmailRuleDone = sqliteTable(
  "sendmail_rule_done",
  {
    ruleId: integer("rule_id")
      .notNull()
      .references(() => sendmailRules.id, { onDelete: "cascade" }),
    subeventId: integer("subevent_id").notNull().default(0),
    /** When the mails were due. */
    sendAt: integer("send_at").notNull(),
    completedAt: integer("completed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.subeventId] })],
);
