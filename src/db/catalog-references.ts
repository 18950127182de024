/**
 * The catalog's checks of references: what an item's (or a nested object's) input refers to,
 * looked up among the event's objects in one batch, and the event's variations by id.
 */
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { itemAddons, itemCategories, items, itemVariations, membershipTypes, quotas, taxRules } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

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
  const reads = new Reads();
  readCatalogRows(reads, db, eventId, organizerId, q, found);
  readItemRows(reads, db, eventId, q, found);
  await reads.run(db);
  return found;
}

/** Statements to run in one batch, each with what reads its rows. */
class Reads {
  private readonly statements: Statement[] = [];
  private readonly readers: ((rows: never[]) => void)[] = [];

  add<T>(statement: Statement & PromiseLike<T[]>, reader: (rows: T[]) => void): void {
    this.statements.push(statement);
    this.readers.push(reader as (rows: never[]) => void);
  }

  async run(db: DB): Promise<void> {
    const results = await runBatch(db, this.statements);
    results.forEach((rows, i) => this.readers[i]!(rows as never[]));
  }
}

/** The ids, without repeats, in parts that stay within D1's bound parameters. */
const parts = (ids: readonly number[] | undefined) => chunks([...new Set(ids ?? [])], MAX_PARAMS - 5);

/** Categories, tax rules and quotas of the event; membership types of the organizer. */
function readCatalogRows(
  reads: Reads,
  db: DB,
  eventId: number,
  organizerId: number,
  q: ReferenceQuery,
  found: References,
) {
  for (const part of parts(q.categories)) {
    reads.add(
      db
        .select({ id: itemCategories.id })
        .from(itemCategories)
        .where(and(eq(itemCategories.eventId, eventId), inArray(itemCategories.id, part))),
      (rows) => rows.forEach((r) => found.categories.add(r.id)),
    );
  }
  for (const part of parts(q.taxRules)) {
    reads.add(
      db
        .select({ id: taxRules.id, rate: taxRules.rate })
        .from(taxRules)
        .where(and(eq(taxRules.eventId, eventId), inArray(taxRules.id, part))),
      (rows) => rows.forEach((r) => found.taxRules.set(r.id, r)),
    );
  }
  for (const part of parts(q.quotas)) {
    reads.add(
      db
        .select({ id: quotas.id })
        .from(quotas)
        .where(and(eq(quotas.eventId, eventId), inArray(quotas.id, part))),
      (rows) => rows.forEach((r) => found.quotas.add(r.id)),
    );
  }
  for (const part of parts(q.membershipTypes)) {
    reads.add(
      db
        .select({ id: membershipTypes.id })
        .from(membershipTypes)
        .where(and(eq(membershipTypes.organizerId, organizerId), inArray(membershipTypes.id, part))),
      (rows) => rows.forEach((r) => found.membershipTypes.add(r.id)),
    );
  }
}

/** Items (with whether they have variations and bundles), variations, and whether an add-on slot is taken. */
function readItemRows(reads: Reads, db: DB, eventId: number, q: ReferenceQuery, found: References) {
  for (const part of parts(q.items)) {
    reads.add(
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
    reads.add(variationsOfEventQuery(db, eventId, part), (rows) => rows.forEach((r) => found.variations.set(r.id, r)));
  }
  if (q.addon) {
    const { itemId, categoryId, exceptId } = q.addon;
    const conds = [eq(itemAddons.itemId, itemId), eq(itemAddons.addonCategoryId, categoryId)];
    if (exceptId !== null) conds.push(ne(itemAddons.id, exceptId));
    reads.add(
      db
        .select({ id: itemAddons.id })
        .from(itemAddons)
        .where(and(...conds))
        .limit(1),
      (rows) => (found.addonTaken = rows.length > 0),
    );
  }
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
