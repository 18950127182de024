/**
 * Memberships (docs/api.md, pretix docs memberships.rst): list with the
 * `customer`, `membership_type` and `testmode` filters, detail, create, PUT/PATCH. Needs
 * can_manage_customers. The routes parse, scope, call the membership services
 * (services/organizers/memberships.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { findMembership, listMemberships, type MembershipRecord } from "../services/organizers/organizer-reads";
import { notFound } from "../lib/failure";
import {
  changeMembership,
  createMembership,
  membershipCreateInput,
  membershipInput,
  membershipPatch,
} from "../services/organizers/memberships";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, id } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";

/** A membership (docs/api.md). */
export const membershipResponse = z
  .object({
    id: id(),
    customer: z.string().meta({ description: "customer identifier" }),
    membership_type: id(),
    testmode: z.boolean(),
    date_start: dateTime(),
    date_end: dateTime(),
    attendee_name_parts: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: "Membership" });
export type MembershipResponse = z.infer<typeof membershipResponse>;

export function serializeMembership({ membership: m, customer }: MembershipRecord): MembershipResponse {
  return {
    id: m.id,
    customer,
    membership_type: m.membershipTypeId,
    testmode: m.testmode,
    date_start: toIso(m.dateStart)!,
    date_end: toIso(m.dateEnd)!,
    attendee_name_parts: m.attendeeNameParts ?? null,
  };
}

export const membershipRoutes = new Hono<AppEnv>();
const doc = apiDocs("Memberships");
const membershipFilters = queryParams({
  customer: q.string("customer identifier"),
  membership_type: q.int("membership type id"),
  testmode: q.bool(),
});
const perm = organizerScope("can_manage_customers");
const base = "/organizers/:organizer/memberships";

membershipRoutes.get(
  base,
  perm,
  doc.list(membershipResponse, { summary: "List memberships" }),
  membershipFilters,
  async (c) => {
    const f = c.req.valid("query");
    const filters = { customer: f.customer, membershipType: f.membership_type, testmode: f.testmode };
    const req = listRequest(c);
    return respondPage(c, req, await listMemberships(organizerContext(c), filters, req), serializeMembership);
  },
);

membershipRoutes.post(
  base,
  perm,
  doc.created(membershipResponse, { summary: "Create a membership" }),
  jsonBody(membershipCreateInput),
  async (c) => c.json(serializeMembership(await createMembership(organizerContext(c), c.req.valid("json"))), 201),
);

membershipRoutes.get(`${base}/:id`, perm, doc.ok(membershipResponse, { summary: "Membership detail" }), async (c) => {
  const found = await findMembership(organizerContext(c), pathId(c, "id"));
  if (!found) throw notFound();
  return c.json(serializeMembership(found));
});

membershipRoutes.put(
  `${base}/:id`,
  perm,
  doc.ok(membershipResponse, { summary: "Replace a membership" }),
  jsonBody(membershipInput),
  async (c) =>
    c.json(
      serializeMembership(await changeMembership(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
    ),
);

membershipRoutes.patch(
  `${base}/:id`,
  perm,
  doc.ok(membershipResponse, { summary: "Change a membership" }),
  jsonBody(membershipPatch),
  async (c) =>
    c.json(
      serializeMembership(await changeMembership(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
    ),
);
