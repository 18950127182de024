import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizers } from "./organizers";
import { orders } from "./sales";

/**
 * Gift cards (docs/api.md, pretix docs giftcards.rst), issued by an
 * organizer. `value` is the current balance in hundredths; it changes only together with a
 * row in gift_card_transactions (same D1 batch), so it always equals their sum.
 */
export const giftCards = sqliteTable(
  "gift_cards",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    issuerId: integer("issuer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    secret: text("secret").notNull(),
    value: integer("value").notNull().default(0),
    currency: text("currency").notNull(),
    testmode: integer("testmode", { mode: "boolean" }).notNull().default(false),
    expires: integer("expires"),
    conditions: text("conditions"),
    issuance: integer("issuance").notNull(),
  },
  (t) => [
    uniqueIndex("gift_cards_issuer_secret_uq").on(t.issuerId, t.secret),
    index("gift_cards_secret_lower_idx").on(sql`lower(${t.secret})`),
  ],
);

export const giftCardTransactions = sqliteTable(
  "gift_card_transactions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    cardId: integer("card_id")
      .notNull()
      .references(() => giftCards.id, { onDelete: "cascade" }),
    datetime: integer("datetime").notNull(),
    value: integer("value").notNull(),
    /** The order that used or issued the card (set by order processing), else null. */
    orderId: integer("order_id").references(() => orders.id, { onDelete: "set null" }),
    text: text("text"),
    /** The organizer that made the transaction (the issuer, or an organizer accepting its cards). */
    acceptorId: integer("acceptor_id").references(() => organizers.id, { onDelete: "set null" }),
  },
  (t) => [index("gift_card_transactions_card_idx").on(t.cardId)],
);

/**
 * Acceptance of one organizer's gift cards by another (pretix: GiftCardAcceptance). The
 * issuer invites an acceptor (`active` false); the acceptor accepts (`active` true); either
 * side may remove the connection. Only active connections make cards "accepted".
 */
export const giftCardAcceptances = sqliteTable(
  "gift_card_acceptances",
  {
    issuerId: integer("issuer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    acceptorId: integer("acceptor_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    active: integer("active", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.issuerId, t.acceptorId] }),
    index("gift_card_acceptances_acceptor_idx").on(t.acceptorId),
  ],
);
