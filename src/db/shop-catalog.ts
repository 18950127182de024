/**
 * What the hosted shop lists of an event, read in one batch: its items, their variations, the
 * categories, the add-on categories each item offers and the items each bundles. Which of them a
 * visitor sees, and at what price, is decided in services/shop/ with the sale's own rules.
 */
import { asc, eq } from "drizzle-orm";
import type { DB } from "./client";
import { itemAddons, itemBundles, itemCategories, items, itemVariations } from "./schema";

export type ShopCategoryRow = typeof itemCategories.$inferSelect;
export type ShopAddonRow = typeof itemAddons.$inferSelect;
export type ShopBundleRow = typeof itemBundles.$inferSelect;

export type ShopCatalogRows = {
  items: (typeof items.$inferSelect)[];
  variations: (typeof itemVariations.$inferSelect)[];
  categories: ShopCategoryRow[];
  addons: ShopAddonRow[];
  bundles: ShopBundleRow[];
};

/** The event's items (by position), variations, categories, add-ons and bundles. */
export async function readShopCatalog(db: DB, eventId: number): Promise<ShopCatalogRows> {
  const [itemRows, variationRows, categories, addons, bundles] = await db.batch([
    db.select().from(items).where(eq(items.eventId, eventId)).orderBy(asc(items.position), asc(items.id)),
    db
      .select({ v: itemVariations })
      .from(itemVariations)
      .innerJoin(items, eq(items.id, itemVariations.itemId))
      .where(eq(items.eventId, eventId))
      .orderBy(asc(itemVariations.position), asc(itemVariations.id)),
    db
      .select()
      .from(itemCategories)
      .where(eq(itemCategories.eventId, eventId))
      .orderBy(asc(itemCategories.position), asc(itemCategories.id)),
    db
      .select({ a: itemAddons })
      .from(itemAddons)
      .innerJoin(items, eq(items.id, itemAddons.itemId))
      .where(eq(items.eventId, eventId))
      .orderBy(asc(itemAddons.position), asc(itemAddons.id)),
    db
      .select({ b: itemBundles })
      .from(itemBundles)
      .innerJoin(items, eq(items.id, itemBundles.itemId))
      .where(eq(items.eventId, eventId))
      .orderBy(asc(itemBundles.id)),
  ]);
  return {
    items: itemRows,
    variations: variationRows.map((r) => r.v),
    categories,
    addons: addons.map((r) => r.a),
    bundles: bundles.map((r) => r.b),
  };
}
