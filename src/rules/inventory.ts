/**
 * The inventory ledger of one event: who holds which capacity, and the decisions on it.
 *
 * Holds are positions of pending and paid orders (permanent until the order is canceled or
 * expires), cart positions (until they expire: an expired cart stops counting by itself) and
 * the units blocked by vouchers with `block_quota`. A quota's availability is
 *   size − paid − pending − unexpired carts − blocked by vouchers
 * (pretix docs quotas.rst). Every method here is synchronous: the event's Durable Object
 * calls them without yielding between check and record (ARCHITECTURE invariant 1).
 */
import type { InventoryCatalogRows } from "../db/inventory";

export type Key = string;

/** The capacity key of a position: item, variation (or none) and sub-event (or none). */
export function keyOf(itemId: number, variationId: number | null, subeventId: number | null): Key {
  return `${itemId}:${variationId ?? ""}:${subeventId ?? ""}`;
}

export function seatKey(subeventId: number | null, seat: string): string {
  return `${subeventId ?? ""}:${seat}`;
}

export type QuotaDef = {
  id: number;
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

export type Hold = { key: Key; seat: string | null; voucherId: number | null };

export type Refusal =
  | {
      code: "quota";
      quotaId: number | null;
      itemId: number;
      variationId: number | null;
      subeventId: number | null;
      available: number;
    }
  | { code: "seat_taken"; seat: string }
  | { code: "seat_twice"; seat: string }
  | { code: "voucher_used_up"; voucherId: number }
  | { code: "voucher_expired"; voucherId: number }
  | { code: "voucher_unknown"; voucherId: number };

export type Availability = {
  available: boolean;
  available_number: number | null;
  total_size: number | null;
  pending_orders: number;
  paid_orders: number;
  exited_orders: number;
  cart_positions: number;
  blocking_vouchers: number;
  waiting_list: number;
};

type CartHold = Hold & { cartId: string; expires: number };
export type OrderHold = { paid: boolean; positions: Hold[] };

/**
 * Where the holds of pending and paid orders are kept, with their totals. The ledger keeps
 * nothing per order in memory: an event with 100,000 positions held costs the ledger no more
 * memory, and its object no longer start, than one with ten (the event object's book is its
 * SQLite storage with totals kept by triggers, objects/event/order-book.ts). Every method is
 * synchronous: decisions still never yield.
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

/** Capacity already set aside for a request: carts it consumes. */
export type Credit = { cartHoldKeys: ReadonlySet<string> };
const NO_CREDIT: Credit = { cartHoldKeys: new Set() };

export class Ledger {
  private catalog: Catalog = { stamp: -1, quotas: [], vouchers: [] };
  private quotasByKey = new Map<Key, QuotaDef[]>();
  private quotaById = new Map<number, QuotaDef>();
  private voucherById = new Map<number, VoucherDef>();

  private carts = new Map<string, CartHold>();
  private cartsByKey = new Map<Key, Set<string>>();
  private voucherCarts = new Map<number, Set<string>>();
  /** Seats held by carts (seats of orders are the book's): seat key → hold key. */
  private cartSeats = new Map<string, string>();
  /** Tickets whose last scan (on any list) was an exit, per capacity key: ticket id → its order and whether that is paid. */
  private exited = new Map<Key, Map<number, { code: string; paid: boolean }>>();
  /** The exited tickets of each order (to follow its payment). */
  private exitedOfOrder = new Map<string, Map<number, Key>>();

  private readonly book: OrderBook;

  /** `book` keeps the orders' holds (the event object's storage; memory by default). */
  constructor(book: OrderBook = new MemoryOrderBook()) {
    this.book = book;
  }

  get stamp(): number {
    return this.catalog.stamp;
  }

  setCatalog(catalog: Catalog): void {
    this.catalog = catalog;
    this.quotasByKey.clear();
    this.quotaById.clear();
    this.voucherById.clear();
    for (const q of catalog.quotas) {
      this.quotaById.set(q.id, q);
      for (const k of new Set(q.keys)) {
        let list = this.quotasByKey.get(k);
        if (!list) this.quotasByKey.set(k, (list = []));
        list.push(q);
      }
    }
    for (const v of catalog.vouchers) this.voucherById.set(v.id, v);
  }

  quota(id: number): QuotaDef | undefined {
    return this.quotaById.get(id);
  }

  voucher(id: number): VoucherDef | undefined {
    return this.voucherById.get(id);
  }

  // ---- counting ----

  redeemed(voucherId: number): number {
    return this.book.voucherUses(voucherId);
  }

  /** Unexpired cart holds among `holdKeys`, the request's own credit not counted. */
  private activeCarts(holdKeys: Iterable<string> | undefined, now: number, credit: Credit): number {
    let n = 0;
    for (const hk of holdKeys ?? []) {
      const c = this.carts.get(hk);
      if (c && c.expires > now && !credit.cartHoldKeys.has(hk)) n++;
    }
    return n;
  }

  private activeCartsOfVoucher(voucherId: number, now: number, credit: Credit): number {
    return this.activeCarts(this.voucherCarts.get(voucherId), now, credit);
  }

  /** Units a voucher still blocks (0 unless it blocks quota and is valid). */
  private blockedBy(v: VoucherDef, now: number, credit: Credit): number {
    if (!v.blockQuota || (v.validUntil !== null && v.validUntil <= now)) return 0;
    return Math.max(0, v.maxUsages - this.redeemed(v.id) - this.activeCartsOfVoucher(v.id, now, credit));
  }

  /** Whether a voucher's blocked units count against a quota. */
  voucherAppliesToQuota(v: VoucherDef, q: QuotaDef): boolean {
    if (v.quotaId !== null) return v.quotaId === q.id;
    if (v.itemId === null) return false;
    if ((v.subeventId ?? null) !== q.subeventId) return false;
    const wanted = keyOf(v.itemId, v.variationId, q.subeventId);
    return q.keys.includes(wanted);
  }

  availability(q: QuotaDef, now: number, credit: Credit = NO_CREDIT): Availability {
    let pending = 0;
    let paid = 0;
    let carts = 0;
    for (const k of new Set(q.keys)) {
      const c = this.book.count(k);
      pending += c.pending;
      paid += c.paid;
      carts += this.activeCarts(this.cartsByKey.get(k), now, credit);
    }
    let blocking = 0;
    for (const v of this.catalog.vouchers)
      if (this.voucherAppliesToQuota(v, q)) blocking += this.blockedBy(v, now, credit);
    const exited = q.releaseAfterExit ? this.exitedOf(q) : 0;
    const left = q.size === null ? null : Math.max(0, q.size - pending - paid - carts - blocking + exited);
    return {
      available: !q.closed && (left === null || left > 0),
      available_number: left,
      total_size: q.size,
      pending_orders: pending,
      paid_orders: paid,
      exited_orders: exited,
      cart_positions: carts,
      blocking_vouchers: blocking,
      waiting_list: 0,
    };
  }

  /** Tickets of paid orders in the quota whose last scan was an exit. */
  private exitedOf(q: QuotaDef): number {
    let n = 0;
    for (const k of new Set(q.keys)) for (const t of this.exited.get(k)?.values() ?? []) if (t.paid) n++;
    return n;
  }

  /**
   * Records whether a ticket's last scan was an exit (check-in, `release_after_exit`): a paid
   * ticket that left frees its unit in quotas that release after exit, until it enters again.
   */
  setExited(ticketId: number, key: Key, orderCode: string, exited: boolean): void {
    let m = this.exited.get(key);
    let byOrder = this.exitedOfOrder.get(orderCode);
    if (exited) {
      if (!m) this.exited.set(key, (m = new Map()));
      m.set(ticketId, { code: orderCode, paid: this.book.get(orderCode)?.paid ?? false });
      if (!byOrder) this.exitedOfOrder.set(orderCode, (byOrder = new Map()));
      byOrder.set(ticketId, key);
    } else {
      m?.delete(ticketId);
      byOrder?.delete(ticketId);
      if (byOrder?.size === 0) this.exitedOfOrder.delete(orderCode);
    }
  }

  /** An order's payment changed (or it stopped holding): its exited tickets follow. */
  private exitedFollow(code: string, paid: boolean): void {
    for (const [ticketId, key] of this.exitedOfOrder.get(code) ?? []) {
      const t = this.exited.get(key)?.get(ticketId);
      if (t) t.paid = paid;
    }
  }

  /**
   * pretix's availability states: 100 available; 20 sold out but reserved in carts (may come
   * back); 10 sold out but with pending orders (may come back); 0 gone (or closed).
   */
  stateOf(q: QuotaDef, now: number): number {
    if (q.closed) return 0;
    const a = this.availability(q, now);
    if (a.available_number === null || a.available_number > 0) return 100;
    if (a.cart_positions > 0) return 20;
    if (a.pending_orders > 0) return 10;
    return 0;
  }

  /** The state of one product on one date for the event's availability; null: not counted. */
  demandState(d: Pick<Demand, "itemId" | "variationId" | "subeventId">, now: number): number | null {
    const quotas = this.quotasFor(d);
    if (quotas.length === 0) return 0;
    const counted = quotas.filter((q) => !q.ignoreForEventAvailability);
    if (counted.length === 0) return null;
    return Math.min(...counted.map((q) => this.stateOf(q, now)));
  }

  quotasFor(d: Pick<Demand, "itemId" | "variationId" | "subeventId">): QuotaDef[] {
    return this.quotasByKey.get(keyOf(d.itemId, d.variationId, d.subeventId)) ?? [];
  }

  // ---- decisions ----

  /**
   * Checks whether `demands` fit, counting the request's own credit (carts it consumes) as
   * free. Returns the refusals (empty: everything fits). Does not change anything.
   */
  check(
    demands: readonly Demand[],
    now: number,
    credit: Credit = NO_CREDIT,
    opts: { ignoreQuota?: boolean } = {},
  ): Refusal[] {
    const refusals: Refusal[] = [];
    const need = new Map<number, { quota: QuotaDef; n: number; first: Demand }>();
    const voucherUses = new Map<number, number>();
    const seatsWanted = new Set<string>();

    for (const d of demands) {
      const v = d.voucherId !== null ? this.voucherById.get(d.voucherId) : undefined;
      if (d.voucherId !== null) {
        if (!v) {
          refusals.push({ code: "voucher_unknown", voucherId: d.voucherId });
          continue;
        }
        voucherUses.set(v.id, (voucherUses.get(v.id) ?? 0) + 1);
      }
      if (d.seat !== null) {
        const sk = seatKey(d.subeventId, d.seat);
        if (seatsWanted.has(sk)) refusals.push({ code: "seat_twice", seat: d.seat });
        seatsWanted.add(sk);
        if (!this.seatFree(sk, d.seat, d.subeventId, d.voucherId, now, credit))
          refusals.push({ code: "seat_taken", seat: d.seat });
      }
      if (opts.ignoreQuota || v?.allowIgnoreQuota) continue;
      const quotas = this.quotasFor(d);
      if (quotas.length === 0) {
        refusals.push({
          code: "quota",
          quotaId: null,
          itemId: d.itemId,
          variationId: d.variationId,
          subeventId: d.subeventId,
          available: 0,
        });
        continue;
      }
      for (const q of quotas) {
        // a voucher that blocks this quota brings its own unit
        if (v && this.voucherAppliesToQuota(v, q) && this.blockedBy(v, now, credit) >= (voucherUses.get(v.id) ?? 1))
          continue;
        const entry = need.get(q.id);
        if (entry) entry.n++;
        else need.set(q.id, { quota: q, n: 1, first: d });
      }
    }

    for (const { quota, n, first } of need.values()) {
      const a = this.availability(quota, now, credit);
      const left = quota.closed ? 0 : a.available_number;
      if (left !== null && left < n) {
        refusals.push({
          code: "quota",
          quotaId: quota.id,
          itemId: first.itemId,
          variationId: first.variationId,
          subeventId: first.subeventId,
          available: left,
        });
      }
    }

    for (const [id, uses] of voucherUses) {
      const v = this.voucherById.get(id)!;
      if (v.validUntil !== null && v.validUntil <= now) {
        refusals.push({ code: "voucher_expired", voucherId: id });
        continue;
      }
      const left = v.maxUsages - this.redeemed(id) - this.activeCartsOfVoucher(id, now, credit);
      if (left < uses) refusals.push({ code: "voucher_used_up", voucherId: id });
    }
    return refusals;
  }

  private seatFree(
    sk: string,
    seat: string,
    subeventId: number | null,
    voucherId: number | null,
    now: number,
    credit: Credit,
  ): boolean {
    if (this.book.seatHolder(sk) !== undefined) return false;
    const holdKey = this.cartSeats.get(sk);
    if (holdKey !== undefined) {
      const c = this.carts.get(holdKey);
      if (c && c.expires > now && !credit.cartHoldKeys.has(holdKey)) return false;
    }
    // a seat reserved by a (valid, unused) voucher is free only for that voucher
    for (const v of this.catalog.vouchers) {
      if (v.seat === seat && (v.subeventId ?? null) === subeventId && v.id !== voucherId) {
        if ((v.validUntil === null || v.validUntil > now) && this.redeemed(v.id) < v.maxUsages) return false;
      }
    }
    return true;
  }

  /** Quotas that a set of demands touches (for close_when_sold_out after a sale). */
  touchedQuotas(demands: readonly Demand[]): QuotaDef[] {
    const out = new Map<number, QuotaDef>();
    for (const d of demands) for (const q of this.quotasFor(d)) out.set(q.id, q);
    return [...out.values()];
  }

  // ---- recording (called after check() said yes, or when rebuilding from storage) ----

  private holdOf(d: Demand): Hold {
    return {
      key: keyOf(d.itemId, d.variationId, d.subeventId),
      seat: d.seat === null ? null : seatKey(d.subeventId, d.seat),
      voucherId: d.voucherId,
    };
  }

  /** Records an order's holds (once: an order already holding keeps what it holds). */
  addOrder(code: string, demands: readonly Demand[] | readonly Hold[], paid: boolean): void {
    if (this.book.get(code)) return;
    this.book.add(
      code,
      demands.map((d) => ("key" in d ? d : this.holdOf(d))),
      paid,
    );
    this.exitedFollow(code, paid);
  }

  orderHolds(code: string): OrderHold | undefined {
    return this.book.get(code);
  }

  setOrderPaid(code: string, paid: boolean): void {
    this.book.setPaid(code, paid);
    this.exitedFollow(code, this.book.get(code)?.paid ?? false);
  }

  removeOrder(code: string): void {
    this.book.remove(code);
    this.exitedFollow(code, false);
  }

  addCart(holdKey: string, cartId: string, d: Demand | Hold, expires: number): void {
    const h = "key" in d ? d : this.holdOf(d);
    this.carts.set(holdKey, { ...h, cartId, expires });
    let set = this.cartsByKey.get(h.key);
    if (!set) this.cartsByKey.set(h.key, (set = new Set()));
    set.add(holdKey);
    if (h.voucherId !== null) {
      let vs = this.voucherCarts.get(h.voucherId);
      if (!vs) this.voucherCarts.set(h.voucherId, (vs = new Set()));
      vs.add(holdKey);
    }
    if (h.seat !== null) this.cartSeats.set(h.seat, holdKey);
  }

  cart(holdKey: string): CartHold | undefined {
    return this.carts.get(holdKey);
  }

  cartHoldKeysOf(cartIds: readonly string[]): string[] {
    if (cartIds.length === 0) return [];
    const wanted = new Set(cartIds);
    const out: string[] = [];
    for (const [hk, c] of this.carts) if (wanted.has(c.cartId)) out.push(hk);
    return out;
  }

  removeCart(holdKey: string): void {
    const c = this.carts.get(holdKey);
    if (!c) return;
    this.carts.delete(holdKey);
    this.cartsByKey.get(c.key)?.delete(holdKey);
    if (c.voucherId !== null) this.voucherCarts.get(c.voucherId)?.delete(holdKey);
    if (c.seat !== null && this.cartSeats.get(c.seat) === holdKey) this.cartSeats.delete(c.seat);
  }

  /** Cart holds that expired before `now` (to be pruned from storage). */
  expiredCarts(now: number): string[] {
    const out: string[] = [];
    for (const [hk, c] of this.carts) if (c.expires <= now) out.push(hk);
    return out;
  }

  /** The earliest expiry of a cart, for scheduling the pruning alarm. */
  nextCartExpiry(): number | null {
    let min: number | null = null;
    for (const c of this.carts.values()) if (min === null || c.expires < min) min = c.expires;
    return min;
  }

  /** Checks a new or changed voucher's blocking against quota (excluding its own old block). */
  checkVoucherBlock(v: VoucherDef, now: number): Refusal[] {
    const want = this.blockedBy(v, now, NO_CREDIT);
    if (want === 0) return [];
    const refusals: Refusal[] = [];
    const old = this.voucherById.get(v.id);
    for (const q of this.catalog.quotas) {
      if (!this.voucherAppliesToQuota(v, q)) continue;
      const a = this.availability(q, now);
      const oldBlock = old && this.voucherAppliesToQuota(old, q) ? this.blockedBy(old, now, NO_CREDIT) : 0;
      const left = q.size === null ? null : (a.available_number ?? 0) + oldBlock;
      if (left !== null && left < want) {
        refusals.push({
          code: "quota",
          quotaId: q.id,
          itemId: v.itemId ?? 0,
          variationId: v.variationId,
          subeventId: q.subeventId,
          available: left,
        });
      }
    }
    return refusals;
  }

  upsertVoucher(v: VoucherDef): void {
    const others = this.catalog.vouchers.filter((x) => x.id !== v.id);
    this.setCatalog({ ...this.catalog, vouchers: [...others, v] });
  }

  removeVoucher(id: number): void {
    this.setCatalog({ ...this.catalog, vouchers: this.catalog.vouchers.filter((x) => x.id !== id) });
  }

  markQuotaClosed(id: number): void {
    const q = this.quotaById.get(id);
    if (q) q.closed = true;
  }
}
