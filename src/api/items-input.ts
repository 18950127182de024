/**
 * From validated input to stored values for items, variations, add-ons and bundles: defaults
 * for POST / PUT, the merge for PATCH, and the checks against the database (objects of the
 * same event / organizer) and the domain rules (src/domain/items.ts). Everything is checked
 * before anything is written; failures are 400 with field errors (nested lists get one object
 * per element).
 */
import { existingMembershipTypeIds } from "../db/membership-types";
import {
  type AddonValues,
  type BundleValues,
  bundleTargets,
  categoriesOfEvent,
  categoryOfEvent,
  type ItemRecord,
  type ItemRow,
  type ItemValues,
  type NewVariation,
  quotaOfEvent,
  taxRuleOfEvent,
  type VariationRecord,
  type VariationValues,
  variationsOfEvent,
} from "../db/items";
import {
  addonProblems,
  bundleProblems,
  defaultPersonalized,
  itemProblems,
  MESSAGES,
  metaDataProblems,
  type Problem,
  variationProblems,
} from "../domain/items";
import type { AppContext } from "../http/context";
import { validationError } from "../domain/failure";
import { resolveFileField } from "../http/files";
import {
  ADDON_DEFAULTS,
  type AddonInput,
  BUNDLE_DEFAULTS,
  type BundleInput,
  type ItemCreateInput,
  type ItemUpdateInput,
  type VariationInput,
} from "./items-fields";
import { itemPictureUrl, metaProperties } from "./items-serializers";

export type Mode = "create" | "put" | "patch";

/** Field errors, with one object per element for nested lists. */
export class Errors {
  readonly body: Record<string, unknown> = {};

  add(field: string | null, message: string): void {
    const key = field ?? "non_field_errors";
    const cur = this.body[key];
    if (Array.isArray(cur) && cur.every((m) => typeof m === "string")) cur.push(message);
    else if (cur === undefined) this.body[key] = [message];
  }

  addAll(problems: Problem[]): void {
    for (const [field, message] of problems) this.add(field, message);
  }

  /** An error of element `index` of the nested list `list` (of `length` elements). */
  addNested(list: string, index: number, length: number, field: string | null, message: string): void {
    let cur = this.body[list];
    if (cur === undefined) {
      cur = Array.from({ length }, () => ({}));
      this.body[list] = cur;
    }
    if (!Array.isArray(cur) || typeof cur[index] !== "object") return;
    const element = cur[index] as Record<string, string[]>;
    (element[field ?? "non_field_errors"] ??= []).push(message);
  }

  get any(): boolean {
    return Object.keys(this.body).length > 0;
  }

  throwIfAny(): void {
    if (this.any) throw validationError(this.body as never);
  }
}

// ---- items ----

type ScalarKey = Exclude<keyof ItemCreateInput & keyof ItemUpdateInput, "variations" | "addons" | "bundles" | "has_variations" | "picture" | "require_membership_types">;

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

export type PreparedItem = {
  /** Columns to write (PATCH: only those that change). */
  values: Partial<ItemValues>;
  /** The required membership types, when they are to be (re)written. */
  membershipTypeIds: number[] | undefined;
  variations: NewVariation[];
  addons: AddonValues[];
  bundles: BundleValues[];
};

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The columns to write of the would-be row `next`: for PATCH those that differ from the stored
 * row `current`; otherwise all but the row's `identity` (id, parent), which the insert sets.
 */
function columnsToWrite<T extends object>(mode: Mode, next: T, current: object | undefined, identity: string[]): Partial<T> {
  const stored = current as Record<string, unknown> | undefined;
  const out: Record<string, unknown> = {};
  for (const [col, value] of Object.entries(next)) {
    if (mode === "patch" ? !sameValue(value, stored![col]) : !identity.includes(col)) out[col] = value;
  }
  return out as Partial<T>;
}

/**
 * Checks an item's input against the rules and the database and turns it into values.
 * `current` is the stored item for PUT and PATCH.
 */
