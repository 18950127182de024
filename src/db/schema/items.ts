/**
 * The product catalog of an event: categories, items (products) with their variations,
 * add-ons (categories an item offers as add-ons) and bundles (items included in an item), and
 * the links between items / variations and the organizer's membership types, per-date settings
 * of items and variations, and what each quota covers.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { quotas, taxRules } from "./catalog";
import { events, subevents } from "./events";
import { membershipTypes } from "./membership-types";

export const itemCategories = sqliteTable(
  "item_categories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    internalName: text("internal_name"),
    description: text("description", { mode: "json" }).$type<I18n | null>(),
    position: integer("position").notNull().default(0),
    /** Items of an add-on category are not sold on their own; they are offered as add-ons. */
    isAddon: integer("is_addon", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("item_categories_event_idx").on(t.eventId, t.position)],
);

/** `validity_mode` values (pretix docs items.rst); null: the event's validity applies. */
export const VALIDITY_MODES = ["fixed", "dynamic"] as const;

export type ValidityMode = (typeof VALIDITY_MODES)[number];

/** Products. */
export const items = sqliteTable(
  "items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    categoryId: integer("category_id").references(() => itemCategories.id, { onDelete: "set null" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    internalName: text("internal_name"),
    /** Hundredths of the event currency. */
    defaultPrice: integer("default_price").notNull(),
    /** Hundredths; shown for comparison only. */
    originalPrice: integer("original_price"),
    taxRuleId: integer("tax_rule_id").references(() => taxRules.id, { onDelete: "restrict" }),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    description: text("description", { mode: "json" }).$type<I18n | null>(),
    freePrice: integer("free_price", { mode: "boolean" }).notNull().default(false),
    admission: integer("admission", { mode: "boolean" }).notNull().default(false),
    personalized: integer("personalized", { mode: "boolean" }).notNull().default(false),
    issueGiftcard: integer("issue_giftcard", { mode: "boolean" }).notNull().default(false),
    checkinAttention: integer("checkin_attention", { mode: "boolean" }).notNull().default(false),
    /** Shown by scanners when a ticket of this product is scanned (pretix `checkin_text`). */
    checkinText: text("checkin_text"),
    requireApproval: integer("require_approval", { mode: "boolean" }).notNull().default(false),
    requireBundling: integer("require_bundling", { mode: "boolean" }).notNull().default(false),
    /** null: the event's ticket settings decide. */
    generateTickets: integer("generate_tickets", { mode: "boolean" }),
    allowWaitinglist: integer("allow_waitinglist", { mode: "boolean" }).notNull().default(true),
    /** null: the event's default. */
    showQuotaLeft: integer("show_quota_left", { mode: "boolean" }),
    allowCancel: integer("allow_cancel", { mode: "boolean" }).notNull().default(true),
    requireVoucher: integer("require_voucher", { mode: "boolean" }).notNull().default(false),
    hideWithoutVoucher: integer("hide_without_voucher", { mode: "boolean" }).notNull().default(false),
    position: integer("position").notNull().default(0),
    /** Storage key of the picture (served under /media/), or null. */
    picture: text("picture"),
    salesChannels: text("sales_channels", { mode: "json" }).$type<string[]>().notNull(),
    availableFrom: integer("available_from"),
    availableUntil: integer("available_until"),
    /** A quota of the same event: the item is hidden while that quota is available. */
    hiddenIfAvailable: integer("hidden_if_available_id").references(() => quotas.id, { onDelete: "set null" }),
    minPerOrder: integer("min_per_order"),
    maxPerOrder: integer("max_per_order"),
    requireMembership: integer("require_membership", { mode: "boolean" }).notNull().default(false),
    requireMembershipHidden: integer("require_membership_hidden", { mode: "boolean" }).notNull().default(false),
    grantMembershipTypeId: integer("grant_membership_type_id").references(() => membershipTypes.id, {
      onDelete: "set null",
    }),
    grantMembershipDurationLikeEvent: integer("grant_membership_duration_like_event", { mode: "boolean" })
      .notNull()
      .default(true),
    grantMembershipDurationDays: integer("grant_membership_duration_days").notNull().default(0),
    grantMembershipDurationMonths: integer("grant_membership_duration_months").notNull().default(0),
    validityMode: text("validity_mode", { enum: VALIDITY_MODES }),
    validityFixedFrom: integer("validity_fixed_from"),
    validityFixedUntil: integer("validity_fixed_until"),
    validityDynamicDurationMinutes: integer("validity_dynamic_duration_minutes"),
    validityDynamicDurationHours: integer("validity_dynamic_duration_hours"),
    validityDynamicDurationDays: integer("validity_dynamic_duration_days"),
    validityDynamicDurationMonths: integer("validity_dynamic_duration_months"),
    validityDynamicStartChoice: integer("validity_dynamic_start_choice", { mode: "boolean" }).notNull().default(false),
    /** Days the chosen start may lie in the future (pretix: a positive integer), or null. */
    validityDynamicStartChoiceDayLimit: integer("validity_dynamic_start_choice_day_limit"),
    /** Fixed at creation: an item either always has variations or never has. */
    hasVariations: integer("has_variations", { mode: "boolean" }).notNull().default(false),
    /** Values set for the event's item meta properties (defaults are not stored). */
    metaData: text("meta_data", { mode: "json" }).$type<Record<string, string>>().notNull(),
  },
  (t) => [
    index("items_event_idx").on(t.eventId, t.position),
    index("items_category_idx").on(t.categoryId),
    index("items_tax_rule_idx").on(t.taxRuleId),
    index("items_grant_membership_type_idx").on(t.grantMembershipTypeId),
    index("items_hidden_if_available_idx").on(t.hiddenIfAvailable),
  ],
);

