/** Automatic discounts (pretix docs discounts.rst) and the products that count for their conditions. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { items } from "./items";

export const DISCOUNT_SUBEVENT_MODES = ["mixed", "same", "distinct"] as const;

export type DiscountSubeventMode = (typeof DISCOUNT_SUBEVENT_MODES)[number];

/** Automatic discounts (pretix docs discounts.rst), applied in `position` order. */
export const discounts = sqliteTable(
  "discounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    internalName: text("internal_name").notNull(),
    position: integer("position").notNull().default(0),
    salesChannels: text("sales_channels", { mode: "json" }).$type<string[]>().notNull(),
    availableFrom: integer("available_from"),
    availableUntil: integer("available_until"),
    subeventMode: text("subevent_mode").$type<DiscountSubeventMode>().notNull().default("mixed"),
    conditionAllProducts: integer("condition_all_products", { mode: "boolean" }).notNull().default(true),
    conditionApplyToAddons: integer("condition_apply_to_addons", { mode: "boolean" }).notNull().default(true),
    conditionIgnoreVoucherDiscounted: integer("condition_ignore_voucher_discounted", { mode: "boolean" })
      .notNull()
      .default(false),
    conditionMinCount: integer("condition_min_count").notNull().default(0),
    /** Hundredths of the event currency. */
    conditionMinValue: integer("condition_min_value").notNull().default(0),
    /** Percent in hundredths. */
    benefitDiscountMatchingPercent: integer("benefit_discount_matching_percent").notNull().default(0),
    benefitOnlyApplyToCheapestNMatches: integer("benefit_only_apply_to_cheapest_n_matches"),
  },
  (t) => [index("discounts_event_idx").on(t.eventId, t.position)],
);

/** `condition_limit_products` of a discount. */
export const discountItems = sqliteTable(
  "discount_items",
  {
    discountId: integer("discount_id")
      .notNull()
      .references(() => discounts.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.discountId, t.itemId] }), index("discount_items_item_idx").on(t.itemId)],
);
