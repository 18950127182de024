/**
 * Turns requested positions (of a cart or an order) into prepared positions: checked against
 * the catalog (item, variation, date, seat, voucher, answers), priced (listed price, voucher,
 * tax; discounts for orders) and described as demands for the event object. Errors are
 * collected per position and field, in the shape of the request.
 */
import { z } from "zod";
import type { SeatRow, VoucherRow } from "../db/sales-catalog";
import { email, money } from "../rules/fields";
import type { SalesCatalog } from "./sales-catalog";
import type { Answer } from "../db/schema";
import type { EventRow } from "../db/tenancy";
import { Problems } from "../lib/failure";
import { parseDate, parseDateTime } from "../lib/datetime";
import { parseDecimal, type Cents } from "../lib/money";
import type { Demand } from "../rules/inventory";
import { buildName, withScheme, type NameParts } from "../rules/person-names";
import { applyDiscounts, applyVoucher, listedPrice, tax, type Taxed } from "../rules/pricing";
import { isCountryCode } from "../lib/countries";

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

export type AnswerInput = { question: number; answer?: string; options?: number[] };

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

function validateAnswers(answers: AnswerInput[], itemId: number, catalog: SalesCatalog, errors: Problems): Answer[] {
  const out: Answer[] = [];
  const seen = new Set<number>();
  const messages: string[] = [];
  for (const a of answers) {
    const q = catalog.questions.get(a.question);
    if (!q) {
      messages.push(`Invalid pk "${a.question}" - object does not exist.`);
      continue;
    }
    if (!q.itemIds.has(itemId)) {
      messages.push(`Question ${a.question} is not asked for this product.`);
      continue;
    }
    if (seen.has(a.question)) {
      messages.push(`Question ${a.question} was answered more than once.`);
      continue;
    }
    seen.add(a.question);
    const t = q.question.type;
    const text = (a.answer ?? "").trim();
    const opts = a.options ?? [];
    const bad = (m: string) => messages.push(`Question ${a.question}: ${m}`);
    switch (t) {
      case "C":
      case "M": {
        if (opts.length === 0 || (t === "C" && opts.length !== 1)) {
          bad(t === "C" ? "Exactly one option needs to be chosen." : "At least one option needs to be chosen.");
          continue;
        }
        const chosen = opts.map((id) => q.options.get(id));
        if (chosen.some((o) => !o)) {
          bad("One of the chosen options does not belong to this question.");
          continue;
        }
        out.push({
          question: a.question,
          answer: text || chosen.map((o) => o!.answer.en ?? Object.values(o!.answer)[0] ?? "").join(", "),
          options: opts,
          question_identifier: q.question.identifier,
          option_identifiers: chosen.map((o) => o!.identifier),
        });
        continue;
      }
      case "F":
        bad("File upload questions cannot be answered through this endpoint.");
        continue;
      case "N": {
        const n = parseDecimal(text, 6);
        if (n === null) {
          bad("A valid number is required.");
          continue;
        }
        const min = q.question.validNumberMin !== null ? parseDecimal(q.question.validNumberMin, 6) : null;
        const max = q.question.validNumberMax !== null ? parseDecimal(q.question.validNumberMax, 6) : null;
        if ((min !== null && n < min) || (max !== null && n > max)) {
          bad("The number is out of the allowed range.");
          continue;
        }
        break;
      }
      case "B":
        if (!["True", "False", "true", "false"].includes(text)) {
          bad('Please answer "True" or "False".');
          continue;
        }
        out.push({
          question: a.question,
          answer: text.toLowerCase() === "true" ? "True" : "False",
          options: [],
          question_identifier: q.question.identifier,
          option_identifiers: [],
        });
        continue;
      case "D": {
        const d = parseDate(text);
        if (!d) {
          bad("Date has wrong format. Use YYYY-MM-DD.");
          continue;
        }
        const iso = text.slice(0, 10);
        if (
          (q.question.validDateMin && iso < q.question.validDateMin) ||
          (q.question.validDateMax && iso > q.question.validDateMax)
        ) {
          bad("The date is out of the allowed range.");
          continue;
        }
        break;
      }
      case "H":
        if (!/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/.test(text)) {
          bad("Time has wrong format. Use hh:mm[:ss].");
          continue;
        }
        break;
      case "W": {
        const ms = parseDateTime(text);
        if (ms === null) {
          bad("Datetime has wrong format.");
          continue;
        }
        if (
          (q.question.validDatetimeMin !== null && ms < q.question.validDatetimeMin) ||
          (q.question.validDatetimeMax !== null && ms > q.question.validDatetimeMax)
        ) {
          bad("The datetime is out of the allowed range.");
          continue;
        }
        break;
      }
      case "CC":
        if (!isCountryCode(text.toUpperCase())) {
          bad("Enter a valid country code.");
          continue;
        }
        out.push({
          question: a.question,
          answer: text.toUpperCase(),
          options: [],
          question_identifier: q.question.identifier,
          option_identifiers: [],
        });
        continue;
      default:
        if (text === "" && q.question.required) {
          bad("This field may not be blank.");
          continue;
        }
    }
    out.push({
      question: a.question,
      answer: text,
      options: [],
      question_identifier: q.question.identifier,
      option_identifiers: [],
    });
  }
  for (const m of messages) errors.add("answers", m);
  return out;
}

