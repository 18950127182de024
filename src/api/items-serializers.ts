/**
 * The items resource as pretix's docs (items.rst, item_variations.rst,
 * item_add-ons.rst, item_bundles.rst) shape it: one response schema per resource (item,
 * variation, add-on, bundle; add-ons and bundles appear inside the item without `id`) and the
 * serializers typed by them, field names and order as the docs show them.
 */
import { z } from "zod";
import type { AddonRow, BundleRow, VariationRecord, ItemRecord, ItemRow } from "../services/catalog/catalog-reads";
import type { EventRow } from "../services/context";
import { effectiveMetaData, metaProperties } from "../rules/item-rules";
import { mediaUrl } from "../rules/urls";
import { dateTime, decimalString, i18n, id, money, url } from "../http/responses";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";

/** What the item serializers need besides the rows: the public base of picture URLs and the event's meta properties. */
export type ItemView = { baseUrl: string; metaProperties: Record<string, string> };

export function itemView(baseUrl: string, event: Pick<EventRow, "itemMetaProperties">): ItemView {
  return { baseUrl, metaProperties: metaProperties(event) };
}

const metaData = () => z.record(z.string(), z.string());

export const variationResponse = z
  .object({
    id: id(),
    value: i18n(),
    default_price: money().nullable(),
    price: money(),
    original_price: money().nullable(),
    active: z.boolean(),
    description: i18n().nullable(),
    position: z.number().int(),
    checkin_attention: z.boolean(),
    checkin_text: z.string().nullable(),
    require_approval: z.boolean(),
    require_membership: z.boolean(),
    require_membership_hidden: z.boolean(),
    require_membership_types: z.array(id()),
    sales_channels: z.array(z.string()),
    available_from: dateTime().nullable(),
    available_until: dateTime().nullable(),
    hide_without_voucher: z.boolean(),
    meta_data: metaData(),
  })
  .meta({ id: "ItemVariation" });
export type VariationResponse = z.infer<typeof variationResponse>;

/** An add-on inside its item (without `id`). */
export const inlineAddonResponse = z.object({
  addon_category: id(),
  min_count: z.number().int(),
  max_count: z.number().int(),
  position: z.number().int(),
  price_included: z.boolean(),
  multi_allowed: z.boolean(),
});
/** An add-on as its nested endpoint shows it. */
export const addonResponse = z.object({ id: id(), ...inlineAddonResponse.shape }).meta({ id: "ItemAddon" });
export type AddonResponse = z.infer<typeof addonResponse>;

/** A bundle inside its item (without `id`). */
export const inlineBundleResponse = z.object({
  bundled_item: id(),
  bundled_variation: id().nullable(),
  count: z.number().int(),
  designated_price: money(),
});
/** A bundle as its nested endpoint shows it. */
export const bundleResponse = z.object({ id: id(), ...inlineBundleResponse.shape }).meta({ id: "ItemBundle" });
export type BundleResponse = z.infer<typeof bundleResponse>;

export const itemResponse = z
  .object({
    id: id(),
    name: i18n(),
    internal_name: z.string().nullable(),
    sales_channels: z.array(z.string()),
    default_price: money(),
    original_price: money().nullable(),
    category: id().nullable(),
    active: z.boolean(),
    description: i18n().nullable(),
    free_price: z.boolean(),
    tax_rate: decimalString(),
    tax_rule: id().nullable(),
    admission: z.boolean(),
    personalized: z.boolean(),
    issue_giftcard: z.boolean(),
    meta_data: metaData(),
    position: z.number().int(),
    picture: url().nullable(),
    available_from: dateTime().nullable(),
    available_until: dateTime().nullable(),
    hidden_if_available: id().nullable(),
    require_voucher: z.boolean(),
    hide_without_voucher: z.boolean(),
    allow_cancel: z.boolean(),
    generate_tickets: z.boolean().nullable(),
    allow_waitinglist: z.boolean(),
    show_quota_left: z.boolean().nullable(),
    min_per_order: z.number().int().nullable(),
    max_per_order: z.number().int().nullable(),
    checkin_attention: z.boolean(),
    checkin_text: z.string().nullable(),
    has_variations: z.boolean(),
    require_approval: z.boolean(),
    require_bundling: z.boolean(),
    require_membership: z.boolean(),
    require_membership_hidden: z.boolean(),
    require_membership_types: z.array(id()),
    grant_membership_type: id().nullable(),
    grant_membership_duration_like_event: z.boolean(),
    grant_membership_duration_days: z.number().int(),
    grant_membership_duration_months: z.number().int(),
    validity_mode: z.string().nullable(),
    validity_fixed_from: dateTime().nullable(),
    validity_fixed_until: dateTime().nullable(),
    validity_dynamic_duration_minutes: z.number().int().nullable(),
    validity_dynamic_duration_hours: z.number().int().nullable(),
    validity_dynamic_duration_days: z.number().int().nullable(),
    validity_dynamic_duration_months: z.number().int().nullable(),
    validity_dynamic_start_choice: z.boolean(),
    validity_dynamic_start_choice_day_limit: z.number().int().nullable(),
    variations: z.array(variationResponse),
    addons: z.array(inlineAddonResponse),
    bundles: z.array(inlineBundleResponse),
  })
  .meta({ id: "Item" });
