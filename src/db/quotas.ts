/** Quotas and what they cover; every query is scoped by event. */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import { touchInventory } from "./inventory";
import { itemVariations, items, quotaItems, quotas, subevents } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type QuotaRow = typeof quotas.$inferSelect;
export type QuotaRecord = QuotaRow & { items: number[]; variations: number[] };
export type QuotaValues = Omit<typeof quotas.$inferInsert, "id" | "eventId">;

const coverage = {
  itemIds: sql<string>`(SELECT json_group_array(DISTINCT qi.item_id) FROM quota_items qi WHERE qi.quota_id = "quotas"."id")`,
  variationIds: sql<string>`(SELECT json_group_array(qi.variation_id) FROM quota_items qi WHERE qi.quota_id = "quotas"."id" AND qi.variation_id IS NOT NULL)`,
};

function record(r: { quota: QuotaRow; itemIds: string; variationIds: string }): QuotaRecord {
  return {
    ...r.quota,
    items: (JSON.parse(r.itemIds) as number[]).sort((a, b) => a - b),
    variations: (JSON.parse(r.variationIds) as number[]).sort((a, b) => a - b),
  };
}

export function quotaFilter(eventId: number, f: { subeventId?: number }) {
  const conds: SQL[] = [eq(quotas.eventId, eventId)];
  if (f.subeventId !== undefined) conds.push(eq(quotas.subeventId, f.subeventId));
  return and(...conds)!;
}

/** The orderings of the quotas list (by id). */
export const QUOTA_ORDERING: OrderingTable = { fields: { id: quotas.id }, default: "id", tiebreaker: quotas.id };

/** A page of the event's quotas with their coverage, and the list's last change (Last-Modified): one batch. */
export async function listQuotas(db: DB, eventId: number, filter: { subeventId?: number }, req: ListRequest) {
  const where = quotaFilter(eventId, filter);
  const rows = db
    .select({ quota: quotas, ...coverage })
    .from(quotas)
    .where(where)
    .$dynamic();
  const page = await fetchPage(
    db,
    { rows, count: { from: quotas, where }, ordering: QUOTA_ORDERING },
    req,
    lastChangeQuery(db, eventScopeKey(eventId), "quotas"),
  );
  return { count: page.count, rows: page.rows.map(record), lastModified: page.extra[0][0]?.modifiedAt };
}

export async function findQuota(db: DB, eventId: number, id: number): Promise<QuotaRecord | undefined> {
  const row = await db
    .select({ quota: quotas, ...coverage })
    .from(quotas)
    .where(and(eq(quotas.eventId, eventId), eq(quotas.id, id)))
    .get();
  return row ? record(row) : undefined;
}

export type CoverageRefs = {
  items: { id: number; hasVariations: boolean }[];
  variations: { id: number; itemId: number }[];
  subeventExists: boolean | undefined;
};

/**
 * What a quota's coverage refers to, in one batch: the event's items among `itemIds` (with
 * whether they have variations), the variations of its items among `variationIds` (with their
 * item), and whether `subeventId` (when given) is a date of the event.
 */
export async function coverageRefs(
  db: DB,
  eventId: number,
  itemIds: number[],
  variationIds: number[],
  subeventId: number | null,
): Promise<CoverageRefs> {
  const stmts: Statement[] = [];
  const kinds: ("items" | "variations" | "subevent")[] = [];
  for (const part of chunks([...new Set(itemIds)], MAX_PARAMS - 5)) {
    kinds.push("items");
    stmts.push(
      db
        .select({ id: items.id, hasVariations: items.hasVariations })
        .from(items)
        .where(and(eq(items.eventId, eventId), inArray(items.id, part))),
    );
  }
  for (const part of chunks([...new Set(variationIds)], MAX_PARAMS - 5)) {
    kinds.push("variations");
    stmts.push(
      db
        .select({ id: itemVariations.id, itemId: itemVariations.itemId })
        .from(itemVariations)
        .innerJoin(items, eq(items.id, itemVariations.itemId))
        .where(and(eq(items.eventId, eventId), inArray(itemVariations.id, part))),
    );
  }
  if (subeventId !== null) {
    kinds.push("subevent");
    stmts.push(
      db
        .select({ id: subevents.id })
        .from(subevents)
        .where(and(eq(subevents.eventId, eventId), eq(subevents.id, subeventId))),
    );
  }
  const results = (await runBatch(db, stmts)) as unknown[][];
  const rows = <T>(kind: (typeof kinds)[number]) => results.filter((_, i) => kinds[i] === kind).flat() as T[];
  return {
    items: rows<{ id: number; hasVariations: boolean }>("items"),
    variations: rows<{ id: number; itemId: number }>("variations"),
    subeventExists: subeventId === null ? undefined : rows("subevent").length > 0,
  };
}

function coverageRows(quotaId: number | null, itemIds: number[], variations: { id: number; itemId: number }[]) {
  return [
    ...itemIds.map((itemId) => ({ itemId, variationId: null as number | null })),
    ...variations.map((v) => ({ itemId: v.itemId, variationId: v.id as number | null })),
  ].map((r) => ({ ...r, quotaId: quotaId ?? 0 }));
}

function coverageInserts(
  db: DB,
  quotaId: number | null,
  itemIds: number[],
  variations: { id: number; itemId: number }[],
) {
  const qid = quotaId === null ? sql<number>`(SELECT max(id) FROM quotas)` : sql<number>`${quotaId}`;
  return chunks(coverageRows(quotaId, itemIds, variations), 30).map((part) =>
    db.insert(quotaItems).values(part.map((r) => ({ ...r, quotaId: qid }))),
  );
}

function touches(db: DB, eventId: number, now: number) {
  return [touchStatement(db, eventScopeKey(eventId), "quotas", now), touchInventory(db, eventId, now)] as const;
}

export async function insertQuota(
  db: DB,
  eventId: number,
  values: QuotaValues,
  itemIds: number[],
  variations: { id: number; itemId: number }[],
  now: number,
): Promise<number> {
  const [rows] = await db.batch([
    db
      .insert(quotas)
      .values({ ...values, eventId })
      .returning({ id: quotas.id }),
    ...coverageInserts(db, null, itemIds, variations),
    ...touches(db, eventId, now),
  ]);
  return rows[0]!.id;
}

export async function updateQuota(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<QuotaValues>,
  coverage: { itemIds: number[]; variations: { id: number; itemId: number }[] } | null,
  now: number,
) {
  const stmts = [];
  if (Object.keys(values).length)
    stmts.push(
      db
        .update(quotas)
        .set(values)
        .where(and(eq(quotas.eventId, eventId), eq(quotas.id, id))),
    );
  if (coverage) {
    stmts.push(db.delete(quotaItems).where(eq(quotaItems.quotaId, id)));
    stmts.push(...coverageInserts(db, id, coverage.itemIds, coverage.variations));
  }
  await db.batch([...touches(db, eventId, now), ...stmts]);
}

export async function deleteQuotaRow(db: DB, eventId: number, id: number, now: number) {
  await db.batch([
    db.delete(quotas).where(and(eq(quotas.eventId, eventId), eq(quotas.id, id))),
    ...touches(db, eventId, now),
    // items hidden while this quota was available lose that reference
    touchStatement(db, eventScopeKey(eventId), "items", now),
  ]);
}
