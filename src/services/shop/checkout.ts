/**
 * What the shop's checkout shows (docs/customer-pages.md "The shop's checkout"): a cart's
 * positions as the order would be placed, priced by the same preparation and discounts order
 * creation uses (services/orders/positions.ts), the questions the event asks per position, the
 * attendee and invoice address fields its settings ask for, and the payment providers offered.
 */
import { cartRowsOf, type CartRowRecord } from "../../db/carts";
import { findVouchersById } from "../../db/vouchers";
import type { I18n } from "../../lib/i18n";
import { Problems } from "../../lib/failure";
import { offeredProviders } from "../../rules/payments";
import type { PaymentProvider } from "../../rules/orders";
import { listQuestions } from "../catalog/catalog-reads";
import type { EventContext } from "../context";
import {
  collectRefs,
  discountPositions,
  type PositionInput,
  type PreparedPosition,
  preparePosition,
} from "../orders/positions";
import { loadSalesCatalog, type SalesCatalog } from "../orders/sales-catalog";

/** A question as the checkout asks it; `dependent`: shown only on another answer (never required here). */
export type CheckoutQuestion = {
  id: number;
  type: string;
  text: I18n;
  help: I18n | null;
  required: boolean;
  dependent: boolean;
  options: { id: number; answer: I18n }[];
};

/** One position of the order to be placed: `index` is its place in the order's positions. */
export type CheckoutLine = {
  index: number;
  row: CartRowRecord;
  /** The position as the order input names it (without attendee and answers). */
  position: PositionInput;
  /** The index of the position it is an add-on (or bundled position) of. */
  addonTo: number | null;
  itemName: I18n;
  variationName: I18n | null;
  admission: boolean;
  /** The price order creation computes (gross), and its tax. */
  price: number;
  taxRate: number;
  taxValue: number;
  voucherCode: string | null;
  questions: CheckoutQuestion[];
};

/** What the event asks at checkout (event settings, docs/customer-pages.md). */
export type CheckoutAsks = {
  namesAsked: boolean;
  namesRequired: boolean;
  emailsAsked: boolean;
  emailsRequired: boolean;
  invoiceAsked: boolean;
  invoiceRequired: boolean;
  invoiceCompanyRequired: boolean;
  invoiceNameRequired: boolean;
  invoiceVatId: boolean;
};

export type CheckoutView = {
  cartId: string;
  /** When the cart's reservation ends (its earliest position's). */
  expires: number;
  lines: CheckoutLine[];
  total: number;
  taxTotal: number;
  asks: CheckoutAsks;
  providers: PaymentProvider[];
  locales: string[];
  locale: string;
};

/** Why there is no checkout to show. */
export type NoCheckout = { none: "empty" | "expired" };

/** The cart's rows as the order's positions: bases in order, each followed by its add-ons and bundled positions. */
function orderedRows(rows: CartRowRecord[]): { row: CartRowRecord; addonTo: number | null }[] {
  const out: { row: CartRowRecord; addonTo: number | null }[] = [];
  for (const base of rows.filter((r) => r.addonTo === null)) {
    const at = out.length;
    out.push({ row: base, addonTo: null });
    for (const child of rows.filter((r) => r.addonTo === base.id)) out.push({ row: child, addonTo: at });
  }
  return out;
}

/**
 * A cart row as an order position: its item, variation, date, seat, voucher and attendee. The
 * price is left to order creation unless the cart holds one it cannot compute (`keepPrice`): a
 * price the buyer chose (free price), a bundled position's designated price, or the price of a
 * product with bundled positions (its own price less theirs, as pretix prices a bundle).
 */
function positionOfRow(row: CartRowRecord, keepPrice: boolean, voucherCode: string | null): PositionInput {
  return {
    item: row.itemId,
    variation: row.variationId,
    subevent: row.subeventId,
    seat: row.seat,
    voucher: voucherCode,
    ...(keepPrice ? { price: row.price } : {}),
  };
}

/** The event's questions the shop asks, by item: not hidden, not only at check-in. */
async function questionsByItem(ctx: EventContext): Promise<Map<number, CheckoutQuestion[]>> {
  const page = await listQuestions(ctx, {}, { page: 1, pageSize: 1000 });
  const byItem = new Map<number, CheckoutQuestion[]>();
  for (const r of page.rows) {
    const q = r.question;
    if (q.hidden || q.askDuringCheckin) continue;
    const options = (JSON.parse(r.options) as { id: number; answer: I18n }[]).map((o) => ({
      id: o.id,
      answer: o.answer,
    }));
    const question: CheckoutQuestion = {
      id: q.id,
      type: q.type,
      text: q.question,
      help: q.helpText,
      required: q.required && q.dependencyQuestionId === null,
      dependent: q.dependencyQuestionId !== null,
      options,
    };
    for (const itemId of JSON.parse(r.items) as number[]) byItem.set(itemId, [...(byItem.get(itemId) ?? []), question]);
  }
  return byItem;
}

