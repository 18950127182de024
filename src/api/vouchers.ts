/**
 * Vouchers (spec "Voucher", pretix docs vouchers.rst). The routes parse, scope, call the
 * voucher services (domain/vouchers.ts: rules, and every write through the event object) and
 * serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { PRICE_MODES, type PriceMode } from "../db/schema";
import { findVoucher, listVouchers, type VoucherRow } from "../db/vouchers";
import { fieldError, notFound } from "../domain/failure";
import { changeVoucher, createVoucher, createVouchers, deleteVoucher, voucherBatchInput, voucherInput, voucherPatch } from "../domain/vouchers";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, decimalString, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryInt, queryString } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatDecimal, parseDecimal } from "../lib/money";

/** A voucher (spec "Voucher"). */
export const voucherResponse = z.object({
  id: id(),
  code: z.string(),
  max_usages: z.number().int(),
  redeemed: z.number().int(),
  min_usages: z.number().int(),
  valid_until: dateTime().nullable(),
  block_quota: z.boolean(),
  allow_ignore_quota: z.boolean(),
  price_mode: z.enum(PRICE_MODES),
  value: decimalString(),
  item: id().nullable(),
  variation: id().nullable(),
  quota: id().nullable(),
  seat: z.string().nullable(),
  tag: z.string(),
  comment: z.string(),
  subevent: id().nullable(),
  show_hidden_items: z.boolean(),
});
export type VoucherResponse = z.infer<typeof voucherResponse>;

export function serializeVoucher(v: VoucherRow): VoucherResponse {
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

export const voucherRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/vouchers";
const read = eventScope("can_view_vouchers");
const write = eventScope("can_change_vouchers");

voucherRoutes.get(base, read, async (c) => {
  const req = listRequest(c);
  const priceMode = queryString(c, "price_mode");
  if (priceMode !== undefined && !(PRICE_MODES as readonly string[]).includes(priceMode)) {
    throw fieldError("price_mode", `Select a valid choice. ${priceMode} is not one of the available choices.`);
  }
  const rawValue = queryString(c, "value");
  const value = rawValue === undefined ? undefined : parseDecimal(rawValue);
  if (value === null) throw fieldError("value", "Enter a number.");
  const filter = {
    code: queryString(c, "code"),
    maxUsages: queryInt(c, "max_usages"),
    redeemed: queryInt(c, "redeemed"),
    blockQuota: queryBool(c, "block_quota"),
    allowIgnoreQuota: queryBool(c, "allow_ignore_quota"),
    priceMode: priceMode as PriceMode | undefined,
    value,
    itemId: queryInt(c, "item"),
    variationId: queryInt(c, "variation"),
    quotaId: queryInt(c, "quota"),
    tag: queryString(c, "tag"),
    subeventId: queryInt(c, "subevent"),
  };
  return respondPage(c, req, await listVouchers(c.var.db, c.var.event.id, filter, req), serializeVoucher);
});

voucherRoutes.get(`${base}/:id`, read, async (c) => {
  const v = await findVoucher(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!v) throw notFound();
  return c.json(serializeVoucher(v));
});

voucherRoutes.post(base, write, jsonBody(voucherInput), async (c) => c.json(serializeVoucher(await createVoucher(eventContext(c), c.req.valid("json"))), 201));

voucherRoutes.post(`${base}/batch_create`, write, jsonBody(voucherBatchInput), async (c) => {
  const created = await createVouchers(eventContext(c), c.req.valid("json"));
  return c.json(created.map(serializeVoucher), 201);
});

voucherRoutes.put(`${base}/:id`, write, jsonBody(voucherInput), async (c) =>
  c.json(serializeVoucher(await changeVoucher(eventContext(c), pathId(c, "id"), c.req.valid("json"), { full: true }))),
);

voucherRoutes.patch(`${base}/:id`, write, jsonBody(voucherPatch), async (c) =>
  c.json(serializeVoucher(await changeVoucher(eventContext(c), pathId(c, "id"), c.req.valid("json"), { full: false }))),
);

voucherRoutes.delete(`${base}/:id`, write, async (c) => {
  await deleteVoucher(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
});
