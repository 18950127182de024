/**
 * The hosted shop's catalog (docs/customer-pages.md "The shop"): what a visitor may buy for the
 * event or one date, by category, with variations, add-ons and bundles, each priced as the sale
 * prices it (`catalogPrice`, services/orders/positions.ts) with the visitor's voucher, and its
 * availability as the event object counts it. Seated products are listed, sold through the API.
 */
import { readShopCatalog, type ShopBundleRow, type ShopCatalogRows } from "../../db/shop-catalog";
import type { ItemRow, VariationRow, VoucherRow } from "../../db/sales-catalog";
import type { I18n } from "../../lib/i18n";
import { withEventObject } from "../../objects/client";
import type { Taxed } from "../../rules/pricing";
import { quantityLimits, saleWindow, shown } from "../../rules/shop";
import type { EventContext } from "../context";
import { catalogPrice, voucherMisfit } from "../orders/positions";
import { loadSalesCatalog, type SalesCatalog } from "../orders/sales-catalog";

/** One way to buy a product: the product itself, or one of its variations. */
export type ShopChoice = {
  itemId: number;
  variationId: number | null;
  /** The variation's value (null: the product itself). */
  label: I18n | null;
  price: Taxed;
  /** pretix's availability state (100 available, 20 reserved, 10 in pending orders, 0 gone). */
  state: number;
  /** Units left, when the product shows them; else null. */
  left: number | null;
};

export type ShopBundle = { name: I18n; variation: I18n | null; count: number; designatedPrice: number };

export type ShopAddonGroup = {
  categoryId: number;
  name: I18n;
  description: I18n | null;
  minCount: number;
  maxCount: number;
  multiAllowed: boolean;
  priceIncluded: boolean;
  products: ShopProduct[];
};

export type ShopProduct = {
  id: number;
  name: I18n;
  description: I18n | null;
  requireVoucher: boolean;
  /** Sold with a seat of the seating plan: through the API only. */
  seated: boolean;
  min: number;
  max: number;
  choices: ShopChoice[];
  addons: ShopAddonGroup[];
  bundles: ShopBundle[];
};

export type ShopSection = {
  category: { id: number; name: I18n; description: I18n | null } | null;
  products: ShopProduct[];
};

/** The voucher of the visit: its row when it exists, its code as given. */
export type ShopVoucher = { code: string; row: VoucherRow | null };

export type ShopCatalog = {
  sections: ShopSection[];
  voucher: ShopVoucher | null;
  subeventId: number | null;
  window: "open" | "before" | "after";
  settings: Record<string, unknown>;
  /** The underlying sale catalog (tax rules, vouchers, queues, stamp) the cart is checked against. */
  sales: SalesCatalog;
  /** Every product the visitor may buy, add-ons included, by item id. */
  products: Map<number, ShopProduct>;
  /** The bundles of the event's items (their designated prices split the base price). */
  bundleRows: ShopBundleRow[];
  /** Names of every item and variation of the event (a cart may hold one no longer listed). */
  labels: { items: Map<number, I18n>; variations: Map<number, I18n> };
};

type Availability = { state: number; left: number | null } | null;

/** What building the catalog works with. */
type Build = {
  ctx: EventContext;
  rows: ShopCatalogRows;
  sales: SalesCatalog;
  voucher: VoucherRow | null;
  subeventId: number | null;
  availability: Map<string, Availability>;
};

const demandKey = (itemId: number, variationId: number | null) => `${itemId}:${variationId ?? ""}`;

/**
 * The shop of the event (`subeventId` null) or of one of its dates; `voucherCode` the visitor's.
 * Reads the shop's rows, then the sale catalog and the availability at the event object.
 */
