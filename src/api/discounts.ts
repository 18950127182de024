/**
 * Automatic discounts (spec "Discount"; pretix docs discounts.rst). Reading needs access to
 * the event; writing needs can_change_items. The forbidden combinations of pretix's model
 * are rejected with field errors (domain/catalog.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  createDiscount,
  deleteDiscount,
  type DiscountRecord,
  type DiscountValues,
  discountCount,
  discountPage,
  findDiscount,
  updateDiscount,
} from "../db/discounts";
import { DISCOUNT_SUBEVENT_MODES, discounts } from "../db/schema";
import { validateDiscount } from "../domain/catalog";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, notFound } from "../domain/failure";
import { dateTime, decimal } from "../domain/fields";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";
import { checkEventItems, count, idList, name, position, salesChannels } from "../domain/catalog-fields";

export function serializeDiscount({ discount: d, items }: DiscountRecord) {
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

const discountFields = z.object({
  active: z.boolean(),
  internal_name: name(255),
  position: position(),
  sales_channels: salesChannels(),
  available_from: dateTime().nullable(),
  available_until: dateTime().nullable(),
  subevent_mode: z.enum(DISCOUNT_SUBEVENT_MODES),
  condition_all_products: z.boolean(),
  condition_limit_products: idList(),
  condition_apply_to_addons: z.boolean(),
  condition_ignore_voucher_discounted: z.boolean(),
  condition_min_count: count(),
  condition_min_value: decimal({ min: 0, max: 99_999_999_99 }),
  benefit_discount_matching_percent: decimal({ min: 0, max: 100_00 }),
  benefit_only_apply_to_cheapest_n_matches: count().nullable(),
});
type DiscountInput = z.output<typeof discountFields>;

const discountFull = discountFields.partial().required({ internal_name: true });
const discountPatch = discountFields.partial();

/** Column values; with `full` (POST, PUT) omitted fields take their defaults. */
function discountValues(input: Partial<DiscountInput>, full: boolean): Partial<DiscountValues> {
  const v: Partial<DiscountValues> = {};
  const set = <K extends keyof DiscountValues>(key: K, value: DiscountValues[K] | undefined, fallback: DiscountValues[K]) => {
    if (value !== undefined) v[key] = value;
    else if (full) v[key] = fallback;
  };
  if (input.internal_name !== undefined) v.internalName = input.internal_name;
  set("active", input.active, true);
  set("position", input.position, 0);
  set("salesChannels", input.sales_channels, ["web"]);
  set("availableFrom", input.available_from, null);
  set("availableUntil", input.available_until, null);
  set("subeventMode", input.subevent_mode, "mixed");
  set("conditionAllProducts", input.condition_all_products, true);
  set("conditionApplyToAddons", input.condition_apply_to_addons, true);
  set("conditionIgnoreVoucherDiscounted", input.condition_ignore_voucher_discounted, false);
  set("conditionMinCount", input.condition_min_count, 0);
  set("conditionMinValue", input.condition_min_value, 0);
  set("benefitDiscountMatchingPercent", input.benefit_discount_matching_percent, 0);
  set("benefitOnlyApplyToCheapestNMatches", input.benefit_only_apply_to_cheapest_n_matches, null);
  return v;
}

async function check(c: AppContext, values: Partial<DiscountValues>, itemIds: number[] | undefined, current?: DiscountValues) {
  const m = { ...current, ...values } as DiscountValues;
  const errors = new Problems();
  await checkEventItems(c.var.db, c.var.event.id, errors, "condition_limit_products", itemIds);
  validateDiscount(
    {
      subeventMode: m.subeventMode ?? "mixed",
      conditionMinCount: m.conditionMinCount ?? 0,
      conditionMinValue: m.conditionMinValue ?? 0,
      benefitOnlyApplyToCheapestNMatches: m.benefitOnlyApplyToCheapestNMatches ?? null,
      availableFrom: m.availableFrom ?? null,
      availableUntil: m.availableUntil ?? null,
    },
    errors,
  );
  errors.throwIfAny();
}

async function loadDiscount(c: AppContext): Promise<DiscountRecord> {
  const record = await findDiscount(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!record) throw notFound();
  return record;
}

async function reload(c: AppContext, id: number) {
  const record = await findDiscount(c.var.db, c.var.event.id, id);
  if (!record) throw notFound();
  return serializeDiscount(record);
}

export const discountRoutes = new Hono<AppEnv>();
const read = eventScope(null);
const write = eventScope("can_change_items");
const base = "/organizers/:organizer/events/:event/discounts";

discountRoutes.get(base, read, async (c) => {
  const page = pageRequest(c);
  const active = queryBool(c, "active");
  const order = ordering(c, { id: discounts.id, position: discounts.position }, "position", discounts.id);
  const db = c.var.db;
  const eventId = c.var.event.id;
  const [[total], rows] = await db.batch([discountCount(db, eventId, active), discountPage(db, eventId, active, order, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeDiscount)));
});

discountRoutes.get(`${base}/:id`, read, async (c) => c.json(serializeDiscount(await loadDiscount(c))));

discountRoutes.post(base, write, jsonBody(discountFull), async (c) => {
  const input = c.req.valid("json");
  const values = discountValues(input, true);
  const itemIds = input.condition_limit_products ?? [];
  await check(c, values, itemIds);
  const id = await createDiscount(c.var.db, c.var.event.id, values as DiscountValues, itemIds);
  return c.json(await reload(c, id), 201);
});

async function changeDiscount(c: AppContext, input: Partial<DiscountInput>, full: boolean) {
  const { discount: current } = await loadDiscount(c);
  const values = discountValues(input, full);
  const itemIds = full ? (input.condition_limit_products ?? []) : input.condition_limit_products;
  await check(c, values, itemIds, current);
  await updateDiscount(c.var.db, c.var.event.id, current.id, values, itemIds);
  return c.json(await reload(c, current.id));
}

discountRoutes.put(`${base}/:id`, write, jsonBody(discountFull), (c) => changeDiscount(c, c.req.valid("json"), true));
discountRoutes.patch(`${base}/:id`, write, jsonBody(discountPatch), (c) => changeDiscount(c, c.req.valid("json"), false));

async function removeDiscount(c: AppContext) {
  const { discount } = await loadDiscount(c);
  await deleteDiscount(c.var.db, c.var.event.id, discount.id);
  return c.body(null, 204);
}

discountRoutes.delete(`${base}/:id`, write, removeDiscount);
// the spec also writes the delete path in the singular
discountRoutes.delete("/organizers/:organizer/events/:event/discount/:id", write, removeDiscount);
