/**
 * Tax rules (docs/api.md; pretix docs taxrules.rst): the request bodies and the services
 * that create, change and delete a rule. A rule in use by products or orders is protected.
 */
import { z } from "zod";
import {
  deleteTaxRuleIfUnused,
  findTaxRule,
  insertTaxRule,
  type TaxRuleRow,
  type TaxRuleValues,
  updateTaxRuleValues,
} from "../../db/taxrules";
import { isCountryCode } from "../../lib/countries";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { inUse, notFound, Problems } from "../../lib/failure";
import { decimal, i18nRequired } from "../../rules/fields";

const homeCountry = () =>
  z
    .string()
    .trim()
    .transform((v, ctx) => {
      if (v === "") return v;
      const code = v.toUpperCase();
      if (!isCountryCode(code)) {
        ctx.addIssue({ code: "custom", message: `"${v}" is not a valid choice.` });
        return z.NEVER;
      }
      return code;
    });

const taxRuleFields = z.object({
  name: i18nRequired(),
  internal_name: z.string().trim().max(190).nullable(),
  /** Percent; at most ten digits with two decimal places. */
  rate: decimal({ min: 0, max: 99_999_999_99 }),
  price_includes_tax: z.boolean(),
  eu_reverse_charge: z.boolean(),
  home_country: homeCountry().nullable(),
  keep_gross_if_rate_changes: z.boolean(),
});

/** The body of POST and PUT: `name` and `rate` required, the rest defaults. */
export const taxRuleInput = taxRuleFields.partial().required({ name: true, rate: true });
/** The body of PATCH: any field. */
export const taxRulePatch = taxRuleFields.partial();
export type TaxRulePatch = z.output<typeof taxRulePatch>;
export type TaxRuleInput = z.output<typeof taxRuleInput>;

/** Column values; omitted fields take their defaults unless the mode is `patch`. */
function taxRuleValues(input: TaxRulePatch, mode: WriteMode): Partial<TaxRuleValues> {
  const full = mode !== "patch";
  const v: Partial<TaxRuleValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.rate !== undefined) v.rate = input.rate;
  if (input.internal_name !== undefined || full) v.internalName = input.internal_name ?? null;
  if (input.price_includes_tax !== undefined || full) v.priceIncludesTax = input.price_includes_tax ?? true;
  if (input.eu_reverse_charge !== undefined || full) v.euReverseCharge = input.eu_reverse_charge ?? false;
  if (input.home_country !== undefined || full) v.homeCountry = input.home_country ?? null;
  if (input.keep_gross_if_rate_changes !== undefined || full)
    v.keepGrossIfRateChanges = input.keep_gross_if_rate_changes ?? false;
  return v;
}

/** The rule's state after the change: reverse charge needs the home country. */
function checkTaxRule(values: Partial<TaxRuleValues>, current?: TaxRuleRow): void {
  const errors = new Problems();
  const euReverseCharge = values.euReverseCharge ?? current?.euReverseCharge ?? false;
  const country = values.homeCountry !== undefined ? values.homeCountry : (current?.homeCountry ?? null);
  if (euReverseCharge && !country) {
    errors.add("home_country", "You need to set your home country to use the reverse charge feature.");
  }
  errors.throwIfAny();
}

/** A rule of the event; not found otherwise. */
export async function loadTaxRule(ctx: EventContext, id: number): Promise<TaxRuleRow> {
  const rule = await findTaxRule(ctx.db, ctx.event.id, id);
  if (!rule) throw notFound();
  return rule;
}

export async function createTaxRule(ctx: EventContext, input: TaxRuleInput): Promise<TaxRuleRow> {
  const values = taxRuleValues(input, "create") as TaxRuleValues;
  checkTaxRule(values);
  return insertTaxRule(ctx.db, ctx.event.id, values, ctx.now);
}

/** PUT (`put`) or PATCH (`patch`), checked against the stored rule. */
export async function updateTaxRule(
  ctx: EventContext,
  id: number,
  input: TaxRulePatch,
  mode: ChangeMode,
): Promise<TaxRuleRow> {
  const current = await loadTaxRule(ctx, id);
  const values = taxRuleValues(input, mode);
  checkTaxRule(values, current);
  if (Object.keys(values).length === 0) return current;
  const row = await updateTaxRuleValues(ctx.db, ctx.event.id, current.id, values, ctx.now);
  if (!row) throw notFound();
  return row;
}

/** Deletes an unused rule; one used by products or orders is refused (403). */
export async function deleteTaxRule(ctx: EventContext, id: number): Promise<void> {
  const rule = await loadTaxRule(ctx, id);
  if (!(await deleteTaxRuleIfUnused(ctx.db, ctx.event.id, rule.id, ctx.now))) {
    throw inUse("This tax rule can not be deleted as it is currently in use.");
  }
}