export async function loadShopCatalog(
  ctx: EventContext,
  opts: { subeventId: number | null; voucherCode: string | null },
): Promise<ShopCatalog> {
  const { db, event } = ctx;
  const rows = await readShopCatalog(db, event.id);
  const sales = await loadSalesCatalog(db, ctx.organizer.id, event.id, {
    itemIds: rows.items.map((i) => i.id),
    variationIds: rows.variations.map((v) => v.id),
    subeventIds: opts.subeventId === null ? [] : [opts.subeventId],
    voucherCodes: opts.voucherCode ? [opts.voucherCode] : [],
    questionIds: [],
    seatGuids: [],
    eventSeatingPlanId: event.seatingPlanId,
  });
  const voucher = opts.voucherCode ? (sales.vouchers.get(opts.voucherCode.toLowerCase()) ?? null) : null;
  const availability = await readAvailability(ctx, rows, sales, opts.subeventId);
  const b: Build = { ctx, rows, sales, voucher, subeventId: opts.subeventId, availability };
  const sections = buildSections(b);
  const products = new Map<number, ShopProduct>();
  for (const p of sections.flatMap((s) => s.products)) {
    products.set(p.id, p);
    for (const a of p.addons.flatMap((g) => g.products)) products.set(a.id, a);
  }
  const date = opts.subeventId === null ? null : (sales.subevents.get(opts.subeventId) ?? null);
  return {
    sections,
    voucher: opts.voucherCode ? { code: opts.voucherCode, row: voucher } : null,
    subeventId: opts.subeventId,
    window: saleWindow(event, date, ctx.now),
    settings: sales.settings,
    sales,
    products,
    bundleRows: rows.bundles,
    labels: {
      items: new Map(rows.items.map((i) => [i.id, i.name])),
      variations: new Map(rows.variations.map((v) => [v.id, v.value])),
    },
  };
}

/** Each product and variation on the date, as the event object counts it (one call). */
async function readAvailability(
  ctx: EventContext,
  rows: ShopCatalogRows,
  sales: SalesCatalog,
  subeventId: number | null,
): Promise<Map<string, Availability>> {
  type D = { itemId: number; variationId: number | null; subeventId: number | null };
  const demands = rows.items.flatMap((i): D[] =>
    i.hasVariations
      ? rows.variations.filter((v) => v.itemId === i.id).map((v) => ({ itemId: i.id, variationId: v.id, subeventId }))
      : [{ itemId: i.id, variationId: null, subeventId }],
  );
  const states = demands.length
    ? await withEventObject<Availability[]>(ctx.env, ctx.event.id, (s, call) =>
        s.productAvailabilities(call, sales.stamp, demands),
      )
    : [];
  return new Map(demands.map((d, i) => [demandKey(d.itemId, d.variationId), states[i] ?? null]));
}

/** The voucher as a product sees it: whether it fits, and whether it shows hidden products. */
function voucherFor(b: Build, item: ItemRow, variation: VariationRow | null) {
  if (!b.voucher) return null;
  const misfit = voucherMisfit(b.voucher, {
    itemId: item.id,
    variationId: variation?.id ?? null,
    subeventId: b.subeventId,
    seat: null,
  });
  return { fits: misfit === null, showHiddenItems: b.voucher.showHiddenItems, row: b.voucher };
}

/** Whether the item is mapped to a seat category of the plan that applies (the date's, else the event's). */
function seated(b: Build, item: ItemRow): boolean {
  const date = b.subeventId === null ? null : b.sales.subevents.get(b.subeventId);
  const mapping =
    date && date.seatingPlanId !== null
      ? date.seatCategoryMapping
      : !date && b.ctx.event.seatingPlanId !== null
        ? b.ctx.event.seatCategoryMapping
        : {};
  return Object.values(mapping).includes(item.id);
}

/** The choices of an item the visitor may buy (none: the item is not shown). */
function choicesOf(b: Build, item: ItemRow, priced: (p: Taxed) => Taxed): ShopChoice[] {
  const { now, event } = b.ctx;
  const sub = b.subeventId;
  const itemOverride = sub === null ? undefined : b.sales.subeventItemPrice.get(`${sub}:${item.id}`);
  if (itemOverride?.disabled) return [];
  const variations = item.hasVariations ? b.rows.variations.filter((v) => v.itemId === item.id) : [null];
  const showLeft = item.showQuotaLeft ?? b.sales.settings.show_quota_left === true;
  const out: ShopChoice[] = [];
  for (const variation of variations) {
    const v = voucherFor(b, item, variation);
    if (variation && !shown(variation, v, now)) continue;
    const varOverride =
      sub === null || !variation ? undefined : b.sales.subeventVariationPrice.get(`${sub}:${variation.id}`);
    if (varOverride?.disabled) continue;
    const a = b.availability.get(demandKey(item.id, variation?.id ?? null));
    if (!a) continue; // no quota covers it: not on sale
    const voucher = v?.fits ? v.row : null;
    const price = catalogPrice(
      { item, variation, voucher, overrides: { item: itemOverride, variation: varOverride } },
      event,
      b.sales,
    );
    out.push({
      itemId: item.id,
      variationId: variation?.id ?? null,
      label: variation?.value ?? null,
      price: priced(price),
      state: a.state,
      left: showLeft ? a.left : null,
    });
  }
  return out;
}

