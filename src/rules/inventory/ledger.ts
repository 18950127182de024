/**
 * The inventory ledger of one event: who holds which capacity, and the decisions on it. Holds are
 * positions of pending and paid orders, unexpired cart positions and vouchers' `block_quota` units;
 * a quota's availability is size − paid − pending − carts − voucher blocks (+ paid tickets that left,
 * with `release_after_exit`; pretix docs quotas.rst). Synchronous: the event object checks and records
 * without yielding between them (docs/event-object.md).
 */
import { type CartHold, CartHolds, type Credit, NO_CREDIT } from "./cart-holds";
import {
  type Catalog,
  type Demand,
  type Hold,
  holdOf,
  type Key,
  keyOf,
  type QuotaDef,
  seatKey,
  type VoucherDef,
} from "./catalog";
import { ExitedTickets } from "./exits";
import { MemoryOrderBook, type OrderBook, type OrderHold } from "./order-book";

/**
 * Why a request does not fit. `indices` are the positions of the request's demands the refusal
 * concerns, in order (pretix reports each on its position): the demands beyond what a quota or
 * voucher still has, the demand whose seat is taken.
 */
export type Refusal =
  | {
      code: "quota";
      quotaId: number | null;
      quotaName: string | null;
      itemId: number;
      variationId: number | null;
      subeventId: number | null;
      available: number;
      indices: number[];
    }
  | { code: "seat_taken"; seat: string; heldBy?: SeatHolder; indices: number[] }
  | { code: "seat_twice"; seat: string; indices: number[] }
  | { code: "voucher_used_up"; voucherId: number; indices: number[] }
  | { code: "voucher_expired"; voucherId: number; indices: number[] }
  | { code: "voucher_unknown"; voucherId: number; indices: number[] };

/** What holds a seat: a ticket of a pending or paid order, a cart, or a valid and unused voucher. */
export type SeatHolder = "order" | "cart" | "voucher";

/** A quota's numbers, as the quotas' `availability` endpoint answers them. */
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

/** What a set of demands adds up to (`Ledger.check`): each one's own refusals, then what they need together. */
type DemandTally = {
  refusals: Refusal[];
  /** Per quota: the demands counting it, in order, and the first of them (the refusal names its item). */
  need: Map<number, { quota: QuotaDef; indices: number[]; first: Demand }>;
  /** Per known voucher: the demands using it. */
  voucherUses: Map<number, number[]>;
  unknownVouchers: Map<number, number[]>;
};

function pushIndex(m: Map<number, number[]>, key: number, i: number): void {
  const list = m.get(key);
  if (list) list.push(i);
  else m.set(key, [i]);
}

export class Ledger {
  private catalog: Catalog = { stamp: -1, quotas: [], vouchers: [] };
  private quotasByKey = new Map<Key, QuotaDef[]>();
  private quotaById = new Map<number, QuotaDef>();
  private voucherById = new Map<number, VoucherDef>();

  private readonly book: OrderBook;
  private readonly carts = new CartHolds();
  private readonly exited = new ExitedTickets();
  /** Vouchers the event object is writing to D1, under ids of their own (negative): kept across catalog reloads. */
  private readonly writing = new Map<number, VoucherDef>();
  private lastWritingId = 0;

  /** `book` keeps the orders' holds (the event object's storage; memory by default). */
  constructor(book: OrderBook = new MemoryOrderBook()) {
    this.book = book;
  }

  get stamp(): number {
    return this.catalog.stamp;
  }

  /** Takes the catalog (quotas and vouchers as D1 has them); vouchers being written stay counted. */
  setCatalog(catalog: Catalog): void {
    const stored = catalog.vouchers.filter((v) => !this.writing.has(v.id));
    this.catalog = { ...catalog, vouchers: [...stored, ...this.writing.values()] };
    this.quotasByKey.clear();
    this.quotaById.clear();
    this.voucherById.clear();
    for (const q of this.catalog.quotas) {
      this.quotaById.set(q.id, q);
      for (const k of new Set(q.keys)) {
        let list = this.quotasByKey.get(k);
        if (!list) this.quotasByKey.set(k, (list = []));
        list.push(q);
      }
    }
    for (const v of this.catalog.vouchers) this.voucherById.set(v.id, v);
  }

  quota(id: number): QuotaDef | undefined {
    return this.quotaById.get(id);
  }

