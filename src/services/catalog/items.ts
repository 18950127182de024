/**
 * Items (docs/api.md; pretix docs items.rst): the services that create an item with
 * its nested variations, add-ons and bundles, change it (PUT, PATCH) and delete it. Each
 * builds the would-be item (defaults for POST and PUT, the stored item merged for PATCH),
 * checks it against the rules (item-rules.ts) and the event's objects (one batch), and writes
 * only when everything is valid; field errors come back together, nested lists with one
 * object per element.
 */
import { lookUpReferences } from "../../db/catalog-references";
import type { AddonValues, BundleValues } from "../../db/item-addons-bundles";
import type { NewVariation, VariationValues } from "../../db/item-variations";
import {
  deleteItemRow,
  findItem,
  findItemRow,
  insertItem,
  type ItemRecord,
  type ItemRow,
  itemOrdered,
  type ItemValues,
  updateItemRow,
} from "../../db/items";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { inUse, notFound, Problems } from "../../lib/failure";
import {
  addonValues,
  bundleValues,
  columnsToWrite,
  type ItemCreateInput,
  type ItemUpdateInput,
  variationState,
} from "./item-input";
import {
  checkAddon,
  checkBundle,
  checkItem,
  checkMetaData,
  defaultPersonalized,
  MESSAGES,
  metaProperties,
  raced,
  reportAt,
  reportTo,
} from "../../rules/item-rules";
import { mediaUrl } from "../../rules/urls";

/**
 * Turns the `file:<id>` reference of a file field into the key of the stored file, or fails
 * with a field error (the HTTP layer's upload store does it for routes: it knows the caller).
 */
export type FileResolver = (
  field: string,
  ref: string,
  opts: { allowedTypes: string[]; scope: string },
) => Promise<string>;

/** Picture types pretix accepts for products. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif"];

/** The bare item row of the event, or 404 (the nested endpoints' parent). */
export async function loadItemRow(ctx: EventContext, itemId: number): Promise<ItemRow> {
  const item = await findItemRow(ctx.db, ctx.event.id, itemId);
  if (!item) throw notFound();
  return item;
}

/** The item of the event with its nested objects, or 404. */
export async function loadItem(ctx: EventContext, itemId: number): Promise<ItemRecord> {
  const rec = await findItem(ctx.db, ctx.event.id, itemId);
  if (!rec) throw notFound();
  return rec;
}

type ScalarKey = Exclude<
  keyof ItemCreateInput & keyof ItemUpdateInput,
  "variations" | "addons" | "bundles" | "has_variations" | "picture" | "require_membership_types"
>;

/** Wire name → column, for the fields stored as validated. */
const ITEM_COLUMNS: Record<ScalarKey, keyof ItemValues> = {
  name: "name",
  internal_name: "internalName",
  default_price: "defaultPrice",
  original_price: "originalPrice",
  category: "categoryId",
  active: "active",
  description: "description",
  free_price: "freePrice",
  tax_rule: "taxRuleId",
  admission: "admission",
  personalized: "personalized",
  issue_giftcard: "issueGiftcard",
  checkin_attention: "checkinAttention",
  checkin_text: "checkinText",
  require_approval: "requireApproval",
  require_bundling: "requireBundling",
  generate_tickets: "generateTickets",
  allow_waitinglist: "allowWaitinglist",
  show_quota_left: "showQuotaLeft",
  allow_cancel: "allowCancel",
  require_voucher: "requireVoucher",
  hide_without_voucher: "hideWithoutVoucher",
  position: "position",
  sales_channels: "salesChannels",
  available_from: "availableFrom",
  available_until: "availableUntil",
  hidden_if_available: "hiddenIfAvailable",
  min_per_order: "minPerOrder",
  max_per_order: "maxPerOrder",
  require_membership: "requireMembership",
  require_membership_hidden: "requireMembershipHidden",
  grant_membership_type: "grantMembershipTypeId",
  grant_membership_duration_like_event: "grantMembershipDurationLikeEvent",
  grant_membership_duration_days: "grantMembershipDurationDays",
  grant_membership_duration_months: "grantMembershipDurationMonths",
  validity_mode: "validityMode",
  validity_fixed_from: "validityFixedFrom",
  validity_fixed_until: "validityFixedUntil",
  validity_dynamic_duration_minutes: "validityDynamicDurationMinutes",
  validity_dynamic_duration_hours: "validityDynamicDurationHours",
  validity_dynamic_duration_days: "validityDynamicDurationDays",
  validity_dynamic_duration_months: "validityDynamicDurationMonths",
  validity_dynamic_start_choice: "validityDynamicStartChoice",
  validity_dynamic_start_choice_day_limit: "validityDynamicStartChoiceDayLimit",
  meta_data: "metaData",
};

