/**
 * What the ledger counts in: capacity keys (item, variation, date) and seats, the quotas and
 * vouchers of an event as the ledger reads them, and a unit of demand and the hold it becomes.
 */
import type { InventoryCatalogRows } from "../../db/inventory";

export type Key = string;

/** The capacity key of a position: item, variation (or none) and sub-event (or none). */
export function keyOf(itemId: number, variationId: number | null, subeventId: number | null): Key {
  return `${itemId}:${variationId ?? ""}:${subeventId ?? ""}`;
}

/** A seat on one date: the same seat of two dates is two seats. */
export function seatKey(subeventId: number | null, seat: string): string {
  return `${subeventId ?? ""}:${seat}`;
}

export type QuotaDef = {
  id: number;
  /** The quota's name, for the refusal a client reads. */
  name?: string;
  subeventId: number | null;
  size: number | null;
  closed: boolean;
  closeWhenSoldOut: boolean;
  /** Not considered for the availability of the event as a whole (best_availability_state). */
  ignoreForEventAvailability?: boolean;
  /** Tickets of paid orders whose last scan was an exit free their unit again (pretix `release_after_exit`). */
  releaseAfterExit?: boolean;
  /** keyOf(item, variation, quota.subevent) for everything the quota covers. */
  keys: Key[];
};

export type VoucherDef = {
  id: number;
  maxUsages: number;
  validUntil: number | null;
  blockQuota: boolean;
  allowIgnoreQuota: boolean;
  itemId: number | null;
  variationId: number | null;
  quotaId: number | null;
  subeventId: number | null;
  seat: string | null;
};

export type Catalog = { stamp: number; quotas: QuotaDef[]; vouchers: VoucherDef[] };

/** The catalog from its rows (db/inventory.ts `readInventoryCatalog`). */
export function catalogFromRows(rows: InventoryCatalogRows): Catalog {
  const keys = new Map<number, string[]>();
  const bySub = new Map(rows.quotas.map((q) => [q.id, q.subeventId]));
  for (const c of rows.coverage) {
    const list = keys.get(c.quotaId) ?? [];
    list.push(keyOf(c.itemId, c.variationId, bySub.get(c.quotaId) ?? null));
    keys.set(c.quotaId, list);
  }
  return {
    stamp: rows.stamp,
    quotas: rows.quotas.map((q) => ({
      id: q.id,
      name: q.name,
      subeventId: q.subeventId,
      size: q.size,
      closed: q.closed,
      closeWhenSoldOut: q.closeWhenSoldOut,
      ignoreForEventAvailability: q.ignoreForEventAvailability,
      releaseAfterExit: q.releaseAfterExit,
      keys: keys.get(q.id) ?? [],
    })),
    vouchers: rows.vouchers,
  };
}

/** One unit of demand: a position of an order or a cart. */
export type Demand = {
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  seat: string | null;
  voucherId: number | null;
};

/** What a recorded unit holds: its capacity key, its seat (seatKey) and its voucher. */
export type Hold = { key: Key; seat: string | null; voucherId: number | null };

export function holdOf(d: Demand): Hold {
  return {
    key: keyOf(d.itemId, d.variationId, d.subeventId),
    seat: d.seat === null ? null : seatKey(d.subeventId, d.seat),
    voucherId: d.voucherId,
  };
}
