/**
 * The transactions of orders (pretix docs transactions.rst): an immutable ledger of what each
 * order owes, written whenever a position's or fee's product, price, tax or date changes or the
 * order enters or leaves the states that owe (pending, paid): `count` +1 for what is now owed, −1
 * for what no longer is. Item, variation, date and tax rule are plain ids, not references: the
 * ledger keeps what was sold when the catalog changes afterwards.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { orders } from "./sales";

export const orderTransactions = sqliteTable(
  "order_transactions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "restrict" }),
    /** When D1 got the row. */
    created: integer("created").notNull(),
    /** When it is financially relevant: the order's placement, or the change's time. */
    datetime: integer("datetime").notNull(),
    /** The position's number in the order; null for a fee. */
    positionid: integer("positionid"),
    /** Units: positive for what is now owed, negative for what no longer is. */
    count: integer("count").notNull(),
    itemId: integer("item_id"),
    variationId: integer("variation_id"),
    subeventId: integer("subevent_id"),
    /** Gross price of one unit, in minor units. */
    price: integer("price").notNull(),
    /** Percent in hundredths, as tax rules keep it. */
    taxRate: integer("tax_rate").notNull(),
    taxRuleId: integer("tax_rule_id"),
    taxValue: integer("tax_value").notNull(),
    /** The fee's type; null for a position. */
    feeType: text("fee_type"),
    internalType: text("internal_type"),
  },
  (t) => [
    index("order_transactions_event_idx").on(t.eventId, t.id),
    index("order_transactions_order_idx").on(t.orderId),
    index("order_transactions_event_datetime_idx").on(t.eventId, t.datetime),
    index("order_transactions_event_created_idx").on(t.eventId, t.created),
  ],
);
