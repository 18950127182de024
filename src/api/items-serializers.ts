/**
 * The JSON of items, variations, add-ons and bundles: field names and order as the spec and
 * pretix's docs (items.rst, item_variations.rst, item_add-ons.rst, item_bundles.rst) show them.
 */
import type { AddonRow, BundleRow, ItemRecord, ItemRow, VariationRecord } from "../db/items";
import { effectiveMetaData } from "../domain/items";
import type { AppContext } from "../http/context";
import { mediaUrl } from "../domain/urls";
import { publicBase } from "../http/urls";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";

/** The event's item meta properties with their defaults (`item_meta_properties`). */
export function metaProperties(c: AppContext): Record<string, string> {
  return (c.var.event.itemMetaProperties ?? {}) as Record<string, string>;
}

export function serializeVariation(c: AppContext, item: ItemRow, { variation: v, membershipTypeIds }: VariationRecord) {
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
    require_approval: v.requireApproval,
    require_membership: v.requireMembership,
    require_membership_hidden: v.requireMembershipHidden,
    require_membership_types: membershipTypeIds,
    sales_channels: v.salesChannels,
    available_from: toIso(v.availableFrom),
    available_until: toIso(v.availableUntil),
    hide_without_voucher: v.hideWithoutVoucher,
    meta_data: effectiveMetaData(metaProperties(c), item.metaData, v.metaData),
  };
}

/** An add-on as the nested endpoint shows it; inside the item it appears without `id`. */
export function serializeAddon(a: AddonRow) {
  return { id: a.id, ...inlineAddon(a) };
}

function inlineAddon(a: AddonRow) {
  return {
    addon_category: a.addonCategoryId,
    min_count: a.minCount,
    max_count: a.maxCount,
    position: a.position,
    price_included: a.priceIncluded,
    multi_allowed: a.multiAllowed,
  };
}

/** A bundle as the nested endpoint shows it; inside the item it appears without `id`. */
export function serializeBundle(b: BundleRow) {
  return { id: b.id, ...inlineBundle(b) };
}

function inlineBundle(b: BundleRow) {
  return {
    bundled_item: b.bundledItemId,
    bundled_variation: b.bundledVariationId,
    count: b.count,
    designated_price: formatMoney(b.designatedPrice),
  };
}

export function itemPictureUrl(c: AppContext, item: ItemRow): string | null {
  return mediaUrl(publicBase(c), item.picture);
}

export function serializeItem(c: AppContext, rec: ItemRecord) {
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
    meta_data: effectiveMetaData(metaProperties(c), i.metaData),
    position: i.position,
    picture: itemPictureUrl(c, i),
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
    variations: rec.variations.map((v) => serializeVariation(c, i, v)),
    addons: rec.addons.map(inlineAddon),
    bundles: rec.bundles.map(inlineBundle),
  };
}
