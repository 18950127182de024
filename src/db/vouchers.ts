/** Vouchers; every query is scoped by event. Writes go through the event object. */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { inventoryStampQuery, touchInventory } from "./inventory";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import {
  itemCategories,
  itemVariations,
  items,
  quotas,
  seatingPlanSeats,
  subevents,
  vouchers,
  type PriceMode,
} from "./schema";
import type { I18n } from "../lib/i18n";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

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

/** The orderings of the vouchers list (pretix docs vouchers.rst: `id`, `code`, `max_usages`, `valid_until`, `value`; default `id`). */
export const VOUCHER_ORDERING: OrderingTable = {
  fields: {
    id: vouchers.id,
    code: vouchers.code,
    max_usages: vouchers.maxUsages,
    valid_until: vouchers.validUntil,
    value: vouchers.value,
  },
  default: "id",
  tiebreaker: vouchers.id,
};

/** A page of the event's vouchers matching the filter. */
export function listVouchers(db: DB, eventId: number, filter: VoucherFilter, req: ListRequest) {
  const where = voucherWhere(eventId, filter);
  return fetchPage(
    db,
    {
      rows: db.select().from(vouchers).where(where).$dynamic(),
      count: { from: vouchers, where },
      ordering: VOUCHER_ORDERING,
    },
    req,
  );
}

export async function findVoucher(db: DB, eventId: number, id: number) {
  return db
    .select()
    .from(vouchers)
    .where(and(eq(vouchers.eventId, eventId), eq(vouchers.id, id)))
    .get();
}

/** The voucher `id` and the event's inventory stamp (for the event object), in one batch. */
export async function findVoucherWithStamp(
  db: DB,
  eventId: number,
  id: number,
): Promise<{ voucher: VoucherRow | undefined; stamp: number }> {
  const [found, stamp] = await db.batch([
    db
      .select()
      .from(vouchers)
      .where(and(eq(vouchers.eventId, eventId), eq(vouchers.id, id))),
    inventoryStampQuery(db, eventId),
  ]);
  return { voucher: found[0], stamp: stamp[0]?.modifiedAt ?? 0 };
}

