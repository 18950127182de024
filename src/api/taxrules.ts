/**
 * Tax rules (docs/api.md; pretix docs taxrules.rst). Reading needs access to the event;
 * writing needs can_change_event_settings. The rules and services are in services/catalog/taxrules.ts
 * (a rule in use by products or orders cannot be deleted: 403).
 */
import { Hono } from "hono";
import { z } from "zod";
import { listTaxRules, type TaxRuleRow } from "../services/catalog/catalog-reads";
import {
  createTaxRule,
  deleteTaxRule,
  loadTaxRule,
  taxRuleInput,
  taxRulePatch,
  updateTaxRule,
} from "../services/catalog/taxrules";
import { notModified } from "../http/conditional";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { decimalString, i18n, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { formatDecimal } from "../lib/money";

export const taxRuleResponse = z
  .object({
    id: id(),
    name: i18n(),
    internal_name: z.string().nullable(),
    rate: decimalString(),
    price_includes_tax: z.boolean(),
    eu_reverse_charge: z.boolean(),
    home_country: z.string().nullable(),
    keep_gross_if_rate_changes: z.boolean(),
  })
  .meta({ id: "TaxRule" });
export type TaxRuleResponse = z.infer<typeof taxRuleResponse>;

export function serializeTaxRule(r: TaxRuleRow): TaxRuleResponse {
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

export const taxRuleRoutes = new Hono<AppEnv>();
const doc = apiDocs("Tax rules");
const read = eventScope(null);
const write = eventScope("can_change_event_settings");
const base = "/organizers/:organizer/events/:event/taxrules";

taxRuleRoutes.get(
  base,
  read,
  doc.list(taxRuleResponse, { summary: "List tax rules", conditional: true }),
  async (c) => {
    const req = listRequest(c);
    const page = await listTaxRules(eventContext(c), req);
    const unchanged = notModified(c, page.lastModified);
    if (unchanged) return unchanged;
    return respondPage(c, req, page, serializeTaxRule);
  },
);

taxRuleRoutes.get(`${base}/:id`, read, doc.ok(taxRuleResponse, { summary: "Tax rule detail" }), async (c) =>
  c.json(serializeTaxRule(await loadTaxRule(eventContext(c), pathId(c, "id")))),
);

taxRuleRoutes.post(
  base,
  write,
  doc.created(taxRuleResponse, { summary: "Create a tax rule" }),
  jsonBody(taxRuleInput),
  async (c) => {
    return c.json(serializeTaxRule(await createTaxRule(eventContext(c), c.req.valid("json"))), 201);
  },
);

taxRuleRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(taxRuleResponse, { summary: "Replace a tax rule" }),
  jsonBody(taxRuleInput),
  async (c) => {
    return c.json(serializeTaxRule(await updateTaxRule(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")));
  },
);

taxRuleRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(taxRuleResponse, { summary: "Change a tax rule" }),
  jsonBody(taxRulePatch),
  async (c) => {
    return c.json(
      serializeTaxRule(await updateTaxRule(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
    );
  },
);

taxRuleRoutes.delete(
  `${base}/:id`,
  write,
  doc.noContent({ summary: "Delete a tax rule", description: "Not while products or orders use it (403)." }),
  async (c) => {
    await deleteTaxRule(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