  voucher(id: number): VoucherDef | undefined {
    return this.voucherById.get(id);
  }

  upsertVoucher(v: VoucherDef): void {
    const others = this.catalog.vouchers.filter((x) => x.id !== v.id);
    this.setCatalog({ ...this.catalog, vouchers: [...others, v] });
  }

  removeVoucher(id: number): void {
    this.setCatalog({ ...this.catalog, vouchers: this.catalog.vouchers.filter((x) => x.id !== id) });
  }

  /**
   * Counts a voucher's new definition (a creation, a change) from the decision on, while D1 is
   * written: its block and its seat hold under an id of its own, also when the catalog is
   * reloaded meanwhile (a reload reads D1, which may not have the write yet), until
   * `endVoucherWrite`. Returns that id.
   */
  beginVoucherWrite(v: VoucherDef): number {
    const id = --this.lastWritingId;
    this.writing.set(id, { ...v, id });
    this.setCatalog(this.catalog);
    return id;
  }

  endVoucherWrite(id: number): void {
    if (!this.writing.delete(id)) return;
    this.removeVoucher(id);
  }

  markQuotaClosed(id: number): void {
    const q = this.quotaById.get(id);
    if (q) q.closed = true;
  }

  // ---- counting ----

  /** A voucher's redemptions by orders. */
  redeemed(voucherId: number): number {
    return this.book.voucherUses(voucherId);
  }

