/** Memberships of customers; every query is scoped by organizer. */
import { and, asc, count, eq, sql, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { customers, membershipTypes, memberships } from "./schema";

export type MembershipRow = typeof memberships.$inferSelect;
export type MembershipValues = Pick<
  typeof memberships.$inferInsert,
  "membershipTypeId" | "dateStart" | "dateEnd" | "attendeeNameParts"
>;
export type MembershipRecord = { membership: MembershipRow; customer: string };

export type MembershipFilters = { customer?: string; membershipType?: number; testmode?: boolean };

const record = { membership: memberships, customer: customers.identifier };

function listWhere(organizerId: number, f: MembershipFilters): SQL | undefined {
  const conditions: SQL[] = [eq(memberships.organizerId, organizerId)];
  if (f.customer !== undefined) conditions.push(sql`lower(${customers.identifier}) = lower(${f.customer})`);
  if (f.membershipType !== undefined) conditions.push(eq(memberships.membershipTypeId, f.membershipType));
  if (f.testmode !== undefined) conditions.push(eq(memberships.testmode, f.testmode));
  return and(...conditions);
}

/** A page of the organizer's memberships matching the filters (by id), with their customer's identifier. */
export function listMemberships(db: DB, organizerId: number, f: MembershipFilters, req: ListRequest) {
  const where = listWhere(organizerId, f);
  const rows = db
    .select(record)
    .from(memberships)
    .innerJoin(customers, eq(customers.id, memberships.customerId))
    .where(where)
    .orderBy(asc(memberships.id))
    .$dynamic();
  // the customer filter needs the join in the count too
  const counted = db
    .select({ n: count() })
    .from(memberships)
    .innerJoin(customers, eq(customers.id, memberships.customerId))
    .where(where);
  return fetchPage(db, { rows, count: counted }, req);
}

function membershipQuery(db: DB, organizerId: number, id: number) {
  return db
    .select(record)
    .from(memberships)
    .innerJoin(customers, eq(customers.id, memberships.customerId))
    .where(and(eq(memberships.organizerId, organizerId), eq(memberships.id, id)))
    .limit(1);
}

export async function findMembership(db: DB, organizerId: number, id: number): Promise<MembershipRecord | undefined> {
  return membershipQuery(db, organizerId, id).get();
}

function membershipTypeQuery(db: DB, organizerId: number, id: number) {
  return db
    .select({ id: membershipTypes.id })
    .from(membershipTypes)
    .where(and(eq(membershipTypes.organizerId, organizerId), eq(membershipTypes.id, id)))
    .limit(1);
}

/**
 * What creating a membership checks, in one round trip: the organizer's customer with this
 * identifier (its id and identifier as stored) and whether the membership type is theirs.
 */
export async function creationRefs(db: DB, organizerId: number, identifier: string, membershipTypeId: number) {
  const [customer, type] = await db.batch([
    db
      .select({ id: customers.id, identifier: customers.identifier })
      .from(customers)
      .where(and(eq(customers.organizerId, organizerId), eq(customers.identifier, identifier)))
      .limit(1),
    membershipTypeQuery(db, organizerId, membershipTypeId),
  ]);
  return { customer: customer[0], typeExists: type.length > 0 };
}

/** A membership and, when `membershipTypeId` is given, whether that type is the organizer's: one round trip. */
export async function findMembershipForChange(
  db: DB,
  organizerId: number,
  id: number,
  membershipTypeId: number | undefined,
) {
  if (membershipTypeId === undefined)
    return { found: await findMembership(db, organizerId, id), typeExists: undefined };
  const [found, type] = await db.batch([
    membershipQuery(db, organizerId, id),
    membershipTypeQuery(db, organizerId, membershipTypeId),
  ]);
  return { found: found[0] as MembershipRecord | undefined, typeExists: type.length > 0 };
}

export async function insertMembership(
  db: DB,
  organizerId: number,
  customerId: number,
  testmode: boolean,
  values: MembershipValues,
): Promise<MembershipRow> {
  const [row] = await db
    .insert(memberships)
    .values({ ...values, organizerId, customerId, testmode })
    .returning();
  return row!;
}

/** Updates the membership; returns the row as it is afterwards (undefined: it is gone). */
export async function updateMembership(
  db: DB,
  organizerId: number,
  id: number,
  values: Partial<MembershipValues>,
): Promise<MembershipRow | undefined> {
  const [row] = await db
    .update(memberships)
    .set(values)
    .where(and(eq(memberships.organizerId, organizerId), eq(memberships.id, id)))
    .returning();
  return row;
}
