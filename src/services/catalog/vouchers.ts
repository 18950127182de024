/**
 * Vouchers (docs/api.md, pretix docs vouchers.rst; `price_mode` none / set / subtract /
 * percent): the input, pretix's validation rules, and the services that create, change and
 * delete vouchers. A voucher created without `code` gets one as pretix makes them. Every write
 * goes through the event object, which checks that a quota-blocking voucher fits into its
 * quotas and that a seat it reserves is free; an object that cannot serve the change in time
 * fails with `busy` (409, retry later).
 */
import { z } from "zod";
import { isUniqueError } from "../../db/constraints";
import { PRICE_MODES, VOUCHER_CODE_INDEX } from "../../db/schema/index";
import {
  existingCodes,
  findVoucher,
  findVouchersById,
  findVoucherWithStamp,
  voucherChecks,
  type VoucherRefs,
  type VoucherRow,
} from "../../db/vouchers";
import { type Answer, withEventObject } from "../../objects/client";
import type {
  CreateVouchersResult,
  DeleteVoucherResult,
  UpdateVoucherResult,
  VoucherColumns,
} from "../../objects/event/types";
import type { ChangeMode, EventContext } from "../context";
import { readAfterWrite, survivingD1Faults } from "../faults";
import { randomString } from "../../lib/crypto";
import { Failure, type FieldErrors, inUse, invalidPk, notFound, Problems, validationError } from "../../lib/failure";
import { i18nText } from "../../lib/i18n";
import { dateTime, decimal } from "../../rules/fields";
import type { Refusal } from "../../rules/inventory/index";

const voucherFields = z.object({
  code: z
    .string()
    .trim()
    .min(5, { message: "Ensure this field has at least 5 characters." })
    .max(255)
    .regex(/^[^\s]+$/, { message: "The voucher code may not contain whitespace." }),
  max_usages: z.number().int().min(1),
  min_usages: z.number().int().min(1),
  valid_until: dateTime().nullable(),
  block_quota: z.boolean(),
  allow_ignore_quota: z.boolean(),
  price_mode: z.enum(PRICE_MODES),
  value: decimal({ min: 0 }),
  item: z.number().int().nullable(),
  variation: z.number().int().nullable(),
  quota: z.number().int().nullable(),
  seat: z.string().trim().min(1).max(190).nullable(),
  tag: z.string().max(255),
  comment: z.string(),
  subevent: z.number().int().nullable(),
  show_hidden_items: z.boolean(),
});

/** POST: every field optional; without `code` the voucher gets a generated one (pretix's). */
export const voucherCreateInput = voucherFields.partial();
/** PUT: `code` required, every other field reset to its default when omitted. */
export const voucherInput = voucherFields.partial().required({ code: true });
/** PATCH: only the sent fields change. */
export const voucherPatch = voucherFields.partial();
/** batch_create: a list of vouchers, created atomically. */
export const voucherBatchInput = z.array(voucherCreateInput).min(1).max(1000);
export type VoucherCreateInput = z.output<typeof voucherCreateInput>;
export type VoucherInput = z.output<typeof voucherInput>;
export type VoucherPatch = z.output<typeof voucherPatch>;

/** pretix's generated voucher codes (also the waiting list's): 16 characters of capitals and digits without look-alikes (no I, J, O, 0, 1). */
const CODE_ALPHABET = "ABCDEFGHKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 16;
export const generatedCode = () => randomString(CODE_LENGTH, CODE_ALPHABET);

type FullVoucher = z.output<typeof voucherFields>;

const DEFAULTS: Omit<FullVoucher, "code"> = {
  max_usages: 1,
  min_usages: 1,
  valid_until: null,
  block_quota: false,
  allow_ignore_quota: false,
  price_mode: "none",
  value: 0,
  item: null,
  variation: null,
  quota: null,
  seat: null,
  tag: "",
  comment: "",
  subevent: null,
  show_hidden_items: true,
};

const CODE_TAKEN = "A voucher with this code already exists.";
const CODE_TWICE = "Duplicate voucher code in request.";
const SEAT_TWICE = "Duplicate seat ID in request.";
const REDEEMED = "This voucher can not be deleted as it has already been used.";