  /** Units a voucher still blocks (0 unless it blocks quota and is valid). */
  private blockedBy(v: VoucherDef, now: number, credit: Credit): number {
    if (!v.blockQuota || (v.validUntil !== null && v.validUntil <= now)) return 0;
    return Math.max(0, v.maxUsages - this.redeemed(v.id) - this.carts.activeOfVoucher(v.id, now, credit));
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
    const keys = new Set(q.keys);
    let pending = 0;
    let paid = 0;
    let carts = 0;
    for (const k of keys) {
      const c = this.book.count(k);
      pending += c.pending;
      paid += c.paid;
      carts += this.carts.activeOfKey(k, now, credit);
    }
    let blocking = 0;
    for (const v of this.catalog.vouchers)
      if (this.voucherAppliesToQuota(v, q)) blocking += this.blockedBy(v, now, credit);
    const exited = q.releaseAfterExit ? this.exited.paidAmong(keys) : 0;
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

  /**
   * A product on a date as its shop shows it: the state (as `stateOf`, the lowest over all its
   * quotas) and the units left (the lowest over its quotas; null: unlimited). null: no quota
   * covers it there, so it is not on sale.
   */
  productAvailability(
    d: Pick<Demand, "itemId" | "variationId" | "subeventId">,
    now: number,
  ): { state: number; left: number | null } | null {
    const quotas = this.quotasFor(d);
    if (quotas.length === 0) return null;
    let state = 100;
    let left: number | null = null;
    for (const q of quotas) {
      state = Math.min(state, this.stateOf(q, now));
      const n = q.closed ? 0 : this.availability(q, now).available_number;
      if (n !== null) left = left === null ? n : Math.min(left, n);
    }
    return { state, left };
  }

  quotasFor(d: Pick<Demand, "itemId" | "variationId" | "subeventId">): QuotaDef[] {
    return this.quotasOfKey(keyOf(d.itemId, d.variationId, d.subeventId));
  }

  /** The quotas counting a capacity key. */
  quotasOfKey(key: Key): QuotaDef[] {
    return this.quotasByKey.get(key) ?? [];
  }

  // ---- decisions ----

  /**
   * Checks whether `demands` fit, counting the request's own credit (carts it consumes) as
   * free. Returns the refusals (empty: everything fits). Does not change anything. Demands are
   * counted in order, as pretix does: when a quota or voucher has room for n of them, the
   * first n fit and the refusal names the others.
   */
  check(
    demands: readonly Demand[],
    now: number,
    credit: Credit = NO_CREDIT,
    opts: { ignoreQuota?: boolean } = {},
  ): Refusal[] {
    const tally = this.tallyDemands(demands, now, credit, opts.ignoreQuota === true);
    for (const [voucherId, indices] of tally.unknownVouchers)
      tally.refusals.push({ code: "voucher_unknown", voucherId, indices });
    this.refuseOverQuota(tally, now, credit);
    this.refuseOverVoucher(tally, now, credit);
    return tally.refusals;
  }

  /**
   * The demands in order: the refusals each one earns alone (a seat wanted twice or taken, no
   * quota), and what they need together: units of each quota, uses of each voucher.
   */
  private tallyDemands(demands: readonly Demand[], now: number, credit: Credit, ignoreQuota: boolean): DemandTally {
    const tally: DemandTally = { refusals: [], need: new Map(), voucherUses: new Map(), unknownVouchers: new Map() };
    const seatsWanted = new Set<string>();
    demands.forEach((d, i) => {
      const v = d.voucherId !== null ? this.voucherById.get(d.voucherId) : undefined;
      if (d.voucherId !== null) {
        if (!v) return pushIndex(tally.unknownVouchers, d.voucherId, i);
        pushIndex(tally.voucherUses, v.id, i);
      }
      if (d.seat !== null) this.tallySeat(tally.refusals, seatsWanted, d, i, now, credit);
      if (ignoreQuota || v?.allowIgnoreQuota) return;
      this.tallyQuotas(tally, d, i, v, now, credit);
    });
    return tally;
  }

  private tallySeat(refusals: Refusal[], seatsWanted: Set<string>, d: Demand, i: number, now: number, credit: Credit) {
    const seat = d.seat!;
    const sk = seatKey(d.subeventId, seat);
    if (seatsWanted.has(sk)) refusals.push({ code: "seat_twice", seat, indices: [i] });
    else if (!this.seatFree(sk, seat, d.subeventId, d.voucherId, now, credit))
      refusals.push({ code: "seat_taken", seat, indices: [i] });
    seatsWanted.add(sk);
  }

  private tallyQuotas(
    tally: DemandTally,
    d: Demand,
    i: number,
    v: VoucherDef | undefined,
    now: number,
    credit: Credit,
  ) {
    const quotas = this.quotasFor(d);
    if (quotas.length === 0) {
      tally.refusals.push({
        code: "quota",
        quotaId: null,
        quotaName: null,
        itemId: d.itemId,
        variationId: d.variationId,
        subeventId: d.subeventId,
        available: 0,
        indices: [i],
      });
      return;
    }
    for (const q of quotas) {
      // a voucher that blocks this quota brings its own unit
      if (
        v &&
        this.voucherAppliesToQuota(v, q) &&
        this.blockedBy(v, now, credit) >= tally.voucherUses.get(v.id)!.length
      )
        continue;
      const entry = tally.need.get(q.id);
      if (entry) entry.indices.push(i);
      else tally.need.set(q.id, { quota: q, indices: [i], first: d });
    }
  }

  /** A quota with room for n of the demands counting it: the first n fit, the refusal names the others. */
  private refuseOverQuota(tally: DemandTally, now: number, credit: Credit) {
    for (const { quota, indices, first } of tally.need.values()) {
      const a = this.availability(quota, now, credit);
      const left = quota.closed ? 0 : a.available_number;
      if (left !== null && left < indices.length) {
        tally.refusals.push({
          code: "quota",
          quotaId: quota.id,
          quotaName: quota.name ?? null,
          itemId: first.itemId,
          variationId: first.variationId,
          subeventId: first.subeventId,
          available: left,
          indices: indices.slice(left),
        });
      }
    }
  }

  /** Used up before expired: a voucher that is both is refused as used up (pretix's precedence). */
  private refuseOverVoucher(tally: DemandTally, now: number, credit: Credit) {
    for (const [id, indices] of tally.voucherUses) {
      const v = this.voucherById.get(id)!;
      const left = Math.max(0, v.maxUsages - this.redeemed(id) - this.carts.activeOfVoucher(id, now, credit));
      if (left < indices.length)
        tally.refusals.push({ code: "voucher_used_up", voucherId: id, indices: indices.slice(left) });
      if (v.validUntil !== null && v.validUntil <= now && left > 0)
        tally.refusals.push({ code: "voucher_expired", voucherId: id, indices: indices.slice(0, left) });
    }
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
    if (this.carts.seatHeld(sk, now, credit)) return false;
    // a seat reserved by a (valid, unused) voucher is free only for that voucher
    return !this.voucherReservesSeat(seat, subeventId, voucherId, now);
  }

  /** Whether a valid, unused voucher other than `exceptId` reserves the seat on the date. */
  private voucherReservesSeat(seat: string, subeventId: number | null, exceptId: number | null, now: number): boolean {
    for (const v of this.catalog.vouchers) {
      if (v.seat === seat && (v.subeventId ?? null) === subeventId && v.id !== exceptId) {
        if ((v.validUntil === null || v.validUntil > now) && this.redeemed(v.id) < v.maxUsages) return true;
      }
    }
    return false;
  }

  /**
   * Checks that a new voucher, or one given another seat, may reserve its seat (pretix's
   * `clean_seat_id`): no ticket, cart or other valid and unused voucher holds it.
   */
  checkVoucherSeat(v: VoucherDef, now: number): Refusal[] {
    if (v.seat === null) return [];
    const subeventId = v.subeventId ?? null;
    const sk = seatKey(subeventId, v.seat);
    const heldBy: SeatHolder | null =
      this.book.seatHolder(sk) !== undefined
        ? "order"
        : this.voucherReservesSeat(v.seat, subeventId, v.id, now)
          ? "voucher"
          : this.carts.seatHeld(sk, now, NO_CREDIT)
            ? "cart"
            : null;
    return heldBy ? [{ code: "seat_taken", seat: v.seat, heldBy, indices: [] }] : [];
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
          quotaName: q.name ?? null,
          itemId: v.itemId ?? 0,
          variationId: v.variationId,
          subeventId: q.subeventId,
          available: left,
          indices: [],
        });
      }
    }
    return refusals;
  }

  /** Quotas that a set of demands touches (for close_when_sold_out after a sale). */
  touchedQuotas(demands: readonly Demand[]): QuotaDef[] {
    const out = new Map<number, QuotaDef>();
    for (const d of demands) for (const q of this.quotasFor(d)) out.set(q.id, q);
    return [...out.values()];
  }

  // ---- recording (called after check() said yes, or when rebuilding from storage) ----

  /** Records an order's holds (once: an order already holding keeps what it holds). */
  addOrder(code: string, demands: readonly Demand[] | readonly Hold[], paid: boolean): void {
    if (this.book.get(code)) return;
    this.book.add(
      code,
      demands.map((d) => ("key" in d ? d : holdOf(d))),
      paid,
    );
    this.exited.follow(code, paid);
  }

  /** Replaces an order's holds (an order change: what it keeps and what it takes now). */
  replaceOrder(code: string, holds: readonly Demand[] | readonly Hold[], paid: boolean): void {
    this.book.remove(code);
    this.book.add(
      code,
      holds.map((d) => ("key" in d ? d : holdOf(d))),
      paid,
    );
    this.exited.follow(code, paid);
  }

  orderHolds(code: string): OrderHold | undefined {
    return this.book.get(code);
  }

  setOrderPaid(code: string, paid: boolean): void {
    this.book.setPaid(code, paid);
    this.exited.follow(code, this.book.get(code)?.paid ?? false);
  }

  removeOrder(code: string): void {
    this.book.remove(code);
    this.exited.follow(code, false);
  }

  addCart(holdKey: string, cartId: string, d: Demand | Hold, expires: number): void {
    this.carts.add(holdKey, cartId, "key" in d ? d : holdOf(d), expires);
  }

  cart(holdKey: string): CartHold | undefined {
    return this.carts.get(holdKey);
  }

  cartHoldKeysOf(cartIds: readonly string[]): string[] {
    return this.carts.holdKeysOf(cartIds);
  }

  removeCart(holdKey: string): void {
    this.carts.remove(holdKey);
  }

  /** Cart holds that expired at or before `now` (to be pruned from storage). */
  expiredCarts(now: number): string[] {
    return this.carts.expired(now);
  }

  /** The earliest expiry of a cart, for scheduling the pruning alarm. */
  nextCartExpiry(): number | null {
    return this.carts.nextExpiry();
  }

  /** The next time after `now` a cart expires, and the availability changes by itself. */
  nextCartExpiryAfter(now: number): number | null {
    return this.carts.nextExpiryAfter(now);
  }

  /**
   * Records whether a ticket's last scan was an exit (check-in, `release_after_exit`): a paid
   * ticket that left frees its unit in quotas that release after exit, until it enters again.
   */
  setExited(ticketId: number, key: Key, orderCode: string, exited: boolean): void {
    this.exited.set(ticketId, key, orderCode, exited, this.book.get(orderCode)?.paid ?? false);
  }
}
