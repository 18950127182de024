/** Automatic discounts of an event; every query is scoped by event. */
import { and, count, eq, type SQL } from "drizzle-orm";
import { itemLinkInserts, lastInsertedId, linkedItemIdsJson, runBatch, type Statement } from "./catalog-common";
import type { DB } from "./client";
import { discountItems, discounts } from "./schema";

export type DiscountRow = typeof discounts.$inferSelect;
export type DiscountValues = Omit<typeof discounts.$inferInsert, "id" | "eventId">;
export type DiscountRecord = { discount: DiscountRow; items: string };

const discountRecordFields = {
  discount: discounts,
  items: linkedItemIdsJson("discount_items", "discount_id", "discounts"),
};

function discountWhere(eventId: number, active: boolean | undefined): SQL | undefined {
  return and(eq(discounts.eventId, eventId), active === undefined ? undefined : eq(discounts.active, active));
}

export function discountCount(db: DB, eventId: number, active: boolean | undefined) {
  return db.select({ n: count() }).from(discounts).where(discountWhere(eventId, active));
}

export function discountPage(db: DB, eventId: number, active: boolean | undefined, order: SQL[], limit: number, offset: number) {
  return db
    .select(discountRecordFields)
    .from(discounts)
    .where(discountWhere(eventId, active))
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
}

export async function findDiscount(db: DB, eventId: number, id: number): Promise<DiscountRecord | undefined> {
  return db
    .select(discountRecordFields)
    .from(discounts)
    .where(and(eq(discounts.eventId, eventId), eq(discounts.id, id)))
    .get();
}

/** Creates a discount with its limited products in one transaction; returns its id. */
export async function createDiscount(db: DB, eventId: number, values: DiscountValues, itemIds: number[]): Promise<number> {
  const [inserted] = (await runBatch(db, [
    db.insert(discounts).values({ ...values, eventId }).returning({ id: discounts.id }),
    ...itemLinkInserts(db, "discount_items", lastInsertedId("discounts"), eventId, itemIds),
  ])) as [{ id: number }[]];
  return inserted[0]!.id;
}

/** Updates a discount; `itemIds` replaces its limited products when given. */
export async function updateDiscount(db: DB, eventId: number, id: number, values: Partial<DiscountValues>, itemIds: number[] | undefined) {
  const statements: Statement[] = [];
  if (Object.keys(values).length) {
    statements.push(db.update(discounts).set(values).where(and(eq(discounts.eventId, eventId), eq(discounts.id, id))));
  }
  if (itemIds) {
    statements.push(db.delete(discountItems).where(eq(discountItems.discountId, id)));
    statements.push(...itemLinkInserts(db, "discount_items", id, eventId, itemIds));
  }
  await runBatch(db, statements);
}

export async function deleteDiscount(db: DB, eventId: number, id: number) {
  await db.delete(discounts).where(and(eq(discounts.eventId, eventId), eq(discounts.id, id)));
}
