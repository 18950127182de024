/**
 * Turns requested positions (of a cart or an order) into prepared positions: checked against
 * the catalog (item, variation, date, seat, voucher, answers), priced (listed price, voucher,
 * tax; discounts for orders) and described as demands for the event object. Errors are
 * collected per position and field, in the shape of the request.
 */
import { z } from "zod";
import type { ItemRow, SeatRow, SubeventRow, VariationRow, VoucherRow } from "../../db/sales-catalog";
import type { PositionInsert } from "../../db/order-writes";
import type { Validity } from "../../rules/checkin";
import { newPseudonymizationId } from "../../rules/orders";
import { email, money } from "../../rules/fields";
import type { SalesCatalog } from "./sales-catalog";
import type { Answer } from "../../db/schema/index";
import type { EventRow } from "../../db/tenancy";
import { invalidPk, Problems } from "../../lib/failure";
import { i18nText } from "../../lib/i18n";
import type { Cents } from "../../lib/money";
import type { Demand } from "../../rules/inventory/index";
import { buildName, withScheme, type NameParts } from "../../rules/person-names";
import { applyDiscounts, applyVoucher, listedPrice, tax, type Taxed } from "../../rules/pricing";
import { type AnswerInput, validateAnswers } from "./position-answers";

/** Input of an answer to a question (carts and orders). */
export const answerInput = z.object({
  question: z.number().int(),
  answer: z.string().max(10000).optional(),
  options: z.array(z.number().int()).max(100).optional(),
});

/** Input fields of a requested position common to carts and orders. */
export const positionFields = {
  item: z.number().int(),
  variation: z.number().int().nullable().optional(),
  price: money().nullable().optional(),
  seat: z.string().trim().min(1).max(190).nullable().optional(),
  attendee_name: z.string().max(255).nullable().optional(),
  attendee_name_parts: z.record(z.string().max(50), z.string().max(255)).optional(),
  attendee_email: email().nullable().optional(),
  subevent: z.number().int().nullable().optional(),
  voucher: z.string().trim().max(255).nullable().optional(),
  answers: z.array(answerInput).max(200).optional(),
};

export type PositionInput = {
  item: number;
  variation?: number | null;
  price?: Cents | null;
  seat?: string | null;
  attendee_name?: string | null;
  attendee_name_parts?: Record<string, string>;
  attendee_email?: string | null;
  subevent?: number | null;
  voucher?: string | null;
  answers?: AnswerInput[];
};

export type PreparedPosition = {
  index: number;
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  seat: SeatRow | null;
  voucher: VoucherRow | null;
  attendeeNameParts: NameParts;
  attendeeName: string | null;
  attendeeEmail: string | null;
  answers: Answer[];
  price: Taxed;
  explicitPrice: boolean;
  isAddon: boolean;
  isBundled: boolean;
  demand: Demand;
};

/** The row of a prepared position; what differs between order creation and an order change is `at`. */
export function positionInsert(
  p: PreparedPosition,
  eventId: number,
  at: {
    positionid: number;
    secret: string;
    addonToPositionid: number | null;
    voucherId: number | null;
    validity: Validity;
  },
): PositionInsert {
  return {
    eventId,
    positionid: at.positionid,
    itemId: p.itemId,
    variationId: p.variationId,
    subeventId: p.subeventId,
    price: p.price.gross,
    attendeeName: p.attendeeName,
    attendeeNameParts: p.attendeeNameParts,
    attendeeEmail: p.attendeeEmail,
    voucherId: at.voucherId,
    taxRate: p.price.taxRate,
    taxValue: p.price.taxValue,
    taxRuleId: p.price.taxRuleId,
    secret: at.secret,
    addonToPositionid: at.addonToPositionid,
    isBundled: false,
    pseudonymizationId: newPseudonymizationId(),
    seat: p.seat?.seatGuid ?? null,
    seatId: p.seat?.id ?? null,
    seatName: p.seat ? seatName(p.seat) : null,
    answers: p.answers,
    canceled: false,
    ...at.validity,
  };
}