export const itemVariations = sqliteTable(
  "item_variations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    value: text("value", { mode: "json" }).$type<I18n>().notNull(),
    /** Hundredths; null: the item's default price applies. */
    defaultPrice: integer("default_price"),
    originalPrice: integer("original_price"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    description: text("description", { mode: "json" }).$type<I18n | null>(),
    position: integer("position").notNull().default(0),
    checkinAttention: integer("checkin_attention", { mode: "boolean" }).notNull().default(false),
    /** Shown by scanners when a ticket of this variation is scanned (pretix `checkin_text`). */
    checkinText: text("checkin_text"),
    requireApproval: integer("require_approval", { mode: "boolean" }).notNull().default(false),
    requireMembership: integer("require_membership", { mode: "boolean" }).notNull().default(false),
    requireMembershipHidden: integer("require_membership_hidden", { mode: "boolean" }).notNull().default(false),
    hideWithoutVoucher: integer("hide_without_voucher", { mode: "boolean" }).notNull().default(false),
    salesChannels: text("sales_channels", { mode: "json" }).$type<string[]>().notNull(),
    availableFrom: integer("available_from"),
    availableUntil: integer("available_until"),
    /** Values set on the variation; the item's values (and defaults) apply otherwise. */
    metaData: text("meta_data", { mode: "json" }).$type<Record<string, string>>().notNull(),
  },
  (t) => [index("item_variations_item_idx").on(t.itemId, t.position)],
);

/** Add-ons: items of `addon_category` can be chosen as add-ons to the base item. */
export const itemAddons = sqliteTable(
  "item_addons",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    addonCategoryId: integer("addon_category_id")
      .notNull()
      .references(() => itemCategories.id, { onDelete: "cascade" }),
    minCount: integer("min_count").notNull().default(0),
    maxCount: integer("max_count").notNull().default(1),
    position: integer("position").notNull().default(0),
    priceIncluded: integer("price_included", { mode: "boolean" }).notNull().default(false),
    multiAllowed: integer("multi_allowed", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    uniqueIndex("item_addons_item_category_uq").on(t.itemId, t.addonCategoryId),
    index("item_addons_category_idx").on(t.addonCategoryId),
  ],
);

/** Bundles: buying the base item includes `count` of the bundled item (or variation). */
export const itemBundles = sqliteTable(
  "item_bundles",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    bundledItemId: integer("bundled_item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    bundledVariationId: integer("bundled_variation_id").references(() => itemVariations.id, { onDelete: "cascade" }),
    count: integer("count").notNull().default(1),
    /** Hundredths; splits the base item's price (e.g. for mixed taxation), not added to it. */
    designatedPrice: integer("designated_price").notNull().default(0),
  },
  (t) => [
    index("item_bundles_item_idx").on(t.itemId),
    index("item_bundles_bundled_item_idx").on(t.bundledItemId),
    index("item_bundles_bundled_variation_idx").on(t.bundledVariationId),
  ],
);

/** `require_membership_types` of items. */
export const itemMembershipTypes = sqliteTable(
  "item_membership_types",
  {
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    membershipTypeId: integer("membership_type_id")
      .notNull()
      .references(() => membershipTypes.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.itemId, t.membershipTypeId] }),
    index("item_membership_types_type_idx").on(t.membershipTypeId),
  ],
);

/** `require_membership_types` of variations. */
export const variationMembershipTypes = sqliteTable(
  "variation_membership_types",
  {
    variationId: integer("variation_id")
      .notNull()
      .references(() => itemVariations.id, { onDelete: "cascade" }),
    membershipTypeId: integer("membership_type_id")
      .notNull()
      .references(() => membershipTypes.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.variationId, t.membershipTypeId] }),
    index("variation_membership_types_type_idx").on(t.membershipTypeId),
  ],
);

/** Per-date settings of an item: price override, disabled, availability window. */
export const subeventItems = sqliteTable(
  "subevent_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    subeventId: integer("subevent_id")
      .notNull()
      .references(() => subevents.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    /** Hundredths; null: the item's own price applies. */
    price: integer("price"),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    availableFrom: integer("available_from"),
    availableUntil: integer("available_until"),
  },
  (t) => [uniqueIndex("subevent_items_uq").on(t.subeventId, t.itemId), index("subevent_items_item_idx").on(t.itemId)],
);

/** Per-date settings of a variation: price override, disabled, availability window. */
export const subeventItemVariations = sqliteTable(
  "subevent_item_variations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    subeventId: integer("subevent_id")
      .notNull()
      .references(() => subevents.id, { onDelete: "cascade" }),
    variationId: integer("variation_id")
      .notNull()
      .references(() => itemVariations.id, { onDelete: "cascade" }),
    /** Hundredths; null: the variation's own price applies. */
    price: integer("price"),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    availableFrom: integer("available_from"),
    availableUntil: integer("available_until"),
  },
  (t) => [
    uniqueIndex("subevent_item_variations_uq").on(t.subeventId, t.variationId),
    index("subevent_item_variations_variation_idx").on(t.variationId),
  ],
);

/** What a quota covers: an item as a whole (variation null) or one variation of an item. */
export const quotaItems = sqliteTable(
  "quota_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    quotaId: integer("quota_id")
      .notNull()
      .references(() => quotas.id, { onDelete: "cascade" }),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    variationId: integer("variation_id").references(() => itemVariations.id, { onDelete: "cascade" }),
  },
  (t) => [
    index("quota_items_quota_idx").on(t.quotaId),
    index("quota_items_item_idx").on(t.itemId),
    index("quota_items_variation_idx").on(t.variationId),
  ],
);
