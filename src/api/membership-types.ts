/**
 * Membership types (organizer level; pretix docs membershiptypes.rst, docs/open-points.md row 25).
 * Reading needs access to the organizer; changing needs can_change_organizer_settings. The
 * routes parse, scope, call the services (services/organizers/membership-types.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  findMembershipType,
  listMembershipTypes,
  type MembershipTypeRow,
} from "../services/organizers/organizer-reads";
import { notFound } from "../lib/failure";
import {
  changeMembershipType,
  createMembershipType,
  deleteMembershipType,
  membershipTypeInput,
  membershipTypePatch,
} from "../services/organizers/membership-types";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { i18n, id } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";

/** A membership type (pretix docs membershiptypes.rst). */
export const membershipTypeResponse = z
  .object({
    id: id(),
    name: i18n(),
    transferable: z.boolean(),
    allow_parallel_usage: z.boolean(),
    max_usages: z.number().int().nullable(),
  })
  .meta({ id: "MembershipType" });
export type MembershipTypeResponse = z.infer<typeof membershipTypeResponse>;

export function serializeMembershipType(t: MembershipTypeRow): MembershipTypeResponse {
  return {
    id: t.id,
    name: t.name,
    transferable: t.transferable,
    allow_parallel_usage: t.allowParallelUsage,
    max_usages: t.maxUsages,
  };
}

export const membershipTypeRoutes = new Hono<AppEnv>();
const doc = apiDocs("Membership types");
const read = organizerScope(null);
const write = organizerScope("can_change_organizer_settings");
const base = "/organizers/:organizer/membershiptypes";

membershipTypeRoutes.get(
  base,
  read,
  doc.list(membershipTypeResponse, { summary: "List membership types" }),
  async (c) => {
    const req = listRequest(c);
    return respondPage(c, req, await listMembershipTypes(organizerContext(c), req), serializeMembershipType);
  },
);

membershipTypeRoutes.post(
  base,
  write,
  doc.created(membershipTypeResponse, { summary: "Create a membership type" }),
  jsonBody(membershipTypeInput),
  async (c) =>
    c.json(serializeMembershipType(await createMembershipType(organizerContext(c), c.req.valid("json"))), 201),
);

membershipTypeRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(membershipTypeResponse, { summary: "Membership type detail" }),
  async (c) => {
    const row = await findMembershipType(organizerContext(c), pathId(c, "id"));
    if (!row) throw notFound();
    return c.json(serializeMembershipType(row));
  },
);

membershipTypeRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(membershipTypeResponse, { summary: "Replace a membership type" }),
  jsonBody(membershipTypeInput),
  async (c) =>
    c.json(
      serializeMembershipType(
        await changeMembershipType(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "put"),
      ),
    ),
);

membershipTypeRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(membershipTypeResponse, { summary: "Change a membership type" }),
  jsonBody(membershipTypePatch),
  async (c) =>
    c.json(
      serializeMembershipType(
        await changeMembershipType(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "patch"),
      ),
    ),
);

membershipTypeRoutes.delete(
  `${base}/:id`,
  write,
  doc.noContent({
    summary: "Delete a membership type",
    description: "Not while products or memberships use it (403).",
  }),
  async (c) => {
    await deleteMembershipType(organizerContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
