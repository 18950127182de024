/**
 * Tax rules (spec "Tax rule"; pretix docs taxrules.rst). Reading needs access to the event;
 * writing needs can_change_event_settings. A rule in use by products or orders cannot be
 * deleted (403).
 */
import { Hono } from "hono";
import { z } from "zod";
import { eventScopeKey, lastChangeQuery } from "../db/changes";
import {
  createTaxRule,
  deleteTaxRuleIfUnused,
  findTaxRule,
  TAX_RULES_RESOURCE,
  type TaxRuleRow,
  type TaxRuleValues,
  taxRuleCount,
  taxRulePage,
  updateTaxRule,
} from "../db/taxrules";
import { validateTaxRule } from "../domain/catalog";
import { notModified } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, forbidden, notFound } from "../domain/failure";
import { decimal, i18nRequired } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { isCountryCode } from "../lib/countries";
import { formatDecimal } from "../lib/money";

export function serializeTaxRule(r: TaxRuleRow) {
  return {
    id: r.id,
    name: r.name,
    internal_name: r.internalName,
    rate: formatDecimal(r.rate),
    price_includes_tax: r.priceIncludesTax,
    eu_reverse_charge: r.euReverseCharge,
    home_country: r.homeCountry,
    keep_gross_if_rate_changes: r.keepGrossIfRateChanges,
  };
}

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
type TaxRuleInput = z.output<typeof taxRuleFields>;

const taxRuleFull = taxRuleFields.partial().required({ name: true, rate: true });
const taxRulePatch = taxRuleFields.partial();

/** Column values; with `full` (POST, PUT) omitted fields take their defaults. */
function taxRuleValues(input: Partial<TaxRuleInput>, full: boolean): Partial<TaxRuleValues> {
  const v: Partial<TaxRuleValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.rate !== undefined) v.rate = input.rate;
  if (input.internal_name !== undefined || full) v.internalName = input.internal_name ?? null;
  if (input.price_includes_tax !== undefined || full) v.priceIncludesTax = input.price_includes_tax ?? true;
  if (input.eu_reverse_charge !== undefined || full) v.euReverseCharge = input.eu_reverse_charge ?? false;
  if (input.home_country !== undefined || full) v.homeCountry = input.home_country ?? null;
  if (input.keep_gross_if_rate_changes !== undefined || full) v.keepGrossIfRateChanges = input.keep_gross_if_rate_changes ?? false;
  return v;
}

function check(values: Partial<TaxRuleValues>, current?: TaxRuleRow) {
  const errors = new Problems();
  validateTaxRule(
    {
      euReverseCharge: values.euReverseCharge ?? current?.euReverseCharge ?? false,
      homeCountry: values.homeCountry !== undefined ? values.homeCountry : (current?.homeCountry ?? null),
    },
    errors,
  );
  errors.throwIfAny();
}

async function loadTaxRule(c: AppContext): Promise<TaxRuleRow> {
  const rule = await findTaxRule(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!rule) throw notFound();
  return rule;
}

export const taxRuleRoutes = new Hono<AppEnv>();
const read = eventScope(null);
const write = eventScope("can_change_event_settings");
const base = "/organizers/:organizer/events/:event/taxrules";

taxRuleRoutes.get(base, read, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const eventId = c.var.event.id;
  const [stamp, [total], rows] = await db.batch([
    lastChangeQuery(db, eventScopeKey(eventId), TAX_RULES_RESOURCE),
    taxRuleCount(db, eventId),
    taxRulePage(db, eventId, page.limit, page.offset),
  ]);
  const unchanged = notModified(c, stamp[0]?.modifiedAt);
  if (unchanged) return unchanged;
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeTaxRule)));
});

taxRuleRoutes.get(`${base}/:id`, read, async (c) => c.json(serializeTaxRule(await loadTaxRule(c))));

taxRuleRoutes.post(base, write, jsonBody(taxRuleFull), async (c) => {
  const values = taxRuleValues(c.req.valid("json"), true);
  check(values);
  const row = await createTaxRule(c.var.db, c.var.event.id, values as TaxRuleValues, Date.now());
  return c.json(serializeTaxRule(row), 201);
});

async function changeTaxRule(c: AppContext, input: Partial<TaxRuleInput>, full: boolean) {
  const current = await loadTaxRule(c);
  const values = taxRuleValues(input, full);
  check(values, current);
  if (Object.keys(values).length === 0) return c.json(serializeTaxRule(current));
  const row = await updateTaxRule(c.var.db, c.var.event.id, current.id, values, Date.now());
  if (!row) throw notFound();
  return c.json(serializeTaxRule(row));
}

taxRuleRoutes.put(`${base}/:id`, write, jsonBody(taxRuleFull), (c) => changeTaxRule(c, c.req.valid("json"), true));
taxRuleRoutes.patch(`${base}/:id`, write, jsonBody(taxRulePatch), (c) => changeTaxRule(c, c.req.valid("json"), false));

taxRuleRoutes.delete(`${base}/:id`, write, async (c) => {
  const rule = await loadTaxRule(c);
  if (!(await deleteTaxRuleIfUnused(c.var.db, c.var.event.id, rule.id, Date.now()))) {
    throw forbidden("This tax rule can not be deleted as it is currently in use.");
  }
  return c.body(null, 204);
});
