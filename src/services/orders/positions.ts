/**
 * Turns requested positions (of a cart or an order) into prepared positions: checked against
 * the catalog (item, variation, date, seat, voucher, answers), priced (listed price, voucher,
 * tax; discounts for orders) and described as demands for the event object. Errors are
 * collected per position and field, in the shape of the request.
 */
import { z } from "zod";
import type { SeatRow, VoucherRow } from "../../db/sales-catalog";
import type { PositionInsert } from "../../db/inventory";
import type { Validity } from "../../rules/checkin";
import { newPseudonymizationId } from "../../rules/orders";
import { email, money } from "../../rules/fields";
import type { SalesCatalog } from "./sales-catalog";
import type { Answer } from "../../db/schema/index";
import type { EventRow } from "../../db/tenancy";
import { type FieldErrors, invalidPk, Problems } from "../../lib/failure";
import { formatDate, parseDate, parseDateTime } from "../../lib/datetime";
import { i18nText } from "../../lib/i18n";
import { parseDecimal, type Cents } from "../../lib/money";
import type { Demand } from "../../rules/inventory/index";
import { buildName, withScheme, type NameParts } from "../../rules/person-names";
import { applyDiscounts, applyVoucher, listedPrice, tax, type Taxed } from "../../rules/pricing";
import { isCountryCode } from "../../lib/countries";

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

/** What pretix's answer serializer says about a value of the wrong form. */
const ANSWER_FORMATS = {
  date: "Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
  datetime:
    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
  time: "Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].",
};
const TRUE_ANSWERS = new Set(["true", "True", "1", "TRUE"]);
const FALSE_ANSWERS = new Set(["false", "False", "0", "FALSE"]);
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?$/;

