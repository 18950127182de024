/** Item categories of an event (pretix docs categories.rst); every query takes the event. */
import { and, eq } from "drizzle-orm";
import type { DB } from "./client";
import { eventScopeKey, lastChangeQuery } from "./changes";
import { STAMP, touch } from "./catalog-common";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { itemCategories } from "./schema";

export type CategoryRow = typeof itemCategories.$inferSelect;
export type CategoryValues = Omit<typeof itemCategories.$inferInsert, "id" | "eventId">;

/** The orderings of the category list (default `position`, then id). */
export const CATEGORY_ORDERING: OrderingTable = {
  fields: { id: itemCategories.id, position: itemCategories.position },
  default: "position",
  tiebreaker: itemCategories.id,
};

/** A page of the event's categories, the total and the list's last change, in one round trip. */
export async function listCategories(db: DB, eventId: number, isAddon: boolean | undefined, req: ListRequest) {
  const where =
    isAddon === undefined
      ? eq(itemCategories.eventId, eventId)
      : and(eq(itemCategories.eventId, eventId), eq(itemCategories.isAddon, isAddon));
  const page = await fetchPage(
    db,
    {
      rows: db.select().from(itemCategories).where(where).$dynamic(),
      count: { from: itemCategories, where },
      ordering: CATEGORY_ORDERING,
    },
    req,
    lastChangeQuery(db, eventScopeKey(eventId), STAMP.categories),
  );
  const [stamp] = page.extra;
  return { count: page.count, rows: page.rows, lastModified: stamp[0]?.modifiedAt ?? null };
}

export async function findCategory(db: DB, eventId: number, id: number): Promise<CategoryRow | undefined> {
  return db
    .select()
    .from(itemCategories)
    .where(and(eq(itemCategories.eventId, eventId), eq(itemCategories.id, id)))
    .get();
}

export async function insertCategory(
  db: DB,
  eventId: number,
  values: CategoryValues,
  now: number,
): Promise<CategoryRow> {
  const [rows] = await db.batch([
    db
      .insert(itemCategories)
      .values({ ...values, eventId })
      .returning(),
    touch(db, eventId, STAMP.categories, now),
  ]);
  return rows[0]!;
}

/** Writes the values (none: reads the row); undefined when the category does not exist. */
export async function updateCategoryRow(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<CategoryValues>,
  now: number,
): Promise<CategoryRow | undefined> {
  if (Object.keys(values).length === 0) return findCategory(db, eventId, id);
  const [rows] = await db.batch([
    db
      .update(itemCategories)
      .set(values)
      .where(and(eq(itemCategories.eventId, eventId), eq(itemCategories.id, id)))
      .returning(),
    touch(db, eventId, STAMP.categories, now),
  ]);
  return rows[0];
}

/**
 * Deletes a category. Its items stay, without category (the foreign key sets it null); add-on
 * definitions offering the category go with it (pretix behaviour). Items change, so both
 * lists' stamps move.
 */
export async function deleteCategoryRow(db: DB, eventId: number, id: number, now: number): Promise<boolean> {
  const [rows] = await db.batch([
    db
      .delete(itemCategories)
      .where(and(eq(itemCategories.eventId, eventId), eq(itemCategories.id, id)))
      .returning({ id: itemCategories.id }),
    touch(db, eventId, STAMP.categories, now),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows.length > 0;
}
