/**
 * Items (products): the item list and an item with its sub-objects (variations, add-ons,
 * bundles, membership-type links), creating an item with its nested lists, changing and
 * deleting it. Every query is scoped by the event (which the tenancy layer has matched to the
 * organizer). The sub-objects' own queries: item-variations.ts, item-addons-bundles.ts.
 */
import { and, asc, eq, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import { group, lastInsertedId, membershipLinkStatements, pageIdsOf, STAMP, touch } from "./catalog-common";
import { eventScopeKey, lastChangeQuery } from "./changes";
import type { DB } from "./client";
import { touchInventory } from "./inventory";
import type { AddonRow, AddonValues, BundleRow, BundleValues } from "./item-addons-bundles";
import { type NewVariation, newVariationId, type VariationRecord, type VariationRow } from "./item-variations";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import {
  itemAddons,
  itemBundles,
  itemMembershipTypes,
  items,
  itemVariations,
  orderPositions,
  taxRules,
  variationMembershipTypes,
} from "./schema";
import { chunks } from "../lib/chunks";
import { rowsPerInsert } from "./util";

/** A variation of an item (item-variations.ts), for the readers of items that expand variations too. */
export { findVariation } from "./item-variations";

export type ItemRow = typeof items.$inferSelect;
export type ItemValues = Omit<typeof items.$inferInsert, "id" | "eventId">;

export type ItemRecord = {
  item: ItemRow;
  /** Rate of the tax rule in hundredths of a percent; null without a tax rule. */
  taxRate: number | null;
  membershipTypeIds: number[];
  variations: VariationRecord[];
  addons: AddonRow[];
  bundles: BundleRow[];
};

// ---- reading ----

export type ItemFilters = {
  active?: boolean;
  category?: number;
  admission?: boolean;
  freePrice?: boolean;
  /** Hundredths of a percent; 0 also matches items without a tax rule. */
  taxRate?: number;
};

const itemWithRate = { item: items, taxRate: taxRules.rate };

function itemQuery(db: DB) {
  return db.select(itemWithRate).from(items).leftJoin(taxRules, eq(taxRules.id, items.taxRuleId));
}

function taxRateCondition(db: DB, eventId: number, rate: number): SQL {
  const ruleIds = db
    .select({ id: taxRules.id })
    .from(taxRules)
    .where(and(eq(taxRules.eventId, eventId), eq(taxRules.rate, rate)));
  return rate === 0
    ? or(isNull(items.taxRuleId), inArray(items.taxRuleId, ruleIds))!
    : inArray(items.taxRuleId, ruleIds);
}

function listConditions(db: DB, eventId: number, f: ItemFilters): SQL {
  const conds: SQL[] = [eq(items.eventId, eventId)];
  if (f.active !== undefined) conds.push(eq(items.active, f.active));
  if (f.category !== undefined) conds.push(eq(items.categoryId, f.category));
  if (f.admission !== undefined) conds.push(eq(items.admission, f.admission));
  if (f.freePrice !== undefined) conds.push(eq(items.freePrice, f.freePrice));
  if (f.taxRate !== undefined) conds.push(taxRateCondition(db, eventId, f.taxRate));
  return and(...conds)!;
}

/** Statements loading the sub-objects of the items whose ids `ids` selects. */
function childStatements(db: DB, ids: SQL | ReturnType<typeof pageIdsOf>) {
  return [
    db
      .select()
      .from(itemVariations)
      .where(inArray(itemVariations.itemId, ids))
      .orderBy(asc(itemVariations.position), asc(itemVariations.id)),
    db
      .select({ variationId: variationMembershipTypes.variationId, typeId: variationMembershipTypes.membershipTypeId })
      .from(variationMembershipTypes)
      .innerJoin(itemVariations, eq(itemVariations.id, variationMembershipTypes.variationId))
      .where(inArray(itemVariations.itemId, ids))
      .orderBy(asc(variationMembershipTypes.membershipTypeId)),
    db
      .select()
      .from(itemAddons)
      .where(inArray(itemAddons.itemId, ids))
      .orderBy(asc(itemAddons.position), asc(itemAddons.id)),
    db.select().from(itemBundles).where(inArray(itemBundles.itemId, ids)).orderBy(asc(itemBundles.id)),
    db
      .select({ itemId: itemMembershipTypes.itemId, typeId: itemMembershipTypes.membershipTypeId })
      .from(itemMembershipTypes)
      .where(inArray(itemMembershipTypes.itemId, ids))
      .orderBy(asc(itemMembershipTypes.membershipTypeId)),
  ] as const;
}

type Children = [
  VariationRow[],
  { variationId: number; typeId: number }[],
  AddonRow[],
  BundleRow[],
  { itemId: number; typeId: number }[],
];

function assemble(
  rows: { item: ItemRow; taxRate: number | null }[],
  [variations, varTypes, addons, bundles, itemTypes]: Children,
): ItemRecord[] {
  const typesOfVariation = group(varTypes, (r) => r.variationId);
  const variationsOf = group(variations, (v) => v.itemId);
  const addonsOf = group(addons, (a) => a.itemId);
  const bundlesOf = group(bundles, (b) => b.itemId);
  const typesOfItem = group(itemTypes, (r) => r.itemId);
  return rows.map(({ item, taxRate }) => ({
    item,
    taxRate,
    membershipTypeIds: (typesOfItem.get(item.id) ?? []).map((r) => r.typeId),
    variations: (variationsOf.get(item.id) ?? []).map((variation) => ({
      variation,
      membershipTypeIds: (typesOfVariation.get(variation.id) ?? []).map((r) => r.typeId),
    })),
    addons: addonsOf.get(item.id) ?? [],
    bundles: bundlesOf.get(item.id) ?? [],
  }));
}

/** The orderings of the item list (default `position`, then id). */
export const ITEM_ORDERING: OrderingTable = {
  fields: { id: items.id, position: items.position },
  default: "position",
  tiebreaker: items.id,
};

/**
 * One page of items with their sub-objects, the total count and the list's last change, in
 * one round trip.
 */
export async function listItems(db: DB, eventId: number, f: ItemFilters, req: ListRequest) {
  const where = listConditions(db, eventId, f);
  const page = await fetchPage(
    db,
    { rows: itemQuery(db).where(where).$dynamic(), count: { from: items, where }, ordering: ITEM_ORDERING },
    req,
    lastChangeQuery(db, eventScopeKey(eventId), STAMP.items),
    ...childStatements(db, pageIdsOf(db, items, where, ITEM_ORDERING, req)),
  );
  const [stamp, ...children] = page.extra;
  return { count: page.count, rows: assemble(page.rows, children), lastModified: stamp[0]?.modifiedAt ?? null };
}

export async function findItem(db: DB, eventId: number, itemId: number): Promise<ItemRecord | undefined> {
  const ids = sql`(${itemId})`;
  const [rows, ...children] = await db.batch([
    itemQuery(db).where(and(eq(items.eventId, eventId), eq(items.id, itemId))),
    ...childStatements(db, ids),
  ]);
  return rows.length ? assemble(rows, children as unknown as Children)[0] : undefined;
}

/** The bare item row of the event, or undefined. */
export async function findItemRow(db: DB, eventId: number, itemId: number): Promise<ItemRow | undefined> {
  return db
    .select()
    .from(items)
    .where(and(eq(items.eventId, eventId), eq(items.id, itemId)))
    .get();
}

// ---- writing ----

/** The id of the item inserted last in the same batch (a batch is one transaction; ids only grow). */
const newItemId = lastInsertedId("items");

/**
 * The statements creating an item with its nested variations, add-ons and bundles (the item's
 * insert first). Each stays within D1's 100 bound parameters, however long the lists.
 */
export function createItemStatements(
  db: DB,
  eventId: number,
  organizerId: number,
  values: ItemValues,
  membershipTypeIds: number[],
  variations: NewVariation[],
  addons: AddonValues[],
  bundles: BundleValues[],
  now: number,
) {
  const itemId = newItemId as unknown as number;
  return [
    db
      .insert(items)
      .values({ ...values, eventId })
      .returning({ id: items.id }),
    ...membershipLinkStatements(db, "item", newItemId, organizerId, membershipTypeIds),
    ...variations.flatMap((v) => [
      db.insert(itemVariations).values({ ...v.values, itemId }),
      ...membershipLinkStatements(db, "variation", newVariationId, organizerId, v.membershipTypeIds),
    ]),
    ...chunks(addons, rowsPerInsert(7)).map((part) =>
      db.insert(itemAddons).values(part.map((a) => ({ ...a, itemId }))),
    ),
    ...chunks(bundles, rowsPerInsert(6)).map((part) =>
      db.insert(itemBundles).values(part.map((b) => ({ ...b, itemId }))),
    ),
    touch(db, eventId, STAMP.items, now),
  ] as const;
}

/** Creates an item with its nested variations, add-ons and bundles atomically; returns its id. */
export async function insertItem(...args: Parameters<typeof createItemStatements>): Promise<number> {
  const [insert, ...rest] = createItemStatements(...args);
  const [rows] = await args[0].batch([insert, ...rest]);
  return rows[0]!.id;
}

/**
 * Updates an item; `membershipTypeIds` replaces its required membership types when given.
 * Returns false when the item no longer exists.
 */
export async function updateItemRow(
  db: DB,
  eventId: number,
  organizerId: number,
  itemId: number,
  values: Partial<ItemValues>,
  membershipTypeIds: number[] | undefined,
  now: number,
): Promise<boolean> {
  const where = and(eq(items.eventId, eventId), eq(items.id, itemId));
  const update = Object.keys(values).length
    ? db.update(items).set(values).where(where).returning({ id: items.id })
    : db.select({ id: items.id }).from(items).where(where);
  const links =
    membershipTypeIds === undefined
      ? []
      : [
          db.delete(itemMembershipTypes).where(eq(itemMembershipTypes.itemId, itemId)),
          ...membershipLinkStatements(db, "item", sql`${itemId}`, organizerId, membershipTypeIds),
        ];
  const [rows] = await db.batch([update, ...links, touch(db, eventId, STAMP.items, now)]);
  return rows.length > 0;
}

/** True when order positions refer to the item. */
export async function itemOrdered(db: DB, itemId: number): Promise<boolean> {
  const row = await db
    .select({ id: orderPositions.id })
    .from(orderPositions)
    .where(eq(orderPositions.itemId, itemId))
    .limit(1)
    .get();
  return row !== undefined;
}

/**
 * Deletes an item unless it was ordered (checked in the same statement). Its variations,
 * add-ons, bundles, quota assignments and bundles of other items that include it go with it.
 */
export async function deleteItemRow(db: DB, eventId: number, itemId: number, now: number): Promise<boolean> {
  const [rows] = await db.batch([
    db
      .delete(items)
      .where(
        and(
          eq(items.eventId, eventId),
          eq(items.id, itemId),
          sql`NOT EXISTS (SELECT 1 FROM order_positions WHERE item_id = ${itemId})`,
        ),
      )
      .returning({ id: items.id }),
    touch(db, eventId, STAMP.items, now),
    touch(db, eventId, STAMP.quotas, now),
    touch(db, eventId, STAMP.questions, now),
    // quota coverage and vouchers of the item go with it: the event object reloads
    touchInventory(db, eventId, now),
  ]);
  return rows.length > 0;
}
