import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { taxRules } from "./catalog";
import { events } from "./events";

export const itemCategories = sqliteTable(
  "item_categories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    position: integer("position").notNull().default(0),
    isAddon: integer("is_addon", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("item_categories_event_idx").on(t.eventId)],
);

/** Products. */
export const items = sqliteTable(
  "items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
    categoryId: integer("category_id").references(() => itemCategories.id, { onDelete: "set null" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    /** Hundredths of the event currency. */
    defaultPrice: integer("default_price").notNull().default(0),
    taxRuleId: integer("tax_rule_id").references(() => taxRules.id, { onDelete: "restrict" }),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    admission: integer("admission", { mode: "boolean" }).notNull().default(false),
    hasVariations: integer("has_variations", { mode: "boolean" }).notNull().default(false),
    position: integer("position").notNull().default(0),
  },
  (t) => [index("items_event_idx").on(t.eventId)],
);

export const itemVariations = sqliteTable(
  "item_variations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    itemId: integer("item_id").notNull().references(() => items.id, { onDelete: "cascade" }),
    value: text("value", { mode: "json" }).$type<I18n>().notNull(),
    /** Hundredths; null: the item's default price applies. */
    defaultPrice: integer("default_price"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    position: integer("position").notNull().default(0),
  },
  (t) => [index("item_variations_item_idx").on(t.itemId)],
);