function fromRow(v: VoucherRow): FullVoucher {
  return {
    code: v.code,
    max_usages: v.maxUsages,
    min_usages: v.minUsages,
    valid_until: v.validUntil,
    block_quota: v.blockQuota,
    allow_ignore_quota: v.allowIgnoreQuota,
    price_mode: v.priceMode,
    value: v.value,
    item: v.itemId,
    variation: v.variationId,
    quota: v.quotaId,
    seat: v.seat,
    tag: v.tag,
    comment: v.comment,
    subevent: v.subeventId,
    show_hidden_items: v.showHiddenItems,
  };
}

function columns(v: FullVoucher): VoucherColumns {
  return {
    code: v.code,
    maxUsages: v.max_usages,
    minUsages: v.min_usages,
    validUntil: v.valid_until,
    blockQuota: v.block_quota,
    allowIgnoreQuota: v.allow_ignore_quota,
    priceMode: v.price_mode,
    value: v.value,
    itemId: v.item,
    variationId: v.variation,
    quotaId: v.quota,
    seat: v.seat,
    tag: v.tag,
    comment: v.comment,
    subeventId: v.subevent,
    showHiddenItems: v.show_hidden_items,
  };
}

/** The ids of the catalog objects that `list` refers to. */
function refIds(list: FullVoucher[]) {
  const ids = (pick: (v: FullVoucher) => number | null) => list.map(pick).filter((id): id is number => id !== null);
  return {
    itemIds: ids((v) => v.item),
    variationIds: ids((v) => v.variation),
    quotaIds: ids((v) => v.quota),
    subeventIds: ids((v) => v.subevent),
    seatGuids: list.map((v) => v.seat).filter((seat): seat is string => seat !== null),
  };
}

/** The rules that span fields and the event's catalog (pretix's voucher validation). */
function validateVoucher(
  ctx: EventContext,
  v: FullVoucher,
  refs: VoucherRefs,
  errors: Problems,
  opts: { redeemed?: number } = {},
): void {
  const { event } = ctx;
  if (v.min_usages > v.max_usages)
    errors.add("min_usages", "The minimum number of usages may not be higher than the maximum number of usages.");
  if (opts.redeemed !== undefined && v.max_usages < opts.redeemed) {
    errors.add("max_usages", "This voucher has already been redeemed more often than this number.");
  }
  if (v.price_mode === "percent" && v.value > 10000) errors.add("value", "A percentage may not be higher than 100.");
  if (v.quota !== null && (v.item !== null || v.variation !== null)) {
    errors.add("quota", "You cannot select a quota and a specific product at the same time.");
  }
  if (v.variation !== null && v.item === null)
    errors.add("variation", "You cannot select a variation without a product.");
  let itemHasVariations = false;
  if (v.item !== null) {
    const item = refs.items.get(v.item);
    if (!item) errors.add("item", invalidPk(v.item));
    else {
      itemHasVariations = item.hasVariations;
      if (item.onlyAddOn) errors.add("item", ONLY_ADD_ON);
    }
    if (v.variation !== null) {
      const variation = refs.variations.get(v.variation);
      if (!variation || variation.itemId !== v.item)
        errors.add("variation", "This variation does not belong to the selected product.");
    }
  }
  let quotaSubevent: number | null = null;
  if (v.quota !== null) {
    const q = refs.quotas.get(v.quota);
    if (!q) errors.add("quota", invalidPk(v.quota));
    else quotaSubevent = q.subeventId;
  }
  if (v.subevent !== null) {
    if (!event.hasSubevents) errors.add("subevent", "You cannot set a subevent if the event is not an event series.");
    else if (!refs.subevents.has(v.subevent)) errors.add("subevent", invalidPk(v.subevent));
    else if (v.quota !== null && quotaSubevent !== null && quotaSubevent !== v.subevent)
      errors.add("quota", "The quota belongs to another date.");
  }
  if (v.block_quota) {
    if (v.item === null && v.quota === null)
      errors.add(
        "block_quota",
        "You need to select a specific product or quota if this voucher should reserve tickets.",
      );
    if (v.item !== null && itemHasVariations && v.variation === null) {
      errors.add(
        "block_quota",
        "You need to select a specific variation if this voucher should reserve tickets of a product with variations.",
      );
    }
    if (event.hasSubevents && v.subevent === null && v.quota === null)
      errors.add("block_quota", "If you want this voucher to block quota, you need to select a specific date.");
  }
  if (v.seat !== null) validateSeat(ctx, v, v.seat, refs, errors);
}

const ONLY_ADD_ON =
  "You cannot select a product that is only available as an add-on product or as part of a bundle, since vouchers cannot be applied to add-on products or bundled products.";

