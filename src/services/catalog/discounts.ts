/**
 * Automatic discounts (docs/api.md; pretix docs discounts.rst): the request bodies, the
 * combinations pretix forbids, and the services that create, change and delete a discount.
 */
import { z } from "zod";
import { isForeignKeyError } from "../../db/constraints";
import {
  deleteDiscountRow,
  type DiscountRecord,
  type DiscountValues,
  findDiscount,
  insertDiscount,
  updateDiscountValues,
} from "../../db/discounts";
import { DISCOUNT_SUBEVENT_MODES } from "../../db/schema/index";
import { checkEventItems, count, idList, name, position, salesChannels } from "./catalog-fields";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { notFound, Problems } from "../../lib/failure";
import { dateTime, decimal } from "../../rules/fields";

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

/** The body of POST and PUT: `internal_name` required, the rest defaults. */
export const discountInput = discountFields.partial().required({ internal_name: true });
/** The body of PATCH: any field. */
export const discountPatch = discountFields.partial();
export type DiscountInput = z.output<typeof discountInput>;
export type DiscountPatch = z.output<typeof discountPatch>;

/** Column values; omitted fields take their defaults unless the mode is `patch`. */
function discountValues(input: DiscountPatch, mode: WriteMode): Partial<DiscountValues> {
  const v: Partial<DiscountValues> = {};
  const set = <K extends keyof DiscountValues>(
    key: K,
    value: DiscountValues[K] | undefined,
    fallback: DiscountValues[K],
  ) => {
    if (value !== undefined) v[key] = value;
    else if (mode !== "patch") v[key] = fallback;
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

/**
 * The combinations pretix forbids because the best discount could no longer be computed
 * (pretix base/models/discount.py `validate_config`), plus a coherent availability window.
 * Checked on the discount's state after the change.
 */
function validateDiscount(d: DiscountValues, errors: Problems): void {
  const minCount = d.conditionMinCount ?? 0;
  const minValue = d.conditionMinValue ?? 0;
  const from = d.availableFrom ?? null;
  const until = d.availableUntil ?? null;
  if (minCount > 0 && minValue > 0) {
    errors.add(
      "condition_min_value",
      "You can either set a minimum number of matching products or a minimum value, not both.",
    );
  }
  if (minCount === 0 && minValue === 0) {
    errors.add("non_field_errors", "You need to either set a minimum number of matching products or a minimum value.");
  }
  if (minValue > 0 && (d.benefitOnlyApplyToCheapestNMatches ?? 0) > 0) {
    errors.add(
      "benefit_only_apply_to_cheapest_n_matches",
      "You cannot apply the discount only to some of the matched products if you are matching on a minimum value.",
    );
  }
  if ((d.subeventMode ?? "mixed") === "distinct" && minValue > 0) {
    errors.add(
      "condition_min_value",
      "You cannot apply the discount only to bookings of different dates if you are matching on a minimum value.",
    );
  }
  if (from !== null && until !== null && until < from) {
    errors.add("available_until", "The end of the availability must not be before its start.");
  }
}

async function checkDiscount(ctx: EventContext, state: DiscountValues, itemIds: number[] | undefined): Promise<void> {
  const errors = new Problems();
  await checkEventItems(ctx.db, ctx.event.id, errors, "condition_limit_products", itemIds);
  validateDiscount(state, errors);
  errors.throwIfAny();
}

/** A discount of the event; not found otherwise. */
export async function loadDiscount(ctx: EventContext, id: number): Promise<DiscountRecord> {
  const record = await findDiscount(ctx.db, ctx.event.id, id);
  if (!record) throw notFound();
  return record;
}

export async function createDiscount(ctx: EventContext, input: DiscountInput): Promise<DiscountRecord> {
  const values = discountValues(input, "create") as DiscountValues;
  const itemIds = input.condition_limit_products ?? [];
  await checkDiscount(ctx, values, itemIds);
  return insertDiscount(ctx.db, ctx.event.id, values, itemIds);
}

/** PUT (`put`) or PATCH (`patch`), checked on the merged state. */
export async function updateDiscount(
  ctx: EventContext,
  id: number,
  input: DiscountPatch,
  mode: ChangeMode,
): Promise<DiscountRecord> {
  const { discount: current } = await loadDiscount(ctx, id);
  const values = discountValues(input, mode);
  const itemIds = mode === "put" ? (input.condition_limit_products ?? []) : input.condition_limit_products;
  await checkDiscount(ctx, { ...current, ...values }, itemIds);
  let record: DiscountRecord | undefined;
  try {
    record = await updateDiscountValues(ctx.db, ctx.event.id, current.id, values, itemIds);
  } catch (e) {
    // deleted meanwhile: its product links have nothing to refer to
    if (isForeignKeyError(e)) throw notFound();
    throw e;
  }
  if (!record) throw notFound();
  return record;
}

export async function deleteDiscount(ctx: EventContext, id: number): Promise<void> {
  if (!(await deleteDiscountRow(ctx.db, ctx.event.id, id))) throw notFound();
}