/** What an omitted field becomes on POST and PUT (pretix's model defaults). */
const ITEM_DEFAULTS = {
  internalName: null,
  originalPrice: null,
  categoryId: null,
  active: true,
  description: null,
  freePrice: false,
  taxRuleId: null,
  admission: false,
  issueGiftcard: false,
  checkinAttention: false,
  checkinText: null,
  requireApproval: false,
  requireBundling: false,
  generateTickets: null,
  allowWaitinglist: true,
  showQuotaLeft: null,
  allowCancel: true,
  requireVoucher: false,
  hideWithoutVoucher: false,
  position: 0,
  picture: null,
  salesChannels: ["web"],
  availableFrom: null,
  availableUntil: null,
  hiddenIfAvailable: null,
  minPerOrder: null,
  maxPerOrder: null,
  requireMembership: false,
  requireMembershipHidden: false,
  grantMembershipTypeId: null,
  grantMembershipDurationLikeEvent: true,
  grantMembershipDurationDays: 0,
  grantMembershipDurationMonths: 0,
  validityMode: null,
  validityFixedFrom: null,
  validityFixedUntil: null,
  validityDynamicDurationMinutes: null,
  validityDynamicDurationHours: null,
  validityDynamicDurationDays: null,
  validityDynamicDurationMonths: null,
  validityDynamicStartChoice: false,
  validityDynamicStartChoiceDayLimit: null,
  metaData: {},
} satisfies Partial<ItemValues>;

type PreparedItem = {
  /** Columns to write (PATCH: only those that change). */
  values: Partial<ItemValues>;
  /** The required membership types, when they are to be (re)written. */
  membershipTypeIds: number[] | undefined;
  variations: NewVariation[];
  addons: AddonValues[];
  bundles: BundleValues[];
};