/** The event's vouchers among `ids`, in the order of `ids` (missing ones left out). */
export async function findVouchersById(db: DB, eventId: number, ids: number[]) {
  const parts = chunks(ids, MAX_PARAMS - 5).map((part) =>
    db
      .select()
      .from(vouchers)
      .where(and(eq(vouchers.eventId, eventId), inArray(vouchers.id, part))),
  );
  const byId = new Map(((await runBatch(db, parts)) as VoucherRow[][]).flat().map((v) => [v.id, v]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * After a write whose answer was lost: the ids of `rows`, in order, when every one of them is in
 * D1 as that write made it (its code with its creation time); null otherwise.
 */
export async function writtenVouchers(
  db: DB,
  eventId: number,
  rows: { code: string; createdAt: number }[],
): Promise<number[] | null> {
  const parts = chunks(
    rows.map((r) => r.code.toLowerCase()),
    MAX_PARAMS - 5,
  ).map((part) =>
    db
      .select({ id: vouchers.id, code: vouchers.code, createdAt: vouchers.createdAt })
      .from(vouchers)
      .where(and(eq(vouchers.eventId, eventId), inArray(sql`lower(${vouchers.code})`, part))),
  );
  const found = new Map(
    ((await runBatch(db, parts)) as { id: number; code: string; createdAt: number }[][])
      .flat()
      .map((v) => [v.code.toLowerCase(), v]),
  );
  const ids: number[] = [];
  for (const r of rows) {
    const v = found.get(r.code.toLowerCase());
    if (!v || v.createdAt !== r.createdAt) return null;
    ids.push(v.id);
  }
  return ids;
}

function codeQueries(db: DB, eventId: number, codes: string[]): Statement[] {
  return chunks([...new Set(codes.map((c) => c.toLowerCase()))], MAX_PARAMS - 5).map((part) =>
    db
      .select({ id: vouchers.id, code: vouchers.code })
      .from(vouchers)
      .where(and(eq(vouchers.eventId, eventId), inArray(sql`lower(${vouchers.code})`, part))),
  );
}

function takenCodes(rows: { id: number; code: string }[], exceptId: number | undefined): Set<string> {
  return new Set(rows.filter((r) => r.id !== exceptId).map((r) => r.code.toLowerCase()));
}

/** Codes (compared case-insensitively) that exist in the event already. */
export async function existingCodes(db: DB, eventId: number, codes: string[], exceptId?: number): Promise<Set<string>> {
  return takenCodes(
    ((await runBatch(db, codeQueries(db, eventId, codes))) as { id: number; code: string }[][]).flat(),
    exceptId,
  );
}

export type VoucherRefs = {
  /** `onlyAddOn`: the item is sold only as an add-on (its category is an add-on category) or in a bundle. */
  items: Map<number, { id: number; hasVariations: boolean; name: I18n; onlyAddOn: boolean }>;
  variations: Map<number, { id: number; itemId: number }>;
  quotas: Map<number, { id: number; subeventId: number | null }>;
  subevents: Map<
    number,
    { id: number; seatingPlanId: number | null; seatCategoryMapping: Record<string, number | null> }
  >;
  /** Seats of the plans of the event and its dates with the asked guids, by `planId:guid`. */
  seats: Map<string, { planId: number; seatGuid: string; category: string }>;
  /** The names of the products the event's and its dates' seat categories map to (read when seats are asked). */
  seatProducts: Map<number, I18n>;
};

export type VoucherRefIds = {
  itemIds: number[];
  variationIds: number[];
  quotaIds: number[];
  subeventIds: number[];
  seatGuids: string[];
};

/**
 * What validating and writing vouchers needs, in one batch (however many vouchers): the codes
 * among `codes` taken in the event (but by `exceptId`), the event's items, variations, quotas
 * and dates among the given ids, the seats with the given guids of the seating plans the event
 * and its dates use, and the event's inventory stamp (for the event object).
 */
export async function voucherChecks(
  db: DB,
  eventId: number,
  input: { codes: string[]; exceptId?: number; ids: VoucherRefIds },
): Promise<{ taken: Set<string>; refs: VoucherRefs; stamp: number }> {
  const stmts: Statement[] = [inventoryStampQuery(db, eventId)];
  const kinds: CheckKind[] = ["stamp"];
  const add: AddChecks = (kind, queries) => {
    for (const q of queries) {
      kinds.push(kind);
      stmts.push(q);
    }
  };
  add("codes", codeQueries(db, eventId, input.codes));
  addCatalogChecks(db, eventId, input.ids, add);
  addSeatChecks(db, eventId, input.ids.seatGuids, add);
  const results = (await runBatch(db, stmts)) as unknown[][];
  const rows: CheckRows = <T>(kind: CheckKind) => results.filter((_, i) => kinds[i] === kind).flat() as T[];
  return {
    taken: takenCodes(rows<{ id: number; code: string }>("codes"), input.exceptId),
    refs: refsOfRows(rows),
    stamp: rows<{ modifiedAt: number }>("stamp")[0]?.modifiedAt ?? 0,
  };
}

type CheckKind = keyof VoucherRefs | "codes" | "stamp";
type AddChecks = (kind: keyof VoucherRefs | "codes", queries: Statement[]) => void;
type CheckRows = <T>(kind: CheckKind) => T[];

/** The event's items, variations, quotas and dates among the given ids. */
function addCatalogChecks(db: DB, eventId: number, ids: VoucherRefIds, add: AddChecks) {
  const per = (list: number[], query: (part: number[]) => Statement) =>
    chunks([...new Set(list)], MAX_PARAMS - 5).map(query);
  add(
    "items",
    per(ids.itemIds, (part) =>
      db
        .select({
          id: items.id,
          hasVariations: items.hasVariations,
          name: items.name,
          onlyAddOn: sql<number>`${items.requireBundling} OR coalesce(${itemCategories.isAddon}, 0)`,
        })
        .from(items)
        .leftJoin(itemCategories, eq(itemCategories.id, items.categoryId))
        .where(and(eq(items.eventId, eventId), inArray(items.id, part))),
    ),
  );
  add(
    "variations",
    per(ids.variationIds, (part) =>
      db
        .select({ id: itemVariations.id, itemId: itemVariations.itemId })
        .from(itemVariations)
        .innerJoin(items, eq(items.id, itemVariations.itemId))
        .where(and(eq(items.eventId, eventId), inArray(itemVariations.id, part))),
    ),
  );
  add(
    "quotas",
    per(ids.quotaIds, (part) =>
      db
        .select({ id: quotas.id, subeventId: quotas.subeventId })
        .from(quotas)
        .where(and(eq(quotas.eventId, eventId), inArray(quotas.id, part))),
    ),
  );
  add(
    "subevents",
    per(ids.subeventIds, (part) =>
      db
        .select({
          id: subevents.id,
          seatingPlanId: subevents.seatingPlanId,
          seatCategoryMapping: subevents.seatCategoryMapping,
        })
        .from(subevents)
        .where(and(eq(subevents.eventId, eventId), inArray(subevents.id, part))),
    ),
  );
}

/**
 * The seats with the given guids of the plans the event and its dates use, and the products
 * their categories map to.
 */
function addSeatChecks(db: DB, eventId: number, seatGuids: string[], add: AddChecks) {
  // the plans in use by the event or one of its dates (assigned only from the organizer's plans)
  const plansInUse = sql`(SELECT seating_plan_id FROM events WHERE id = ${eventId} UNION SELECT seating_plan_id FROM subevents WHERE event_id = ${eventId})`;
  add(
    "seats",
    chunks([...new Set(seatGuids)], MAX_PARAMS - 5).map((part) =>
      db
        .select({
          planId: seatingPlanSeats.planId,
          seatGuid: seatingPlanSeats.seatGuid,
          category: seatingPlanSeats.category,
        })
        .from(seatingPlanSeats)
        .where(and(inArray(seatingPlanSeats.seatGuid, part), sql`${seatingPlanSeats.planId} IN ${plansInUse}`)),
    ),
  );
  if (seatGuids.length > 0)
    add("seatProducts", [
      db
        .select({ id: items.id, name: items.name })
        .from(items)
        .where(
          and(
            eq(items.eventId, eventId),
            sql`${items.id} IN (SELECT j.value FROM events e, json_each(e.seat_category_mapping) j WHERE e.id = ${eventId} UNION SELECT j.value FROM subevents s, json_each(s.seat_category_mapping) j WHERE s.event_id = ${eventId})`,
          ),
        ),
    ]);
}

/** The checked rows by kind and id. */
function refsOfRows(rows: CheckRows): VoucherRefs {
  return {
    items: new Map(
      rows<{ id: number; hasVariations: boolean; name: I18n; onlyAddOn: number }>("items").map((r) => [
        r.id,
        { ...r, onlyAddOn: Boolean(r.onlyAddOn) },
      ]),
    ),
    variations: new Map(rows<{ id: number; itemId: number }>("variations").map((r) => [r.id, r])),
    quotas: new Map(rows<{ id: number; subeventId: number | null }>("quotas").map((r) => [r.id, r])),
    subevents: new Map(
      rows<{ id: number; seatingPlanId: number | null; seatCategoryMapping: Record<string, number | null> }>(
        "subevents",
      ).map((r) => [r.id, r]),
    ),
    seats: new Map(
      rows<{ planId: number; seatGuid: string; category: string }>("seats").map((r) => [
        `${r.planId}:${r.seatGuid}`,
        r,
      ]),
    ),
    seatProducts: new Map(rows<{ id: number; name: I18n }>("seatProducts").map((r) => [r.id, r.name])),
  };
}

// ---- the event object's voucher writes (it decides whether a voucher's block fits) ----

/** Inserts vouchers and bumps the inventory stamp, in one batch; their ids. */
export async function insertVoucherRows(
  db: DB,
  eventId: number,
  rows: readonly (typeof vouchers.$inferInsert)[],
  now: number,
): Promise<number[]> {
  const stmts: Statement[] = rows.map((r) => db.insert(vouchers).values(r).returning({ id: vouchers.id }));
  stmts.push(touchInventory(db, eventId, now));
  const results = await runBatch(db, stmts);
  return results.slice(0, rows.length).map((r) => (r as { id: number }[])[0]!.id);
}

/** Changes a voucher's columns and bumps the inventory stamp; false when the voucher does not exist. */
export async function updateVoucherRow(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<typeof vouchers.$inferInsert>,
  now: number,
): Promise<boolean> {
  const [updated] = await db.batch([
    db
      .update(vouchers)
      .set(values)
      .where(and(eq(vouchers.id, id), eq(vouchers.eventId, eventId)))
      .returning({ id: vouchers.id }),
    touchInventory(db, eventId, now),
  ]);
  return updated.length > 0;
}

/** Deletes a voucher unless it was redeemed (in D1's count), bumping the inventory stamp; whether it is still there. */
export async function deleteUnredeemedVoucher(db: DB, eventId: number, id: number, now: number): Promise<boolean> {
  const ofEvent = and(eq(vouchers.id, id), eq(vouchers.eventId, eventId));
  const [, , kept] = await db.batch([
    db.delete(vouchers).where(and(ofEvent, eq(vouchers.redeemed, 0))),
    touchInventory(db, eventId, now),
    db.select({ id: vouchers.id }).from(vouchers).where(ofEvent),
  ]);
  return kept.length > 0;
}

/** Whether the event has no voucher `id` (any more). */
export async function voucherGone(db: DB, eventId: number, id: number): Promise<boolean> {
  const rows = await db
    .select({ id: vouchers.id })
    .from(vouchers)
    .where(and(eq(vouchers.id, id), eq(vouchers.eventId, eventId)));
  return rows.length === 0;
}
