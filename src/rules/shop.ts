/**
 * The hosted shop's own rules, as pretix's shop front applies them on top of the sale's
 * (docs/customer-pages.md "The shop"): which products a visitor sees (active, sold on the web,
 * in their time frame, hidden ones only with a voucher that shows them), whether the sale is
 * open, how many of a product one cart may hold (min/max per order, the event's
 * `max_items_per_order`) and how many add-ons of a category go with a product.
 */

/** What decides whether a product or variation is shown. */
export type Showable = {
  active: boolean;
  salesChannels: string[];
  availableFrom: number | null;
  availableUntil: number | null;
  hideWithoutVoucher: boolean;
};

/** The shop's sales channel. */
export const SHOP_CHANNEL = "web";

/** Shown to a visitor: active, on the web channel, in its time frame; a hidden one only with a voucher that shows it. */
export function shown(p: Showable, voucher: { fits: boolean; showHiddenItems: boolean } | null, now: number): boolean {
  if (!p.active || !p.salesChannels.includes(SHOP_CHANNEL)) return false;
  if (p.availableFrom !== null && p.availableFrom > now) return false;
  if (p.availableUntil !== null && p.availableUntil < now) return false;
  return !p.hideWithoutVoucher || (voucher?.fits === true && voucher.showHiddenItems);
}

/** Whether the presale of the event (or the date, whose own frame wins) is open, not yet or no longer. */
export function saleWindow(
  event: { presaleStart: number | null; presaleEnd: number | null },
  date: { presaleStart: number | null; presaleEnd: number | null } | null,
  now: number,
): "open" | "before" | "after" {
  const start = date?.presaleStart ?? event.presaleStart;
  const end = date?.presaleEnd ?? event.presaleEnd;
  if (start !== null && start > now) return "before";
  if (end !== null && end < now) return "after";
  return "open";
}

/** The quantity a product may be chosen in, in one cart: pretix's `min_per_order` / `max_per_order`, within the event's limit. */
export function quantityLimits(
  item: { minPerOrder: number | null; maxPerOrder: number | null },
  maxItemsPerOrder: number,
): { min: number; max: number } {
  const max = Math.min(item.maxPerOrder ?? maxItemsPerOrder, maxItemsPerOrder);
  return { min: Math.max(1, item.minPerOrder ?? 1), max: Math.max(0, max) };
}

/** What a request adds to a cart, counted per product: with what the cart holds already. */
export type QuantityCheck = {
  itemId: number;
  adding: number;
  held: number;
  limits: { min: number; max: number };
};

/** Why a quantity is refused ("max": more than a cart may hold; "min": fewer than the product is sold in), or null. */
export function quantityRefusal(q: QuantityCheck): { kind: "min" | "max"; limit: number } | null {
  const total = q.adding + q.held;
  if (total > q.limits.max) return { kind: "max", limit: q.limits.max };
  if (q.adding > 0 && total < q.limits.min) return { kind: "min", limit: q.limits.min };
  return null;
}

/** Whether the count of add-ons chosen from one category fits the product's add-on rule. */
export function addonCountRefusal(
  rule: { minCount: number; maxCount: number },
  chosen: number,
): { kind: "min" | "max"; limit: number } | null {
  if (chosen > rule.maxCount) return { kind: "max", limit: rule.maxCount };
  if (chosen < rule.minCount) return { kind: "min", limit: rule.minCount };
  return null;
}

/**
 * A bundle's base price: the designated prices of the bundled products split the product's
 * price, they are not added to it (pretix's bundles); never below zero.
 */
export function bundleBasePrice(listed: number, bundles: { designatedPrice: number; count: number }[]): number {
  return Math.max(0, listed - bundles.reduce((s, b) => s + b.designatedPrice * b.count, 0));
}
