/**
 * Input schemas of the product catalog: items, variations, add-ons, bundles, categories. Wire
 * names as the spec and pretix's docs write them; money arrives as hundredths, datetimes as
 * epoch ms (src/http/fields.ts). Schemas carry no defaults (they serve PATCH too): defaults
 * live in the `*_DEFAULTS` objects and are applied in code for POST and PUT.
 */
import { z } from "zod";
import { VALIDITY_MODES } from "../db/schema/items";
import { dateTime, decimal, i18n, i18nRequired } from "../domain/fields";
import { count, MAX_INT } from "../domain/catalog-fields";

/** Prices: two places, at most 13 digits (pretix: max_digits 13), not negative. */
export const MAX_PRICE = 9_999_999_999_999;
export const price = () => decimal({ min: 0, max: MAX_PRICE });

/** An id of another object (existence is checked against the database). */
export const pk = () => z.number().int().min(1);

const SALES_CHANNEL = /^[a-zA-Z0-9._-]+$/;
export const salesChannels = () =>
  z
    .array(z.string().min(1).max(190).regex(SALES_CHANNEL, { message: "Enter a valid sales channel identifier." }))
    .transform((list) => [...new Set(list)]);

/** Item meta data: property name to value (keys are checked against the event's properties). */
export const metaData = () => z.record(z.string(), z.string().max(10_000));

const validityMode = () =>
  z
    .enum([...VALIDITY_MODES, ""])
    .nullable()
    .transform((v) => (v === "" ? null : v));

// ---- variations ----

export const variationFields = z.object({
  value: i18nRequired(),
  default_price: price().nullable(),
  original_price: price().nullable(),
  active: z.boolean(),
  description: i18n().nullable(),
  position: count(),
  checkin_attention: z.boolean(),
  require_approval: z.boolean(),
  require_membership: z.boolean(),
  require_membership_hidden: z.boolean(),
  require_membership_types: z.array(pk()),
  hide_without_voucher: z.boolean(),
  sales_channels: salesChannels(),
  available_from: dateTime().nullable(),
  available_until: dateTime().nullable(),
  meta_data: metaData(),
});
export type VariationInput = Partial<z.output<typeof variationFields>>;
/** POST and PUT: `value` is required. `id` and `price` are read-only and ignored. */
export const variationFull = variationFields.partial().required({ value: true });
export const variationPatch = variationFields.partial();

// ---- add-ons ----

export const addonFields = z.object({
  addon_category: pk(),
  min_count: count(),
  max_count: count(),
  position: count(),
  price_included: z.boolean(),
  multi_allowed: z.boolean(),
});
export type AddonInput = Partial<z.output<typeof addonFields>>;
export const addonFull = addonFields.partial().required({ addon_category: true });
export const addonPatch = addonFields.partial();
export const ADDON_DEFAULTS = { min_count: 0, max_count: 1, position: 0, price_included: false, multi_allowed: false };

// ---- bundles ----

export const bundleFields = z.object({
  bundled_item: pk(),
  bundled_variation: pk().nullable(),
  count: count(),
  designated_price: price().nullable(),
});
export type BundleInput = Partial<z.output<typeof bundleFields>>;
export const bundleFull = bundleFields.partial().required({ bundled_item: true });
export const bundlePatch = bundleFields.partial();
export const BUNDLE_DEFAULTS = { bundled_variation: null, count: 1, designated_price: 0 };

// ---- items ----

const itemScalarFields = {
  name: i18nRequired(),
  internal_name: z.string().max(255).nullable(),
  default_price: price(),
  original_price: price().nullable(),
  category: pk().nullable(),
  active: z.boolean(),
  description: i18n().nullable(),
  free_price: z.boolean(),
  tax_rule: pk().nullable(),
  admission: z.boolean(),
  personalized: z.boolean(),
  issue_giftcard: z.boolean(),
  checkin_attention: z.boolean(),
  require_approval: z.boolean(),
  require_bundling: z.boolean(),
  generate_tickets: z.boolean().nullable(),
  allow_waitinglist: z.boolean(),
  show_quota_left: z.boolean().nullable(),
  allow_cancel: z.boolean(),
  require_voucher: z.boolean(),
  hide_without_voucher: z.boolean(),
  position: z.number().int().min(-MAX_INT).max(MAX_INT),
  /** `file:<id>` from the upload endpoint, the current picture URL (unchanged), or null. */
  picture: z.string().nullable(),
  sales_channels: salesChannels(),
  available_from: dateTime().nullable(),
  available_until: dateTime().nullable(),
  hidden_if_available: pk().nullable(),
  min_per_order: count().nullable(),
  max_per_order: count().nullable(),
  require_membership: z.boolean(),
  require_membership_hidden: z.boolean(),
  require_membership_types: z.array(pk()),
  grant_membership_type: pk().nullable(),
  grant_membership_duration_like_event: z.boolean(),
  grant_membership_duration_days: count(),
  grant_membership_duration_months: count(),
  validity_mode: validityMode(),
  validity_fixed_from: dateTime().nullable(),
  validity_fixed_until: dateTime().nullable(),
  validity_dynamic_duration_minutes: count().nullable(),
  validity_dynamic_duration_hours: count().nullable(),
  validity_dynamic_duration_days: count().nullable(),
  validity_dynamic_duration_months: count().nullable(),
  validity_dynamic_start_choice: z.boolean(),
  validity_dynamic_start_choice_day_limit: count().nullable(),
  meta_data: metaData(),
  /** Read-only after creation; on POST it declares whether the item has variations. */
  has_variations: z.boolean(),
};

const itemFields = z.object({
  ...itemScalarFields,
  variations: z.array(variationFull),
  addons: z.array(addonFull),
  bundles: z.array(bundleFull),
});
export type ItemCreateInput = Partial<z.output<typeof itemFields>>;
/** POST: `name` and `default_price` are required. `id` and `tax_rate` are read-only and ignored. */
export const itemCreate = itemFields.partial().required({ name: true, default_price: true });

/**
 * PUT and PATCH: the nested lists are accepted as anything so that their mere presence is
 * reported (they can only be changed through the nested endpoints).
 */
const itemUpdateFields = z.object({
  ...itemScalarFields,
  variations: z.unknown(),
  addons: z.unknown(),
  bundles: z.unknown(),
});
export type ItemUpdateInput = Partial<z.output<typeof itemUpdateFields>>;
export const itemPut = itemUpdateFields.partial().required({ name: true, default_price: true });
export const itemPatch = itemUpdateFields.partial();

// ---- categories ----

export const categoryFields = z.object({
  name: i18nRequired(),
  internal_name: z.string().max(255).nullable(),
  description: i18n().nullable(),
  position: z.number().int().min(-MAX_INT).max(MAX_INT),
  is_addon: z.boolean(),
});
export type CategoryInput = Partial<z.output<typeof categoryFields>>;
export const categoryFull = categoryFields.partial().required({ name: true });
export const categoryPatch = categoryFields.partial();