/**
 * A seat of the seating plan that applies (the date's in a series, which needs a date; else the
 * event's), for the voucher's product, and for one usage (pretix's `clean_seat_id`). Whether it
 * is free the event object decides.
 */
function validateSeat(ctx: EventContext, v: FullVoucher, guid: string, refs: VoucherRefs, errors: Problems): void {
  const { event } = ctx;
  let plan: { planId: number; mapping: Record<string, number | null> } | null = null;
  if (event.hasSubevents) {
    if (v.subevent === null) {
      errors.add("seat", "You need to choose a date if you select a seat.");
      return;
    }
    const sub = refs.subevents.get(v.subevent);
    // an unknown date is reported on `subevent`
    if (!sub) return;
    if (sub.seatingPlanId !== null) plan = { planId: sub.seatingPlanId, mapping: sub.seatCategoryMapping };
  } else if (event.seatingPlanId !== null) {
    plan = { planId: event.seatingPlanId, mapping: event.seatCategoryMapping };
  }
  const seat = plan && refs.seats.get(`${plan.planId}:${guid}`);
  if (!plan || !seat) {
    errors.add("seat", `The specified seat ID "${guid}" does not exist for this event.`);
    return;
  }
  if (v.item === null) errors.add("seat", "You need to choose a specific product if you select a seat.");
  if (v.max_usages > 1 || v.min_usages > 1) errors.add("seat", "Seat-specific vouchers can only be used once.");
  const product = plan.mapping[seat.category] ?? null;
  if (v.item !== null && product !== v.item) {
    const name = product !== null ? refs.seatProducts.get(product) : undefined;
    errors.add(
      "seat",
      name
        ? `You need to choose the product "${i18nText(name)}" for this seat.`
        : "The specified seat ID is not available for the given product.",
    );
  }
}

/** The field errors of a voucher the event object refused: a block that does not fit, a seat that is taken. */
function refusalErrors(refusals: Refusal[]): FieldErrors {
  const errors = new Problems();
  for (const r of refusals) {
    if (r.code === "quota")
      errors.add(
        "block_quota",
        `There is not enough quota available to block tickets for this voucher (quota ${r.quotaId}: ${r.available} left).`,
      );
    else if (r.code === "seat_taken")
      errors.add(
        "seat",
        r.heldBy === "cart"
          ? `The seat "${r.seat}" is already sold or currently blocked.`
          : `The seat "${r.seat}" is currently unavailable (blocked, already sold or a different voucher).`,
      );
    else errors.add("block_quota", "The voucher could not be reserved.");
  }
  return errors.errors;
}

/**
 * The one place a voucher code race is translated: a code taken by a write that passed the
 * check at the same time makes the database refuse (unique index on event and code); the
 * object's call then answers `CODE_RACE` instead of failing as busy. Codes differing only in
 * case are the same code (the index is on the event and the lower-cased code).
 */
const CODE_RACE = { ok: false, codeTaken: true } as const;
async function codeRace<T>(call: () => Promise<Answer<T>>): Promise<Answer<T | typeof CODE_RACE>> {
  try {
    return await call();
  } catch (e) {
    // the unique index is on the lower-cased code: SQLite names the index, not the column
    if (isUniqueError(e, VOUCHER_CODE_INDEX)) return { value: CODE_RACE, bookmark: null };
    throw e;
  }
}

/**
 * Creates vouchers atomically (codes unique within the list and the event, seats once in the
 * list, each valid, all quota blocks fitting and seats free) or none; a voucher without `code`
 * gets a generated one (~79 random bits: a clash with an existing code is not to be expected,
 * and would be answered as any taken code). `fail` shapes the field errors, one per input.
 */
