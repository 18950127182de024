/** Automatic discounts of an event; every query is scoped by event. */
import { and, eq, type SQL } from "drizzle-orm";
import { itemLinkInserts, lastInsertedId, linkedItemIdsJson } from "./catalog-common";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { discountItems, discounts } from "./schema";

export type DiscountRow = typeof discounts.$inferSelect;
export type DiscountValues = Omit<typeof discounts.$inferInsert, "id" | "eventId">;
export type DiscountRecord = { discount: DiscountRow; items: string };

const discountRecordFields = {
  discount: discounts,
  items: linkedItemIdsJson("discount_items", "discount_id", "discounts"),
};

function selectDiscounts(db: DB) {
  return db.select(discountRecordFields).from(discounts);
}

/** `ordering` of the list: `id` or `position` (default). */
export const DISCOUNT_ORDERING: OrderingTable = {
  fields: { id: discounts.id, position: discounts.position },
  default: "position",
  tiebreaker: discounts.id,
};

export function listDiscounts(db: DB, eventId: number, filters: { active?: boolean | undefined }, req: ListRequest) {
  const where = and(
    eq(discounts.eventId, eventId),
    filters.active === undefined ? undefined : eq(discounts.active, filters.active),
  );
  return fetchPage(
    db,
    {
      rows: selectDiscounts(db).where(where).$dynamic(),
      count: { from: discounts, where },
      ordering: DISCOUNT_ORDERING,
    },
    req,
  );
}

function discountWhere(eventId: number, id: number | SQL) {
  return and(eq(discounts.eventId, eventId), eq(discounts.id, id));
}

export async function findDiscount(db: DB, eventId: number, id: number): Promise<DiscountRecord | undefined> {
  return selectDiscounts(db).where(discountWhere(eventId, id)).get();
}

/** Creates a discount with its limited products in one transaction and reads it back. */
export async function insertDiscount(
  db: DB,
  eventId: number,
  values: DiscountValues,
  itemIds: number[],
): Promise<DiscountRecord> {
  const self = lastInsertedId("discounts");
  const results = await runBatch(db, [
    db.insert(discounts).values({ ...values, eventId }),
    ...itemLinkInserts(db, "discount_items", self, eventId, itemIds),
    selectDiscounts(db).where(discountWhere(eventId, self)),
  ]);
  return (results.at(-1) as DiscountRecord[])[0]!;
}

/**
 * Updates a discount (`itemIds` replaces its limited products when given) and reads it back
 * in the same transaction; undefined when it is gone.
 */
export async function updateDiscountValues(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<DiscountValues>,
  itemIds: number[] | undefined,
): Promise<DiscountRecord | undefined> {
  const statements: Statement[] = [];
  if (Object.keys(values).length) statements.push(db.update(discounts).set(values).where(discountWhere(eventId, id)));
  if (itemIds) {
    statements.push(db.delete(discountItems).where(eq(discountItems.discountId, id)));
    statements.push(...itemLinkInserts(db, "discount_items", id, eventId, itemIds));
  }
  statements.push(selectDiscounts(db).where(discountWhere(eventId, id)));
  const results = await runBatch(db, statements);
  return (results.at(-1) as DiscountRecord[])[0];
}

/** Deletes a discount of the event; false when there is none. */
export async function deleteDiscountRow(db: DB, eventId: number, id: number): Promise<boolean> {
  const deleted = await db.delete(discounts).where(discountWhere(eventId, id)).returning({ id: discounts.id });
  return deleted.length > 0;
}
