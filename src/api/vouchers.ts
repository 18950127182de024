/**
 * Vouchers (spec "Voucher", pretix docs vouchers.rst; `price_mode` none / set / subtract /
 * percent). Creation, change and deletion go through the event object, which checks that a
 * quota-blocking voucher fits into its quotas; an object that cannot serve the change in time
 * answers 409.
 */
import { Hono } from "hono";
import { z } from "zod";
import { PRICE_MODES, vouchers } from "../db/schema";
import {
  existingCodes,
  findVoucher,
  findVouchersById,
  voucherCount,
  voucherPage,
  type VoucherRefs,
  voucherRefs,
  type VoucherRow,
  voucherWhere,
} from "../db/vouchers";
import type { Refusal } from "../domain/inventory";
import { formatDecimal, parseDecimal } from "../lib/money";
import { toIso } from "../lib/datetime";
import { inventoryStamp, withEventObject } from "../objects/client";
import type { CreateVouchersResult, DeleteVoucherResult, UpdateVoucherResult } from "../objects/event-object";
import type { AppContext, AppEnv } from "../http/context";
import { type FieldErrors, fieldError, forbidden, notFound, validationError } from "../domain/failure";
import { dateTime, decimal } from "../domain/fields";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryInt, queryString } from "../http/validation";

