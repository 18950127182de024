/** Vouchers; every query is scoped by event. Writes go through the event object. */
import { and, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { quotas, vouchers, type PriceMode } from "./schema";
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

export async function findVouchersById(db: DB, eventId: number, ids: number[]) {
  const out: VoucherRow[] = [];
  for (const part of chunks(ids, MAX_PARAMS - 5)) {
    out.push(...(await db.select().from(vouchers).where(and(eq(vouchers.eventId, eventId), inArray(vouchers.id, part)))));
  }
  return out;
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

export async function quotaOfEvent(db: DB, eventId: number, id: number) {
  return db.select({ id: quotas.id, subeventId: quotas.subeventId }).from(quotas).where(and(eq(quotas.eventId, eventId), eq(quotas.id, id))).get();
}
