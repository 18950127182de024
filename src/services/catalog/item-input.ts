/**
 * Input of the product catalog: the request schemas of items, variations, add-ons and bundles
 * (categories: categories.ts), and the values they become. Wire names as docs/api.md and pretix's
 * docs write them; money arrives as hundredths, datetimes as epoch ms (./fields.ts). Schemas
 * carry no defaults (they serve PATCH too): the value builders here apply the defaults for
 * POST and PUT and merge PATCH into the stored object.
 */
import { z } from "zod";
import type { AddonValues, BundleValues } from "../../db/item-addons-bundles";
import type { VariationRecord, VariationValues } from "../../db/item-variations";
import type { ItemRow } from "../../db/items";
import { VALIDITY_MODES } from "../../db/schema/items";
import type { EventRow } from "../../db/tenancy";
import { count, MAX_INT } from "./catalog-fields";
import type { WriteMode } from "../context";
import { dateTime, decimal, i18n, i18nRequired } from "../../rules/fields";
import { checkMetaData, checkVariation, metaProperties, type Report } from "../../rules/item-rules";

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The columns to write of the would-be row `next`: for PATCH those that differ from the stored
 * row `current`; otherwise all but the row's `identity` (id, parent), which the insert sets.
 */
export function columnsToWrite<T extends object>(
  mode: WriteMode,
  next: T,
  current: object | undefined,
  identity: string[],
): Partial<T> {
  const stored = current as Record<string, unknown> | undefined;
  const out: Record<string, unknown> = {};
  for (const [col, value] of Object.entries(next)) {
    if (mode === "patch" ? !sameValue(value, stored![col]) : !identity.includes(col)) out[col] = value;
  }
  return out as Partial<T>;
}

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

/** What scanners show when such a ticket is scanned (pretix `checkin_text`). */
const checkinText = () => z.string().max(10_000).nullable();

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
  checkin_text: checkinText(),
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
  checkin_text: checkinText(),
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

// ---- values ----

type VariationKey = Exclude<keyof VariationInput, "require_membership_types">;
const VARIATION_COLUMNS: Record<VariationKey, keyof VariationValues> = {
  value: "value",
  default_price: "defaultPrice",
  original_price: "originalPrice",
  active: "active",
  description: "description",
  position: "position",
  checkin_attention: "checkinAttention",
  checkin_text: "checkinText",
  require_approval: "requireApproval",
  require_membership: "requireMembership",
  require_membership_hidden: "requireMembershipHidden",
  hide_without_voucher: "hideWithoutVoucher",
  sales_channels: "salesChannels",
  available_from: "availableFrom",
  available_until: "availableUntil",
  meta_data: "metaData",
};

const VARIATION_DEFAULTS = {
  defaultPrice: null,
  originalPrice: null,
  active: true,
  description: null,
  position: 0,
  checkinAttention: false,
  checkinText: null,
  requireApproval: false,
  requireMembership: false,
  requireMembershipHidden: false,
  hideWithoutVoucher: false,
  availableFrom: null,
  availableUntil: null,
  metaData: {},
} satisfies Partial<VariationValues>;

/**
 * The values of a variation to write, its rules reported (the database checks are the
 * caller's). A variation's `sales_channels` default to every channel of the event and the item
 * (pretix: all channels; the item's list takes precedence anyway).
 */
export function variationState(
  event: Pick<EventRow, "salesChannels" | "itemMetaProperties">,
  item: Pick<ItemRow, "salesChannels">,
  input: VariationInput,
  mode: WriteMode,
  current: VariationRecord | null,
  report: Report,
): Partial<VariationValues> {
  const base: Record<string, unknown> =
    mode === "patch"
      ? { ...current!.variation }
      : { ...VARIATION_DEFAULTS, salesChannels: [...new Set([...(event.salesChannels ?? []), ...item.salesChannels])] };
  const sent = input as Record<string, unknown>;
  for (const [key, col] of Object.entries(VARIATION_COLUMNS)) if (sent[key] !== undefined) base[col] = sent[key];
  const next = base as unknown as VariationValues;
  if (input.meta_data !== undefined) checkMetaData(input.meta_data, metaProperties(event), report);
  checkVariation({ availableFrom: next.availableFrom ?? null, availableUntil: next.availableUntil ?? null }, report);
  return columnsToWrite(mode, next, current?.variation, ["id", "itemId"]);
}

/** The values of an add-on to write: the sent fields, and the defaults of the omitted ones for POST and PUT. */
export function addonValues(input: AddonInput, mode: WriteMode): Partial<AddonValues> {
  const out: Partial<AddonValues> = {};
  const pick = <K extends keyof typeof ADDON_DEFAULTS>(v: (typeof ADDON_DEFAULTS)[K] | undefined, k: K) =>
    v !== undefined ? v : mode === "patch" ? undefined : ADDON_DEFAULTS[k];
  if (input.addon_category !== undefined) out.addonCategoryId = input.addon_category;
  const minCount = pick(input.min_count, "min_count");
  const maxCount = pick(input.max_count, "max_count");
  const position = pick(input.position, "position");
  const priceIncluded = pick(input.price_included, "price_included");
  const multiAllowed = pick(input.multi_allowed, "multi_allowed");
  if (minCount !== undefined) out.minCount = minCount;
  if (maxCount !== undefined) out.maxCount = maxCount;
  if (position !== undefined) out.position = position;
  if (priceIncluded !== undefined) out.priceIncluded = priceIncluded;
  if (multiAllowed !== undefined) out.multiAllowed = multiAllowed;
  return out;
}

/** The values of a bundle to write: the sent fields, and the defaults of the omitted ones for POST and PUT. */
export function bundleValues(input: BundleInput, mode: WriteMode): Partial<BundleValues> {
  const out: Partial<BundleValues> = {};
  const full = mode !== "patch";
  if (input.bundled_item !== undefined) out.bundledItemId = input.bundled_item;
  if (input.bundled_variation !== undefined || full)
    out.bundledVariationId = input.bundled_variation ?? BUNDLE_DEFAULTS.bundled_variation;
  if (input.count !== undefined || full) out.count = input.count ?? BUNDLE_DEFAULTS.count;
  if (input.designated_price !== undefined || full)
    out.designatedPrice = input.designated_price ?? BUNDLE_DEFAULTS.designated_price;
  return out;
}
