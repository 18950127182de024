/**
 * Refunds of an order's payments (pretix docs orders.rst, "Order refund resource"): money going
 * back, started by the organizer through the API (`admin`) or outside the service (`external`,
 * for example in Stripe's dashboard), each with the provider's own reference when it has one.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { orderPayments, orders } from "./sales";

/** pretix's refund states: `created` (not yet sent), `transit` (sent, not yet settled), `external` (started outside, awaiting the organizer), `done`, `failed`, `canceled`. */
export const REFUND_STATES = ["created", "transit", "external", "canceled", "failed", "done"] as const;
export type RefundState = (typeof REFUND_STATES)[number];

/** pretix's refund sources. */
export const REFUND_SOURCES = ["buyer", "admin", "external"] as const;
export type RefundSource = (typeof REFUND_SOURCES)[number];

export const orderRefunds = sqliteTable(
  "order_refunds",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    localId: integer("local_id").notNull(),
    paymentId: integer("payment_id").references(() => orderPayments.id, { onDelete: "cascade" }),
    state: text("state", { enum: REFUND_STATES }).notNull(),
    source: text("source", { enum: REFUND_SOURCES }).notNull(),
    amount: integer("amount").notNull(),
    provider: text("provider").notNull(),
    created: integer("created").notNull(),
    executionDate: integer("execution_date"),
    comment: text("comment"),
    /** The provider's id of the refund (Stripe: `re_…`), once known. */
    reference: text("reference"),
  },
  (t) => [
    uniqueIndex("order_refunds_order_local_uq").on(t.orderId, t.localId),
    uniqueIndex("order_refunds_reference_uq").on(t.provider, t.reference),
    index("order_refunds_payment_idx").on(t.paymentId),
  ],
);
