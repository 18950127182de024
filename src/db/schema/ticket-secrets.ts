/**
 * Ticket secrets beyond the random default (pretix docs "Ticket secret generators", orders.rst
 * "Revoked ticket secrets", "Blocked ticket secrets"): the event's signing key of a scheme, the
 * secrets a ticket no longer has (revoked: a scanner that admits offline must refuse them), and
 * the secrets of blocked tickets. The event object (src/objects/event/) is the only
 * writer of revocations and blocks, together with the position's new secret or block.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { orderPositions } from "./sales";

/** One key pair per event and scheme; the private key sealed with the deployment secret (lib/ticket-signing.ts). */
export const ticketSigningKeys = sqliteTable(
  "ticket_signing_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    scheme: text("scheme").notNull(),
    /** In the encoding of the event's `valid_keys` (base64 of the PEM text). */
    publicKey: text("public_key").notNull(),
    /** `v1.<nonce>.<ciphertext>`: AES-256-GCM under TICKET_SIGNING_KEY_SECRET, bound to the event. */
    privateKeySealed: text("private_key_sealed").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("ticket_signing_keys_event_scheme_uq").on(t.eventId, t.scheme)],
);

/** Secrets a ticket had before it was re-issued or canceled (only with a generator that uses a revocation list). */
export const revokedSecrets = sqliteTable(
  "revoked_secrets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    positionId: integer("position_id")
      .notNull()
      .references(() => orderPositions.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    created: integer("created").notNull(),
  },
  (t) => [
    uniqueIndex("revoked_secrets_event_secret_uq").on(t.eventId, t.secret),
    index("revoked_secrets_event_created_idx").on(t.eventId, t.created),
  ],
);

/** Secrets of tickets that are blocked, or were once (`blocked` false): scanners keep their list current by `updated`. */
export const blockedSecrets = sqliteTable(
  "blocked_secrets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    positionId: integer("position_id")
      .notNull()
      .references(() => orderPositions.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    blocked: integer("blocked", { mode: "boolean" }).notNull(),
    updated: integer("updated").notNull(),
  },
  (t) => [
    uniqueIndex("blocked_secrets_event_secret_uq").on(t.eventId, t.secret),
    index("blocked_secrets_event_updated_idx").on(t.eventId, t.updated),
  ],
);
