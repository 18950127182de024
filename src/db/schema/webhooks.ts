/**
 * Webhooks (pretix docs webhooks.rst and api/webhooks.rst): an organizer's webhooks, the events
 * a webhook is limited to, and one call per notification and webhook. A call row is written in
 * the same D1 transaction as the change it reports (db/webhooks.ts); the webhook queue's
 * consumer delivers it and records each attempt on it.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { organizers } from "./organizers";

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    targetUrl: text("target_url").notNull(),
    allEvents: integer("all_events", { mode: "boolean" }).notNull().default(true),
    /** The action types the webhook listens to: a JSON list of strings, sorted. */
    actionTypes: text("action_types", { mode: "json" }).$type<string[]>().notNull(),
    comment: text("comment"),
    /** The HMAC key of the signature header. Readable by the sender by necessity; shown to clients once. */
    secret: text("secret").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("webhooks_organizer_idx").on(t.organizerId, t.enabled)],
);

/** The events a webhook with `all_events` false listens to (`limit_events`). */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    webhookId: integer("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.webhookId, t.eventId] }), index("webhook_events_event_idx").on(t.eventId)],
);

/**
 * pending: waiting for its (next) attempt, or for the earlier calls of its sequence;
 * delivered: the receiver answered 2xx; failed: out of attempts or past the retry window, or
 * the receiver answered 410 Gone; canceled: the webhook was disabled before delivery.
 */
export const WEBHOOK_CALL_STATES = ["pending", "delivered", "failed", "canceled"] as const;
export type WebhookCallState = (typeof WEBHOOK_CALL_STATES)[number];

/**
 * One notification to one webhook. The id is the payload's `notification_id` (AUTOINCREMENT:
 * never reused). Calls of one webhook about one order (`event_id`, `code`) form a sequence,
 * delivered in id order: a call waits until the earlier ones are delivered or given up.
 */
export const webhookCalls = sqliteTable(
  "webhook_calls",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    webhookId: integer("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    organizerId: integer("organizer_id").notNull(),
    eventId: integer("event_id").notNull(),
    code: text("code").notNull(),
    actionType: text("action_type").notNull(),
    /** The body's fields besides `notification_id`, as a JSON object (fixed when the change happened). */
    payload: text("payload").notNull(),
    state: text("state", { enum: WEBHOOK_CALL_STATES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    /** When the next attempt is due (null once the call is final). */
    nextAttemptAt: integer("next_attempt_at"),
    lastAttemptAt: integer("last_attempt_at"),
    deliveredAt: integer("delivered_at"),
    /** The target URL of the last attempt. */
    targetUrl: text("target_url"),
    /** HTTP status of the last answer (null: no answer: timeout, connection failure, refused target). */
    lastStatusCode: integer("last_status_code"),
    /** The start of the last answer's body. */
    lastResponse: text("last_response"),
    /** Why the last attempt failed without an answer, or what was wrong with the answer. */
    lastError: text("last_error"),
    lastDurationMs: integer("last_duration_ms"),
    /** A delivery in flight: who claimed the call, and until when the claim holds. */
    leaseToken: text("lease_token"),
    leaseUntil: integer("lease_until"),
  },
  (t) => [
    index("webhook_calls_sequence_idx").on(t.eventId, t.code, t.webhookId, t.state, t.id),
    index("webhook_calls_webhook_idx").on(t.webhookId, t.id),
    index("webhook_calls_due_idx").on(t.state, t.nextAttemptAt),
    index("webhook_calls_created_idx").on(t.createdAt),
  ],
);