/**
 * Checks an item's input against the rules and the event's objects and turns it into values;
 * the picture is resolved last, once everything else is valid. `current` is the stored item
 * for PUT and PATCH.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-orders (issue 36)
async function prepareItem(
  ctx: EventContext,
  input: ItemCreateInput | ItemUpdateInput,
  mode: WriteMode,
  current: ItemRecord | null,
  resolveFile: FileResolver,
): Promise<PreparedItem> {
  const { db, event } = ctx;
  const errors = new Problems();
  const report = reportTo(errors);

  if (mode !== "create") {
    const nested = input as ItemUpdateInput;
    if (nested.variations !== undefined || nested.addons !== undefined || nested.bundles !== undefined) {
      errors.add("non_field_errors", MESSAGES.nestedOnUpdate);
      errors.throwIfAny();
    }
  }

  const created = mode === "create" ? (input as ItemCreateInput) : null;
  const variationInputs = created?.variations ?? [];
  const addonInputs = created?.addons ?? [];
  const bundleInputs = created?.bundles ?? [];

  // has_variations: declared at creation, fixed afterwards
  let hasVariations: boolean;
  if (created) {
    hasVariations = variationInputs.length > 0;
    if (created.has_variations === true && variationInputs.length === 0)
      errors.add("variations", MESSAGES.variationsRequired);
    if (created.has_variations === false && variationInputs.length > 0)
      errors.add("has_variations", MESSAGES.variationsWithout);
  } else {
    hasVariations = current!.item.hasVariations;
    if (input.has_variations !== undefined && input.has_variations !== hasVariations)
      errors.add("has_variations", MESSAGES.hasVariationsFixed);
  }

  // the would-be state
  const base: Record<string, unknown> = mode === "patch" ? { ...current!.item } : { ...ITEM_DEFAULTS };
  const sent = input as Record<string, unknown>;
  for (const [key, col] of Object.entries(ITEM_COLUMNS)) {
    if (sent[key] !== undefined) base[col] = sent[key];
  }
  if (input.personalized === undefined) {
    if (mode !== "patch") base.personalized = defaultPersonalized(Boolean(base.admission));
    else if (input.admission === false) base.personalized = false;
  }
  const next = base as unknown as ItemValues;
  const isSent = (key: string) => mode !== "patch" || sent[key] !== undefined;

  // references: objects of the same event / organizer, in one batch
  const itemTypeIds = isSent("require_membership_types") ? (input.require_membership_types ?? []) : [];
  const grantId = isSent("grant_membership_type") ? (next.grantMembershipTypeId ?? null) : null;
  const categoryId = isSent("category") ? (next.categoryId ?? null) : null;
  const taxRuleId = next.taxRuleId != null && (isSent("tax_rule") || next.issueGiftcard) ? next.taxRuleId : null;
  const quotaId = isSent("hidden_if_available") ? (next.hiddenIfAvailable ?? null) : null;
  const found = await lookUpReferences(db, event.id, event.organizerId, {
    categories: [...(categoryId !== null ? [categoryId] : []), ...addonInputs.map((a) => a.addon_category)],
    taxRules: taxRuleId !== null ? [taxRuleId] : [],
    quotas: quotaId !== null ? [quotaId] : [],
    membershipTypes: [
      ...itemTypeIds,
      ...variationInputs.flatMap((v) => v.require_membership_types ?? []),
      ...(grantId !== null ? [grantId] : []),
    ],
    items: bundleInputs.map((b) => b.bundled_item),
    variations: bundleInputs.flatMap((b) => (b.bundled_variation != null ? [b.bundled_variation] : [])),
  });
  const taxRule = taxRuleId !== null ? found.taxRules.get(taxRuleId) : undefined;
  if (categoryId !== null && !found.categories.has(categoryId))
    errors.add("category", MESSAGES.objectMissing(categoryId));
  if (isSent("tax_rule") && taxRuleId !== null && !taxRule) errors.add("tax_rule", MESSAGES.objectMissing(taxRuleId));
  if (quotaId !== null && !found.quotas.has(quotaId))
    errors.add("hidden_if_available", MESSAGES.objectMissing(quotaId));
  if (grantId !== null && !found.membershipTypes.has(grantId))
    errors.add("grant_membership_type", MESSAGES.objectMissing(grantId));
  for (const id of new Set(itemTypeIds))
    if (!found.membershipTypes.has(id)) errors.add("require_membership_types", MESSAGES.objectMissing(id));
  if (isSent("meta_data")) checkMetaData(next.metaData, metaProperties(event), report);

  const taxRate = next.taxRuleId == null ? null : taxRule ? taxRule.rate : (current?.taxRate ?? null);
  checkItem(
    {
      admission: next.admission ?? false,
      personalized: next.personalized ?? false,
      issueGiftcard: next.issueGiftcard ?? false,
      taxRate,
      minPerOrder: next.minPerOrder ?? null,
      maxPerOrder: next.maxPerOrder ?? null,
      availableFrom: next.availableFrom ?? null,
      availableUntil: next.availableUntil ?? null,
      validityFixedFrom: next.validityFixedFrom ?? null,
      validityFixedUntil: next.validityFixedUntil ?? null,
    },
    report,
  );

  // nested lists (creation only)
  const variations: NewVariation[] = variationInputs.map((v, i) => {
    const at = reportAt(errors, "variations", i, variationInputs.length);
    const values = variationState(event, next, v, "create", null, at) as VariationValues;
    for (const id of new Set(v.require_membership_types ?? [])) {
      if (!found.membershipTypes.has(id)) at("require_membership_types", MESSAGES.objectMissing(id));
    }
    return { values, membershipTypeIds: v.require_membership_types ?? [] };
  });

  const seenCategories = new Set<number>();
  const addons: AddonValues[] = addonInputs.map((a, i) => {
    const at = reportAt(errors, "addons", i, addonInputs.length);
    const values = addonValues(a, "create") as AddonValues;
    if (!found.categories.has(a.addon_category)) at("addon_category", MESSAGES.addonCategoryForeign);
    else if (seenCategories.has(a.addon_category)) at("addon_category", MESSAGES.addonCategoryTaken);
    seenCategories.add(a.addon_category);
    checkAddon({ minCount: values.minCount!, maxCount: values.maxCount! }, at);
    return values;
  });

  const bundles: BundleValues[] = bundleInputs.map((b, i) => {
    const values = bundleValues(b, "create") as BundleValues;
    checkBundle(
      {
        baseItemId: null,
        bundledItem: found.items.get(b.bundled_item) ?? null,
        bundledItemId: b.bundled_item,
        bundledVariation: b.bundled_variation != null ? (found.variations.get(b.bundled_variation) ?? null) : null,
        bundledVariationId: b.bundled_variation ?? null,
      },
      reportAt(errors, "bundles", i, bundleInputs.length),
    );
    return values;
  });

  errors.throwIfAny();

  // the picture: copied to its permanent place only once everything else is valid
  if (input.picture !== undefined) {
    if (input.picture === null) next.picture = null;
    else if (current?.item.picture && input.picture === mediaUrl(ctx.baseUrl, current.item.picture))
      next.picture = current.item.picture;
    else
      next.picture = await resolveFile("picture", input.picture, {
        allowedTypes: IMAGE_TYPES,
        scope: `events/${event.id}/items`,
      });
  } else if (mode === "put") {
    next.picture = null;
  } else if (mode === "patch") {
    next.picture = current!.item.picture;
  }

  next.hasVariations = hasVariations;
  const values = columnsToWrite(mode, next, current?.item, ["id", "eventId"]);
  const membershipTypeIds = isSent("require_membership_types")
    ? [...new Set(input.require_membership_types ?? [])]
    : undefined;
  return { values, membershipTypeIds, variations, addons, bundles };
}

/** Creates an item with its nested variations, add-ons and bundles, atomically. */
export async function createItem(
  ctx: EventContext,
  input: ItemCreateInput,
  resolveFile: FileResolver,
): Promise<ItemRecord> {
  const { db, event } = ctx;
  const p = await prepareItem(ctx, input, "create", null, resolveFile);
  const id = await insertItem(
    db,
    event.id,
    event.organizerId,
    p.values as ItemValues,
    p.membershipTypeIds ?? [],
    p.variations,
    p.addons,
    p.bundles,
    ctx.now,
  ).catch(raced);
  return loadItem(ctx, id);
}