async function create(
  ctx: EventContext,
  inputs: VoucherCreateInput[],
  fail: (errors: FieldErrors[]) => Failure,
): Promise<VoucherRow[]> {
  const { db, event, now } = ctx;
  const full = inputs.map((i): FullVoucher => ({ ...DEFAULTS, ...i, code: i.code ?? generatedCode() }));
  const { taken, refs, stamp } = await voucherChecks(db, event.id, {
    codes: full.map((v) => v.code),
    ids: refIds(full),
  });
  const codes = new Set<string>();
  const seats = new Set<string>();
  const problems = full.map((v) => {
    const errors = new Problems();
    validateVoucher(ctx, v, refs, errors);
    const lower = v.code.toLowerCase();
    if (taken.has(lower)) errors.add("code", CODE_TAKEN);
    // within the request, as pretix: a seat given twice (on the same date) is reported instead of its code
    const seat = v.seat !== null ? `${v.subevent ?? ""}:${v.seat}` : null;
    if (seat !== null && seats.has(seat)) errors.add("code", SEAT_TWICE);
    else if (codes.has(lower)) errors.add("code", CODE_TWICE);
    if (seat !== null) seats.add(seat);
    codes.add(lower);
    return errors;
  });
  if (problems.some((p) => p.has())) throw fail(problems.map((p) => p.errors));
  const rows = full.map((v) => ({ ...columns(v), eventId: event.id, redeemed: 0, createdAt: now }));
  const result = await withEventObject<CreateVouchersResult | typeof CODE_RACE>(
    ctx.env,
    event.id,
    (s, call) => codeRace(() => s.createVouchers(call, stamp, rows)),
    409,
  );
  if ("codeTaken" in result) {
    const nowTaken = await existingCodes(
      db,
      event.id,
      full.map((v) => v.code),
    );
    if (!full.some((v) => nowTaken.has(v.code.toLowerCase())))
      throw new Failure("busy", "The codes changed meanwhile. Retry in a moment.");
    throw fail(full.map((v): FieldErrors => (nowTaken.has(v.code.toLowerCase()) ? { code: [CODE_TAKEN] } : {})));
  }
  if (!result.ok) throw fail(full.map((_, i) => (i === result.index ? refusalErrors(result.refusals) : {})));
  return readAfterWrite(() => findVouchersById(db, event.id, result.ids));
}

/** Creates one voucher (POST). */
export const createVoucher = survivingD1Faults(async function createVoucher(
  ctx: EventContext,
  input: VoucherCreateInput,
): Promise<VoucherRow> {
  const [row] = await create(ctx, [input], (errors) => validationError(errors[0]!));
  return row!;
});

/** Creates a list of vouchers atomically (batch_create); field errors come as a list, one per input. */
export const createVouchers = survivingD1Faults(async function createVouchers(
  ctx: EventContext,
  inputs: VoucherCreateInput[],
): Promise<VoucherRow[]> {
  return create(ctx, inputs, (errors) => validationError(errors));
});

/** PUT (`put`: omitted fields reset to their defaults) or PATCH (omitted fields kept) of a voucher. */
export const changeVoucher = survivingD1Faults(async function changeVoucher(
  ctx: EventContext,
  id: number,
  input: VoucherPatch,
  mode: ChangeMode,
): Promise<VoucherRow> {
  const { db, event } = ctx;
  const current = await findVoucher(db, event.id, id);
  if (!current) throw notFound();
  const next: FullVoucher =
    mode === "put" ? { ...DEFAULTS, ...(input as VoucherInput) } : { ...fromRow(current), ...input };
  const codeChanged = next.code.toLowerCase() !== current.code.toLowerCase();
  const { taken, refs, stamp } = await voucherChecks(db, event.id, {
    codes: codeChanged ? [next.code] : [],
    exceptId: current.id,
    ids: refIds([next]),
  });
  const errors = new Problems();
  validateVoucher(ctx, next, refs, errors, { redeemed: current.redeemed });
  if (taken.size) errors.add("code", CODE_TAKEN);
  errors.throwIfAny();
  const result = await withEventObject<UpdateVoucherResult | typeof CODE_RACE>(
    ctx.env,
    event.id,
    (s, call) => codeRace(() => s.updateVoucher(call, stamp, current.id, columns(next))),
    409,
  );
  if ("codeTaken" in result) throw validationError({ code: [CODE_TAKEN] });
  if (!result.ok) {
    if (result.refusals.some((r) => r.code === "voucher_unknown")) throw notFound();
    throw validationError(refusalErrors(result.refusals));
  }
  return (await readAfterWrite(() => findVoucher(db, event.id, current.id)))!;
});

/** Deletes a voucher that was never redeemed (403 otherwise, also when an order redeems it meanwhile). */
export const deleteVoucher = survivingD1Faults(async function deleteVoucher(
  ctx: EventContext,
  id: number,
): Promise<void> {
  const { voucher, stamp } = await findVoucherWithStamp(ctx.db, ctx.event.id, id);
  if (!voucher) throw notFound();
  if (voucher.redeemed > 0) throw inUse(REDEEMED);
  const result = await withEventObject<DeleteVoucherResult>(
    ctx.env,
    ctx.event.id,
    (s, call) => s.deleteVoucher(call, stamp, voucher.id),
    409,
  );
  if (!result.ok) throw inUse(REDEEMED);
});