/**
 * Prepares one position. `kind` says whether the price is required (carts) or computed when
 * missing (orders). Returns the prepared position, or null after adding this position's field
 * errors to `problems` (the collector of the position's object: an order nests one per
 * position under "positions", a cart collects its base position's at the top level).
 */
export function preparePosition(
  input: PositionInput,
  index: number,
  ctx: {
    event: EventRow;
    catalog: SalesCatalog;
    kind: "cart" | "order";
    isAddon: boolean;
    isBundled: boolean;
    now: number;
  },
  problems: Problems,
): PreparedPosition | null {
  const { event, catalog } = ctx;
  // this position's own errors, taken over by `problems` when there are any
  const errors = new Problems();
  const fail = () => {
    problems.merge(errors.errors);
    return null;
  };
  const item = catalog.items.get(input.item);
  if (!item) {
    errors.add("item", `Invalid pk "${input.item}" - object does not exist.`);
    return fail();
  }
  // variation
  let variation = null;
  if (item.hasVariations) {
    if (input.variation === undefined || input.variation === null)
      errors.add("variation", "You should specify a variation for this item.");
    else {
      variation = catalog.variations.get(input.variation) ?? null;
      if (!variation || variation.itemId !== item.id)
        errors.add("variation", "The specified variation does not belong to the specified item.");
    }
  } else if (input.variation !== undefined && input.variation !== null) {
    errors.add("variation", "You cannot specify a variation for this item.");
  }
  // date
  let sub = null;
  if (event.hasSubevents) {
    if (input.subevent === undefined || input.subevent === null) errors.add("subevent", "You need to set a subevent.");
    else {
      sub = catalog.subevents.get(input.subevent) ?? null;
      if (!sub) errors.add("subevent", `Invalid pk "${input.subevent}" - object does not exist.`);
    }
  } else if (input.subevent !== undefined && input.subevent !== null) {
    errors.add("subevent", "You cannot set a subevent for this event.");
  }
  const subOverride = sub ? catalog.subeventItemPrice.get(`${sub.id}:${item.id}`) : undefined;
  const subVarOverride = sub && variation ? catalog.subeventVariationPrice.get(`${sub.id}:${variation.id}`) : undefined;
  if (sub && (subOverride?.disabled || subVarOverride?.disabled))
    errors.add("item", "The product is not available on this date.");
  // seat
  let seat: SeatRow | null = null;
  const plan = seating(event, sub);
  const categories = plan
    ? Object.entries(plan.mapping)
        .filter(([, id]) => id === item.id)
        .map(([cat]) => cat)
    : [];
  const seatRequired = categories.length > 0;
  if (seatRequired) {
    if (!input.seat) errors.add("seat", "The specified product requires to choose a seat.");
    else {
      seat = catalog.seats.get(`${plan!.planId}:${input.seat}`) ?? null;
      if (!seat) errors.add("seat", "The specified seat does not exist.");
      else if (!categories.includes(seat.category))
        errors.add("seat", "The specified seat ID is not available for the given product.");
    }
  } else if (input.seat) {
    errors.add("seat", "The specified product does not allow to choose a seat.");
  }
  // voucher
  let voucher: VoucherRow | null = null;
  if (input.voucher) {
    voucher = catalog.vouchers.get(input.voucher.toLowerCase()) ?? null;
    if (!voucher) errors.add("voucher", "Voucher code is not valid.");
    else {
      if (voucher.validUntil !== null && voucher.validUntil < ctx.now)
        errors.add("voucher", "The specified voucher has expired.");
      if (voucher.itemId !== null && voucher.itemId !== item.id)
        errors.add("voucher", "The specified voucher is not valid for this item.");
      if (voucher.variationId !== null && voucher.variationId !== (variation?.id ?? null))
        errors.add("voucher", "The specified voucher is not valid for this variation.");
      if (voucher.subeventId !== null && voucher.subeventId !== (sub?.id ?? null))
        errors.add("voucher", "The specified voucher is not valid for this date.");
      if (voucher.seat !== null && voucher.seat !== (input.seat ?? null))
        errors.add("voucher", "The specified voucher is not valid for this seat.");
    }
  }
  // attendee
  if (input.attendee_name && input.attendee_name_parts && Object.keys(input.attendee_name_parts).length) {
    errors.add("attendee_name", "Do not specify attendee_name if you specified attendee_name_parts.");
  }
  const parts: NameParts =
    input.attendee_name_parts && Object.keys(input.attendee_name_parts).length
      ? withScheme(input.attendee_name_parts)
      : input.attendee_name
        ? { _legacy: input.attendee_name }
        : {};
  // answers
  const answers = validateAnswers(input.answers ?? [], item.id, catalog, errors);
  // price
  if (ctx.kind === "cart" && (input.price === undefined || input.price === null))
    errors.add("price", "This field is required.");
  if (errors.has()) return fail();

  const rule = item.taxRuleId !== null ? (catalog.taxRules.get(item.taxRuleId) ?? null) : null;
  let price: Taxed;
  const explicitPrice = input.price !== undefined && input.price !== null;
  if (explicitPrice) {
    price = tax(input.price!, rule, event.currency, true);
  } else {
    let base = listedPrice({
      itemPrice: item.defaultPrice,
      variationPrice: variation?.defaultPrice ?? null,
      subeventItemPrice: subOverride?.price ?? null,
      subeventVariationPrice: subVarOverride?.price ?? null,
      hasVariation: variation !== null,
    });
    if (voucher) base = applyVoucher(base, voucher.priceMode, voucher.value, event.currency);
    price = tax(base, rule, event.currency, false);
  }
  return {
    index,
    itemId: item.id,
    variationId: variation?.id ?? null,
    subeventId: sub?.id ?? null,
    seat,
    voucher,
    attendeeNameParts: parts,
    attendeeName: buildName(parts),
    attendeeEmail: input.attendee_email ?? null,
    answers,
    price,
    explicitPrice,
    isAddon: ctx.isAddon,
    isBundled: ctx.isBundled,
    demand: {
      itemId: item.id,
      variationId: variation?.id ?? null,
      subeventId: sub?.id ?? null,
      seat: seat?.seatGuid ?? null,
      voucherId: voucher?.id ?? null,
    },
  };
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
