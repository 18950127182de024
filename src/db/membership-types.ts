/** Membership types of an organizer (pretix docs membershiptypes.rst); every query takes the organizer. */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { isForeignKeyError } from "./constraints";
import { membershipTypes } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type MembershipTypeRow = typeof membershipTypes.$inferSelect;
export type MembershipTypeValues = Omit<typeof membershipTypes.$inferInsert, "id" | "organizerId">;

/** A page of the organizer's membership types, by id. */
export function listMembershipTypes(db: DB, organizerId: number, req: ListRequest) {
  const where = eq(membershipTypes.organizerId, organizerId);
  return fetchPage(
    db,
    {
      rows: db.select().from(membershipTypes).where(where).orderBy(asc(membershipTypes.id)).$dynamic(),
      count: { from: membershipTypes, where },
    },
    req,
  );
}

export async function findMembershipType(
  db: DB,
  organizerId: number,
  id: number,
): Promise<MembershipTypeRow | undefined> {
  return db
    .select()
    .from(membershipTypes)
    .where(and(eq(membershipTypes.organizerId, organizerId), eq(membershipTypes.id, id)))
    .get();
}

export async function insertMembershipType(
  db: DB,
  organizerId: number,
  values: MembershipTypeValues,
): Promise<MembershipTypeRow> {
  const [row] = await db
    .insert(membershipTypes)
    .values({ ...values, organizerId })
    .returning();
  return row!;
}

export async function updateMembershipType(
  db: DB,
  organizerId: number,
  id: number,
  values: Partial<MembershipTypeValues>,
): Promise<MembershipTypeRow | undefined> {
  if (Object.keys(values).length === 0) return findMembershipType(db, organizerId, id);
  const [row] = await db
    .update(membershipTypes)
    .set(values)
    .where(and(eq(membershipTypes.organizerId, organizerId), eq(membershipTypes.id, id)))
    .returning();
  return row;
}

/** SQL: the membership type is required or granted by an item or a variation. */
function usedByItems(id: number) {
  return sql`(
    EXISTS (SELECT 1 FROM items WHERE grant_membership_type_id = ${id})
    OR EXISTS (SELECT 1 FROM item_membership_types WHERE membership_type_id = ${id})
    OR EXISTS (SELECT 1 FROM variation_membership_types WHERE membership_type_id = ${id})
  )`;
}

/**
 * Deletes a membership type unless items use it (checked in the same statement, so an item
 * linked meanwhile is never left dangling). Rows elsewhere that refer to the type (e.g.
 * memberships) make the database refuse: that is "in use" too.
 */
export async function deleteUnusedMembershipType(
  db: DB,
  organizerId: number,
  id: number,
): Promise<"deleted" | "in_use" | "missing"> {
  try {
    const rows = await db
      .delete(membershipTypes)
      .where(and(eq(membershipTypes.organizerId, organizerId), eq(membershipTypes.id, id), sql`NOT ${usedByItems(id)}`))
      .returning({ id: membershipTypes.id });
    if (rows.length) return "deleted";
  } catch (e) {
    if (isForeignKeyError(e)) return "in_use";
    throw e;
  }
  return (await findMembershipType(db, organizerId, id)) ? "in_use" : "missing";
}

/** The ids among `ids` that are membership types of the organizer. */
export async function existingMembershipTypeIds(db: DB, organizerId: number, ids: number[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    const rows = await db
      .select({ id: membershipTypes.id })
      .from(membershipTypes)
      .where(and(eq(membershipTypes.organizerId, organizerId), inArray(membershipTypes.id, part)));
    for (const r of rows) found.add(r.id);
  }
  return found;
}
