/**
 * Stripe's side of card payments (provider `stripe`): the events Stripe delivered to an
 * organizer's webhook endpoint, each recorded once, in the same transaction as what it changed;
 * and the Stripe objects (Checkout Sessions, PaymentIntents) that belong to a payment, as pretix
 * keeps its ReferencedStripeObject, so that any event finds its payment.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizers } from "./organizers";
import { orderPayments } from "./sales";

export const stripeEvents = sqliteTable(
  "stripe_events",
  {
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    /** Stripe's event id (`evt_…`). */
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    /** A random value of the delivery that recorded the event: the effects written with it are conditional on it. */
    claim: text("claim").notNull(),
    received: integer("received").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizerId, t.eventId] })],
);

export const stripeObjects = sqliteTable(
  "stripe_objects",
  {
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    /** Stripe's id of the object (`cs_…`, `pi_…`). */
    reference: text("reference").notNull(),
    paymentId: integer("payment_id")
      .notNull()
      .references(() => orderPayments.id, { onDelete: "cascade" }),
    created: integer("created").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizerId, t.reference] }), index("stripe_objects_payment_idx").on(t.paymentId)],
);
