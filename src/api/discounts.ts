/**
 * Automatic discounts (docs/api.md; pretix docs discounts.rst). Reading needs access to
 * the event; writing needs can_change_items. The rules and services are in
 * services/catalog/discounts.ts (the forbidden combinations of pretix's model are field errors).
 */
import { Hono } from "hono";
import { z } from "zod";
import { DISCOUNT_ORDERING, type DiscountRecord, listDiscounts } from "../services/catalog/catalog-reads";
import { DISCOUNT_SUBEVENT_MODES } from "../services/stored-values";
import {
  createDiscount,
  deleteDiscount,
  discountInput,
  discountPatch,
  loadDiscount,
  updateDiscount,
} from "../services/catalog/discounts";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, decimalString, id, money } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";

export const discountResponse = z
  .object({
    id: id(),
    active: z.boolean(),
    internal_name: z.string(),
    position: z.number().int(),
    sales_channels: z.array(z.string()),
    available_from: dateTime().nullable(),
    available_until: dateTime().nullable(),
    subevent_mode: z.enum(DISCOUNT_SUBEVENT_MODES),
    condition_all_products: z.boolean(),
    condition_limit_products: z.array(id()),
    condition_apply_to_addons: z.boolean(),
    condition_ignore_voucher_discounted: z.boolean(),
    condition_min_count: z.number().int(),
    condition_min_value: money(),
    benefit_discount_matching_percent: decimalString(),
    benefit_only_apply_to_cheapest_n_matches: z.number().int().nullable(),
  })
  .meta({ id: "Discount" });
export type DiscountResponse = z.infer<typeof discountResponse>;

export function serializeDiscount({ discount: d, items }: DiscountRecord): DiscountResponse {
  return {
    id: d.id,
    active: d.active,
    internal_name: d.internalName,
    position: d.position,
    sales_channels: d.salesChannels,
    available_from: toIso(d.availableFrom),
    available_until: toIso(d.availableUntil),
    subevent_mode: d.subeventMode,
    condition_all_products: d.conditionAllProducts,
    condition_limit_products: JSON.parse(items) as number[],
    condition_apply_to_addons: d.conditionApplyToAddons,
    condition_ignore_voucher_discounted: d.conditionIgnoreVoucherDiscounted,
    condition_min_count: d.conditionMinCount,
    condition_min_value: formatMoney(d.conditionMinValue),
    benefit_discount_matching_percent: formatDecimal(d.benefitDiscountMatchingPercent),
    benefit_only_apply_to_cheapest_n_matches: d.benefitOnlyApplyToCheapestNMatches,
  };
}

export const discountRoutes = new Hono<AppEnv>();
const doc = apiDocs("Discounts");
const discountFilters = queryParams({ active: q.bool() });
const read = eventScope(null);
const write = eventScope("can_change_items");
const base = "/organizers/:organizer/events/:event/discounts";

discountRoutes.get(
  base,
  read,
  doc.list(discountResponse, { summary: "List discounts", ordering: DISCOUNT_ORDERING }),
  discountFilters,
  async (c) => {
    const req = listRequest(c);
    const page = await listDiscounts(eventContext(c), { active: c.req.valid("query").active }, req);
    return respondPage(c, req, page, serializeDiscount);
  },
);

discountRoutes.get(`${base}/:id`, read, doc.ok(discountResponse, { summary: "Discount detail" }), async (c) =>
  c.json(serializeDiscount(await loadDiscount(eventContext(c), pathId(c, "id")))),
);

discountRoutes.post(
  base,
  write,
  doc.created(discountResponse, { summary: "Create a discount" }),
  jsonBody(discountInput),
  async (c) => {
    return c.json(serializeDiscount(await createDiscount(eventContext(c), c.req.valid("json"))), 201);
  },
);

discountRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(discountResponse, { summary: "Replace a discount" }),
  jsonBody(discountInput),
  async (c) => {
    return c.json(
      serializeDiscount(await updateDiscount(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
    );
  },
);

discountRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(discountResponse, { summary: "Change a discount" }),
  jsonBody(discountPatch),
  async (c) => {
    return c.json(
      serializeDiscount(await updateDiscount(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
    );
  },
);

async function removeDiscount(c: AppContext) {
  await deleteDiscount(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
}

discountRoutes.delete(`${base}/:id`, write, doc.noContent({ summary: "Delete a discount" }), removeDiscount);
// the singular delete path is accepted too
discountRoutes.delete(
  "/organizers/:organizer/events/:event/discount/:id",
  write,
  doc.noContent({ summary: "Delete a discount (singular path)" }),
  removeDiscount,
);