/**
 * Changes an item: PUT (`mode` "put": omitted fields return to their defaults) or PATCH. The
 * nested lists change only through their own endpoints; `has_variations` never changes.
 */
export async function changeItem(
  ctx: EventContext,
  itemId: number,
  input: ItemUpdateInput,
  mode: ChangeMode,
  resolveFile: FileResolver,
): Promise<ItemRecord> {
  const { db, event } = ctx;
  const current = await loadItem(ctx, itemId);
  const p = await prepareItem(ctx, input, mode, current, resolveFile);
  const ok = await updateItemRow(db, event.id, event.organizerId, itemId, p.values, p.membershipTypeIds, ctx.now).catch(
    raced,
  );
  if (!ok) throw notFound();
  return loadItem(ctx, itemId);
}

/** Deletes an item that was never ordered (403 otherwise), with its nested objects. */
export async function deleteItem(ctx: EventContext, itemId: number): Promise<void> {
  const { db, event } = ctx;
  const { item } = await loadItem(ctx, itemId);
  if (await itemOrdered(db, item.id)) throw inUse(MESSAGES.itemOrdered);
  if (!(await deleteItemRow(db, event.id, item.id, ctx.now))) {
    // ordered (or deleted) between the check and the deletion
    if (await itemOrdered(db, item.id)) throw inUse(MESSAGES.itemOrdered);
    throw notFound();
  }
}
