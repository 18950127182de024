/**
 * Customers (docs/api.md, pretix docs customers.rst): list (`email`
 * filter), detail by `identifier`, create (with `password`, hashed and never returned, and
 * `send_email`, the activation mail), PUT/PATCH, and `anonymize`. Needs can_manage_customers.
 * The routes parse, scope, call the customer services (services/organizers/customers.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { type CustomerRow, findCustomer, listCustomers } from "../services/organizers/organizer-reads";
import {
  anonymizeCustomer,
  changeCustomer,
  createCustomer,
  customerCreateInput,
  customerInput,
  customerPatch,
} from "../services/organizers/customers";
import { notFound } from "../lib/failure";
import { type AppContext, type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";

/** A customer (docs/api.md; `password` is never sent). */
export const customerResponse = z
  .object({
    identifier: z.string(),
    external_identifier: z.string().nullable(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    name_parts: z.record(z.string(), z.string()),
    is_active: z.boolean(),
    is_verified: z.boolean(),
    last_login: dateTime().nullable(),
    date_joined: dateTime(),
    locale: z.string(),
    last_modified: dateTime(),
    notes: z.string().nullable(),
  })
  .meta({ id: "Customer" });
export type CustomerResponse = z.infer<typeof customerResponse>;

export function serializeCustomer(r: CustomerRow): CustomerResponse {
  return {
    identifier: r.identifier,
    external_identifier: r.externalIdentifier,
    email: r.email,
    name: r.nameCached,
    name_parts: r.nameParts,
    is_active: r.isActive,
    is_verified: r.isVerified,
    last_login: toIso(r.lastLogin),
    date_joined: toIso(r.dateJoined)!,
    locale: r.locale,
    last_modified: toIso(r.lastModified)!,
    notes: r.notes,
  };
}

const identifierOf = (c: AppContext) => c.req.param("identifier") ?? "";

export const customerRoutes = new Hono<AppEnv>();
const doc = apiDocs("Customers");
const customerFilters = queryParams({ email: q.string() });
const perm = organizerScope("can_manage_customers");
const base = "/organizers/:organizer/customers";

customerRoutes.get(
  base,
  perm,
  doc.list(customerResponse, { summary: "List customers" }),
  customerFilters,
  async (c) => {
    const { email } = c.req.valid("query");
    const req = listRequest(c);
    return respondPage(c, req, await listCustomers(organizerContext(c), email, req), serializeCustomer);
  },
);

customerRoutes.post(
  base,
  perm,
  doc.created(customerResponse, { summary: "Create a customer" }),
  jsonBody(customerCreateInput),
  async (c) => c.json(serializeCustomer(await createCustomer(organizerContext(c), c.req.valid("json"))), 201),
);

customerRoutes.get(`${base}/:identifier`, perm, doc.ok(customerResponse, { summary: "Customer detail" }), async (c) => {
  const customer = await findCustomer(organizerContext(c), identifierOf(c));
  if (!customer) throw notFound();
  return c.json(serializeCustomer(customer));
});

customerRoutes.put(
  `${base}/:identifier`,
  perm,
  doc.ok(customerResponse, { summary: "Replace a customer" }),
  jsonBody(customerInput),
  async (c) =>
    c.json(serializeCustomer(await changeCustomer(organizerContext(c), identifierOf(c), c.req.valid("json"), "put"))),
);

customerRoutes.patch(
  `${base}/:identifier`,
  perm,
  doc.ok(customerResponse, { summary: "Change a customer" }),
  jsonBody(customerPatch),
  async (c) =>
    c.json(serializeCustomer(await changeCustomer(organizerContext(c), identifierOf(c), c.req.valid("json"), "patch"))),
);

customerRoutes.post(
  `${base}/:identifier/anonymize`,
  perm,
  doc.ok(customerResponse, { summary: "Anonymize a customer" }),
  async (c) => c.json(serializeCustomer(await anonymizeCustomer(organizerContext(c), identifierOf(c)))),
);
