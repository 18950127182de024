/** Memberships of customers; every query is scoped by organizer. */
import { and, asc, count, eq, sql, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { customers, membershipTypes, memberships } from "./schema";

export type MembershipRow = typeof memberships.$inferSelect;
export type MembershipValues = Pick<typeof memberships.$inferInsert, "membershipTypeId" | "dateStart" | "dateEnd" | "attendeeNameParts">;
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

export function membershipCount(db: DB, organizerId: number, f: MembershipFilters) {
  return db
    .select({ n: count() })
    .from(memberships)
    .innerJoin(customers, eq(customers.id, memberships.customerId))
    .where(listWhere(organizerId, f));
}

export function membershipPage(db: DB, organizerId: number, f: MembershipFilters, limit: number, offset: number) {
  return db
    .select(record)
    .from(memberships)
    .innerJoin(customers, eq(customers.id, memberships.customerId))
    .where(listWhere(organizerId, f))
    .orderBy(asc(memberships.id))
    .limit(limit)
    .offset(offset);
}

export async function findMembership(db: DB, organizerId: number, id: number): Promise<MembershipRecord | undefined> {
  return db
    .select(record)
    .from(memberships)
    .innerJoin(customers, eq(customers.id, memberships.customerId))
    .where(and(eq(memberships.organizerId, organizerId), eq(memberships.id, id)))
    .get();
}

/** The id of the organizer's customer with this identifier. */
export async function customerIdByIdentifier(db: DB, organizerId: number, identifier: string): Promise<number | undefined> {
  const row = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.organizerId, organizerId), eq(customers.identifier, identifier)))
    .get();
  return row?.id;
}

export async function membershipTypeExists(db: DB, organizerId: number, id: number): Promise<boolean> {
  const row = await db
    .select({ id: membershipTypes.id })
    .from(membershipTypes)
    .where(and(eq(membershipTypes.organizerId, organizerId), eq(membershipTypes.id, id)))
    .get();
  return row !== undefined;
}

export async function createMembership(db: DB, organizerId: number, customerId: number, testmode: boolean, values: MembershipValues) {
  const [row] = await db
    .insert(memberships)
    .values({ ...values, organizerId, customerId, testmode })
    .returning({ id: memberships.id });
  return row!.id;
}

export async function updateMembership(db: DB, organizerId: number, id: number, values: Partial<MembershipValues>) {
  if (Object.keys(values).length === 0) return;
  await db
    .update(memberships)
    .set(values)
    .where(and(eq(memberships.organizerId, organizerId), eq(memberships.id, id)));
}
