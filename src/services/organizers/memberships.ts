/**
 * Memberships of customers (docs/api.md, pretix docs memberships.rst): the
 * request bodies and the services that create and change memberships. `customer` and
 * `testmode` are fixed after creation: sent values are ignored, as pretix does.
 */
import { z } from "zod";
import {
  creationRefs,
  findMembershipForChange,
  insertMembership,
  type MembershipRecord,
  type MembershipValues,
  updateMembership,
} from "../../db/memberships";
import type { ChangeMode, OrganizerContext, WriteMode } from "../context";
import { invalidPk, notFound, Problems } from "../../lib/failure";
import { namePartsField } from "./customers";
import { dateTime } from "../../rules/fields";

const editable = z.object({
  membership_type: z.number().int().positive(),
  date_start: dateTime(),
  date_end: dateTime(),
  attendee_name_parts: namePartsField().nullable().optional(),
});
/** POST: the membership with its customer (by identifier) and test mode. */
export const membershipCreateInput = editable.extend({
  customer: z.string().trim().min(1).max(190),
  testmode: z.boolean().optional(),
});
/** PUT: every editable field; an omitted `attendee_name_parts` resets to null. */
export const membershipInput = editable;
/** PATCH: only the sent fields change. */
export const membershipPatch = editable.partial();
export type MembershipCreateInput = z.output<typeof membershipCreateInput>;
export type MembershipPatch = z.output<typeof membershipPatch>;

const END_BEFORE_START = "The end of validity must not be before its start.";

/**
 * Checks the membership type (`typeExists`: whether the sent one is the organizer's) and the
 * validity period; collects errors.
 */
function validate(
  errors: Problems,
  input: MembershipPatch,
  typeExists: boolean | undefined,
  current?: MembershipRecord["membership"],
) {
  if (input.membership_type !== undefined && !typeExists)
    errors.add("membership_type", invalidPk(input.membership_type));
  const start = input.date_start ?? current?.dateStart;
  const end = input.date_end ?? current?.dateEnd;
  if (start !== undefined && end !== undefined && end < start) errors.add("date_end", END_BEFORE_START);
}

/** The columns a POST / PUT (omitted fields reset) or PATCH sets. */
function values(input: MembershipPatch, mode: WriteMode): Partial<MembershipValues> {
  const full = mode !== "patch";
  const v: Partial<MembershipValues> = {};
  if (input.membership_type !== undefined) v.membershipTypeId = input.membership_type;
  if (input.date_start !== undefined) v.dateStart = input.date_start;
  if (input.date_end !== undefined) v.dateEnd = input.date_end;
  if (input.attendee_name_parts !== undefined || full) v.attendeeNameParts = input.attendee_name_parts ?? null;
  return v;
}

/** Creates a membership of one of the organizer's customers, of one of its membership types. */
export async function createMembership(ctx: OrganizerContext, input: MembershipCreateInput): Promise<MembershipRecord> {
  const errors = new Problems();
  const { customer, typeExists } = await creationRefs(ctx.db, ctx.organizer.id, input.customer, input.membership_type);
  if (customer === undefined) errors.add("customer", `Object with identifier=${input.customer} does not exist.`);
  validate(errors, input, typeExists);
  errors.throwIfAny();
  const row = await insertMembership(
    ctx.db,
    ctx.organizer.id,
    customer!.id,
    input.testmode ?? false,
    values(input, "create") as MembershipValues,
  );
  return { membership: row, customer: customer!.identifier };
}

/** PUT (`put`: omitted fields reset) or PATCH of a membership; the validity period is checked against the stored one. */
export async function changeMembership(
  ctx: OrganizerContext,
  id: number,
  input: MembershipPatch,
  mode: ChangeMode,
): Promise<MembershipRecord> {
  const { found: current, typeExists } = await findMembershipForChange(
    ctx.db,
    ctx.organizer.id,
    id,
    input.membership_type,
  );
  if (!current) throw notFound();
  const errors = new Problems();
  validate(errors, input, typeExists, current.membership);
  errors.throwIfAny();
  const changes = values(input, mode);
  if (Object.keys(changes).length === 0) return current;
  const row = await updateMembership(ctx.db, ctx.organizer.id, current.membership.id, changes);
  if (!row) throw notFound();
  return { membership: row, customer: current.customer };
}
