/**
 * Items (products) with their variations, add-ons, bundles and membership-type links. Every
 * query is scoped by the event (which the tenancy layer has matched to the organizer); the
 * sub-objects are reached only through an item of that event.
 */
import { and, asc, count, eq, inArray, isNull, ne, or, type SQL, sql } from "drizzle-orm";
import type { DB } from "./client";
import type { I18n } from "../lib/i18n";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import { touchInventory } from "./inventory";
import {
  cartPositions,
  itemAddons,
  itemBundles,
  itemCategories,
  itemMembershipTypes,
  items,
  itemVariations,
  membershipTypes,
  orderPositions,
  quotas,
  taxRules,
  variationMembershipTypes,
} from "./schema";
import { chunks, MAX_PARAMS, rowsPerInsert } from "./util";

export type ItemRow = typeof items.$inferSelect;
export type ItemValues = Omit<typeof items.$inferInsert, "id" | "eventId">;
export type VariationRow = typeof itemVariations.$inferSelect;
export type VariationValues = Omit<typeof itemVariations.$inferInsert, "id" | "itemId">;
export type AddonRow = typeof itemAddons.$inferSelect;
export type AddonValues = Omit<typeof itemAddons.$inferInsert, "id" | "itemId">;
export type BundleRow = typeof itemBundles.$inferSelect;
export type BundleValues = Omit<typeof itemBundles.$inferInsert, "id" | "itemId">;

export type VariationRecord = { variation: VariationRow; membershipTypeIds: number[] };
export type ItemRecord = {
  item: ItemRow;
  /** Rate of the tax rule in hundredths of a percent; null without a tax rule. */
  taxRate: number | null;
  membershipTypeIds: number[];
  variations: VariationRecord[];
  addons: AddonRow[];
  bundles: BundleRow[];
};

/** Change-stamp resources this module touches (list-level conditional fetching). */
export const STAMP = { items: "items", categories: "categories", quotas: "quotas", questions: "questions" } as const;

export function touch(db: DB, eventId: number, resource: string, now: number) {
  return touchStatement(db, eventScopeKey(eventId), resource, now);
}

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
  const ruleIds = db.select({ id: taxRules.id }).from(taxRules).where(and(eq(taxRules.eventId, eventId), eq(taxRules.rate, rate)));
  return rate === 0 ? or(isNull(items.taxRuleId), inArray(items.taxRuleId, ruleIds))! : inArray(items.taxRuleId, ruleIds);
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
function childStatements(db: DB, ids: SQL | ReturnType<typeof pageIds>) {
  return [
    db.select().from(itemVariations).where(inArray(itemVariations.itemId, ids)).orderBy(asc(itemVariations.position), asc(itemVariations.id)),
    db
      .select({ variationId: variationMembershipTypes.variationId, typeId: variationMembershipTypes.membershipTypeId })
      .from(variationMembershipTypes)
      .innerJoin(itemVariations, eq(itemVariations.id, variationMembershipTypes.variationId))
      .where(inArray(itemVariations.itemId, ids))
      .orderBy(asc(variationMembershipTypes.membershipTypeId)),
    db.select().from(itemAddons).where(inArray(itemAddons.itemId, ids)).orderBy(asc(itemAddons.position), asc(itemAddons.id)),
    db.select().from(itemBundles).where(inArray(itemBundles.itemId, ids)).orderBy(asc(itemBundles.id)),
    db
      .select({ itemId: itemMembershipTypes.itemId, typeId: itemMembershipTypes.membershipTypeId })
      .from(itemMembershipTypes)
      .where(inArray(itemMembershipTypes.itemId, ids))
      .orderBy(asc(itemMembershipTypes.membershipTypeId)),
  ] as const;
}

function pageIds(db: DB, where: SQL, order: SQL[], limit: number, offset: number) {
  return db
    .select({ id: items.id })
    .from(items)
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
}

type Children = [
  VariationRow[],
  { variationId: number; typeId: number }[],
  AddonRow[],
  BundleRow[],
  { itemId: number; typeId: number }[],
];

function assemble(rows: { item: ItemRow; taxRate: number | null }[], [variations, varTypes, addons, bundles, itemTypes]: Children): ItemRecord[] {
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

function group<T>(rows: T[], key: (r: T) => number): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return map;
}

/**
 * One page of items with their sub-objects, the total count and the list's last change, in
 * one round trip.
 */
