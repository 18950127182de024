/**
 * Prices: the listed price of an item / variation (with sub-event overrides), vouchers
 * (`price_mode` none / set / subtract / percent, pretix docs vouchers.rst), automatic
 * discounts (docs/api.md) and taxes (docs/api.md). All amounts are integer
 * hundredths; every step rounds to what the currency can express. No floats.
 */
import { divRound, percentOf, roundToCurrency, type Cents } from "../lib/money";

export type TaxRule = { id: number; rate: number; priceIncludesTax: boolean };

/** The listed price: sub-event override, else the variation's, else the item's own price. */
export function listedPrice(p: {
  itemPrice: Cents;
  variationPrice: Cents | null;
  subeventItemPrice: Cents | null;
  subeventVariationPrice: Cents | null;
  hasVariation: boolean;
}): Cents {
  if (p.hasVariation) return p.subeventVariationPrice ?? p.variationPrice ?? p.itemPrice;
  return p.subeventItemPrice ?? p.itemPrice;
}

export type PriceMode = "none" | "set" | "subtract" | "percent";

/** A voucher's effect on a listed price (value: money, or percent in hundredths). */
export function applyVoucher(price: Cents, mode: PriceMode, value: number, currency: string): Cents {
  switch (mode) {
    case "none":
      return price;
    case "set":
      return roundToCurrency(value, currency);
    case "subtract":
      return Math.max(0, roundToCurrency(price - value, currency));
    case "percent":
      return Math.max(0, roundToCurrency(price - percentOf(price, value), currency));
  }
}

export type Taxed = { gross: Cents; taxValue: Cents; taxRate: number; taxRuleId: number | null };

/**
 * Gross price and included tax. `priceIsGross`: an explicit price from the client is always
 * gross; a listed price is net when the rule says prices do not include tax.
 */
export function tax(amount: Cents, rule: TaxRule | null, currency: string, priceIsGross: boolean): Taxed {
  if (!rule || rule.rate === 0)
    return { gross: amount, taxValue: 0, taxRate: rule?.rate ?? 0, taxRuleId: rule?.id ?? null };
  let gross = amount;
  if (!priceIsGross && !rule.priceIncludesTax) gross = roundToCurrency(amount + percentOf(amount, rule.rate), currency);
  // tax included in a gross amount: gross × rate / (100 % + rate)
  const taxValue = divRound(BigInt(gross) * BigInt(rule.rate), BigInt(10000 + rule.rate));
  return { gross, taxValue, taxRate: rule.rate, taxRuleId: rule.id };
}

// ---- automatic discounts ----

export type DiscountRule = {
  id: number;
  active: boolean;
  position: number;
  salesChannels: string[];
  availableFrom: number | null;
  availableUntil: number | null;
  subeventMode: "mixed" | "same" | "distinct";
  conditionAllProducts: boolean;
  conditionLimitProducts: number[];
  conditionApplyToAddons: boolean;
  conditionIgnoreVoucherDiscounted: boolean;
  conditionMinCount: number;
  conditionMinValue: Cents;
  benefitDiscountMatchingPercent: number;
  benefitOnlyApplyToCheapestNMatches: number | null;
};

export type DiscountLine = {
  index: number;
  itemId: number;
  subeventId: number | null;
  price: Cents;
  isAddon: boolean;
  isBundled: boolean;
  voucherDiscounted: boolean;
};

/**
 * Applies the event's discount rules to the lines of one order, in rule order; a line takes
 * at most one discount. Returns the new price per line index (unchanged lines omitted).
 *
 * A rule matches lines of its products (all, or the listed ones), not bundled, add-ons only
 * when allowed, and not voucher-discounted when so configured. Matching lines are grouped by
 * the sub-event mode (mixed: one group; same: per date; distinct: groups of different
 * dates). A group qualifies with at least `condition_min_count` lines or a total of at least
 * `condition_min_value`. The benefit is the percentage off every line of a qualifying group,
 * or — with `benefit_only_apply_to_cheapest_n_matches` — off the cheapest n of every full
 * set of `condition_min_count` lines.
 */
export function applyDiscounts(
  rules: DiscountRule[],
  lines: DiscountLine[],
  ctx: { now: number; salesChannel: string; currency: string },
): Map<number, Cents> {
  const result = new Map<number, Cents>();
  const taken = new Set<number>();
  const ordered = [...rules].sort((a, b) => a.position - b.position || a.id - b.id);
  for (const rule of ordered) {
    if (!rule.active || !rule.salesChannels.includes(ctx.salesChannel)) continue;
    if (rule.availableFrom !== null && rule.availableFrom > ctx.now) continue;
    if (rule.availableUntil !== null && rule.availableUntil < ctx.now) continue;
    const matching = lines.filter(
      (l) =>
        !taken.has(l.index) &&
        !l.isBundled &&
        (rule.conditionApplyToAddons || !l.isAddon) &&
        !(rule.conditionIgnoreVoucherDiscounted && l.voucherDiscounted) &&
        (rule.conditionAllProducts || rule.conditionLimitProducts.includes(l.itemId)),
    );
    if (matching.length === 0) continue;
    for (const group of groupLines(matching, rule.subeventMode)) {
      const benefited = benefitedLines(rule, group);
      for (const l of benefited) {
        const discounted = Math.max(
          0,
          roundToCurrency(l.price - percentOf(l.price, rule.benefitDiscountMatchingPercent), ctx.currency),
        );
        result.set(l.index, discounted);
      }
      // every line of a qualifying group is consumed by this rule
      if (benefited.length) for (const l of group) taken.add(l.index);
    }
  }
  return result;
}

function groupLines(lines: DiscountLine[], mode: DiscountRule["subeventMode"]): DiscountLine[][] {
  if (mode === "mixed") return [lines];
  if (mode === "same") {
    const bySub = new Map<string, DiscountLine[]>();
    for (const l of lines) {
      const k = String(l.subeventId);
      bySub.set(k, [...(bySub.get(k) ?? []), l]);
    }
    return [...bySub.values()];
  }
  // distinct: build groups in which no two lines share a date, as large as possible
  const queues = new Map<string, DiscountLine[]>();
  for (const l of [...lines].sort((a, b) => b.price - a.price || a.index - b.index)) {
    const k = String(l.subeventId);
    queues.set(k, [...(queues.get(k) ?? []), l]);
  }
  const groups: DiscountLine[][] = [];
  for (;;) {
    const group: DiscountLine[] = [];
    for (const q of queues.values()) {
      const l = q.shift();
      if (l) group.push(l);
    }
    if (group.length === 0) break;
    groups.push(group);
  }
  return groups;
}

function benefitedLines(rule: DiscountRule, group: DiscountLine[]): DiscountLine[] {
  if (rule.conditionMinValue > 0) {
    const total = group.reduce((s, l) => s + l.price, 0);
    return total >= rule.conditionMinValue ? group : [];
  }
  const min = Math.max(1, rule.conditionMinCount);
  if (group.length < min) return [];
  const n = rule.benefitOnlyApplyToCheapestNMatches;
  if (!n || n <= 0) return group;
  // for every complete set of `min` lines, the cheapest n of that set
  const sorted = [...group].sort((a, b) => b.price - a.price || a.index - b.index);
  const sets = Math.floor(sorted.length / min);
  const out: DiscountLine[] = [];
  for (let s = 0; s < sets; s++) {
    const set = sorted.slice(s * min, (s + 1) * min);
    out.push(...set.slice(Math.max(0, min - n)));
  }
  return out;
}