function asksOf(settings: Record<string, unknown>, total: number): CheckoutAsks {
  const on = (k: string) => settings[k] === true;
  const invoiceAsked = on("invoice_address_asked") && !(total === 0 && on("invoice_address_not_asked_free"));
  return {
    namesAsked: on("attendee_names_asked"),
    namesRequired: on("attendee_names_asked") && on("attendee_names_required"),
    emailsAsked: on("attendee_emails_asked"),
    emailsRequired: on("attendee_emails_asked") && on("attendee_emails_required"),
    invoiceAsked,
    invoiceRequired: invoiceAsked && on("invoice_address_required"),
    invoiceCompanyRequired: invoiceAsked && on("invoice_address_required") && on("invoice_address_company_required"),
    invoiceNameRequired: invoiceAsked && on("invoice_name_required"),
    invoiceVatId: invoiceAsked && on("invoice_address_vatid"),
  };
}

/** The prices order creation gives the positions: prepared and discounted as it does; a position it would refuse keeps the cart's price. */
function previewPrices(
  ctx: EventContext,
  inputs: PositionInput[],
  addonTo: (number | null)[],
  catalog: SalesCatalog,
): (PreparedPosition | null)[] {
  const at = { event: ctx.event, catalog, kind: "order" as const, isBundled: false, now: ctx.now };
  const prepared = inputs.map((p, i) => preparePosition(p, i, { ...at, isAddon: addonTo[i] !== null }, new Problems()));
  const ok = prepared.filter((p): p is PreparedPosition => p !== null);
  discountPositions(ok, catalog, { now: ctx.now, salesChannel: "web", currency: ctx.event.currency });
  return prepared;
}

/**
 * The checkout of the cart `cartId`: its positions priced as the order would be, what the event
 * asks, the providers offered (`stripeReady`: the organizer set its Stripe keys). None when the
 * cart has no positions, or all of them expired; positions that expired are left out.
 */
export async function loadCheckout(
  ctx: EventContext,
  cartId: string,
  opts: { stripeReady: boolean; language: string },
): Promise<CheckoutView | NoCheckout> {
  const stored = await cartRowsOf(ctx.db, ctx.event.id, cartId);
  if (stored.length === 0) return { none: "empty" };
  // positions whose reservation ran out are no longer in the cart (as the shop's cart shows it)
  const rows = stored.filter((r) => r.expires > ctx.now);
  if (rows.length === 0) return { none: "expired" };
  const expires = Math.min(...rows.map((r) => r.expires));
  const ordered = orderedRows(rows);
  const voucherIds = [...new Set(rows.flatMap((r) => (r.voucherId === null ? [] : [r.voucherId])))];
  const [vouchers, questions] = await Promise.all([
    voucherIds.length ? findVouchersById(ctx.db, ctx.event.id, voucherIds) : Promise.resolve([]),
    questionsByItem(ctx),
  ]);
  const codes = new Map(vouchers.map((v) => [v.id, v.code]));
  const codeOf = (r: CartRowRecord) => (r.voucherId === null ? null : (codes.get(r.voucherId) ?? null));
  const bare = ordered.map(({ row }) => positionOfRow(row, false, codeOf(row)));
  const catalog = await loadSalesCatalog(ctx.db, ctx.organizer.id, ctx.event.id, {
    ...collectRefs(bare),
    eventSeatingPlanId: ctx.event.seatingPlanId,
  });
  const bundles = new Set(rows.filter((r) => r.isBundled).map((r) => r.addonTo));
  const keepPrice = (r: CartRowRecord) =>
    catalog.items.get(r.itemId)?.freePrice === true || r.isBundled || bundles.has(r.id);
  const inputs = ordered.map(({ row }) => positionOfRow(row, keepPrice(row), codeOf(row)));
  const priced = previewPrices(
    ctx,
    inputs,
    ordered.map((o) => o.addonTo),
    catalog,
  );
  const lines = ordered.map(({ row, addonTo }, index): CheckoutLine => {
    const item = catalog.items.get(row.itemId);
    const p = priced[index];
    return {
      index,
      row,
      position: inputs[index]!,
      addonTo,
      itemName: item?.name ?? { en: `#${row.itemId}` },
      variationName: row.variationId !== null ? (catalog.variations.get(row.variationId)?.value ?? null) : null,
      admission: item?.admission === true,
      price: p ? p.price.gross : row.price,
      taxRate: p ? p.price.taxRate : 0,
      taxValue: p ? p.price.taxValue : 0,
      voucherCode: codeOf(row),
      questions: questions.get(row.itemId) ?? [],
    };
  });
  const total = lines.reduce((s, l) => s + l.price, 0);
  const settings = catalog.settings;
  const locales = (settings.locales as string[] | undefined) ?? ["en"];
  const locale = locales.find((l) => l.split("-")[0] === opts.language) ?? (settings.locale as string) ?? locales[0]!;
  return {
    cartId,
    expires,
    lines,
    total,
    taxTotal: lines.reduce((s, l) => s + l.taxValue, 0),
    asks: asksOf(settings, total),
    providers: offeredProviders(ctx.event.plugins, total, opts.stripeReady),
    locales,
    locale,
  };
}
