/**
 * Rules of the product catalog that span fields or objects (pretix docs items.rst,
 * item_variations.rst, item_add-ons.rst, item_bundles.rst). Plain functions: they take the
 * complete would-be state and report what is wrong to a `Problems` collector (a field, or
 * `non_field_errors` for the object as a whole). The services (items.ts, item-variations.ts,
 * item-addons.ts) call them; so do the nested lists of item creation, per element.
 */
import { isForeignKeyError, isUniqueError } from "../db/constraints";
import type { EventRow } from "../db/tenancy";
import { fieldError, invalidPk, nonFieldError, type Problems } from "../lib/failure";

export const MESSAGES = {
  nestedOnUpdate:
    "Updating add-ons, bundles, or variations via PATCH/PUT is not supported. Please use the dedicated nested endpoint.",
  variationsRequired: "An item with variations needs at least one variation.",
  variationsWithout: "An item created without variations cannot have variations.",
  hasVariationsFixed:
    "An item either always has variations or never has: an item created with variations never becomes one without, and the reverse.",
  itemOrdered:
    'This item cannot be deleted because it has already been ordered by a user or currently is in a users\'s cart. Please set the item as "inactive" instead.',
  variationOrdered:
    "This variation cannot be deleted because it has already been ordered by a user or currently is in a users's cart. Please set the variation as 'inactive' instead.",
  variationInCart: "This variation cannot be deleted while it is reserved in a cart.",
  onlyVariation:
    "This variation cannot be deleted because it is the only variation. Changing a product with variations to a product without variations is not allowed.",
  noVariations:
    "This variation cannot be created because the item does not have variations. Changing a product without variations to a product with variations is not allowed.",
  objectMissing: invalidPk,
  metaUnknown: (key: string) => `Item meta data property '${key}' does not exist.`,
  addonCategoryForeign: "The add-on's category must belong to the same event as the item.",
  addonCategoryTaken: "The item already has an add-on of this category.",
  raced: "A referenced object was changed or deleted meanwhile. Please retry.",
} as const;

/** An error of one field or of the object as a whole; the nested lists of item creation place it in their element. */
export type Report = (field: string, message: string) => void;

/** Reports to a collector directly (a top-level object). */
export function reportTo(errors: Problems): Report {
  return (field, message) => errors.add(field, message);
}

/** Reports to element `index` of the nested list `list` (of `length` elements). */
export function reportAt(errors: Problems, list: string, index: number, length: number): Report {
  return (field, message) => errors.addAt(list, index, length, field, message);
}

const WHOLE = "non_field_errors";

/** The fields of an item that the cross-field rules look at. */
export type ItemRuleState = {
  admission: boolean;
  personalized: boolean;
  issueGiftcard: boolean;
  /** Rate of the item's tax rule in hundredths of a percent; null without a tax rule. */
  taxRate: number | null;
  minPerOrder: number | null;
  maxPerOrder: number | null;
  availableFrom: number | null;
  availableUntil: number | null;
  validityFixedFrom: number | null;
  validityFixedUntil: number | null;
};

export function checkItem(s: ItemRuleState, report: Report): void {
  if (s.minPerOrder !== null && s.maxPerOrder !== null && s.minPerOrder > s.maxPerOrder) {
    report(WHOLE, "The maximum number per order can not be lower than the minimum number per order.");
  }
  if (s.availableFrom !== null && s.availableUntil !== null && s.availableFrom > s.availableUntil) {
    report(WHOLE, "The item's availability cannot end before it starts.");
  }
  if (s.validityFixedFrom !== null && s.validityFixedUntil !== null && s.validityFixedFrom > s.validityFixedUntil) {
    report(WHOLE, "The validity of the item's tickets cannot end before it starts.");
  }
  if (s.personalized && !s.admission) report(WHOLE, "Only admission products can currently be personalized.");
  if (s.issueGiftcard) {
    if (s.taxRate !== null && s.taxRate > 0) {
      report(
        WHOLE,
        "Gift card products should not be associated with non-zero tax rates since sales tax will be applied when the gift card is redeemed.",
      );
    }
    if (s.admission) report(WHOLE, "Gift card products should not be admission products at the same time.");
  }
}

/** `personalized` when the client did not send it: at creation it follows `admission`. */
export function defaultPersonalized(admission: boolean): boolean {
  return admission;
}

export function checkVariation(
  s: { availableFrom: number | null; availableUntil: number | null },
  report: Report,
): void {
  if (s.availableFrom !== null && s.availableUntil !== null && s.availableFrom > s.availableUntil) {
    report(WHOLE, "The variation's availability cannot end before it starts.");
  }
}

export function checkAddon(s: { minCount: number; maxCount: number }, report: Report): void {
  if (s.maxCount < s.minCount) report(WHOLE, "The maximum count needs to be greater than the minimum count.");
}

/** What the bundle rules need to know about the bundled item and variation. */
export type BundleRuleState = {
  baseItemId: number | null;
  bundledItem: { id: number; hasVariations: boolean; hasBundles: boolean } | null;
  bundledItemId: number;
  bundledVariation: { id: number; itemId: number } | null;
  bundledVariationId: number | null;
};

export function checkBundle(s: BundleRuleState, report: Report): void {
  if (!s.bundledItem) {
    report("bundled_item", MESSAGES.objectMissing(s.bundledItemId));
    return;
  }
  if (s.bundledVariationId !== null && !s.bundledVariation) {
    report("bundled_variation", MESSAGES.objectMissing(s.bundledVariationId));
    return;
  }
  if (s.baseItemId !== null && s.bundledItem.id === s.baseItemId)
    report(WHOLE, "The bundled item must not be the same item as the bundling one.");
  if (s.bundledItem.hasBundles) report(WHOLE, "The bundled item must not have bundles on its own.");
  if (s.bundledItem.hasVariations && !s.bundledVariation) report(WHOLE, "A variation needs to be set for this item.");
  if (s.bundledVariation && s.bundledVariation.itemId !== s.bundledItem.id)
    report(WHOLE, "The chosen variation does not belong to this item.");
}

/** Meta data keys must be properties the event defines (`item_meta_properties`). */
export function checkMetaData(meta: Record<string, string>, properties: Record<string, unknown>, report: Report): void {
  for (const key of Object.keys(meta))
    if (!Object.hasOwn(properties, key)) report("meta_data", MESSAGES.metaUnknown(key));
}

/** The event's item meta properties with their defaults (`item_meta_properties`). */
export function metaProperties(event: Pick<EventRow, "itemMetaProperties">): Record<string, string> {
  return event.itemMetaProperties ?? {};
}

/**
 * The meta data an item shows: every property of the event with its default, overridden by
 * the values set on the item (and then on the variation), sorted by key.
 */
export function effectiveMetaData(
  properties: Record<string, string>,
  ...layers: Record<string, string>[]
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(properties).sort()) {
    let value = properties[key]!;
    for (const layer of layers) if (Object.hasOwn(layer, key)) value = layer[key]!;
    out[key] = value;
  }
  return out;
}

/**
 * The one translation of the catalog's write races (items, variations, add-ons, bundles): a
 * write that lost a race against the deletion of an object it refers to (foreign key), or
 * against another add-on of the same category (unique), answers 400, never 500.
 */
export function raced(e: unknown): never {
  if (isUniqueError(e, "item_addons.")) throw fieldError("addon_category", MESSAGES.addonCategoryTaken);
  if (isForeignKeyError(e)) throw nonFieldError(MESSAGES.raced);
  throw e;
}
