/**
 * Add-ons and bundles of an item: their lists, reading, creating, changing and deleting one.
 * Reached only through an item of the event.
 */
import { and, eq } from "drizzle-orm";
import { STAMP, touch } from "./catalog-common";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { itemAddons, itemBundles } from "./schema";

export type AddonRow = typeof itemAddons.$inferSelect;
export type AddonValues = Omit<typeof itemAddons.$inferInsert, "id" | "itemId">;
export type BundleRow = typeof itemBundles.$inferSelect;
export type BundleValues = Omit<typeof itemBundles.$inferInsert, "id" | "itemId">;

// ---- add-ons ----

/** The orderings of an item's add-on list (default id). */
export const ADDON_ORDERING: OrderingTable = {
  fields: { id: itemAddons.id, position: itemAddons.position },
  default: "id",
  tiebreaker: itemAddons.id,
};

export function listAddons(db: DB, itemId: number, req: ListRequest) {
  const where = eq(itemAddons.itemId, itemId);
  return fetchPage(
    db,
    {
      rows: db.select().from(itemAddons).where(where).$dynamic(),
      count: { from: itemAddons, where },
      ordering: ADDON_ORDERING,
    },
    req,
  );
}

export async function findAddon(db: DB, itemId: number, addonId: number) {
  return db
    .select()
    .from(itemAddons)
    .where(and(eq(itemAddons.itemId, itemId), eq(itemAddons.id, addonId)))
    .get();
}

export async function insertAddon(
  db: DB,
  eventId: number,
  itemId: number,
  values: AddonValues,
  now: number,
): Promise<AddonRow> {
  const [rows] = await db.batch([
    db
      .insert(itemAddons)
      .values({ ...values, itemId })
      .returning(),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0]!;
}

export async function updateAddonRow(
  db: DB,
  eventId: number,
  itemId: number,
  addonId: number,
  values: Partial<AddonValues>,
  now: number,
) {
  const where = and(eq(itemAddons.itemId, itemId), eq(itemAddons.id, addonId));
  if (Object.keys(values).length === 0) return findAddon(db, itemId, addonId);
  const [rows] = await db.batch([
    db.update(itemAddons).set(values).where(where).returning(),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0];
}

export async function deleteAddonRow(
  db: DB,
  eventId: number,
  itemId: number,
  addonId: number,
  now: number,
): Promise<boolean> {
  const [rows] = await db.batch([
    db
      .delete(itemAddons)
      .where(and(eq(itemAddons.itemId, itemId), eq(itemAddons.id, addonId)))
      .returning({ id: itemAddons.id }),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows.length > 0;
}

// ---- bundles ----

/** The orderings of an item's bundle list (default id). */
export const BUNDLE_ORDERING: OrderingTable = {
  fields: { id: itemBundles.id },
  default: "id",
  tiebreaker: itemBundles.id,
};

export function listBundles(db: DB, itemId: number, req: ListRequest) {
  const where = eq(itemBundles.itemId, itemId);
  return fetchPage(
    db,
    {
      rows: db.select().from(itemBundles).where(where).$dynamic(),
      count: { from: itemBundles, where },
      ordering: BUNDLE_ORDERING,
    },
    req,
  );
}

export async function findBundle(db: DB, itemId: number, bundleId: number) {
  return db
    .select()
    .from(itemBundles)
    .where(and(eq(itemBundles.itemId, itemId), eq(itemBundles.id, bundleId)))
    .get();
}

export async function insertBundle(
  db: DB,
  eventId: number,
  itemId: number,
  values: BundleValues,
  now: number,
): Promise<BundleRow> {
  const [rows] = await db.batch([
    db
      .insert(itemBundles)
      .values({ ...values, itemId })
      .returning(),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0]!;
}

export async function updateBundleRow(
  db: DB,
  eventId: number,
  itemId: number,
  bundleId: number,
  values: Partial<BundleValues>,
  now: number,
) {
  const where = and(eq(itemBundles.itemId, itemId), eq(itemBundles.id, bundleId));
  if (Object.keys(values).length === 0) return findBundle(db, itemId, bundleId);
  const [rows] = await db.batch([
    db.update(itemBundles).set(values).where(where).returning(),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0];
}

export async function deleteBundleRow(
  db: DB,
  eventId: number,
  itemId: number,
  bundleId: number,
  now: number,
): Promise<boolean> {
  const [rows] = await db.batch([
    db
      .delete(itemBundles)
      .where(and(eq(itemBundles.itemId, itemId), eq(itemBundles.id, bundleId)))
      .returning({ id: itemBundles.id }),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows.length > 0;
}
