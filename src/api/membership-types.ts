/**
 * Membership types (organizer level; pretix docs membershiptypes.rst, spec open point 25).
 * Reading needs access to the organizer; changing needs can_change_organizer_settings. A type
 * that items require or grant cannot be deleted (403).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  createMembershipType,
  deleteMembershipType,
  findMembershipType,
  type MembershipTypeRow,
  type MembershipTypeValues,
  membershipTypeCount,
  membershipTypePage,
  updateMembershipType,
} from "../db/membership-types";
import type { AppContext, AppEnv } from "../http/context";
import { forbidden, notFound } from "../domain/failure";
import { i18nRequired } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { count } from "../domain/catalog-fields";

export function serializeMembershipType(t: MembershipTypeRow) {
  return {
    id: t.id,
    name: t.name,
    transferable: t.transferable,
    allow_parallel_usage: t.allowParallelUsage,
    max_usages: t.maxUsages,
  };
}

const fields = z.object({
  name: i18nRequired(),
  transferable: z.boolean(),
  allow_parallel_usage: z.boolean(),
  max_usages: count().nullable(),
});
type Input = Partial<z.output<typeof fields>>;

/** POST and PUT: `name` required; omitted fields reset to their defaults. */
const fullSchema = fields.partial().required({ name: true });
const patchSchema = fields.partial();

function values(input: Input, full: boolean): Partial<MembershipTypeValues> {
  const out: Partial<MembershipTypeValues> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.transferable !== undefined || full) out.transferable = input.transferable ?? false;
  if (input.allow_parallel_usage !== undefined || full) out.allowParallelUsage = input.allow_parallel_usage ?? false;
  if (input.max_usages !== undefined || full) out.maxUsages = input.max_usages ?? null;
  return out;
}

export const membershipTypeRoutes = new Hono<AppEnv>();
const read = organizerScope(null);
const write = organizerScope("can_change_organizer_settings");
const base = "/organizers/:organizer/membershiptypes";

membershipTypeRoutes.get(base, read, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const [[total], rows] = await db.batch([membershipTypeCount(db, orgId), membershipTypePage(db, orgId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeMembershipType)));
});

membershipTypeRoutes.post(base, write, jsonBody(fullSchema), async (c) => {
  const row = await createMembershipType(c.var.db, c.var.organizer.id, values(c.req.valid("json"), true) as MembershipTypeValues);
  return c.json(serializeMembershipType(row), 201);
});

membershipTypeRoutes.get(`${base}/:id`, read, async (c) => {
  const row = await findMembershipType(c.var.db, c.var.organizer.id, pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(serializeMembershipType(row));
});

async function change(c: AppContext, input: Input, full: boolean) {
  const row = await updateMembershipType(c.var.db, c.var.organizer.id, pathId(c, "id"), values(input, full));
  if (!row) throw notFound();
  return c.json(serializeMembershipType(row));
}

membershipTypeRoutes.put(`${base}/:id`, write, jsonBody(fullSchema), (c) => change(c, c.req.valid("json"), true));
membershipTypeRoutes.patch(`${base}/:id`, write, jsonBody(patchSchema), (c) => change(c, c.req.valid("json"), false));

membershipTypeRoutes.delete(`${base}/:id`, write, async (c) => {
  const result = await deleteMembershipType(c.var.db, c.var.organizer.id, pathId(c, "id"));
  if (result === "missing") throw notFound();
  if (result === "in_use") {
    throw forbidden("This membership type cannot be deleted because it is in use (products require or grant it, or memberships of this type exist).");
  }
  return c.body(null, 204);
});
