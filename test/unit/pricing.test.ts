import { describe, expect, it } from "vitest";
import { MANUAL_PAYMENT_PLUGIN, offeredProviders, STRIPE_PLUGIN } from "../../src/rules/payments";
import {
  applyDiscounts,
  applyVoucher,
  type DiscountLine,
  type DiscountRule,
  listedPrice,
  tax,
} from "../../src/rules/pricing";

const rule = (over: Partial<DiscountRule>): DiscountRule => ({
  id: 1,
  active: true,
  position: 0,
  salesChannels: ["web"],
  availableFrom: null,
  availableUntil: null,
  subeventMode: "mixed",
  conditionAllProducts: true,
  conditionLimitProducts: [],
  conditionApplyToAddons: true,
  conditionIgnoreVoucherDiscounted: false,
  conditionMinCount: 0,
  conditionMinValue: 0,
  benefitDiscountMatchingPercent: 0,
  benefitOnlyApplyToCheapestNMatches: null,
  ...over,
});
const line = (index: number, price: number, over: Partial<DiscountLine> = {}): DiscountLine => ({
  index,
  itemId: 1,
  subeventId: null,
  price,
  isAddon: false,
  isBundled: false,
  voucherDiscounted: false,
  ...over,
});
const ctx = { now: Date.UTC(2030, 0, 1), salesChannel: "web", currency: "EUR" };

describe("listed price", () => {
  it("takes the date's override, then the variation's, then the item's price", () => {
    const base = {
      itemPrice: 1000,
      variationPrice: null,
      subeventItemPrice: null,
      subeventVariationPrice: null,
      hasVariation: false,
    };
    expect(listedPrice(base)).toBe(1000);
    expect(listedPrice({ ...base, subeventItemPrice: 800 })).toBe(800);
    expect(listedPrice({ ...base, hasVariation: true, variationPrice: 1200, subeventItemPrice: 800 })).toBe(1200);
    expect(listedPrice({ ...base, hasVariation: true, variationPrice: 1200, subeventVariationPrice: 900 })).toBe(900);
    expect(listedPrice({ ...base, hasVariation: true })).toBe(1000);
  });
});

describe("vouchers", () => {
  it("apply each price mode and never go below zero", () => {
    expect(applyVoucher(2000, "none", 500, "EUR")).toBe(2000);
    expect(applyVoucher(2000, "set", 500, "EUR")).toBe(500);
    expect(applyVoucher(2000, "subtract", 500, "EUR")).toBe(1500);
    expect(applyVoucher(200, "subtract", 500, "EUR")).toBe(0);
    expect(applyVoucher(1999, "percent", 1000, "EUR")).toBe(1799); // 10 % of 19.99 = 2.00 rounded
    expect(applyVoucher(1000, "percent", 3333, "JPY")).toBe(700); // whole yen
  });
});

describe("tax", () => {
  it("takes tax out of gross prices and adds it to net ones", () => {
    const incl = { id: 1, rate: 1900, priceIncludesTax: true };
    const excl = { id: 2, rate: 1900, priceIncludesTax: false };
    expect(tax(11900, incl, "EUR", false)).toEqual({ gross: 11900, taxValue: 1900, taxRate: 1900, taxRuleId: 1 });
    expect(tax(10000, excl, "EUR", false)).toEqual({ gross: 11900, taxValue: 1900, taxRate: 1900, taxRuleId: 2 });
    expect(tax(10000, excl, "EUR", true)).toEqual({ gross: 10000, taxValue: 1597, taxRate: 1900, taxRuleId: 2 });
    expect(tax(1000, null, "EUR", false)).toEqual({ gross: 1000, taxValue: 0, taxRate: 0, taxRuleId: null });
  });
});