export async function prepareItem(
  c: AppContext,
  input: ItemCreateInput | ItemUpdateInput,
  mode: Mode,
  current: ItemRecord | null,
): Promise<PreparedItem> {
  const db = c.var.db;
  const event = c.var.event;
  const errors = new Errors();

  if (mode !== "create") {
    const nested = input as ItemUpdateInput;
    if (nested.variations !== undefined || nested.addons !== undefined || nested.bundles !== undefined) {
      errors.add(null, MESSAGES.nestedOnUpdate);
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
    if (created.has_variations === true && variationInputs.length === 0) errors.add("variations", MESSAGES.variationsRequired);
    if (created.has_variations === false && variationInputs.length > 0) errors.add("has_variations", MESSAGES.variationsWithout);
  } else {
    hasVariations = current!.item.hasVariations;
    if (input.has_variations !== undefined && input.has_variations !== hasVariations) errors.add("has_variations", MESSAGES.hasVariationsFixed);
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

  // references: objects of the same event / organizer
  const variationTypeIds = variationInputs.flatMap((v) => v.require_membership_types ?? []);
  const itemTypeIds = isSent("require_membership_types") ? (input.require_membership_types ?? []) : [];
  const grantId = isSent("grant_membership_type") ? next.grantMembershipTypeId : null;
  const [category, taxRule, quota, types, addonCategories, targets, targetVariations] = await Promise.all([
    isSent("category") && next.categoryId != null ? categoryOfEvent(db, event.id, next.categoryId) : null,
    next.taxRuleId != null && (isSent("tax_rule") || next.issueGiftcard) ? taxRuleOfEvent(db, event.id, next.taxRuleId) : null,
    isSent("hidden_if_available") && next.hiddenIfAvailable != null ? quotaOfEvent(db, event.id, next.hiddenIfAvailable) : null,
    existingMembershipTypeIds(db, event.organizerId, [...itemTypeIds, ...variationTypeIds, ...(grantId != null ? [grantId] : [])]),
    addonInputs.length ? categoriesOfEvent(db, event.id, addonInputs.map((a) => a.addon_category)) : new Set<number>(),
    bundleInputs.length ? bundleTargets(db, event.id, bundleInputs.map((b) => b.bundled_item)) : new Map(),
    bundleInputs.length
      ? variationsOfEvent(db, event.id, bundleInputs.flatMap((b) => (b.bundled_variation != null ? [b.bundled_variation] : [])))
      : new Map(),
  ]);
  if (isSent("category") && next.categoryId != null && !category) errors.add("category", MESSAGES.objectMissing(next.categoryId));
  if (isSent("tax_rule") && next.taxRuleId != null && !taxRule) errors.add("tax_rule", MESSAGES.objectMissing(next.taxRuleId));
  if (isSent("hidden_if_available") && next.hiddenIfAvailable != null && !quota) {
    errors.add("hidden_if_available", MESSAGES.objectMissing(next.hiddenIfAvailable));
  }
  if (grantId != null && !types.has(grantId)) errors.add("grant_membership_type", MESSAGES.objectMissing(grantId));
  for (const id of new Set(itemTypeIds)) if (!types.has(id)) errors.add("require_membership_types", MESSAGES.objectMissing(id));
  if (isSent("meta_data")) errors.addAll(metaDataProblems(next.metaData, metaProperties(c)));

  const taxRate = next.taxRuleId == null ? null : taxRule ? taxRule.rate : (current?.taxRate ?? null);
  errors.addAll(
    itemProblems({
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
    }),
  );

  // nested lists (creation only)
  const variations: NewVariation[] = variationInputs.map((v, i) => {
    const prepared = variationState(c, next, v, "create", null);
    for (const [field, message] of prepared.problems) errors.addNested("variations", i, variationInputs.length, field, message);
    for (const id of new Set(v.require_membership_types ?? [])) {
      if (!types.has(id)) errors.addNested("variations", i, variationInputs.length, "require_membership_types", MESSAGES.objectMissing(id));
    }
    return { values: prepared.values as VariationValues, membershipTypeIds: v.require_membership_types ?? [] };
  });

  const seenCategories = new Set<number>();
  const addons: AddonValues[] = addonInputs.map((a, i) => {
    const values = addonValues(a, "create") as AddonValues;
    if (!addonCategories.has(a.addon_category)) {
      errors.addNested("addons", i, addonInputs.length, "addon_category", "The add-on's category must belong to the same event as the item.");
    } else if (seenCategories.has(a.addon_category)) {
      errors.addNested("addons", i, addonInputs.length, "addon_category", "The item already has an add-on of this category.");
    }
    seenCategories.add(a.addon_category);
    for (const [field, message] of addonProblems({ minCount: values.minCount!, maxCount: values.maxCount! })) {
      errors.addNested("addons", i, addonInputs.length, field, message);
    }
    return values;
  });

  const bundles: BundleValues[] = bundleInputs.map((b, i) => {
    const values = bundleValues(b, "create") as BundleValues;
    const problems = bundleProblems({
      baseItemId: null,
      bundledItem: targets.get(b.bundled_item) ?? null,
      bundledItemId: b.bundled_item,
      bundledVariation: b.bundled_variation != null ? (targetVariations.get(b.bundled_variation) ?? null) : null,
      bundledVariationId: b.bundled_variation ?? null,
    });
    for (const [field, message] of problems) errors.addNested("bundles", i, bundleInputs.length, field, message);
    return values;
  });

  errors.throwIfAny();

  // the picture: copied to its permanent place only once everything else is valid
  if (input.picture !== undefined) {
    if (input.picture === null) next.picture = null;
    else if (current && current.item.picture && input.picture === itemPictureUrl(c, current.item)) next.picture = current.item.picture;
    else next.picture = await resolveFileField(c, "picture", input.picture, { allowedTypes: IMAGE_TYPES, scope: `events/${event.id}/items` });
  } else if (mode === "put") {
    next.picture = null;
  } else if (mode === "patch") {
    next.picture = current!.item.picture;
  }

  next.hasVariations = hasVariations;
  const values = columnsToWrite(mode, next, current?.item, ["id", "eventId"]);
  const membershipTypeIds = isSent("require_membership_types") ? [...new Set(input.require_membership_types ?? [])] : undefined;
  return { values, membershipTypeIds, variations, addons, bundles };
}

/** Picture types pretix accepts for products. */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif"];

// ---- variations ----

type VariationKey = Exclude<keyof VariationInput, "require_membership_types">;
const VARIATION_COLUMNS: Record<VariationKey, keyof VariationValues> = {
  value: "value",
  default_price: "defaultPrice",
  original_price: "originalPrice",
  active: "active",
  description: "description",
  position: "position",
  checkin_attention: "checkinAttention",
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
  requireApproval: false,
  requireMembership: false,
  requireMembershipHidden: false,
  hideWithoutVoucher: false,
  availableFrom: null,
  availableUntil: null,
  metaData: {},
} satisfies Partial<VariationValues>;

/**
 * The would-be variation and its rule problems (without database checks). A variation's
 * `sales_channels` default to every channel of the event and the item (pretix: all channels;
 * the item's list takes precedence anyway).
 */
export function variationState(
  c: AppContext,
  item: Pick<ItemRow, "salesChannels">,
  input: VariationInput,
  mode: Mode,
  current: VariationRecord | null,
): { values: Partial<VariationValues>; problems: Problem[] } {
  const base: Record<string, unknown> =
    mode === "patch"
      ? { ...current!.variation }
      : { ...VARIATION_DEFAULTS, salesChannels: [...new Set([...(c.var.event.salesChannels ?? []), ...item.salesChannels])] };
  const sent = input as Record<string, unknown>;
  for (const [key, col] of Object.entries(VARIATION_COLUMNS)) if (sent[key] !== undefined) base[col] = sent[key];
  const next = base as unknown as VariationValues;
  const problems: Problem[] = [];
  if (input.meta_data !== undefined) problems.push(...metaDataProblems(input.meta_data, metaProperties(c)));
  problems.push(...variationProblems({ availableFrom: next.availableFrom ?? null, availableUntil: next.availableUntil ?? null }));
  return { values: columnsToWrite(mode, next, current?.variation, ["id", "itemId"]), problems };
}

/** A variation for the nested endpoint: rules and membership types of the organizer. */
export async function prepareVariation(
  c: AppContext,
  item: ItemRow,
  input: VariationInput,
  mode: Mode,
  current: VariationRecord | null,
): Promise<{ values: Partial<VariationValues>; membershipTypeIds: number[] | undefined }> {
  const errors = new Errors();
  const { values, problems } = variationState(c, item, input, mode, current);
  errors.addAll(problems);
  const sentTypes = input.require_membership_types ?? (mode === "put" ? [] : undefined);
  if (sentTypes?.length) {
    const found = await existingMembershipTypeIds(c.var.db, c.var.event.organizerId, sentTypes);
    for (const id of new Set(sentTypes)) if (!found.has(id)) errors.add("require_membership_types", MESSAGES.objectMissing(id));
  }
  errors.throwIfAny();
  return { values, membershipTypeIds: sentTypes === undefined ? undefined : [...new Set(sentTypes)] };
}

// ---- add-ons ----

export function addonValues(input: AddonInput, mode: Mode): Partial<AddonValues> {
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

// ---- bundles ----

export function bundleValues(input: BundleInput, mode: Mode): Partial<BundleValues> {
  const out: Partial<BundleValues> = {};
  const full = mode !== "patch";
  if (input.bundled_item !== undefined) out.bundledItemId = input.bundled_item;
  if (input.bundled_variation !== undefined || full) out.bundledVariationId = input.bundled_variation ?? BUNDLE_DEFAULTS.bundled_variation;
  if (input.count !== undefined || full) out.count = input.count ?? BUNDLE_DEFAULTS.count;
  if (input.designated_price !== undefined || full) out.designatedPrice = input.designated_price ?? BUNDLE_DEFAULTS.designated_price;
  return out;
}