export type ItemResponse = z.infer<typeof itemResponse>;

export function serializeVariation(
  view: ItemView,
  item: ItemRow,
  { variation: v, membershipTypeIds }: VariationRecord,
): VariationResponse {
  return {
    id: v.id,
    value: v.value,
    default_price: formatMoney(v.defaultPrice),
    price: formatMoney(v.defaultPrice ?? item.defaultPrice),
    original_price: formatMoney(v.originalPrice),
    active: v.active,
    description: v.description,
    position: v.position,
    checkin_attention: v.checkinAttention,
    checkin_text: v.checkinText,
    require_approval: v.requireApproval,
    require_membership: v.requireMembership,
    require_membership_hidden: v.requireMembershipHidden,
    require_membership_types: membershipTypeIds,
    sales_channels: v.salesChannels,
    available_from: toIso(v.availableFrom),
    available_until: toIso(v.availableUntil),
    hide_without_voucher: v.hideWithoutVoucher,
    meta_data: effectiveMetaData(view.metaProperties, item.metaData, v.metaData),
  };
}

function inlineAddon(a: AddonRow): z.infer<typeof inlineAddonResponse> {
  return {
    addon_category: a.addonCategoryId,
    min_count: a.minCount,
    max_count: a.maxCount,
    position: a.position,
    price_included: a.priceIncluded,
    multi_allowed: a.multiAllowed,
  };
}

export function serializeAddon(a: AddonRow): AddonResponse {
  return { id: a.id, ...inlineAddon(a) };
}

function inlineBundle(b: BundleRow): z.infer<typeof inlineBundleResponse> {
  return {
    bundled_item: b.bundledItemId,
    bundled_variation: b.bundledVariationId,
    count: b.count,
    designated_price: formatMoney(b.designatedPrice),
  };
}

export function serializeBundle(b: BundleRow): BundleResponse {
  return { id: b.id, ...inlineBundle(b) };
}

export function serializeItem(view: ItemView, rec: ItemRecord): ItemResponse {
  const i = rec.item;
  return {
    id: i.id,
    name: i.name,
    internal_name: i.internalName,
    sales_channels: i.salesChannels,
    default_price: formatMoney(i.defaultPrice),
    original_price: formatMoney(i.originalPrice),
    category: i.categoryId,
    active: i.active,
    description: i.description,
    free_price: i.freePrice,
    tax_rate: formatDecimal(rec.taxRate ?? 0),
    tax_rule: i.taxRuleId,
    admission: i.admission,
    personalized: i.personalized,
    issue_giftcard: i.issueGiftcard,
    meta_data: effectiveMetaData(view.metaProperties, i.metaData),
    position: i.position,
    picture: mediaUrl(view.baseUrl, i.picture),
    available_from: toIso(i.availableFrom),
    available_until: toIso(i.availableUntil),
    hidden_if_available: i.hiddenIfAvailable,
    require_voucher: i.requireVoucher,
    hide_without_voucher: i.hideWithoutVoucher,
    allow_cancel: i.allowCancel,
    generate_tickets: i.generateTickets,
    allow_waitinglist: i.allowWaitinglist,
    show_quota_left: i.showQuotaLeft,
    min_per_order: i.minPerOrder,
    max_per_order: i.maxPerOrder,
    checkin_attention: i.checkinAttention,
    checkin_text: i.checkinText,
    has_variations: i.hasVariations,
    require_approval: i.requireApproval,
    require_bundling: i.requireBundling,
    require_membership: i.requireMembership,
    require_membership_hidden: i.requireMembershipHidden,
    require_membership_types: rec.membershipTypeIds,
    grant_membership_type: i.grantMembershipTypeId,
    grant_membership_duration_like_event: i.grantMembershipDurationLikeEvent,
    grant_membership_duration_days: i.grantMembershipDurationDays,
    grant_membership_duration_months: i.grantMembershipDurationMonths,
    validity_mode: i.validityMode,
    validity_fixed_from: toIso(i.validityFixedFrom),
    validity_fixed_until: toIso(i.validityFixedUntil),
    validity_dynamic_duration_minutes: i.validityDynamicDurationMinutes,
    validity_dynamic_duration_hours: i.validityDynamicDurationHours,
    validity_dynamic_duration_days: i.validityDynamicDurationDays,
    validity_dynamic_duration_months: i.validityDynamicDurationMonths,
    validity_dynamic_start_choice: i.validityDynamicStartChoice,
    validity_dynamic_start_choice_day_limit: i.validityDynamicStartChoiceDayLimit,
    variations: rec.variations.map((v) => serializeVariation(view, i, v)),
    addons: rec.addons.map(inlineAddon),
    bundles: rec.bundles.map(inlineBundle),
  };
}
