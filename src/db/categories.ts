/** Item categories of an event (pretix docs categories.rst); every query takes the event. */
import { and, count, eq, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { eventScopeKey, lastChangeQuery } from "./changes";
import { STAMP, touch } from "./items";
import { itemCategories } from "./schema";

export type CategoryRow = typeof itemCategories.$inferSelect;
export type CategoryValues = Omit<typeof itemCategories.$inferInsert, "id" | "eventId">;

function where(eventId: number, isAddon: boolean | undefined) {
  return isAddon === undefined
    ? eq(itemCategories.eventId, eventId)
    : and(eq(itemCategories.eventId, eventId), eq(itemCategories.isAddon, isAddon));
}

/** A page of categories, the total and the list's last change, in one round trip. */
export async function categoryPage(db: DB, eventId: number, isAddon: boolean | undefined, order: SQL[], limit: number, offset: number) {
  const w = where(eventId, isAddon);
  const [[total], rows, stamp] = await db.batch([
    db.select({ n: count() }).from(itemCategories).where(w),
    db.select().from(itemCategories).where(w).orderBy(...order).limit(limit).offset(offset),
    lastChangeQuery(db, eventScopeKey(eventId), STAMP.categories),
  ]);
  return { total: total?.n ?? 0, rows, lastModified: stamp[0]?.modifiedAt ?? null };
}

export async function findCategory(db: DB, eventId: number, id: number): Promise<CategoryRow | undefined> {
  return db.select().from(itemCategories).where(and(eq(itemCategories.eventId, eventId), eq(itemCategories.id, id))).get();
}

export async function createCategory(db: DB, eventId: number, values: CategoryValues, now: number): Promise<CategoryRow> {
  const [rows] = await db.batch([
    db.insert(itemCategories).values({ ...values, eventId }).returning(),
    touch(db, eventId, STAMP.categories, now),
  ]);
  return rows[0]!;
}

export async function updateCategory(
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
export async function deleteCategory(db: DB, eventId: number, id: number, now: number): Promise<boolean> {
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
