/**
 * Rules of the product catalog that span fields or objects (pretix docs items.rst,
 * item_variations.rst, item_add-ons.rst, item_bundles.rst). Plain functions: they take the
 * complete would-be state and return the problems found, as [field, message] pairs; a null
 * field means the object as a whole (`non_field_errors`).
 */

export type Problem = [field: string | null, message: string];

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
  onlyVariation:
    "This variation cannot be deleted because it is the only variation. Changing a product with variations to a product without variations is not allowed.",
  noVariations:
    "This variation cannot be created because the item does not have variations. Changing a product without variations to a product with variations is not allowed.",
  objectMissing: (id: number) => `Invalid pk "${id}" - object does not exist.`,
  metaUnknown: (key: string) => `Item meta data property '${key}' does not exist.`,
  raced: "A referenced object was changed or deleted meanwhile. Please retry.",
} as const;

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

export function itemProblems(s: ItemRuleState): Problem[] {
  const out: Problem[] = [];
  if (s.minPerOrder !== null && s.maxPerOrder !== null && s.minPerOrder > s.maxPerOrder) {
    out.push([null, "The maximum number per order can not be lower than the minimum number per order."]);
  }
  if (s.availableFrom !== null && s.availableUntil !== null && s.availableFrom > s.availableUntil) {
    out.push([null, "The item's availability cannot end before it starts."]);
  }
  if (s.validityFixedFrom !== null && s.validityFixedUntil !== null && s.validityFixedFrom > s.validityFixedUntil) {
    out.push([null, "The validity of the item's tickets cannot end before it starts."]);
  }
  if (s.personalized && !s.admission) {
    out.push([null, "Only admission products can currently be personalized."]);
  }
  if (s.issueGiftcard) {
    if (s.taxRate !== null && s.taxRate > 0) {
      out.push([
        null,
        "Gift card products should not be associated with non-zero tax rates since sales tax will be applied when the gift card is redeemed.",
      ]);
    }
    if (s.admission) out.push([null, "Gift card products should not be admission products at the same time."]);
  }
  return out;
}

/** `personalized` when the client did not send it: at creation it follows `admission`. */
export function defaultPersonalized(admission: boolean): boolean {
  return admission;
}

export function variationProblems(s: { availableFrom: number | null; availableUntil: number | null }): Problem[] {
  if (s.availableFrom !== null && s.availableUntil !== null && s.availableFrom > s.availableUntil) {
    return [[null, "The variation's availability cannot end before it starts."]];
  }
  return [];
}

export function addonProblems(s: { minCount: number; maxCount: number }): Problem[] {
  if (s.maxCount < s.minCount) return [[null, "The maximum count needs to be greater than the minimum count."]];
  return [];
}

/** What the bundle rules need to know about the bundled item and variation. */
export type BundleRuleState = {
  baseItemId: number | null;
  bundledItem: { id: number; hasVariations: boolean; hasBundles: boolean } | null;
  bundledItemId: number;
  bundledVariation: { id: number; itemId: number } | null;
  bundledVariationId: number | null;
};

export function bundleProblems(s: BundleRuleState): Problem[] {
  if (!s.bundledItem) return [["bundled_item", MESSAGES.objectMissing(s.bundledItemId)]];
  if (s.bundledVariationId !== null && !s.bundledVariation) {
    return [["bundled_variation", MESSAGES.objectMissing(s.bundledVariationId)]];
  }
  const out: Problem[] = [];
  if (s.baseItemId !== null && s.bundledItem.id === s.baseItemId) {
    out.push([null, "The bundled item must not be the same item as the bundling one."]);
  }
  if (s.bundledItem.hasBundles) out.push([null, "The bundled item must not have bundles on its own."]);
  if (s.bundledItem.hasVariations && !s.bundledVariation) out.push([null, "A variation needs to be set for this item."]);
  if (s.bundledVariation && s.bundledVariation.itemId !== s.bundledItem.id) {
    out.push([null, "The chosen variation does not belong to this item."]);
  }
  return out;
}

/** Meta data keys must be properties the event defines (`item_meta_properties`). */
export function metaDataProblems(meta: Record<string, string>, properties: Record<string, unknown>): Problem[] {
  return Object.keys(meta)
    .filter((k) => !Object.hasOwn(properties, k))
    .map((k): Problem => ["meta_data", MESSAGES.metaUnknown(k)]);
}

/**
 * The meta data an item shows: every property of the event with its default, overridden by
 * the values set on the item (and then on the variation), sorted by key.
 */
export function effectiveMetaData(properties: Record<string, string>, ...layers: Record<string, string>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(properties).sort()) {
    let value = properties[key]!;
    for (const layer of layers) if (Object.hasOwn(layer, key)) value = layer[key]!;
    out[key] = value;
  }
  return out;
}
