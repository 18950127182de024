import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { events, subevents } from "./events";
import { itemVariations, items } from "./items";
import { taxRules } from "./catalog";
import { customers } from "./customers";

/** Orders (pretix docs orders.rst). Status: n pending, p paid, e expired, c canceled. */
export const orders = sqliteTable(
  "orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "restrict" }),
    code: text("code").notNull(),
    status: text("status", { enum: ["n", "p", "e", "c"] }).notNull(),
    datetime: integer("datetime").notNull(),
    customerId: integer("customer_id").references(() => customers.id, { onDelete: "set null" }),
    lastModified: integer("last_modified").notNull(),
  },
  (t) => [index("orders_event_idx").on(t.eventId)],
);

export const orderPositions = sqliteTable(
  "order_positions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id").notNull().references(() => orders.id, { onDelete: "cascade" }),
    positionid: integer("positionid").notNull(),
    itemId: integer("item_id").notNull().references(() => items.id, { onDelete: "restrict" }),
    variationId: integer("variation_id").references(() => itemVariations.id, { onDelete: "restrict" }),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "restrict" }),
    taxRuleId: integer("tax_rule_id").references(() => taxRules.id, { onDelete: "restrict" }),
    canceled: integer("canceled", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("order_positions_order_idx").on(t.orderId), index("order_positions_item_idx").on(t.itemId)],
);

/** Quotas (pretix docs quotas.rst): capacity shared by items / variations of one (sub-)event. */
export const quotas = sqliteTable(
  "quotas",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** null: unlimited. */
    size: integer("size"),
  },
  (t) => [index("quotas_event_idx").on(t.eventId)],
);

export const quotaItems = sqliteTable(
  "quota_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    quotaId: integer("quota_id").notNull().references(() => quotas.id, { onDelete: "cascade" }),
    itemId: integer("item_id").notNull().references(() => items.id, { onDelete: "cascade" }),
    /** null: the item as a whole (items without variations). */
    variationId: integer("variation_id").references(() => itemVariations.id, { onDelete: "cascade" }),
  },
  (t) => [index("quota_items_quota_idx").on(t.quotaId), index("quota_items_item_idx").on(t.itemId)],
);