/** A datetime answer as pretix stores it: Python's text of the moment in UTC ("2018-05-14 13:00:00+00:00"). */
function storedDateTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  const micro = ms % 1000 === 0 ? "" : `.${String(ms % 1000).padStart(3, "0")}000`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${micro}+00:00`;
}

/** A time answer as pretix stores it ("13:00" → "13:00:00"); null when it is none. */
function storedTime(text: string): string | null {
  const m = TIME.exec(text);
  if (!m) return null;
  const [, h, mi, sec, frac] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec ?? 0) > 59) return null;
  const fraction = frac && Number(frac) !== 0 ? `.${frac.padEnd(6, "0")}` : "";
  return `${h!.padStart(2, "0")}:${mi}:${sec ?? "00"}${fraction}`;
}

/**
 * Checks the answers of one position as pretix's answer serializer does, one error object per
 * answer (`{"question": [...]}` or `{"non_field_errors": [...]}`), and normalizes them as pretix
 * stores them (booleans as "True"/"False", choices as their options' texts, dates and times in
 * their canonical form).
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-orders (issue 36)
function validateAnswers(answers: AnswerInput[], itemId: number, catalog: SalesCatalog, errors: Problems): Answer[] {
  const out: Answer[] = [];
  const seen = new Set<number>();
  const perAnswer: FieldErrors[] = [];
  for (const a of answers) {
    const own: Record<string, string[]> = {};
    perAnswer.push(own);
    const refuse = (m: string, field = "non_field_errors") => {
      own[field] = [m];
    };
    const q = catalog.questions.get(a.question);
    if (!q) {
      refuse(
        catalog.foreign.questions.has(a.question)
          ? "The specified question does not belong to this event."
          : invalidPk(a.question),
        "question",
      );
      continue;
    }
    if (!q.itemIds.has(itemId)) {
      refuse("The specified question is not asked for this product.", "question");
      continue;
    }
    if (seen.has(a.question)) {
      refuse("The specified question was answered more than once.", "question");
      continue;
    }
    seen.add(a.question);
    const t = q.question.type;
    const text = (a.answer ?? "").trim();
    const opts = a.options ?? [];
    const answer = (value: string, options: number[] = [], identifiers: string[] = []) =>
      out.push({
        question: a.question,
        answer: value,
        options,
        question_identifier: q.question.identifier,
        option_identifiers: identifiers,
      });
    if (t === "C" || t === "M") {
      if (opts.length === 0) {
        refuse("You need to specify options if the question is of a choice type.");
        continue;
      }
      if (t === "C" && opts.length > 1) {
        refuse("You can specify at most one option for this question.");
        continue;
      }
      const chosen = opts.map((id) => q.options.get(id));
      if (chosen.some((o) => !o)) {
        refuse("The specified option does not belong to this question.");
        continue;
      }
      answer(
        chosen.map((o) => i18nText(o!.answer)).join(", "),
        opts,
        chosen.map((o) => o!.identifier),
      );
      continue;
    }
    if (opts.length) {
      refuse("You should not specify options if the question is not of a choice type.");
      continue;
    }
    switch (t) {
      case "F":
        refuse("File upload questions cannot be answered through this endpoint.");
        continue;
      case "N": {
        const n = parseDecimal(text, 6);
        if (n === null) {
          refuse("A valid number is required.");
          continue;
        }
        const min = q.question.validNumberMin !== null ? parseDecimal(q.question.validNumberMin, 6) : null;
        const max = q.question.validNumberMax !== null ? parseDecimal(q.question.validNumberMax, 6) : null;
        if ((min !== null && n < min) || (max !== null && n > max)) {
          refuse("The number is out of the allowed range.");
          continue;
        }
        answer(text);
        continue;
      }
      case "B":
        if (TRUE_ANSWERS.has(text)) answer("True");
        else if (FALSE_ANSWERS.has(text)) answer("False");
        else refuse('Please specify "true" or "false" for boolean questions.');
        continue;
      case "D": {
        const d = parseDate(text);
        if (!d) {
          refuse(ANSWER_FORMATS.date);
          continue;
        }
        const iso = formatDate(d);
        if (
          (q.question.validDateMin && iso < q.question.validDateMin) ||
          (q.question.validDateMax && iso > q.question.validDateMax)
        ) {
          refuse("The date is out of the allowed range.");
          continue;
        }
        answer(iso);
        continue;
      }
      case "H": {
        const time = storedTime(text);
        if (time === null) refuse(ANSWER_FORMATS.time);
        else answer(time);
        continue;
      }
      case "W": {
        const ms = parseDateTime(text);
        if (ms === null) {
          refuse(ANSWER_FORMATS.datetime);
          continue;
        }
        if (
          (q.question.validDatetimeMin !== null && ms < q.question.validDatetimeMin) ||
          (q.question.validDatetimeMax !== null && ms > q.question.validDatetimeMax)
        ) {
          refuse("The datetime is out of the allowed range.");
          continue;
        }
        answer(storedDateTime(ms));
        continue;
      }
      case "CC":
        if (!isCountryCode(text.toUpperCase())) refuse("Enter a valid country code.");
        else answer(text.toUpperCase());
        continue;
      default:
        if (text === "" && q.question.required) refuse("This field may not be blank.");
        else answer(text);
    }
  }
  errors.nest("answers", perAnswer);
  return out;
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

/**
 * Prepares one position. `kind` says whether the price is required (carts) or computed when
 * missing (orders). Returns the prepared position, or null after adding this position's field
 * errors to `problems` (the collector of the position's object: an order nests one per
 * position under "positions", a cart collects its base position's at the top level).
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-orders (issue 36)
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
  const texts = ctx.kind === "order" ? ORDER_TEXTS : CART_TEXTS;
  // this position's own errors, taken over by `problems` when there are any
  const errors = new Problems();
  const fail = () => {
    problems.merge(errors.errors);
    return null;
  };
  const item = catalog.items.get(input.item);
  if (!item) {
    errors.add(
      "item",
      catalog.foreign.items.has(input.item)
        ? "The specified item does not belong to this event."
        : invalidPk(input.item),
    );
    return fail();
  }
  if (!item.active) errors.add("item", "The specified item is not active.");
  const itemName = i18nText(item.name);
  // variation (a cart reports these for the position as a whole, as pretix's cart serializer does)
  const variationField = ctx.kind === "order" ? "variation" : "non_field_errors";
  let variation = null;
  if (item.hasVariations) {
    if (input.variation === undefined || input.variation === null)
      errors.add(variationField, "You should specify a variation for this item.");
    else {
      variation = catalog.variations.get(input.variation) ?? null;
      if (!variation || variation.itemId !== item.id)
        errors.add(variationField, "The specified variation does not belong to the specified item.");
    }
  } else if (input.variation !== undefined && input.variation !== null) {
    errors.add(variationField, "You cannot specify a variation for this item.");
  }
  // date
  let sub = null;
  if (event.hasSubevents) {
    if (input.subevent === undefined || input.subevent === null) errors.add("subevent", "You need to set a subevent.");
    else {
      sub = catalog.subevents.get(input.subevent) ?? null;
      if (!sub)
        errors.add(
          "subevent",
          catalog.foreign.subevents.has(input.subevent)
            ? "The specified subevent does not belong to this event."
            : invalidPk(input.subevent),
        );
    }
  } else if (input.subevent !== undefined && input.subevent !== null) {
    errors.add("subevent", "You cannot set a subevent for this event.");
  }
  const subOverride = sub ? catalog.subeventItemPrice.get(`${sub.id}:${item.id}`) : undefined;
  const subVarOverride = sub && variation ? catalog.subeventVariationPrice.get(`${sub.id}:${variation.id}`) : undefined;
  if (sub && (subOverride?.disabled || subVarOverride?.disabled))
    errors.add("item", `The product "${itemName}" is not available on this date.`);
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
  // voucher (its usages and expiry are the event object's decision, at the moment it decides)
  let voucher: VoucherRow | null = null;
  if (input.voucher) {
    voucher = catalog.vouchers.get(input.voucher.toLowerCase()) ?? null;
    if (!voucher) errors.add("voucher", texts.voucherUnknown(input.voucher));
    else if (
      (voucher.itemId !== null && voucher.itemId !== item.id) ||
      (voucher.variationId !== null && voucher.variationId !== (variation?.id ?? null))
    )
      errors.add("voucher", texts.voucherProduct);
    else if (voucher.subeventId !== null && voucher.subeventId !== (sub?.id ?? null))
      errors.add("voucher", texts.voucherDate);
    else if (voucher.seat !== null && voucher.seat !== (input.seat ?? null)) errors.add("voucher", texts.voucherSeat);
  }
  // attendee: pretix adds the name scheme to an order's name parts, and keeps a cart's as sent
  if (input.attendee_name && input.attendee_name_parts && Object.keys(input.attendee_name_parts).length) {
    errors.add("attendee_name", "Do not specify attendee_name if you specified attendee_name_parts.");
  }
  const parts: NameParts =
    input.attendee_name_parts && Object.keys(input.attendee_name_parts).length
      ? ctx.kind === "order"
        ? withScheme(input.attendee_name_parts)
        : input.attendee_name_parts
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