export async function itemPage(db: DB, eventId: number, f: ItemFilters, order: SQL[], limit: number, offset: number) {
  const where = listConditions(db, eventId, f);
  const ids = pageIds(db, where, order, limit, offset);
  const [[total], rows, stamp, ...children] = await db.batch([
    db.select({ n: count() }).from(items).where(where),
    itemQuery(db).where(where).orderBy(...order).limit(limit).offset(offset),
    lastChangeQuery(db, eventScopeKey(eventId), STAMP.items),
    ...childStatements(db, ids),
  ]);
  return { total: total?.n ?? 0, records: assemble(rows, children as unknown as Children), lastModified: stamp[0]?.modifiedAt ?? null };
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
  return db.select().from(items).where(and(eq(items.eventId, eventId), eq(items.id, itemId))).get();
}

// ---- references ----

export async function categoryOfEvent(db: DB, eventId: number, id: number) {
  return db.select({ id: itemCategories.id }).from(itemCategories).where(and(eq(itemCategories.eventId, eventId), eq(itemCategories.id, id))).get();
}

export async function taxRuleOfEvent(db: DB, eventId: number, id: number) {
  return db.select({ id: taxRules.id, rate: taxRules.rate }).from(taxRules).where(and(eq(taxRules.eventId, eventId), eq(taxRules.id, id))).get();
}

export async function quotaOfEvent(db: DB, eventId: number, id: number) {
  return db.select({ id: quotas.id }).from(quotas).where(and(eq(quotas.eventId, eventId), eq(quotas.id, id))).get();
}

/** Items of the event by id, with what the bundle rules need. */
export async function bundleTargets(db: DB, eventId: number, ids: number[]) {
  const map = new Map<number, { id: number; hasVariations: boolean; hasBundles: boolean }>();
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    const rows = await db
      .select({
        id: items.id,
        hasVariations: items.hasVariations,
        hasBundles: sql<number>`EXISTS (SELECT 1 FROM item_bundles b WHERE b.item_id = "items"."id")`,
      })
      .from(items)
      .where(and(eq(items.eventId, eventId), inArray(items.id, part)));
    for (const r of rows) map.set(r.id, { id: r.id, hasVariations: r.hasVariations, hasBundles: Boolean(r.hasBundles) });
  }
  return map;
}

/** Variations of items of the event by id. */
export async function variationsOfEvent(db: DB, eventId: number, ids: number[]) {
  const map = new Map<number, { id: number; itemId: number }>();
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    const rows = await db
      .select({ id: itemVariations.id, itemId: itemVariations.itemId })
      .from(itemVariations)
      .innerJoin(items, eq(items.id, itemVariations.itemId))
      .where(and(eq(items.eventId, eventId), inArray(itemVariations.id, part)));
    for (const r of rows) map.set(r.id, r);
  }
  return map;
}

/** Categories of the event by id. */
export async function categoriesOfEvent(db: DB, eventId: number, ids: number[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    const rows = await db
      .select({ id: itemCategories.id })
      .from(itemCategories)
      .where(and(eq(itemCategories.eventId, eventId), inArray(itemCategories.id, part)));
    for (const r of rows) found.add(r.id);
  }
  return found;
}

// ---- writing ----

/** The id of the item inserted last in the same batch (a batch is one transaction; ids only grow). */
const newItemId = sql`(SELECT max(id) FROM items)`;
const newVariationId = sql`(SELECT max(id) FROM item_variations)`;

/**
 * Links the item / variation given as SQL to membership types of the organizer (ids of other
 * organizers are skipped). Query-builder statements: raw `db.run` with parameters cannot be
 * batched by drizzle's D1 driver.
 */
function membershipLinkStatements(db: DB, table: "item" | "variation", owner: SQL, organizerId: number, typeIds: number[]) {
  return chunks([...new Set(typeIds)], MAX_PARAMS - 5).map((part) => {
    const where = and(eq(membershipTypes.organizerId, organizerId), inArray(membershipTypes.id, part));
    return table === "item"
      ? db
          .insert(itemMembershipTypes)
          .select(db.select({ itemId: sql<number>`${owner}`.as("item_id"), membershipTypeId: membershipTypes.id }).from(membershipTypes).where(where))
          .onConflictDoNothing()
      : db
          .insert(variationMembershipTypes)
          .select(
            db.select({ variationId: sql<number>`${owner}`.as("variation_id"), membershipTypeId: membershipTypes.id }).from(membershipTypes).where(where),
          )
          .onConflictDoNothing();
  });
}

