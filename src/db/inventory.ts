/** D1 side of the event object: its catalog (quotas, vouchers, check-in configuration) and the inventory stamp (order writes: order-writes.ts). */
import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { eventScopeKey, eventScopeKeySql, lastChangeQuery, touchStatement } from "./changes";
import { checkinCatalogStatements } from "./checkin/object-reads";
import { changeStamps, quotaItems, quotas, vouchers } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export const INVENTORY = "inventory";

/** The change stamp of everything the event object decides on (quotas, vouchers, seats). */
export function inventoryStampQuery(db: DB, eventId: number) {
  return lastChangeQuery(db, eventScopeKey(eventId), INVENTORY);
}

/** `eventId` may be a subquery (an event inserted earlier in the same batch). */
export function touchInventory(db: DB, eventId: number | SQL, now: number) {
  return touchStatement(
    db,
    typeof eventId === "number" ? eventScopeKey(eventId) : eventScopeKeySql(eventId),
    INVENTORY,
    now,
  );
}

/**
 * What the event object decides with, as rows: quotas, what they cover, vouchers, the change
 * stamp, and the check-in configuration (db/checkin/object-reads.ts), in one round trip.
 */
export async function readInventoryCatalog(db: DB, eventId: number) {
  const [stampRows, quotaRows, coverage, voucherRows, ...checkin] = await db.batch([
    inventoryStampQuery(db, eventId),
    db.select().from(quotas).where(eq(quotas.eventId, eventId)),
    db
      .select({ quotaId: quotaItems.quotaId, itemId: quotaItems.itemId, variationId: quotaItems.variationId })
      .from(quotaItems)
      .innerJoin(quotas, eq(quotas.id, quotaItems.quotaId))
      .where(eq(quotas.eventId, eventId)),
    db
      .select({
        id: vouchers.id,
        maxUsages: vouchers.maxUsages,
        validUntil: vouchers.validUntil,
        blockQuota: vouchers.blockQuota,
        allowIgnoreQuota: vouchers.allowIgnoreQuota,
        itemId: vouchers.itemId,
        variationId: vouchers.variationId,
        quotaId: vouchers.quotaId,
        subeventId: vouchers.subeventId,
        seat: vouchers.seat,
      })
      .from(vouchers)
      .where(eq(vouchers.eventId, eventId)),
    ...checkinCatalogStatements(db, eventId),
  ]);
  return {
    stamp: stampRows[0]?.modifiedAt ?? 0,
    quotas: quotaRows,
    coverage,
    vouchers: voucherRows,
    checkin: checkin as unknown as CheckinCatalogRows,
  };
}

/** The check-in configuration rows (the results of `checkinCatalogStatements`, in order). */
export type CheckinCatalogRows = {
  -readonly [K in keyof ReturnType<typeof checkinCatalogStatements>]: Awaited<
    ReturnType<typeof checkinCatalogStatements>[K]
  >;
};

/** The check-in configuration alone (one round trip), after a list was changed or D1 said items or questions changed. */
export async function readCheckinCatalog(db: DB, eventId: number): Promise<CheckinCatalogRows> {
  const [first, ...rest] = checkinCatalogStatements(db, eventId);
  return (await db.batch([first, ...rest])) as unknown as CheckinCatalogRows;
}

export type InventoryCatalogRows = Awaited<ReturnType<typeof readInventoryCatalog>>;

/** Inventory stamps of several events in one query. */
export async function inventoryStamps(db: DB, eventIds: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const part of chunks(eventIds, MAX_PARAMS - 5)) {
    const rows = await db
      .select({ scope: changeStamps.scope, modifiedAt: changeStamps.modifiedAt })
      .from(changeStamps)
      .where(and(eq(changeStamps.resource, INVENTORY), inArray(changeStamps.scope, part.map(eventScopeKey))));
    for (const r of rows) out.set(Number(r.scope.slice("event:".length)), r.modifiedAt);
  }
  return out;
}
