/**
 * Items (products) with their variations, add-ons, bundles and membership-type links. Every
 * query is scoped by the event (which the tenancy layer has matched to the organizer); the
 * sub-objects are reached only through an item of that event.
 */
import { and, asc, count, eq, inArray, isNull, ne, or, type SQL, sql } from "drizzle-orm";
import { runBatch, type Statement } from "./catalog-common";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import type { DB } from "./client";
import { touchInventory } from "./inventory";
import { fetchPage, type ListRequest, orderBy, type OrderingTable } from "./paging";
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
import { chunks } from "../lib/chunks";
import { MAX_PARAMS, rowsPerInsert } from "./util";

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

/** The orderings of the item list (default `position`, then id). */
export const ITEM_ORDERING: OrderingTable = {
  fields: { id: items.id, position: items.position },
  default: "position",
  tiebreaker: items.id,
};

/** The ids of a page's rows, as a subquery for the statements reading their children. */
function pageIdsOf(
  db: DB,
  table: typeof items | typeof itemVariations,
  where: SQL | undefined,
  ordering: OrderingTable,
  req: ListRequest,
) {
  return db
    .select({ id: table.id })
    .from(table)
    .where(where)
    .orderBy(...orderBy(ordering, req.ordering))
    .limit(req.pageSize)
    .offset((req.page - 1) * req.pageSize);
}

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

// ---- references ----

/** What the bundle rules need to know of a bundled item. */
export type BundleTarget = { id: number; hasVariations: boolean; hasBundles: boolean };

/** Ids an input refers to, to be looked up among the event's (membership types: the organizer's) objects. */
export type ReferenceQuery = {
  categories?: readonly number[];
  taxRules?: readonly number[];
  quotas?: readonly number[];
  membershipTypes?: readonly number[];
  /** Items of the event, with what the bundle rules need. */
  items?: readonly number[];
  /** Variations of items of the event. */
  variations?: readonly number[];
  /** Whether the item has an add-on of this category other than `exceptId`. */
  addon?: { itemId: number; categoryId: number; exceptId: number | null };
};

export type References = {
  categories: Set<number>;
  /** Tax rules by id with their rate (hundredths of a percent). */
  taxRules: Map<number, { id: number; rate: number }>;
  quotas: Set<number>;
  membershipTypes: Set<number>;
  items: Map<number, BundleTarget>;
  variations: Map<number, { id: number; itemId: number }>;
  addonTaken: boolean;
};

/**
 * Looks up everything an input refers to in one batch (one round trip; none when it refers to
 * nothing). Each statement stays within D1's 100 bound parameters, however long the lists.
 */
export async function lookUpReferences(
  db: DB,
  eventId: number,
  organizerId: number,
  q: ReferenceQuery,
): Promise<References> {
  const found: References = {
    categories: new Set(),
    taxRules: new Map(),
    quotas: new Set(),
    membershipTypes: new Set(),
    items: new Map(),
    variations: new Map(),
    addonTaken: false,
  };
  const statements: Statement[] = [];
  const readers: ((rows: never[]) => void)[] = [];
  const read = <T>(statement: Statement & PromiseLike<T[]>, reader: (rows: T[]) => void) => {
    statements.push(statement);
    readers.push(reader as (rows: never[]) => void);
  };
  const parts = (ids: readonly number[] | undefined) => chunks([...new Set(ids ?? [])], MAX_PARAMS - 5);
  for (const part of parts(q.categories)) {
    read(
      db
        .select({ id: itemCategories.id })
        .from(itemCategories)
        .where(and(eq(itemCategories.eventId, eventId), inArray(itemCategories.id, part))),
      (rows) => rows.forEach((r) => found.categories.add(r.id)),
    );
  }
  for (const part of parts(q.taxRules)) {
    read(
      db
        .select({ id: taxRules.id, rate: taxRules.rate })
        .from(taxRules)
        .where(and(eq(taxRules.eventId, eventId), inArray(taxRules.id, part))),
      (rows) => rows.forEach((r) => found.taxRules.set(r.id, r)),
    );
  }
  for (const part of parts(q.quotas)) {
    read(
      db
        .select({ id: quotas.id })
        .from(quotas)
        .where(and(eq(quotas.eventId, eventId), inArray(quotas.id, part))),
      (rows) => rows.forEach((r) => found.quotas.add(r.id)),
    );
  }
  for (const part of parts(q.membershipTypes)) {
    read(
      db
        .select({ id: membershipTypes.id })
        .from(membershipTypes)
        .where(and(eq(membershipTypes.organizerId, organizerId), inArray(membershipTypes.id, part))),
      (rows) => rows.forEach((r) => found.membershipTypes.add(r.id)),
    );
  }
  for (const part of parts(q.items)) {
    read(
      db
        .select({
          id: items.id,
          hasVariations: items.hasVariations,
          hasBundles: sql<number>`EXISTS (SELECT 1 FROM item_bundles b WHERE b.item_id = "items"."id")`,
        })
        .from(items)
        .where(and(eq(items.eventId, eventId), inArray(items.id, part))),
      (rows) =>
        rows.forEach((r) =>
          found.items.set(r.id, { id: r.id, hasVariations: r.hasVariations, hasBundles: Boolean(r.hasBundles) }),
        ),
    );
  }
  for (const part of parts(q.variations)) {
    read(variationsOfEventQuery(db, eventId, part), (rows) => rows.forEach((r) => found.variations.set(r.id, r)));
  }
  if (q.addon) {
    const { itemId, categoryId, exceptId } = q.addon;
    const conds = [eq(itemAddons.itemId, itemId), eq(itemAddons.addonCategoryId, categoryId)];
    if (exceptId !== null) conds.push(ne(itemAddons.id, exceptId));
    read(
      db
        .select({ id: itemAddons.id })
        .from(itemAddons)
        .where(and(...conds))
        .limit(1),
      (rows) => (found.addonTaken = rows.length > 0),
    );
  }
  const results = await runBatch(db, statements);
  results.forEach((rows, i) => readers[i]!(rows as never[]));
  return found;
}

function variationsOfEventQuery(db: DB, eventId: number, ids: number[]) {
  return db
    .select({ id: itemVariations.id, itemId: itemVariations.itemId })
    .from(itemVariations)
    .innerJoin(items, eq(items.id, itemVariations.itemId))
    .where(and(eq(items.eventId, eventId), inArray(itemVariations.id, ids)));
}

/** Variations of items of the event by id. */
export async function variationsOfEvent(db: DB, eventId: number, ids: number[]) {
  const map = new Map<number, { id: number; itemId: number }>();
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    for (const r of await variationsOfEventQuery(db, eventId, part)) map.set(r.id, r);
  }
  return map;
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
function membershipLinkStatements(
  db: DB,
  table: "item" | "variation",
  owner: SQL,
  organizerId: number,
  typeIds: number[],
) {
  return chunks([...new Set(typeIds)], MAX_PARAMS - 5).map((part) => {
    const where = and(eq(membershipTypes.organizerId, organizerId), inArray(membershipTypes.id, part));
    return table === "item"
      ? db
          .insert(itemMembershipTypes)
          .select(
            db
              .select({ itemId: sql<number>`${owner}`.as("item_id"), membershipTypeId: membershipTypes.id })
              .from(membershipTypes)
              .where(where),
          )
          .onConflictDoNothing()
      : db
          .insert(variationMembershipTypes)
          .select(
            db
              .select({ variationId: sql<number>`${owner}`.as("variation_id"), membershipTypeId: membershipTypes.id })
              .from(membershipTypes)
              .where(where),
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

// ---- variations ----

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
