import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Idempotency records (`X-Idempotency-Key`), kept 24 hours. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    /** SHA-256 over the key and the request's Authorization and Cookie headers. */
    keyHash: text("key_hash").primaryKey(),
    /** `running` while the first request is being served, then `done`. */
    state: text("state", { enum: ["running", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    responseHeaders: text("response_headers", { mode: "json" }).$type<[string, string][]>(),
    responseBody: text("response_body"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("idempotency_keys_created_idx").on(t.createdAt)],
);

/** Files uploaded through POST /api/v1/upload; usable for 24 hours by the same credential. */
export const uploadedFiles = sqliteTable(
  "uploaded_files",
  {
    id: text("id").primaryKey(),
    owner: text("owner").notNull(),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("uploaded_files_created_idx").on(t.createdAt)],
);

/**
 * Last change of a resource family within a scope (e.g. `event:12` / `items`), deletions
 * included: drives list-level conditional fetching (Last-Modified / If-Modified-Since).
 */
export const changeStamps = sqliteTable(
  "change_stamps",
  {
    scope: text("scope").notNull(),
    resource: text("resource").notNull(),
    modifiedAt: integer("modified_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.resource] })],
);

/**
 * An attachment of an outbox mail, by reference (the files live in R2, the row stays small):
 * `order_invoice` — the invoice of the mail's order that the change brought about (pretix's
 * `invoice_email_attachment`), looked up when the mail is delivered, which replaces it by the
 * `file` it found (none when the order has no invoice then); `file` — an R2 object.
 */
export type MailAttachment =
  | { kind: "order_invoice"; order: string }
  | { kind: "file"; key: string; filename: string; contentType: string };

/**
 * Every mail the service sends goes through this outbox: written in the same transaction as
 * the change that causes it, then delivered by the mail queue's consumer (or the cron retry).
 */
export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id"),
    eventId: integer("event_id"),
    /** What caused the mail: `team_invite`, `order_placed`, ... */
    kind: text("kind").notNull(),
    toAddress: text("to_address").notNull(),
    fromName: text("from_name"),
    replyTo: text("reply_to"),
    subject: text("subject").notNull(),
    textBody: text("text_body").notNull(),
    htmlBody: text("html_body"),
    /** References to the attachments (null: none). */
    attachments: text("attachments", { mode: "json" }).$type<MailAttachment[]>(),
    state: text("state", { enum: ["queued", "sent", "failed"] })
      .notNull()
      .default("queued"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    messageId: text("message_id"),
    createdAt: integer("created_at").notNull(),
    sentAt: integer("sent_at"),
  },
  (t) => [
    index("mail_outbox_state_idx").on(t.state, t.createdAt),
    index("mail_outbox_organizer_idx").on(t.organizerId),
  ],
);