export type NewVariation = { values: VariationValues; membershipTypeIds: number[] };

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
    db.insert(items).values({ ...values, eventId }).returning({ id: items.id }),
    ...membershipLinkStatements(db, "item", newItemId, organizerId, membershipTypeIds),
    ...variations.flatMap((v) => [
      db.insert(itemVariations).values({ ...v.values, itemId }),
      ...membershipLinkStatements(db, "variation", newVariationId, organizerId, v.membershipTypeIds),
    ]),
    ...chunks(addons, rowsPerInsert(7)).map((part) => db.insert(itemAddons).values(part.map((a) => ({ ...a, itemId })))),
    ...chunks(bundles, rowsPerInsert(6)).map((part) => db.insert(itemBundles).values(part.map((b) => ({ ...b, itemId })))),
    touch(db, eventId, STAMP.items, now),
  ] as const;
}

/** Creates an item with its nested variations, add-ons and bundles atomically; returns its id. */
export async function createItem(...args: Parameters<typeof createItemStatements>): Promise<number> {
  const [insert, ...rest] = createItemStatements(...args);
  const [rows] = await args[0].batch([insert, ...rest]);
  return rows[0]!.id;
}

/**
 * Updates an item; `membershipTypeIds` replaces its required membership types when given.
 * Returns false when the item no longer exists.
 */
export async function updateItem(
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
  const row = await db.select({ id: orderPositions.id }).from(orderPositions).where(eq(orderPositions.itemId, itemId)).limit(1).get();
  return row !== undefined;
}

/**
 * What keeps a variation from being deleted, in one round trip: order positions, an unexpired
 * cart reserving it (as in pretix), and the item's number of variations (the last one stays).
 */
export async function variationDeleteBlockers(db: DB, itemId: number, variationId: number, now: number) {
  const [ordered, inCart, [total]] = await db.batch([
    db.select({ id: orderPositions.id }).from(orderPositions).where(eq(orderPositions.variationId, variationId)).limit(1),
    db.select({ id: cartPositions.id }).from(cartPositions).where(and(eq(cartPositions.variationId, variationId), sql`${cartPositions.expires} > ${now}`)).limit(1),
    db.select({ n: count() }).from(itemVariations).where(eq(itemVariations.itemId, itemId)),
  ]);
  return { ordered: ordered.length > 0, inCart: inCart.length > 0, variations: total?.n ?? 0 };
}

/**
 * Deletes an item unless it was ordered (checked in the same statement). Its variations,
 * add-ons, bundles, quota assignments and bundles of other items that include it go with it.
 */
