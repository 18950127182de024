/**
 * Variations of an item: the variation list, reading, creating, changing and deleting one,
 * with its required membership types, and what keeps a variation from being deleted. Reached
 * only through an item of the event.
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import { group, lastInsertedId, membershipLinkStatements, pageIdsOf, STAMP, touch } from "./catalog-common";
import type { DB } from "./client";
import { touchInventory } from "./inventory";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { cartPositions, itemVariations, orderPositions, variationMembershipTypes } from "./schema";

export type VariationRow = typeof itemVariations.$inferSelect;
export type VariationValues = Omit<typeof itemVariations.$inferInsert, "id" | "itemId">;
export type VariationRecord = { variation: VariationRow; membershipTypeIds: number[] };
export type NewVariation = { values: VariationValues; membershipTypeIds: number[] };

/** The id of the variation inserted last in the same batch (a batch is one transaction; ids only grow). */
export const newVariationId = lastInsertedId("item_variations");

function variationWhere(itemId: number, active: boolean | undefined) {
  return active === undefined
    ? eq(itemVariations.itemId, itemId)
    : and(eq(itemVariations.itemId, itemId), eq(itemVariations.active, active));
}

/** The orderings of an item's variation list (default id). */
export const VARIATION_ORDERING: OrderingTable = {
  fields: { id: itemVariations.id, position: itemVariations.position },
  default: "id",
  tiebreaker: itemVariations.id,
};

/** A page of an item's variations with their membership types, and the total, in one round trip. */
export async function listVariations(db: DB, itemId: number, active: boolean | undefined, req: ListRequest) {
  const where = variationWhere(itemId, active);
  const page = await fetchPage(
    db,
    {
      rows: db.select().from(itemVariations).where(where).$dynamic(),
      count: { from: itemVariations, where },
      ordering: VARIATION_ORDERING,
    },
    req,
    db
      .select({ variationId: variationMembershipTypes.variationId, typeId: variationMembershipTypes.membershipTypeId })
      .from(variationMembershipTypes)
      .where(
        inArray(variationMembershipTypes.variationId, pageIdsOf(db, itemVariations, where, VARIATION_ORDERING, req)),
      )
      .orderBy(asc(variationMembershipTypes.membershipTypeId)),
  );
  const typesOf = group(page.extra[0], (t) => t.variationId);
  return {
    count: page.count,
    rows: page.rows.map(
      (variation): VariationRecord => ({
        variation,
        membershipTypeIds: (typesOf.get(variation.id) ?? []).map((t) => t.typeId),
      }),
    ),
  };
}

export async function findVariation(db: DB, itemId: number, variationId: number): Promise<VariationRecord | undefined> {
  const [rows, types] = await db.batch([
    db
      .select()
      .from(itemVariations)
      .where(and(eq(itemVariations.itemId, itemId), eq(itemVariations.id, variationId))),
    db
      .select({ typeId: variationMembershipTypes.membershipTypeId })
      .from(variationMembershipTypes)
      .innerJoin(itemVariations, eq(itemVariations.id, variationMembershipTypes.variationId))
      .where(and(eq(itemVariations.itemId, itemId), eq(variationMembershipTypes.variationId, variationId)))
      .orderBy(asc(variationMembershipTypes.membershipTypeId)),
  ]);
  return rows[0] ? { variation: rows[0], membershipTypeIds: types.map((t) => t.typeId) } : undefined;
}

export async function insertVariation(
  db: DB,
  eventId: number,
  organizerId: number,
  itemId: number,
  v: NewVariation,
  now: number,
): Promise<number> {
  const [rows] = await db.batch([
    db
      .insert(itemVariations)
      .values({ ...v.values, itemId })
      .returning({ id: itemVariations.id }),
    ...membershipLinkStatements(db, "variation", newVariationId, organizerId, v.membershipTypeIds),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0]!.id;
}

export async function updateVariationRow(
  db: DB,
  eventId: number,
  organizerId: number,
  itemId: number,
  variationId: number,
  values: Partial<VariationValues>,
  membershipTypeIds: number[] | undefined,
  now: number,
): Promise<boolean> {
  const where = and(eq(itemVariations.itemId, itemId), eq(itemVariations.id, variationId));
  const update = Object.keys(values).length
    ? db.update(itemVariations).set(values).where(where).returning({ id: itemVariations.id })
    : db.select({ id: itemVariations.id }).from(itemVariations).where(where);
  const links =
    membershipTypeIds === undefined
      ? []
      : [
          db.delete(variationMembershipTypes).where(eq(variationMembershipTypes.variationId, variationId)),
          ...membershipLinkStatements(db, "variation", sql`${variationId}`, organizerId, membershipTypeIds),
        ];
  const [rows] = await db.batch([update, ...links, touch(db, eventId, STAMP.items, now)]);
  return rows.length > 0;
}

/** Deletes a variation unless it was ordered or is the item's last one (checked in the statement). */
export async function deleteVariationRow(
  db: DB,
  eventId: number,
  itemId: number,
  variationId: number,
  now: number,
): Promise<boolean> {
  const [rows] = await db.batch([
    db
      .delete(itemVariations)
      .where(
        and(
          eq(itemVariations.itemId, itemId),
          eq(itemVariations.id, variationId),
          sql`NOT EXISTS (SELECT 1 FROM order_positions WHERE variation_id = ${variationId})`,
          sql`NOT EXISTS (SELECT 1 FROM cart_positions WHERE variation_id = ${variationId} AND expires > ${now})`,
          sql`(SELECT count(*) FROM item_variations WHERE item_id = ${itemId}) > 1`,
        ),
      )
      .returning({ id: itemVariations.id }),
    touch(db, eventId, STAMP.items, now),
    touch(db, eventId, STAMP.quotas, now),
    touchInventory(db, eventId, now),
  ]);
  return rows.length > 0;
}

/**
 * What keeps a variation from being deleted, in one round trip: order positions, an unexpired
 * cart reserving it (as in pretix), and the item's number of variations (the last one stays).
 */
export async function variationDeleteBlockers(db: DB, itemId: number, variationId: number, now: number) {
  const [ordered, inCart, [total]] = await db.batch([
    db
      .select({ id: orderPositions.id })
      .from(orderPositions)
      .where(eq(orderPositions.variationId, variationId))
      .limit(1),
    db
      .select({ id: cartPositions.id })
      .from(cartPositions)
      .where(and(eq(cartPositions.variationId, variationId), sql`${cartPositions.expires} > ${now}`))
      .limit(1),
    db.select({ n: count() }).from(itemVariations).where(eq(itemVariations.itemId, itemId)),
  ]);
  return { ordered: ordered.length > 0, inCart: inCart.length > 0, variations: total?.n ?? 0 };
}
