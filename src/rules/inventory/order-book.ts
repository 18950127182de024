/**
 * The holds of pending and paid orders: the book the ledger asks for them, and its memory
 * implementation. The event object's book is its SQLite storage (objects/event/order-book.ts).
 */
import type { Hold, Key } from "./catalog";

/** An order's holds: whether it is paid, and one hold per position. */
export type OrderHold = { paid: boolean; positions: Hold[] };

/**
 * Where the holds of pending and paid orders are kept, with their totals. The ledger keeps
 * nothing per order in memory, so neither its memory nor its object's start grows with the
 * orders sold (the event object's book keeps its totals by triggers). Every method is
 * synchronous: decisions never yield.
 */
export interface OrderBook {
  /** An order's holds (undefined: the order holds nothing). */
  get(code: string): OrderHold | undefined;
  add(code: string, positions: readonly Hold[], paid: boolean): void;
  setPaid(code: string, paid: boolean): void;
  remove(code: string): void;
  /** Positions of pending and of paid orders per capacity key. */
  count(key: Key): { pending: number; paid: number };
  /** Positions of orders that use a voucher. */
  voucherUses(voucherId: number): number;
  /** The order holding a seat (seatKey). */
  seatHolder(seat: string): string | undefined;
}

/** The order book in memory (unit tests; everything the ledger decides is the same). */
export class MemoryOrderBook implements OrderBook {
  private orders = new Map<string, OrderHold>();
  private counts = new Map<Key, { pending: number; paid: number }>();
  private vouchers = new Map<number, number>();

  get(code: string): OrderHold | undefined {
    const o = this.orders.get(code);
    return o && { paid: o.paid, positions: [...o.positions] };
  }

  add(code: string, positions: readonly Hold[], paid: boolean): void {
    if (this.orders.has(code)) return;
    this.orders.set(code, { paid, positions: [...positions] });
    this.tally(positions, paid, 1);
  }

  setPaid(code: string, paid: boolean): void {
    const o = this.orders.get(code);
    if (!o || o.paid === paid) return;
    this.tally(o.positions, o.paid, -1);
    o.paid = paid;
    this.tally(o.positions, paid, 1);
  }

  remove(code: string): void {
    const o = this.orders.get(code);
    if (!o) return;
    this.orders.delete(code);
    this.tally(o.positions, o.paid, -1);
  }

  private tally(positions: readonly Hold[], paid: boolean, d: 1 | -1): void {
    for (const h of positions) {
      const c = this.counts.get(h.key) ?? { pending: 0, paid: 0 };
      if (paid) c.paid += d;
      else c.pending += d;
      this.counts.set(h.key, c);
      if (h.voucherId !== null) this.vouchers.set(h.voucherId, (this.vouchers.get(h.voucherId) ?? 0) + d);
    }
  }

  count(key: Key): { pending: number; paid: number } {
    const c = this.counts.get(key);
    return { pending: c?.pending ?? 0, paid: c?.paid ?? 0 };
  }

  voucherUses(voucherId: number): number {
    return this.vouchers.get(voucherId) ?? 0;
  }

  seatHolder(seat: string): string | undefined {
    for (const [code, o] of this.orders) if (o.positions.some((h) => h.seat === seat)) return code;
    return undefined;
  }
}
