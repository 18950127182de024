/**
 * The holds of carts: one per cart position, until it expires. An expired hold stops counting by
 * itself (nothing needs to remove it first); a request that consumes carts gets their holds as
 * credit, so its own carts do not count against it.
 */
import type { Hold, Key } from "./catalog";

export type CartHold = Hold & { cartId: string; expires: number };

/** Capacity already set aside for a request: carts it consumes. */
export type Credit = { cartHoldKeys: ReadonlySet<string> };
export const NO_CREDIT: Credit = { cartHoldKeys: new Set() };

export class CartHolds {
  private holds = new Map<string, CartHold>();
  private byKey = new Map<Key, Set<string>>();
  private byVoucher = new Map<number, Set<string>>();
  /** Seat key → the hold holding it. */
  private bySeat = new Map<string, string>();

  add(holdKey: string, cartId: string, h: Hold, expires: number): void {
    this.holds.set(holdKey, { ...h, cartId, expires });
    let set = this.byKey.get(h.key);
    if (!set) this.byKey.set(h.key, (set = new Set()));
    set.add(holdKey);
    if (h.voucherId !== null) {
      let vs = this.byVoucher.get(h.voucherId);
      if (!vs) this.byVoucher.set(h.voucherId, (vs = new Set()));
      vs.add(holdKey);
    }
    if (h.seat !== null) this.bySeat.set(h.seat, holdKey);
  }

  get(holdKey: string): CartHold | undefined {
    return this.holds.get(holdKey);
  }

  remove(holdKey: string): void {
    const c = this.holds.get(holdKey);
    if (!c) return;
    this.holds.delete(holdKey);
    this.byKey.get(c.key)?.delete(holdKey);
    if (c.voucherId !== null) this.byVoucher.get(c.voucherId)?.delete(holdKey);
    if (c.seat !== null && this.bySeat.get(c.seat) === holdKey) this.bySeat.delete(c.seat);
  }

  /** The holds of the given carts. */
  holdKeysOf(cartIds: readonly string[]): string[] {
    if (cartIds.length === 0) return [];
    const wanted = new Set(cartIds);
    const out: string[] = [];
    for (const [hk, c] of this.holds) if (wanted.has(c.cartId)) out.push(hk);
    return out;
  }

  /** Holds that expired at or before `now` (to be pruned from storage). */
  expired(now: number): string[] {
    const out: string[] = [];
    for (const [hk, c] of this.holds) if (c.expires <= now) out.push(hk);
    return out;
  }

  /** The earliest expiry of a hold, for scheduling the pruning alarm. */
  nextExpiry(): number | null {
    let min: number | null = null;
    for (const c of this.holds.values()) if (min === null || c.expires < min) min = c.expires;
    return min;
  }

  /** The earliest expiry of a hold after `now` (when a cart next stops counting). */
  nextExpiryAfter(now: number): number | null {
    let min: number | null = null;
    for (const c of this.holds.values()) if (c.expires > now && (min === null || c.expires < min)) min = c.expires;
    return min;
  }

  /** Unexpired holds of a capacity key, the request's own credit not counted. */
  activeOfKey(key: Key, now: number, credit: Credit): number {
    return this.active(this.byKey.get(key), now, credit);
  }

  /** Unexpired holds that use a voucher, the request's own credit not counted. */
  activeOfVoucher(voucherId: number, now: number, credit: Credit): number {
    return this.active(this.byVoucher.get(voucherId), now, credit);
  }

  /** Whether an unexpired hold other than the request's own holds a seat (seatKey). */
  seatHeld(seat: string, now: number, credit: Credit): boolean {
    const holdKey = this.bySeat.get(seat);
    return holdKey !== undefined && this.active([holdKey], now, credit) > 0;
  }

  private active(holdKeys: Iterable<string> | undefined, now: number, credit: Credit): number {
    let n = 0;
    for (const hk of holdKeys ?? []) {
      const c = this.holds.get(hk);
      if (c && c.expires > now && !credit.cartHoldKeys.has(hk)) n++;
    }
    return n;
  }
}
