/** Vouchers; every query is scoped by event. Writes go through the event object. */
import { and, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import { runBatch, type Statement } from "./catalog-common";
import type { DB } from "./client";
import { itemVariations, items, quotas, subevents, vouchers, type PriceMode } from "./schema";
import { chunks, MAX_PARAMS } from "./util";

export type VoucherRow = typeof vouchers.$inferSelect;

export type VoucherFilter = {
  code?: string;
  maxUsages?: number;
  redeemed?: number;
  blockQuota?: boolean;
  allowIgnoreQuota?: boolean;
  priceMode?: PriceMode;
  value?: number;
  itemId?: number;
  variationId?: number;
  quotaId?: number;
  tag?: string;
  subeventId?: number;
};

export function voucherWhere(eventId: number, f: VoucherFilter): SQL {
  const c: SQL[] = [eq(vouchers.eventId, eventId)];
  if (f.code !== undefined) c.push(sql`lower(${vouchers.code}) = lower(${f.code})`);
  if (f.maxUsages !== undefined) c.push(eq(vouchers.maxUsages, f.maxUsages));
  if (f.redeemed !== undefined) c.push(eq(vouchers.redeemed, f.redeemed));
  if (f.blockQuota !== undefined) c.push(eq(vouchers.blockQuota, f.blockQuota));
  if (f.allowIgnoreQuota !== undefined) c.push(eq(vouchers.allowIgnoreQuota, f.allowIgnoreQuota));
  if (f.priceMode !== undefined) c.push(eq(vouchers.priceMode, f.priceMode));
  if (f.value !== undefined) c.push(eq(vouchers.value, f.value));
  if (f.itemId !== undefined) c.push(eq(vouchers.itemId, f.itemId));
  if (f.variationId !== undefined) c.push(eq(vouchers.variationId, f.variationId));
  if (f.quotaId !== undefined) c.push(eq(vouchers.quotaId, f.quotaId));
  if (f.tag !== undefined) c.push(eq(vouchers.tag, f.tag));
  if (f.subeventId !== undefined) c.push(eq(vouchers.subeventId, f.subeventId));
  return and(...c)!;
}

export const voucherCount = (db: DB, where: SQL) => db.select({ n: count() }).from(vouchers).where(where);
export const voucherPage = (db: DB, where: SQL, order: SQL[], limit: number, offset: number) =>
  db.select().from(vouchers).where(where).orderBy(...order).limit(limit).offset(offset);

export async function findVoucher(db: DB, eventId: number, id: number) {
  return db.select().from(vouchers).where(and(eq(vouchers.eventId, eventId), eq(vouchers.id, id))).get();
}

/** The event's vouchers among `ids`, in the order of `ids` (missing ones left out). */
export async function findVouchersById(db: DB, eventId: number, ids: number[]) {
  const parts = chunks(ids, MAX_PARAMS - 5).map((part) => db.select().from(vouchers).where(and(eq(vouchers.eventId, eventId), inArray(vouchers.id, part))));
  const byId = new Map(((await runBatch(db, parts)) as VoucherRow[][]).flat().map((v) => [v.id, v]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Codes (compared case-insensitively) that exist in the event already. */
export async function existingCodes(db: DB, eventId: number, codes: string[], exceptId?: number): Promise<Set<string>> {
  const out = new Set<string>();
  for (const part of chunks([...new Set(codes.map((c) => c.toLowerCase()))], MAX_PARAMS - 5)) {
    const rows = await db
      .select({ id: vouchers.id, code: vouchers.code })
      .from(vouchers)
      .where(and(eq(vouchers.eventId, eventId), inArray(sql`lower(${vouchers.code})`, part)));
    for (const r of rows) if (r.id !== exceptId) out.add(r.code.toLowerCase());
  }
  return out;
}

export type VoucherRefs = {
  items: Map<number, { id: number; hasVariations: boolean }>;
  variations: Map<number, { id: number; itemId: number }>;
  quotas: Map<number, { id: number; subeventId: number | null }>;
  subevents: Set<number>;
};

/**
 * What vouchers refer to, for their validation: the event's items, variations, quotas and
 * dates among the given ids, in one batch (however many vouchers are validated).
 */
export async function voucherRefs(db: DB, eventId: number, ids: { itemIds: number[]; variationIds: number[]; quotaIds: number[]; subeventIds: number[] }): Promise<VoucherRefs> {
  const stmts: Statement[] = [];
  const kinds: (keyof VoucherRefs)[] = [];
  const add = (kind: keyof VoucherRefs, list: number[], query: (part: number[]) => Statement) => {
    for (const part of chunks([...new Set(list)], MAX_PARAMS - 5)) {
      kinds.push(kind);
      stmts.push(query(part));
    }
  };
  add("items", ids.itemIds, (part) => db.select({ id: items.id, hasVariations: items.hasVariations }).from(items).where(and(eq(items.eventId, eventId), inArray(items.id, part))));
  add("variations", ids.variationIds, (part) =>
    db
      .select({ id: itemVariations.id, itemId: itemVariations.itemId })
      .from(itemVariations)
      .innerJoin(items, eq(items.id, itemVariations.itemId))
      .where(and(eq(items.eventId, eventId), inArray(itemVariations.id, part))),
  );
  add("quotas", ids.quotaIds, (part) => db.select({ id: quotas.id, subeventId: quotas.subeventId }).from(quotas).where(and(eq(quotas.eventId, eventId), inArray(quotas.id, part))));
  add("subevents", ids.subeventIds, (part) => db.select({ id: subevents.id }).from(subevents).where(and(eq(subevents.eventId, eventId), inArray(subevents.id, part))));
  const results = (await runBatch(db, stmts)) as { id: number }[][];
  const rows = <T>(kind: keyof VoucherRefs) => results.filter((_, i) => kinds[i] === kind).flat() as T[];
  return {
    items: new Map(rows<{ id: number; hasVariations: boolean }>("items").map((r) => [r.id, r])),
    variations: new Map(rows<{ id: number; itemId: number }>("variations").map((r) => [r.id, r])),
    quotas: new Map(rows<{ id: number; subeventId: number | null }>("quotas").map((r) => [r.id, r])),
    subevents: new Set(rows<{ id: number }>("subevents").map((r) => r.id)),
  };
}