/** A product as the shop offers it, or null when the visitor may not buy it. */
function productOf(b: Build, item: ItemRow, priced: (p: Taxed) => Taxed = (p) => p): ShopProduct | null {
  const v = voucherFor(b, item, null);
  const anyVariationFits =
    b.voucher !== null &&
    item.hasVariations &&
    b.rows.variations.some((x) => x.itemId === item.id && voucherFor(b, item, x)?.fits);
  const voucherFits = (v?.fits ?? false) || anyVariationFits;
  if (!shown(item, v && { ...v, fits: voucherFits }, b.ctx.now)) return null;
  if (item.requireVoucher && !voucherFits) return null;
  if (item.requireBundling) return null;
  const choices = choicesOf(b, item, priced);
  if (choices.length === 0) return null;
  const max = Number(b.sales.settings.max_items_per_order ?? 10);
  return {
    id: item.id,
    name: item.name,
    description: item.description,
    requireVoucher: item.requireVoucher,
    seated: seated(b, item),
    ...quantityLimits(item, max),
    choices,
    addons: [],
    bundles: [],
  };
}

/** The add-on categories a product offers, with the add-on products the visitor may buy. */
function addonsOf(b: Build, item: ItemRow): ShopAddonGroup[] {
  const groups: ShopAddonGroup[] = [];
  for (const rule of b.rows.addons.filter((a) => a.itemId === item.id)) {
    const category = b.rows.categories.find((c) => c.id === rule.addonCategoryId);
    if (!category) continue;
    const free = (p: Taxed): Taxed => (rule.priceIncluded ? { ...p, gross: 0, taxValue: 0 } : p);
    const products = b.rows.items
      .filter((i) => i.categoryId === category.id)
      .map((i) => productOf(b, i, free))
      .filter((p): p is ShopProduct => p !== null && !p.seated);
    if (products.length === 0 && rule.minCount === 0) continue;
    groups.push({
      categoryId: category.id,
      name: category.name,
      description: category.description,
      minCount: rule.minCount,
      maxCount: rule.maxCount,
      multiAllowed: rule.multiAllowed,
      priceIncluded: rule.priceIncluded,
      products,
    });
  }
  return groups;
}

function bundlesOf(b: Build, item: ItemRow): ShopBundle[] {
  return b.rows.bundles
    .filter((x) => x.itemId === item.id)
    .map((x) => ({
      name: b.rows.items.find((i) => i.id === x.bundledItemId)?.name ?? {},
      variation: b.rows.variations.find((v) => v.id === x.bundledVariationId)?.value ?? null,
      count: x.count,
      designatedPrice: x.designatedPrice,
    }));
}

/** The products outside add-on categories, by category (products without one last), with their add-ons and bundles. */
function buildSections(b: Build): ShopSection[] {
  const addonCategories = new Set(b.rows.categories.filter((c) => c.isAddon).map((c) => c.id));
  const sections: ShopSection[] = [...b.rows.categories, null]
    .filter((c) => c === null || !addonCategories.has(c.id))
    .map((c) => ({ category: c && { id: c.id, name: c.name, description: c.description }, products: [] }));
  for (const item of b.rows.items) {
    if (item.categoryId !== null && addonCategories.has(item.categoryId)) continue;
    const product = productOf(b, item);
    if (!product) continue;
    product.addons = addonsOf(b, item);
    product.bundles = bundlesOf(b, item);
    const section =
      sections.find((s) => (s.category?.id ?? null) === item.categoryId) ?? sections[sections.length - 1]!;
    section.products.push(product);
  }
  return sections.filter((s) => s.products.length > 0);
}