export function serializeVoucher(v: VoucherRow) {
  return {
    id: v.id,
    code: v.code,
    max_usages: v.maxUsages,
    redeemed: v.redeemed,
    min_usages: v.minUsages,
    valid_until: toIso(v.validUntil),
    block_quota: v.blockQuota,
    allow_ignore_quota: v.allowIgnoreQuota,
    price_mode: v.priceMode,
    value: formatDecimal(v.value),
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

const voucherFields = z.object({
  code: z.string().trim().min(5, { message: "Ensure this field has at least 5 characters." }).max(255).regex(/^[^\s]+$/, { message: "The voucher code may not contain whitespace." }),
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
type VoucherInput = z.output<typeof voucherFields>;
const voucherFull = voucherFields.partial().required({ code: true });
const voucherPatch = voucherFields.partial();

const DEFAULTS = {
  max_usages: 1,
  min_usages: 1,
  valid_until: null,
  block_quota: false,
  allow_ignore_quota: false,
  price_mode: "none" as const,
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

type FullVoucher = VoucherInput;

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

function columns(v: FullVoucher) {
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

/** The catalog objects that `list` refers to, read in one batch. */
function refsOf(c: AppContext, list: FullVoucher[]): Promise<VoucherRefs> {
  const ids = (pick: (v: FullVoucher) => number | null) => list.map(pick).filter((id): id is number => id !== null);
  return voucherRefs(c.var.db, c.var.event.id, {
    itemIds: ids((v) => v.item),
    variationIds: ids((v) => v.variation),
    quotaIds: ids((v) => v.quota),
    subeventIds: ids((v) => v.subevent),
  });
}

/** The rules that span fields and the event's catalog (pretix's voucher validation). */
function validateVoucher(c: AppContext, v: FullVoucher, refs: VoucherRefs, opts: { redeemed?: number } = {}): FieldErrors | null {
  const event = c.var.event;
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (v.min_usages > v.max_usages) add("min_usages", "The minimum number of usages may not be higher than the maximum number of usages.");
  if (opts.redeemed !== undefined && v.max_usages < opts.redeemed) {
    add("max_usages", "This voucher has already been redeemed more often than this number.");
  }
  if (v.price_mode === "percent" && v.value > 10000) add("value", "A percentage may not be higher than 100.");
  if (v.quota !== null && (v.item !== null || v.variation !== null)) {
    add("quota", "You cannot select a quota and a specific product at the same time.");
  }
  if (v.variation !== null && v.item === null) add("variation", "You cannot select a variation without a product.");
  let itemHasVariations = false;
  if (v.item !== null) {
    const item = refs.items.get(v.item);
    if (!item) add("item", `Invalid pk "${v.item}" - object does not exist.`);
    else itemHasVariations = item.hasVariations;
    if (v.variation !== null) {
      const variation = refs.variations.get(v.variation);
      if (!variation || variation.itemId !== v.item) add("variation", "This variation does not belong to the selected product.");
    }
  }
  let quotaSubevent: number | null = null;
  if (v.quota !== null) {
    const q = refs.quotas.get(v.quota);
    if (!q) add("quota", `Invalid pk "${v.quota}" - object does not exist.`);
    else quotaSubevent = q.subeventId;
  }
  if (v.subevent !== null) {
    if (!event.hasSubevents) add("subevent", "You cannot set a subevent if the event is not an event series.");
    else if (!refs.subevents.has(v.subevent)) add("subevent", `Invalid pk "${v.subevent}" - object does not exist.`);
    else if (v.quota !== null && quotaSubevent !== null && quotaSubevent !== v.subevent) add("quota", "The quota belongs to another date.");
  }
  if (v.block_quota) {
    if (v.item === null && v.quota === null) add("block_quota", "You need to select a specific product or quota if this voucher should reserve tickets.");
    if (v.item !== null && itemHasVariations && v.variation === null) {
      add("block_quota", "You need to select a specific variation if this voucher should reserve tickets of a product with variations.");
    }
    if (event.hasSubevents && v.subevent === null && v.quota === null) add("block_quota", "If you want this voucher to block quota, you need to select a specific date.");
  }
  if (v.seat !== null) {
    if (v.item === null) add("seat", "You need to choose a specific product if you select a seat.");
    if (v.max_usages > 1) add("seat", "Seat-specific vouchers can only be used once.");
  }
  return Object.keys(errors).length ? errors : null;
}

function refusalErrors(refusals: Refusal[]): FieldErrors {
  const messages = refusals.map((r) =>
    r.code === "quota" ? `There is not enough quota available to block tickets for this voucher (quota ${r.quotaId}: ${r.available} left).` : "The voucher could not be reserved.",
  );
  return { block_quota: messages };
}

async function loadVoucher(c: AppContext) {
  const v = await findVoucher(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!v) throw notFound();
  return v;
}

export const voucherRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/vouchers";
const read = eventScope("can_view_vouchers");
const write = eventScope("can_change_vouchers");

voucherRoutes.get(base, read, async (c) => {
  const db = c.var.db;
  const page = pageRequest(c);
  const priceMode = queryString(c, "price_mode");
  if (priceMode !== undefined && !(PRICE_MODES as readonly string[]).includes(priceMode)) {
    throw fieldError("price_mode", `Select a valid choice. ${priceMode} is not one of the available choices.`);
  }
  const rawValue = queryString(c, "value");
  const value = rawValue === undefined ? undefined : parseDecimal(rawValue);
  if (value === null) throw fieldError("value", "Enter a number.");
  const where = voucherWhere(c.var.event.id, {
    code: queryString(c, "code"),
    maxUsages: queryInt(c, "max_usages"),
    redeemed: queryInt(c, "redeemed"),
    blockQuota: queryBool(c, "block_quota"),
    allowIgnoreQuota: queryBool(c, "allow_ignore_quota"),
    priceMode: priceMode as (typeof PRICE_MODES)[number] | undefined,
    value,
    itemId: queryInt(c, "item"),
    variationId: queryInt(c, "variation"),
    quotaId: queryInt(c, "quota"),
    tag: queryString(c, "tag"),
    subeventId: queryInt(c, "subevent"),
  });
  const order = ordering(
    c,
    { id: vouchers.id, code: vouchers.code, max_usages: vouchers.maxUsages, valid_until: vouchers.validUntil, value: vouchers.value },
    "id",
    vouchers.id,
  );
  const [[total], rows] = await db.batch([voucherCount(db, where), voucherPage(db, where, order, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeVoucher)));
});

voucherRoutes.get(`${base}/:id`, read, async (c) => c.json(serializeVoucher(await loadVoucher(c))));

/** Validates a list of new vouchers (codes unique within the list and the event). */
async function prepareNew(c: AppContext, inputs: z.output<typeof voucherFull>[]) {
  const full = inputs.map((i) => ({ ...DEFAULTS, ...i }) as FullVoucher);
  const errors: FieldErrors[] = [];
  const [taken, refs] = await Promise.all([existingCodes(c.var.db, c.var.event.id, full.map((v) => v.code)), refsOf(c, full)]);
  const seen = new Set<string>();
  let any = false;
  for (const v of full) {
    const e: FieldErrors = validateVoucher(c, v, refs) ?? {};
    const lower = v.code.toLowerCase();
    if (taken.has(lower) || seen.has(lower)) e.code = ["A voucher with this code already exists."];
    seen.add(lower);
    if (Object.keys(e).length) any = true;
    errors.push(e);
  }
  return { full, errors: any ? errors : null };
}

async function createVouchers(c: AppContext, full: FullVoucher[]) {
  const now = Date.now();
  const rows = full.map((v) => ({ ...columns(v), eventId: c.var.event.id, redeemed: 0, createdAt: now }));
  const stamp = await inventoryStamp(c.var.db, c.var.event.id);
  const result = await withEventObject<CreateVouchersResult>(c.env, c.var.event.id, (s) => s.createVouchers(stamp, rows), 409);
  return { result, now };
}

voucherRoutes.post(base, write, jsonBody(voucherFull), async (c) => {
  const { full, errors } = await prepareNew(c, [c.req.valid("json")]);
  if (errors) throw validationError(errors[0]!);
  const { result } = await createVouchers(c, full);
  if (!result.ok) throw validationError(refusalErrors(result.refusals));
  return c.json(serializeVoucher((await findVoucher(c.var.db, c.var.event.id, result.ids[0]!))!), 201);
});

voucherRoutes.post(`${base}/batch_create`, write, jsonBody(z.array(voucherFull).min(1).max(1000)), async (c) => {
  const { full, errors } = await prepareNew(c, c.req.valid("json"));
  if (errors) throw validationError(errors);
  const { result } = await createVouchers(c, full);
  if (!result.ok) {
    const body: FieldErrors[] = full.map(() => ({}));
    body[result.index] = refusalErrors(result.refusals);
    throw validationError(body);
  }
  const created = await findVouchersById(c.var.db, c.var.event.id, result.ids);
  return c.json(created.map(serializeVoucher), 201);
});

async function changeVoucher(c: AppContext, input: Partial<VoucherInput>, full: boolean) {
  const current = await loadVoucher(c);
  const next: FullVoucher = full ? ({ ...DEFAULTS, ...input } as FullVoucher) : { ...fromRow(current), ...input };
  const errors = validateVoucher(c, next, await refsOf(c, [next]), { redeemed: current.redeemed }) ?? {};
  if (next.code.toLowerCase() !== current.code.toLowerCase()) {
    const taken = await existingCodes(c.var.db, c.var.event.id, [next.code], current.id);
    if (taken.size) errors.code = ["A voucher with this code already exists."];
  }
  if (Object.keys(errors).length) throw validationError(errors);
  const stamp = await inventoryStamp(c.var.db, c.var.event.id);
  const result = await withEventObject<UpdateVoucherResult>(c.env, c.var.event.id, (s) => s.updateVoucher(stamp, current.id, columns(next)), 409);
  if (!result.ok) {
    if (result.refusals.some((r) => r.code === "voucher_unknown")) throw notFound();
    throw validationError(refusalErrors(result.refusals));
  }
  return c.json(serializeVoucher((await findVoucher(c.var.db, c.var.event.id, current.id))!));
}

voucherRoutes.put(`${base}/:id`, write, jsonBody(voucherFull), (c) => changeVoucher(c, c.req.valid("json"), true));
voucherRoutes.patch(`${base}/:id`, write, jsonBody(voucherPatch), (c) => changeVoucher(c, c.req.valid("json"), false));

voucherRoutes.delete(`${base}/:id`, write, async (c) => {
  const v = await loadVoucher(c);
  if (v.redeemed > 0) throw forbidden("This voucher can not be deleted as it has already been used.");
  const stamp = await inventoryStamp(c.var.db, c.var.event.id);
  const result = await withEventObject<DeleteVoucherResult>(c.env, c.var.event.id, (s) => s.deleteVoucher(stamp, v.id), 409);
  if (!result.ok) throw forbidden("This voucher can not be deleted as it has already been used.");
  return c.body(null, 204);
});
