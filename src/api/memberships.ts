/**
 * Memberships (spec "Customers and memberships", pretix docs memberships.rst): list with the
 * `customer`, `membership_type` and `testmode` filters, detail, create, PUT/PATCH (`customer`
 * and `testmode` are fixed after creation: sent values are ignored, as pretix does). Needs
 * can_manage_customers.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  createMembership,
  creationRefs,
  findMembership,
  findMembershipForChange,
  type MembershipRecord,
  type MembershipValues,
  membershipCount,
  membershipPage,
  updateMembership,
} from "../db/memberships";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, notFound } from "../domain/failure";
import { dateTime } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryInt, queryString } from "../http/validation";
import { toIso } from "../lib/datetime";
import { namePartsField } from "../domain/customers";

export function serializeMembership({ membership: m, customer }: MembershipRecord) {
  return {
    id: m.id,
    customer,
    membership_type: m.membershipTypeId,
    testmode: m.testmode,
    date_start: toIso(m.dateStart),
    date_end: toIso(m.dateEnd),
    attendee_name_parts: m.attendeeNameParts ?? null,
  };
}

const editable = z.object({
  membership_type: z.number().int().positive(),
  date_start: dateTime(),
  date_end: dateTime(),
  attendee_name_parts: namePartsField().nullable().optional(),
});
const createSchema = editable.extend({
  customer: z.string().trim().min(1).max(190),
  testmode: z.boolean().optional(),
});
const putSchema = editable;
const patchSchema = editable.partial();
type EditableInput = z.output<typeof patchSchema>;

const END_BEFORE_START = "The end of validity must not be before its start.";

/**
 * Checks the membership type (`typeExists`: whether the sent one is the organizer's) and the
 * validity period; collects errors.
 */
function validate(errors: Problems, input: EditableInput, typeExists: boolean | undefined, current?: MembershipRecord["membership"]) {
  if (input.membership_type !== undefined && !typeExists) {
    errors.add("membership_type", `Invalid pk "${input.membership_type}" - object does not exist.`);
  }
  const start = input.date_start ?? current?.dateStart;
  const end = input.date_end ?? current?.dateEnd;
  if (start !== undefined && end !== undefined && end < start) errors.add("date_end", END_BEFORE_START);
}

function values(input: EditableInput, full: boolean): Partial<MembershipValues> {
  const v: Partial<MembershipValues> = {};
  if (input.membership_type !== undefined) v.membershipTypeId = input.membership_type;
  if (input.date_start !== undefined) v.dateStart = input.date_start;
  if (input.date_end !== undefined) v.dateEnd = input.date_end;
  if (input.attendee_name_parts !== undefined || full) v.attendeeNameParts = input.attendee_name_parts ?? null;
  return v;
}

async function loadMembership(c: AppContext): Promise<MembershipRecord> {
  const found = await findMembership(c.var.db, c.var.organizer.id, pathId(c, "id"));
  if (!found) throw notFound();
  return found;
}

export const membershipRoutes = new Hono<AppEnv>();
const perm = organizerScope("can_manage_customers");
const base = "/organizers/:organizer/memberships";

membershipRoutes.get(base, perm, async (c) => {
  const filters = { customer: queryString(c, "customer"), membershipType: queryInt(c, "membership_type"), testmode: queryBool(c, "testmode") };
  const page = pageRequest(c);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const [[total], rows] = await db.batch([membershipCount(db, orgId, filters), membershipPage(db, orgId, filters, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeMembership)));
});

membershipRoutes.post(base, perm, jsonBody(createSchema), async (c) => {
  const input = c.req.valid("json");
  const errors = new Problems();
  const { customer, typeExists } = await creationRefs(c.var.db, c.var.organizer.id, input.customer, input.membership_type);
  if (customer === undefined) errors.add("customer", `Object with identifier=${input.customer} does not exist.`);
  validate(errors, input, typeExists);
  errors.throwIfAny();
  const row = await createMembership(c.var.db, c.var.organizer.id, customer!.id, input.testmode ?? false, values(input, true) as MembershipValues);
  return c.json(serializeMembership({ membership: row, customer: customer!.identifier }), 201);
});

membershipRoutes.get(`${base}/:id`, perm, async (c) => c.json(serializeMembership(await loadMembership(c))));

async function changeMembership(c: AppContext, input: EditableInput, full: boolean) {
  const { found: current, typeExists } = await findMembershipForChange(c.var.db, c.var.organizer.id, pathId(c, "id"), input.membership_type);
  if (!current) throw notFound();
  const errors = new Problems();
  validate(errors, input, typeExists, current.membership);
  errors.throwIfAny();
  const changes = values(input, full);
  if (Object.keys(changes).length === 0) return c.json(serializeMembership(current));
  const row = await updateMembership(c.var.db, c.var.organizer.id, current.membership.id, changes);
  if (!row) throw notFound();
  return c.json(serializeMembership({ membership: row, customer: current.customer }));
}

membershipRoutes.put(`${base}/:id`, perm, jsonBody(putSchema), (c) => changeMembership(c, c.req.valid("json"), true));
membershipRoutes.patch(`${base}/:id`, perm, jsonBody(patchSchema), (c) => changeMembership(c, c.req.valid("json"), false));