/** The seat's display name, as pretix builds it from zone, row and seat labels. */
export function seatName(s: SeatRow): string {
  const parts: string[] = [];
  if (s.zoneName) parts.push(s.zoneName);
  if (s.rowLabel) parts.push(s.rowLabel);
  else if (s.rowName) parts.push(`Row ${s.rowName}`);
  if (s.seatLabel) parts.push(s.seatLabel);
  else if (s.seatNumber) parts.push(`Seat ${s.seatNumber}`);
  return parts.join(", ") || s.seatGuid;
}

/** The seating plan and category mapping that apply to a position (the date's, else the event's). */
function seating(
  event: EventRow,
  sub: { seatingPlanId: number | null; seatCategoryMapping: Record<string, number | null> } | null,
) {
  if (sub && sub.seatingPlanId !== null) return { planId: sub.seatingPlanId, mapping: sub.seatCategoryMapping };
  if (!sub && event.seatingPlanId !== null) return { planId: event.seatingPlanId, mapping: event.seatCategoryMapping };
  return null;
}

/** The texts pretix's order and cart serializers use for a voucher that does not fit the position. */
const ORDER_TEXTS = {
  voucherUnknown: (code: string) => `Object with code=${code} does not exist.`,
  voucherProduct: "This voucher is not valid for this product.",
  voucherDate: "This voucher is not valid for this event date.",
  voucherSeat: "This voucher is not valid for this seat.",
};
const CART_TEXTS: typeof ORDER_TEXTS = {
  voucherUnknown: () => "The specified voucher does not exist.",
  voucherProduct: "The specified voucher is not valid for the given item and variation.",
  voucherDate: "The specified voucher is not valid for this subevent.",
  voucherSeat: "The specified voucher is not valid for this seat.",
};

/** What a position is prepared with: `kind` says whether the price is required (carts) or computed when missing (orders). */
type PrepareContext = {
  event: EventRow;
  catalog: SalesCatalog;
  kind: "cart" | "order";
  isAddon: boolean;
  isBundled: boolean;
  now: number;
};

/**
 * Prepares one position. Returns the prepared position, or null after adding this position's
 * field errors to `problems` (the collector of the position's object: an order nests one per
 * position under "positions", a cart collects its base position's at the top level).
 */
export function preparePosition(
  input: PositionInput,
  index: number,
  ctx: PrepareContext,
  problems: Problems,
): PreparedPosition | null {
  const { event, catalog } = ctx;
  // this position's own errors, taken over by `problems` when there are any
  const errors = new Problems();
  const item = catalog.items.get(input.item);
  if (!item) {
    const foreign = catalog.foreign.items.has(input.item);
    errors.add("item", foreign ? "The specified item does not belong to this event." : invalidPk(input.item));
    problems.merge(errors.errors);
    return null;
  }
  if (!item.active) errors.add("item", "The specified item is not active.");
  const variation = variationOf(input, item, ctx, errors);
  const sub = subeventOf(input, ctx, errors);
  const overrides = {
    item: sub ? catalog.subeventItemPrice.get(`${sub.id}:${item.id}`) : undefined,
    variation: sub && variation ? catalog.subeventVariationPrice.get(`${sub.id}:${variation.id}`) : undefined,
  };
  if (sub && (overrides.item?.disabled || overrides.variation?.disabled))
    errors.add("item", `The product "${i18nText(item.name)}" is not available on this date.`);
  const seat = seatOf(input, item, sub, ctx, errors);
  const voucher = voucherOf(input, { item, variation, sub }, ctx, errors);
  const parts = namePartsOf(input, ctx.kind, errors);
  const answers = validateAnswers(input.answers ?? [], item.id, catalog, errors);
  if (ctx.kind === "cart" && (input.price === undefined || input.price === null))
    errors.add("price", "This field is required.");
  if (errors.has()) {
    problems.merge(errors.errors);
    return null;
  }
  const explicitPrice = input.price !== undefined && input.price !== null;
  const ids = { itemId: item.id, variationId: variation?.id ?? null, subeventId: sub?.id ?? null };
  return {
    index,
    ...ids,
    seat,
    voucher,
    attendeeNameParts: parts,
    attendeeName: buildName(parts),
    attendeeEmail: input.attendee_email ?? null,
    answers,
    price: priceOf(input.price ?? null, { item, variation, voucher, overrides }, event, catalog),
    explicitPrice,
    isAddon: ctx.isAddon,
    isBundled: ctx.isBundled,
    demand: { ...ids, seat: seat?.seatGuid ?? null, voucherId: voucher?.id ?? null },
  };
}

