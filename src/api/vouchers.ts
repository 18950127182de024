/**
 * Vouchers (docs/api.md, pretix docs vouchers.rst). The routes parse, scope, call the
 * voucher services (services/catalog/vouchers.ts: rules, and every write through the event object) and
 * serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { PRICE_MODES } from "../services/stored-values";
import { findVoucher, listVouchers, VOUCHER_ORDERING, type VoucherRow } from "../services/catalog/catalog-reads";
import { notFound } from "../lib/failure";
import {
  changeVoucher,
  createVoucher,
  createVouchers,
  deleteVoucher,
  voucherBatchInput,
  voucherCreateInput,
  voucherInput,
  voucherPatch,
} from "../services/catalog/vouchers";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, decimalString, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatDecimal } from "../lib/money";

/** A voucher (docs/api.md). */
export const voucherResponse = z
  .object({
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
  })
  .meta({ id: "Voucher" });
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
const doc = apiDocs("Vouchers");
const base = "/organizers/:organizer/events/:event/vouchers";
const read = eventScope("can_view_vouchers");
const write = eventScope("can_change_vouchers");

/** The filters of the voucher list (pretix docs vouchers.rst). */
const voucherFilters = queryParams({
  price_mode: q.choice(PRICE_MODES),
  value: q.decimal(),
  code: q.string(),
  max_usages: q.int(),
  redeemed: q.int(),
  block_quota: q.bool(),
  allow_ignore_quota: q.bool(),
  item: q.int("item id"),
  variation: q.int("variation id"),
  quota: q.int("quota id"),
  tag: q.string(),
  subevent: q.int("sub-event id"),
});

voucherRoutes.get(
  base,
  read,
  doc.list(voucherResponse, { summary: "List vouchers", ordering: VOUCHER_ORDERING }),
  voucherFilters,
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const filter = {
      code: f.code,
      maxUsages: f.max_usages,
      redeemed: f.redeemed,
      blockQuota: f.block_quota,
      allowIgnoreQuota: f.allow_ignore_quota,
      priceMode: f.price_mode,
      value: f.value,
      itemId: f.item,
      variationId: f.variation,
      quotaId: f.quota,
      tag: f.tag,
      subeventId: f.subevent,
    };
    return respondPage(c, req, await listVouchers(eventContext(c), filter, req), serializeVoucher);
  },
);

voucherRoutes.get(`${base}/:id`, read, doc.ok(voucherResponse, { summary: "Voucher detail" }), async (c) => {
  const v = await findVoucher(eventContext(c), pathId(c, "id"));
  if (!v) throw notFound();
  return c.json(serializeVoucher(v));
});

voucherRoutes.post(
  base,
  write,
  doc.created(voucherResponse, {
    summary: "Create a voucher",
    description: "Without `code` the voucher gets a generated one: 16 capitals and digits, as pretix makes them.",
    failures: ["busy"],
  }),
  jsonBody(voucherCreateInput),
  async (c) => c.json(serializeVoucher(await createVoucher(eventContext(c), c.req.valid("json"))), 201),
);

voucherRoutes.post(
  `${base}/batch_create`,
  write,
  doc.created(z.array(voucherResponse), {
    summary: "Create several vouchers at once",
    description: "All or none: one invalid voucher fails the batch (field errors: one object per voucher).",
    failures: ["busy"],
  }),
  jsonBody(voucherBatchInput),
  async (c) => {
    const created = await createVouchers(eventContext(c), c.req.valid("json"));
    return c.json(created.map(serializeVoucher), 201);
  },
);

voucherRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(voucherResponse, { summary: "Replace a voucher", failures: ["busy"] }),
  jsonBody(voucherInput),
  async (c) =>
    c.json(serializeVoucher(await changeVoucher(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put"))),
);

voucherRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(voucherResponse, { summary: "Change a voucher", failures: ["busy"] }),
  jsonBody(voucherPatch),
  async (c) =>
    c.json(serializeVoucher(await changeVoucher(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch"))),
);

voucherRoutes.delete(
  `${base}/:id`,
  write,
  doc.noContent({
    summary: "Delete a voucher",
    description: "A voucher that was redeemed cannot be deleted (403).",
    failures: ["busy", "in_use"],
  }),
  async (c) => {
    await deleteVoucher(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
