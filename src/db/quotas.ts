/** Quotas and what they cover; every query is scoped by event. */
import { and, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import { touchInventory } from "./inventory";
import { itemVariations, items, quotaItems, quotas, subevents } from "./schema";
import { chunks, MAX_PARAMS } from "./util";

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

export function quotaCount(db: DB, where: SQL) {
  return db.select({ n: count() }).from(quotas).where(where);
}

export function quotaPage(db: DB, where: SQL, order: SQL[], limit: number, offset: number) {
  return db
    .select({ quota: quotas, ...coverage })
    .from(quotas)
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
}

export const toQuotaRecords = (rows: { quota: QuotaRow; itemIds: string; variationIds: string }[]) => rows.map(record);

export async function findQuota(db: DB, eventId: number, id: number): Promise<QuotaRecord | undefined> {
  const row = await db
    .select({ quota: quotas, ...coverage })
    .from(quotas)
    .where(and(eq(quotas.eventId, eventId), eq(quotas.id, id)))
    .get();
  return row ? record(row) : undefined;
}

export function quotasLastChange(db: DB, eventId: number) {
  return lastChangeQuery(db, eventScopeKey(eventId), "quotas");
}

/** Items of the event among `ids`, with whether they have variations. */
export async function eventItems(db: DB, eventId: number, ids: number[]) {
  const out: { id: number; hasVariations: boolean }[] = [];
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    out.push(...(await db.select({ id: items.id, hasVariations: items.hasVariations }).from(items).where(and(eq(items.eventId, eventId), inArray(items.id, part)))));
  }
  return out;
}

/** Variations of the event's items among `ids`, with their item. */
export async function eventVariations(db: DB, eventId: number, ids: number[]) {
  const out: { id: number; itemId: number }[] = [];
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    out.push(
      ...(await db
        .select({ id: itemVariations.id, itemId: itemVariations.itemId })
        .from(itemVariations)
        .innerJoin(items, eq(items.id, itemVariations.itemId))
        .where(and(eq(items.eventId, eventId), inArray(itemVariations.id, part)))),
    );
  }
  return out;
}

export async function subeventOfEvent(db: DB, eventId: number, id: number): Promise<boolean> {
  const row = await db.select({ id: subevents.id }).from(subevents).where(and(eq(subevents.eventId, eventId), eq(subevents.id, id))).get();
  return row !== undefined;
}

function coverageRows(quotaId: number | null, itemIds: number[], variations: { id: number; itemId: number }[]) {
  return [
    ...itemIds.map((itemId) => ({ itemId, variationId: null as number | null })),
    ...variations.map((v) => ({ itemId: v.itemId, variationId: v.id as number | null })),
  ].map((r) => ({ ...r, quotaId: quotaId ?? 0 }));
}

function coverageInserts(db: DB, quotaId: number | null, itemIds: number[], variations: { id: number; itemId: number }[]) {
  const qid = quotaId === null ? sql<number>`(SELECT max(id) FROM quotas)` : sql<number>`${quotaId}`;
  return chunks(coverageRows(quotaId, itemIds, variations), 30).map((part) => db.insert(quotaItems).values(part.map((r) => ({ ...r, quotaId: qid }))));
}

function touches(db: DB, eventId: number, now: number) {
  return [touchStatement(db, eventScopeKey(eventId), "quotas", now), touchInventory(db, eventId, now)] as const;
}

export async function createQuota(
  db: DB,
  eventId: number,
  values: QuotaValues,
  itemIds: number[],
  variations: { id: number; itemId: number }[],
  now: number,
): Promise<number> {
  const [rows] = await db.batch([
    db.insert(quotas).values({ ...values, eventId }).returning({ id: quotas.id }),
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
  if (Object.keys(values).length) stmts.push(db.update(quotas).set(values).where(and(eq(quotas.eventId, eventId), eq(quotas.id, id))));
  if (coverage) {
    stmts.push(db.delete(quotaItems).where(eq(quotaItems.quotaId, id)));
    stmts.push(...coverageInserts(db, id, coverage.itemIds, coverage.variations));
  }
  await db.batch([...touches(db, eventId, now), ...stmts]);
}

export async function deleteQuota(db: DB, eventId: number, id: number, now: number) {
  await db.batch([
    db.delete(quotas).where(and(eq(quotas.eventId, eventId), eq(quotas.id, id))),
    ...touches(db, eventId, now),
    // items hidden while this quota was available lose that reference
    touchStatement(db, eventScopeKey(eventId), "items", now),
  ]);
}