/** The position's variation (a cart reports its errors for the position as a whole, as pretix's cart serializer does). */
function variationOf(input: PositionInput, item: ItemRow, ctx: PrepareContext, errors: Problems): VariationRow | null {
  const field = ctx.kind === "order" ? "variation" : "non_field_errors";
  const given = input.variation !== undefined && input.variation !== null;
  if (!item.hasVariations) {
    if (given) errors.add(field, "You cannot specify a variation for this item.");
    return null;
  }
  if (!given) {
    errors.add(field, "You should specify a variation for this item.");
    return null;
  }
  const variation = ctx.catalog.variations.get(input.variation!) ?? null;
  if (!variation || variation.itemId !== item.id)
    errors.add(field, "The specified variation does not belong to the specified item.");
  return variation;
}

/** The position's date: required in an event series, refused otherwise. */
function subeventOf(input: PositionInput, { event, catalog }: PrepareContext, errors: Problems): SubeventRow | null {
  const given = input.subevent !== undefined && input.subevent !== null;
  if (!event.hasSubevents) {
    if (given) errors.add("subevent", "You cannot set a subevent for this event.");
    return null;
  }
  if (!given) {
    errors.add("subevent", "You need to set a subevent.");
    return null;
  }
  const sub = catalog.subevents.get(input.subevent!) ?? null;
  if (!sub) {
    const foreign = catalog.foreign.subevents.has(input.subevent!);
    errors.add(
      "subevent",
      foreign ? "The specified subevent does not belong to this event." : invalidPk(input.subevent!),
    );
  }
  return sub;
}

/** The position's seat: required when the product is mapped to a category of the seating plan, refused otherwise. */
function seatOf(
  input: PositionInput,
  item: ItemRow,
  sub: SubeventRow | null,
  { event, catalog }: PrepareContext,
  errors: Problems,
): SeatRow | null {
  const plan = seating(event, sub);
  const categories = plan
    ? Object.entries(plan.mapping)
        .filter(([, id]) => id === item.id)
        .map(([cat]) => cat)
    : [];
  if (categories.length === 0) {
    if (input.seat) errors.add("seat", "The specified product does not allow to choose a seat.");
    return null;
  }
  if (!input.seat) {
    errors.add("seat", "The specified product requires to choose a seat.");
    return null;
  }
  const seat = catalog.seats.get(`${plan!.planId}:${input.seat}`) ?? null;
  if (!seat) errors.add("seat", "The specified seat does not exist.");
  else if (!categories.includes(seat.category))
    errors.add("seat", "The specified seat ID is not available for the given product.");
  return seat;
}

/** The position's voucher, if it fits the product, date and seat (its usages and expiry are the event object's decision, at the moment it decides). */
function voucherOf(
  input: PositionInput,
  { item, variation, sub }: { item: ItemRow; variation: VariationRow | null; sub: SubeventRow | null },
  ctx: PrepareContext,
  errors: Problems,
): VoucherRow | null {
  if (!input.voucher) return null;
  const texts = ctx.kind === "order" ? ORDER_TEXTS : CART_TEXTS;
  const voucher = ctx.catalog.vouchers.get(input.voucher.toLowerCase()) ?? null;
  if (!voucher) {
    errors.add("voucher", texts.voucherUnknown(input.voucher));
    return null;
  }
  const misfit = voucherMisfit(voucher, {
    itemId: item.id,
    variationId: variation?.id ?? null,
    subeventId: sub?.id ?? null,
    seat: input.seat ?? null,
  });
  if (misfit === "product") errors.add("voucher", texts.voucherProduct);
  else if (misfit === "date") errors.add("voucher", texts.voucherDate);
  else if (misfit === "seat") errors.add("voucher", texts.voucherSeat);
  return voucher;
}

/** Why a voucher does not fit a position (its product, date or seat), or null when it fits. */
export function voucherMisfit(
  voucher: Pick<VoucherRow, "itemId" | "variationId" | "subeventId" | "seat">,
  p: { itemId: number; variationId: number | null; subeventId: number | null; seat: string | null },
): "product" | "date" | "seat" | null {
  if (
    (voucher.itemId !== null && voucher.itemId !== p.itemId) ||
    (voucher.variationId !== null && voucher.variationId !== p.variationId)
  )
    return "product";
  if (voucher.subeventId !== null && voucher.subeventId !== p.subeventId) return "date";
  if (voucher.seat !== null && voucher.seat !== p.seat) return "seat";
  return null;
}