describe("automatic discounts", () => {
  it("gives the percentage to every matching position once the count is reached", () => {
    const r = rule({ conditionMinCount: 3, benefitDiscountMatchingPercent: 1000 });
    expect(applyDiscounts([r], [line(0, 1000), line(1, 1000)], ctx).size).toBe(0);
    expect([...applyDiscounts([r], [line(0, 1000), line(1, 1000), line(2, 2000)], ctx)]).toEqual([
      [0, 900],
      [1, 900],
      [2, 1800],
    ]);
  });

  it("gives the cheapest n of every complete set", () => {
    const r = rule({
      conditionMinCount: 2,
      benefitDiscountMatchingPercent: 10000,
      benefitOnlyApplyToCheapestNMatches: 1,
    });
    const out = applyDiscounts([r], [line(0, 3000), line(1, 1000), line(2, 2000), line(3, 500), line(4, 100)], ctx);
    // sets by price: [30.00, 20.00] and [10.00, 5.00]; the 1.00 is left over; the cheaper of each set is free
    expect([...out].sort((a, b) => a[0] - b[0])).toEqual([
      [2, 0],
      [3, 0],
    ]);
  });

  it("qualifies by a minimum value", () => {
    const r = rule({ conditionMinValue: 5000, benefitDiscountMatchingPercent: 5000 });
    expect(applyDiscounts([r], [line(0, 2000), line(1, 2000)], ctx).size).toBe(0);
    expect([...applyDiscounts([r], [line(0, 3000), line(1, 2000)], ctx)]).toEqual([
      [0, 1500],
      [1, 1000],
    ]);
  });

  it("groups by date with subevent_mode same and distinct", () => {
    const same = rule({ conditionMinCount: 2, benefitDiscountMatchingPercent: 1000, subeventMode: "same" });
    const lines = [
      line(0, 1000, { subeventId: 1 }),
      line(1, 1000, { subeventId: 2 }),
      line(2, 1000, { subeventId: 2 }),
    ];
    expect([...applyDiscounts([same], lines, ctx).keys()].sort()).toEqual([1, 2]);
    const distinct = rule({ conditionMinCount: 2, benefitDiscountMatchingPercent: 1000, subeventMode: "distinct" });
    // one group of two different dates qualifies; the third position stands alone
    expect(applyDiscounts([distinct], lines, ctx).size).toBe(2);
  });

  it("respects channels, time windows, products, add-ons, bundles and voucher discounts; one discount per position", () => {
    const base = { conditionMinCount: 1, benefitDiscountMatchingPercent: 1000 };
    expect(applyDiscounts([rule({ ...base, salesChannels: ["pretixpos"] })], [line(0, 1000)], ctx).size).toBe(0);
    expect(applyDiscounts([rule({ ...base, availableUntil: ctx.now - 1 })], [line(0, 1000)], ctx).size).toBe(0);
    expect(
      applyDiscounts(
        [rule({ ...base, conditionAllProducts: false, conditionLimitProducts: [2] })],
        [line(0, 1000)],
        ctx,
      ).size,
    ).toBe(0);
    expect(
      applyDiscounts([rule({ ...base, conditionApplyToAddons: false })], [line(0, 1000, { isAddon: true })], ctx).size,
    ).toBe(0);
    expect(applyDiscounts([rule(base)], [line(0, 1000, { isBundled: true })], ctx).size).toBe(0);
    expect(
      applyDiscounts(
        [rule({ ...base, conditionIgnoreVoucherDiscounted: true })],
        [line(0, 1000, { voucherDiscounted: true })],
        ctx,
      ).size,
    ).toBe(0);
    const first = rule({ ...base, id: 1, position: 1, benefitDiscountMatchingPercent: 5000 });
    const second = rule({ ...base, id: 2, position: 2, benefitDiscountMatchingPercent: 1000 });
    expect([...applyDiscounts([second, first], [line(0, 1000)], ctx)]).toEqual([[0, 500]]);
  });
});

describe("payment providers offered on the payment page", () => {
  it("nothing due: only free; else gift cards, and manual or Stripe where the event enables them", () => {
    expect(offeredProviders([MANUAL_PAYMENT_PLUGIN, STRIPE_PLUGIN], 0, true)).toEqual(["free"]);
    expect(offeredProviders([], 1000)).toEqual(["giftcard"]);
    expect(offeredProviders([MANUAL_PAYMENT_PLUGIN], 1000)).toEqual(["giftcard", "manual"]);
    expect(offeredProviders([STRIPE_PLUGIN], 1000, false)).toEqual(["giftcard"]);
    expect(offeredProviders([STRIPE_PLUGIN, MANUAL_PAYMENT_PLUGIN], 1000, true)).toEqual([
      "giftcard",
      "stripe",
      "manual",
    ]);
  });
});
