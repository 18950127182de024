/**
 * Membership types of an organizer (pretix docs membershiptypes.rst, docs/open-points.md row 25): the
 * request bodies and the services that create, change and delete them. A type that items
 * require or grant, or that memberships have, is in use and cannot be deleted.
 */
import { z } from "zod";
import {
  deleteUnusedMembershipType,
  insertMembershipType,
  type MembershipTypeRow,
  type MembershipTypeValues,
  updateMembershipType,
} from "../../db/membership-types";
import { count } from "../catalog/catalog-fields";
import type { ChangeMode, OrganizerContext, WriteMode } from "../context";
import { inUse, notFound } from "../../lib/failure";
import { i18nRequired } from "../../rules/fields";

const fields = z.object({
  name: i18nRequired(),
  transferable: z.boolean(),
  allow_parallel_usage: z.boolean(),
  max_usages: count().nullable(),
});

/** POST and PUT: `name` required; omitted fields reset to their defaults. */
export const membershipTypeInput = fields.partial().required({ name: true });
/** PATCH: only the sent fields change. */
export const membershipTypePatch = fields.partial();
export type MembershipTypeInput = z.output<typeof membershipTypeInput>;
export type MembershipTypePatch = z.output<typeof membershipTypePatch>;

/** The columns a POST / PUT (omitted fields reset) or PATCH sets. */
function values(input: MembershipTypePatch, mode: WriteMode): Partial<MembershipTypeValues> {
  const full = mode !== "patch";
  const out: Partial<MembershipTypeValues> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.transferable !== undefined || full) out.transferable = input.transferable ?? false;
  if (input.allow_parallel_usage !== undefined || full) out.allowParallelUsage = input.allow_parallel_usage ?? false;
  if (input.max_usages !== undefined || full) out.maxUsages = input.max_usages ?? null;
  return out;
}

export function createMembershipType(ctx: OrganizerContext, input: MembershipTypeInput): Promise<MembershipTypeRow> {
  return insertMembershipType(ctx.db, ctx.organizer.id, { ...values(input, "create"), name: input.name });
}

/** PUT (`put`: omitted fields reset) or PATCH of a membership type. */
export async function changeMembershipType(
  ctx: OrganizerContext,
  id: number,
  input: MembershipTypePatch,
  mode: ChangeMode,
): Promise<MembershipTypeRow> {
  const row = await updateMembershipType(ctx.db, ctx.organizer.id, id, values(input, mode));
  if (!row) throw notFound();
  return row;
}

/** Deletes a membership type that nothing uses (403 otherwise). */
export async function deleteMembershipType(ctx: OrganizerContext, id: number): Promise<void> {
  const result = await deleteUnusedMembershipType(ctx.db, ctx.organizer.id, id);
  if (result === "missing") throw notFound();
  if (result === "in_use") {
    throw inUse(
      "This membership type cannot be deleted because it is in use (products require or grant it, or memberships of this type exist).",
    );
  }
}