/** The attendee's name parts: pretix adds the name scheme to an order's, and keeps a cart's as sent. */
function namePartsOf(input: PositionInput, kind: "cart" | "order", errors: Problems): NameParts {
  const sentParts = input.attendee_name_parts && Object.keys(input.attendee_name_parts).length > 0;
  if (input.attendee_name && sentParts)
    errors.add("attendee_name", "Do not specify attendee_name if you specified attendee_name_parts.");
  if (sentParts) return kind === "order" ? withScheme(input.attendee_name_parts!) : input.attendee_name_parts!;
  return input.attendee_name ? { _legacy: input.attendee_name } : {};
}

/** What a position's price is computed from: the product, the voucher and the date's price overrides. */
export type PricedProduct = {
  item: ItemRow;
  variation: VariationRow | null;
  voucher: VoucherRow | null;
  overrides: { item?: { price: Cents | null }; variation?: { price: Cents | null } };
};

/** The position's price with its tax: the given price (gross), else the listed price after the voucher. */
function priceOf(given: Cents | null, p: PricedProduct, event: EventRow, catalog: SalesCatalog): Taxed {
  const rule = p.item.taxRuleId !== null ? (catalog.taxRules.get(p.item.taxRuleId) ?? null) : null;
  if (given !== null) return tax(given, rule, event.currency, true);
  return catalogPrice(p, event, catalog);
}

/**
 * The price a position is sold at when no price is given (orders, the hosted shop's carts and
 * its catalog): the listed price (date overrides first) after the voucher, with its tax.
 */
export function catalogPrice(p: PricedProduct, event: EventRow, catalog: SalesCatalog): Taxed {
  const rule = p.item.taxRuleId !== null ? (catalog.taxRules.get(p.item.taxRuleId) ?? null) : null;
  let base = listedPrice({
    itemPrice: p.item.defaultPrice,
    variationPrice: p.variation?.defaultPrice ?? null,
    subeventItemPrice: p.overrides.item?.price ?? null,
    subeventVariationPrice: p.overrides.variation?.price ?? null,
    hasVariation: p.variation !== null,
  });
  if (p.voucher) base = applyVoucher(base, p.voucher.priceMode, p.voucher.value, event.currency);
  return tax(base, rule, event.currency, false);
}

/** Applies automatic discounts to the computed (not client-given) prices of an order. */
export function discountPositions(
  positions: PreparedPosition[],
  catalog: SalesCatalog,
  ctx: { now: number; salesChannel: string; currency: string },
): void {
  const lines = positions
    .filter((p) => !p.explicitPrice)
    .map((p) => ({
      index: p.index,
      itemId: p.itemId,
      subeventId: p.subeventId,
      price: p.price.gross,
      isAddon: p.isAddon,
      isBundled: p.isBundled,
      voucherDiscounted: p.voucher !== null && p.voucher.priceMode !== "none",
    }));
  const discounted = applyDiscounts(catalog.discounts, lines, ctx);
  for (const p of positions) {
    const price = discounted.get(p.index);
    if (price === undefined) continue;
    const rule = p.price.taxRuleId !== null ? (catalog.taxRules.get(p.price.taxRuleId) ?? null) : null;
    p.price = tax(price, rule, ctx.currency, true);
  }
}

/** The refs a set of positions needs from the catalog. */
export function collectRefs(inputs: PositionInput[]) {
  return {
    itemIds: inputs.map((p) => p.item).filter((x) => Number.isInteger(x)),
    variationIds: inputs.map((p) => p.variation).filter((x): x is number => typeof x === "number"),
    subeventIds: inputs.map((p) => p.subevent).filter((x): x is number => typeof x === "number"),
    voucherCodes: inputs.map((p) => p.voucher).filter((x): x is string => typeof x === "string" && x !== ""),
    questionIds: inputs.flatMap((p) => (p.answers ?? []).map((a) => a.question)),
    seatGuids: inputs.map((p) => p.seat).filter((x): x is string => typeof x === "string" && x !== ""),
  };
}
