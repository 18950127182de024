import { describe, expect, it } from "vitest";
import { isFailure, Problems } from "../../src/lib/failure";
import { checkBundle, checkItem, reportAt, reportTo } from "../../src/rules/item-rules";

const ITEM = {
  admission: false,
  personalized: false,
  issueGiftcard: false,
  taxRate: null,
  minPerOrder: null,
  maxPerOrder: null,
  availableFrom: null,
  availableUntil: null,
  validityFixedFrom: null,
  validityFixedUntil: null,
};

function thrown(errors: Problems): unknown {
  try {
    errors.throwIfAny();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("Problems.addAt: errors of elements of a nested list", () => {
  it("gives every element an object, {} for those without errors, and collects per field", () => {
    const errors = new Problems();
    errors.addAt("variations", 1, 3, "value", "first");
    errors.addAt("variations", 1, 3, "value", "second");
    errors.addAt("variations", 2, 3, "non_field_errors", "whole");
    errors.add("name", "top");
    expect(errors.errors).toEqual({
      variations: [{}, { value: ["first", "second"] }, { non_field_errors: ["whole"] }],
      name: ["top"],
    });
    const e = thrown(errors);
    expect(isFailure(e, "invalid")).toBe(true);
    expect((e as { fields: unknown }).fields).toEqual(errors.errors);
  });

  it("keeps a message about the list as a whole", () => {
    const errors = new Problems();
    errors.add("variations", "An item with variations needs at least one variation.");
    errors.addAt("variations", 0, 1, "value", "lost");
    expect(errors.errors).toEqual({ variations: ["An item with variations needs at least one variation."] });
  });

  it("leaves the existing methods as they were", () => {
    const errors = new Problems();
    expect(errors.has()).toBe(false);
    expect(thrown(errors)).toBeUndefined();
    errors.nest("fees", [{}, {}]);
    expect(errors.has()).toBe(false);
    errors.add("code", "a");
    errors.add("code", "b");
    expect(errors.errors).toEqual({ code: ["a", "b"] });
  });
});

describe("item rules report to one collector", () => {
  it("reports cross-field problems of an item as non_field_errors, in order", () => {
    const errors = new Problems();
    checkItem(
      { ...ITEM, minPerOrder: 3, maxPerOrder: 2, personalized: true, issueGiftcard: true, taxRate: 1900 },
      reportTo(errors),
    );
    expect(errors.errors).toEqual({
      non_field_errors: [
        "The maximum number per order can not be lower than the minimum number per order.",
        "Only admission products can currently be personalized.",
        "Gift card products should not be associated with non-zero tax rates since sales tax will be applied when the gift card is redeemed.",
      ],
    });
    const fine = new Problems();
    checkItem({ ...ITEM, admission: true, personalized: true, issueGiftcard: false, taxRate: 0 }, reportTo(fine));
    expect(fine.has()).toBe(false);
  });

  it("places a bundle's problems in its element of the list", () => {
    const errors = new Problems();
    const shirt = { id: 5, hasVariations: true, hasBundles: false };
    checkBundle(
      { baseItemId: null, bundledItem: shirt, bundledItemId: 5, bundledVariation: null, bundledVariationId: null },
      reportAt(errors, "bundles", 1, 2),
    );
    checkBundle(
      { baseItemId: null, bundledItem: null, bundledItemId: 9, bundledVariation: null, bundledVariationId: null },
      reportAt(errors, "bundles", 0, 2),
    );
    expect(errors.errors).toEqual({
      bundles: [
        { bundled_item: ['Invalid pk "9" - object does not exist.'] },
        { non_field_errors: ["A variation needs to be set for this item."] },
      ],
    });
  });
});