export async function deleteItem(db: DB, eventId: number, itemId: number, now: number): Promise<boolean> {
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

// ---- variations ----

function variationWhere(itemId: number, active: boolean | undefined) {
  return active === undefined ? eq(itemVariations.itemId, itemId) : and(eq(itemVariations.itemId, itemId), eq(itemVariations.active, active));
}

export async function variationPage(db: DB, itemId: number, active: boolean | undefined, order: SQL[], limit: number, offset: number) {
  const where = variationWhere(itemId, active);
  const ids = db.select({ id: itemVariations.id }).from(itemVariations).where(where).orderBy(...order).limit(limit).offset(offset);
  const [[total], rows, types] = await db.batch([
    db.select({ n: count() }).from(itemVariations).where(where),
    db.select().from(itemVariations).where(where).orderBy(...order).limit(limit).offset(offset),
    db
      .select({ variationId: variationMembershipTypes.variationId, typeId: variationMembershipTypes.membershipTypeId })
      .from(variationMembershipTypes)
      .where(inArray(variationMembershipTypes.variationId, ids))
      .orderBy(asc(variationMembershipTypes.membershipTypeId)),
  ]);
  const typesOf = group(types, (t) => t.variationId);
  return {
    total: total?.n ?? 0,
    records: rows.map((variation): VariationRecord => ({ variation, membershipTypeIds: (typesOf.get(variation.id) ?? []).map((t) => t.typeId) })),
  };
}

export async function findVariation(db: DB, itemId: number, variationId: number): Promise<VariationRecord | undefined> {
  const [rows, types] = await db.batch([
    db.select().from(itemVariations).where(and(eq(itemVariations.itemId, itemId), eq(itemVariations.id, variationId))),
    db
      .select({ typeId: variationMembershipTypes.membershipTypeId })
      .from(variationMembershipTypes)
      .innerJoin(itemVariations, eq(itemVariations.id, variationMembershipTypes.variationId))
      .where(and(eq(itemVariations.itemId, itemId), eq(variationMembershipTypes.variationId, variationId)))
      .orderBy(asc(variationMembershipTypes.membershipTypeId)),
  ]);
  return rows[0] ? { variation: rows[0], membershipTypeIds: types.map((t) => t.typeId) } : undefined;
}

export async function createVariation(
  db: DB,
  eventId: number,
  organizerId: number,
  itemId: number,
  v: NewVariation,
  now: number,
): Promise<number> {
  const [rows] = await db.batch([
    db.insert(itemVariations).values({ ...v.values, itemId }).returning({ id: itemVariations.id }),
    ...membershipLinkStatements(db, "variation", newVariationId, organizerId, v.membershipTypeIds),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0]!.id;
}

export async function updateVariation(
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
export async function deleteVariation(db: DB, eventId: number, itemId: number, variationId: number, now: number): Promise<boolean> {
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

// ---- add-ons ----

export async function addonPage(db: DB, itemId: number, order: SQL[], limit: number, offset: number) {
  const where = eq(itemAddons.itemId, itemId);
  const [[total], rows] = await db.batch([
    db.select({ n: count() }).from(itemAddons).where(where),
    db.select().from(itemAddons).where(where).orderBy(...order).limit(limit).offset(offset),
  ]);
  return { total: total?.n ?? 0, rows };
}

export async function findAddon(db: DB, itemId: number, addonId: number) {
  return db.select().from(itemAddons).where(and(eq(itemAddons.itemId, itemId), eq(itemAddons.id, addonId))).get();
}

/** An add-on of the item with this category, other than `exceptId`. */
export async function addonWithCategory(db: DB, itemId: number, categoryId: number, exceptId: number | null) {
  const conds = [eq(itemAddons.itemId, itemId), eq(itemAddons.addonCategoryId, categoryId)];
  if (exceptId !== null) conds.push(ne(itemAddons.id, exceptId));
  return db.select({ id: itemAddons.id }).from(itemAddons).where(and(...conds)).get();
}

export async function createAddon(db: DB, eventId: number, itemId: number, values: AddonValues, now: number): Promise<AddonRow> {
  const [rows] = await db.batch([
    db.insert(itemAddons).values({ ...values, itemId }).returning(),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0]!;
}

export async function updateAddon(db: DB, eventId: number, itemId: number, addonId: number, values: Partial<AddonValues>, now: number) {
  const where = and(eq(itemAddons.itemId, itemId), eq(itemAddons.id, addonId));
  if (Object.keys(values).length === 0) return findAddon(db, itemId, addonId);
  const [rows] = await db.batch([db.update(itemAddons).set(values).where(where).returning(), touch(db, eventId, STAMP.items, now)]);
  return rows[0];
}

export async function deleteAddon(db: DB, eventId: number, itemId: number, addonId: number, now: number): Promise<boolean> {
  const [rows] = await db.batch([
    db.delete(itemAddons).where(and(eq(itemAddons.itemId, itemId), eq(itemAddons.id, addonId))).returning({ id: itemAddons.id }),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows.length > 0;
}

// ---- bundles ----

export async function bundlePage(db: DB, itemId: number, order: SQL[], limit: number, offset: number) {
  const where = eq(itemBundles.itemId, itemId);
  const [[total], rows] = await db.batch([
    db.select({ n: count() }).from(itemBundles).where(where),
    db.select().from(itemBundles).where(where).orderBy(...order).limit(limit).offset(offset),
  ]);
  return { total: total?.n ?? 0, rows };
}

export async function findBundle(db: DB, itemId: number, bundleId: number) {
  return db.select().from(itemBundles).where(and(eq(itemBundles.itemId, itemId), eq(itemBundles.id, bundleId))).get();
}

export async function createBundle(db: DB, eventId: number, itemId: number, values: BundleValues, now: number): Promise<BundleRow> {
  const [rows] = await db.batch([
    db.insert(itemBundles).values({ ...values, itemId }).returning(),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows[0]!;
}

export async function updateBundle(db: DB, eventId: number, itemId: number, bundleId: number, values: Partial<BundleValues>, now: number) {
  const where = and(eq(itemBundles.itemId, itemId), eq(itemBundles.id, bundleId));
  if (Object.keys(values).length === 0) return findBundle(db, itemId, bundleId);
  const [rows] = await db.batch([db.update(itemBundles).set(values).where(where).returning(), touch(db, eventId, STAMP.items, now)]);
  return rows[0];
}

export async function deleteBundle(db: DB, eventId: number, itemId: number, bundleId: number, now: number): Promise<boolean> {
  const [rows] = await db.batch([
    db.delete(itemBundles).where(and(eq(itemBundles.itemId, itemId), eq(itemBundles.id, bundleId))).returning({ id: itemBundles.id }),
    touch(db, eventId, STAMP.items, now),
  ]);
  return rows.length > 0;
}


/** Names of the event's items (for mails and pages). */
export async function itemNames(db: DB, eventId: number): Promise<Map<number, I18n>> {
  const rows = await db.select({ id: items.id, name: items.name }).from(items).where(eq(items.eventId, eventId));
  return new Map(rows.map((r) => [r.id, r.name]));
}
