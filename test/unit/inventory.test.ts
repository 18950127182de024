/**
 * The quota ledger on its own (src/rules/inventory/): what `check` refuses and allows for quotas,
 * carts, credits, vouchers and seats; the numbers `availability`, `stateOf` and
 * `checkVoucherBlock` give; and how the holds behave: of orders, of carts (expiry), of vouchers,
 * quotas shared by products, sizes and coverage changed, exits with `release_after_exit`. The
 * event object only records what these decide.
 */
import { describe, expect, it } from "vitest";
import type { InventoryCatalogRows } from "../../src/db/inventory";
import {
  catalogFromRows,
  type Demand,
  keyOf,
  Ledger,
  type QuotaDef,
  type Refusal,
  seatKey,
  type VoucherDef,
} from "../../src/rules/inventory";

const NOW = Date.UTC(2030, 0, 1);
const LATER = NOW + 60_000;
const EARLIER = NOW - 60_000;

const TICKET = 1;
const SHIRT = 2;

function quota(over: Partial<QuotaDef> & { id: number }): QuotaDef {
  return {
    subeventId: null,
    size: 2,
    closed: false,
    closeWhenSoldOut: false,
    keys: [keyOf(TICKET, null, null)],
    ...over,
  };
}

function voucher(over: Partial<VoucherDef> & { id: number }): VoucherDef {
  return {
    maxUsages: 1,
    validUntil: null,
    blockQuota: false,
    allowIgnoreQuota: false,
    itemId: null,
    variationId: null,
    quotaId: null,
    subeventId: null,
    seat: null,
    ...over,
  };
}

function demand(over: Partial<Demand> = {}): Demand {
  return { itemId: TICKET, variationId: null, subeventId: null, seat: null, voucherId: null, ...over };
}

type QuotaRefusal = Extract<Refusal, { code: "quota" }>;

/** A quota refusal as `check` reports it; unnamed fields as for one ticket on no date. */
function quotaRefusal(over: Partial<QuotaRefusal>): QuotaRefusal {
  return {
    code: "quota",
    quotaId: null,
    quotaName: null,
    itemId: TICKET,
    variationId: null,
    subeventId: null,
    available: 0,
    indices: [0],
    ...over,
  };
}

function ledger(quotas: QuotaDef[], vouchers: VoucherDef[] = []): Ledger {
  const l = new Ledger();
  l.setCatalog({ stamp: 1, quotas, vouchers });
  return l;
}

describe("Ledger.check: quotas", () => {
  it("allows up to the quota's size and refuses one more, naming the quota and what is left", () => {
    const q = quota({ id: 7, size: 2 });
    const l = ledger([q]);
    expect(l.check([demand(), demand()], NOW)).toEqual([]);
    expect(l.check([demand(), demand(), demand()], NOW)).toEqual([
      quotaRefusal({ quotaId: 7, available: 2, indices: [2] }),
    ]);
    l.addOrder("A", [demand()], false);
    expect(l.check([demand()], NOW)).toEqual([]);
    expect(l.check([demand(), demand()], NOW)).toEqual([quotaRefusal({ quotaId: 7, available: 1, indices: [1] })]);
  });

  it("counts pending and paid orders alike, and a removed order frees its unit", () => {
    const l = ledger([quota({ id: 1, size: 2 })]);
    l.addOrder("P", [demand()], true);
    l.addOrder("N", [demand()], false);
    expect(l.check([demand()], NOW)).toHaveLength(1);
    l.removeOrder("N");
    expect(l.check([demand()], NOW)).toEqual([]);
    l.setOrderPaid("P", false);
    l.removeOrder("P");
    expect(l.check([demand(), demand()], NOW)).toEqual([]);
  });

  it("refuses a product no quota covers, and any demand of a closed quota", () => {
    const l = ledger([
      quota({ id: 1, size: 5 }),
      quota({ id: 2, size: 5, closed: true, keys: [keyOf(SHIRT, null, null)] }),
    ]);
    expect(l.check([demand({ itemId: 99 })], NOW)).toEqual([quotaRefusal({ itemId: 99 })]);
    expect(l.check([demand({ itemId: SHIRT })], NOW)).toEqual([quotaRefusal({ quotaId: 2, itemId: SHIRT })]);
  });

  it("names the demands beyond a quota's room, in request order, and the quota by its name", () => {
    const l = ledger([quota({ id: 7, size: 1, name: "Budget Quota" })]);
    const refused = (n: number) =>
      l.check(
        Array.from({ length: n }, () => demand()),
        NOW,
      );
    expect(refused(3)).toEqual([
      quotaRefusal({ quotaId: 7, quotaName: "Budget Quota", available: 1, indices: [1, 2] }),
    ]);
    l.addOrder("A", [demand()], false);
    expect(refused(2).map((r) => r.indices)).toEqual([[0, 1]]);
  });

  it("needs room in every quota a product is in; an unlimited quota never refuses", () => {
    const small = quota({ id: 1, size: 1 });
    const unlimited = quota({ id: 2, size: null });
    const l = ledger([small, unlimited]);
    expect(l.check([demand()], NOW)).toEqual([]);
    expect(l.check([demand(), demand()], NOW).map((r) => r.code === "quota" && r.quotaId)).toEqual([1]);
    const alone = ledger([unlimited]);
    expect(
      alone.check(
        Array.from({ length: 1000 }, () => demand()),
        NOW,
      ),
    ).toEqual([]);
  });

  it("keeps dates and variations apart", () => {
    const dateA = quota({ id: 1, size: 1, subeventId: 10, keys: [keyOf(TICKET, null, 10)] });
    const dateB = quota({ id: 2, size: 1, subeventId: 11, keys: [keyOf(TICKET, null, 11)] });
    const red = quota({ id: 3, size: 1, keys: [keyOf(SHIRT, 5, null)] });
    const l = ledger([dateA, dateB, red]);
    l.addOrder("A", [demand({ subeventId: 10 })], false);
    expect(l.check([demand({ subeventId: 10 })], NOW)).toHaveLength(1);
    expect(l.check([demand({ subeventId: 11 })], NOW)).toEqual([]);
    expect(l.check([demand({ itemId: SHIRT, variationId: 5 })], NOW)).toEqual([]);
    expect(l.check([demand({ itemId: SHIRT, variationId: 6 })], NOW)).toEqual([
      quotaRefusal({ itemId: SHIRT, variationId: 6 }),
    ]);
  });

  it("ignoreQuota skips quotas (even a missing or closed one) but never seats or vouchers", () => {
    const l = ledger([quota({ id: 1, size: 1, closed: true })], [voucher({ id: 5, maxUsages: 1 })]);
    l.addOrder("A", [demand({ voucherId: 5, seat: "s1" })], false);
    expect(l.check([demand(), demand({ itemId: 99 })], NOW, undefined, { ignoreQuota: true })).toEqual([]);
    expect(l.check([demand({ seat: "s1" })], NOW, undefined, { ignoreQuota: true })).toEqual([
      { code: "seat_taken", seat: "s1", indices: [0] },
    ]);
    expect(l.check([demand({ voucherId: 5 })], NOW, undefined, { ignoreQuota: true })).toEqual([
      { code: "voucher_used_up", voucherId: 5, indices: [0] },
    ]);
  });

  it("a voucher with allow_ignore_quota skips quotas for its own positions only", () => {
    const l = ledger([quota({ id: 1, size: 1 })], [voucher({ id: 5, maxUsages: 3, allowIgnoreQuota: true })]);
    l.addOrder("A", [demand()], false);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([]);
    expect(l.check([demand({ voucherId: 5 }), demand()], NOW)).toEqual([quotaRefusal({ quotaId: 1, indices: [1] })]);
  });
});

describe("Ledger.check: carts and credits", () => {
  it("an unexpired cart holds its unit; an expired one holds nothing", () => {
    const l = ledger([quota({ id: 1, size: 1 })]);
    l.addCart("h1", "cart1", demand(), LATER);
    expect(l.check([demand()], NOW)).toEqual([quotaRefusal({ quotaId: 1 })]);
    // the same cart, seen after its expiry
    expect(l.check([demand()], LATER)).toEqual([]);
    const expired = ledger([quota({ id: 1, size: 1 })]);
    expired.addCart("h1", "cart1", demand(), EARLIER);
    expect(expired.check([demand()], NOW)).toEqual([]);
  });

  it("a request consuming a cart gets the cart's unit as credit; other requests do not", () => {
    const l = ledger([quota({ id: 1, size: 2 })]);
    l.addCart("h1", "cart1", demand(), LATER);
    l.addCart("h2", "cart2", demand(), LATER);
    expect(l.check([demand()], NOW)).toHaveLength(1);
    expect(l.cartHoldKeysOf(["cart1"])).toEqual(["h1"]);
    expect(l.check([demand()], NOW, { cartHoldKeys: new Set(l.cartHoldKeysOf(["cart1"])) })).toEqual([]);
    // one cart's credit is one unit
    expect(l.check([demand(), demand()], NOW, { cartHoldKeys: new Set(["h1"]) })).toHaveLength(1);
    expect(l.check([demand(), demand()], NOW, { cartHoldKeys: new Set(l.cartHoldKeysOf(["cart1", "cart2"])) })).toEqual(
      [],
    );
    expect(l.cartHoldKeysOf([])).toEqual([]);
    expect(l.cartHoldKeysOf(["unknown"])).toEqual([]);
  });

  it("a removed cart frees its unit; expiredCarts and nextCartExpiry see the carts' times", () => {
    const l = ledger([quota({ id: 1, size: 2 })]);
    l.addCart("old", "c1", demand(), EARLIER);
    l.addCart("new", "c2", demand(), LATER);
    expect(l.expiredCarts(NOW)).toEqual(["old"]);
    expect(l.nextCartExpiry()).toBe(EARLIER);
    l.removeCart("old");
    expect(l.nextCartExpiry()).toBe(LATER);
    l.removeCart("new");
    expect(l.nextCartExpiry()).toBeNull();
    expect(l.check([demand(), demand()], NOW)).toEqual([]);
  });
});

describe("Ledger.check: vouchers", () => {
  it("refuses an unknown voucher", () => {
    const l = ledger([quota({ id: 1, size: 5 })]);
    expect(l.check([demand({ voucherId: 42 })], NOW)).toEqual([
      { code: "voucher_unknown", voucherId: 42, indices: [0] },
    ]);
  });

  it("counts redemptions by orders and by unexpired carts against max_usages, within one request too", () => {
    const l = ledger([quota({ id: 1, size: 10 })], [voucher({ id: 5, maxUsages: 3 })]);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([]);
    expect(
      l.check(
        Array.from({ length: 4 }, () => demand({ voucherId: 5 })),
        NOW,
      ),
    ).toEqual([{ code: "voucher_used_up", voucherId: 5, indices: [3] }]);
    l.addOrder("A", [demand({ voucherId: 5 })], false);
    expect(l.redeemed(5)).toBe(1);
    l.addCart("h1", "cart1", demand({ voucherId: 5 }), LATER);
    l.addCart("h0", "cart0", demand({ voucherId: 5 }), EARLIER); // expired: does not count
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([]);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([
      { code: "voucher_used_up", voucherId: 5, indices: [1] },
    ]);
    // the request's own cart is credit
    expect(
      l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW, { cartHoldKeys: new Set(["h1"]) }),
    ).toEqual([]);
    l.addOrder("B", [demand({ voucherId: 5 })], true);
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_used_up", voucherId: 5, indices: [0] }]);
    // a removed order gives its redemption back
    l.removeOrder("A");
    expect(l.redeemed(5)).toBe(1);
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([]);
  });

  it("refuses the uses beyond a voucher's room as used up, before expiry; the uses within it as expired", () => {
    const l = ledger([quota({ id: 1, size: 10 })], [voucher({ id: 5, maxUsages: 2, validUntil: EARLIER })]);
    l.addOrder("A", [demand({ voucherId: 5 })], false);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([
      { code: "voucher_used_up", voucherId: 5, indices: [1, 2] },
      { code: "voucher_expired", voucherId: 5, indices: [0] },
    ]);
    l.addOrder("B", [demand({ voucherId: 5 })], false);
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_used_up", voucherId: 5, indices: [0] }]);
  });

  it("refuses an expired voucher (valid_until now or earlier)", () => {
    const l = ledger(
      [quota({ id: 1, size: 5 })],
      [voucher({ id: 5, validUntil: NOW }), voucher({ id: 6, validUntil: LATER })],
    );
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_expired", voucherId: 5, indices: [0] }]);
    expect(l.check([demand({ voucherId: 6 })], NOW)).toEqual([]);
  });

  it("a voucher blocking quota takes units from everyone else and brings its own unit", () => {
    const q = quota({ id: 1, size: 2 });
    const l = ledger([q], [voucher({ id: 5, maxUsages: 2, blockQuota: true, itemId: TICKET })]);
    expect(l.availability(q, NOW)).toMatchObject({ available_number: 0, blocking_vouchers: 2 });
    expect(l.check([demand()], NOW)).toEqual([quotaRefusal({ quotaId: 1 })]);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([]);
    l.addOrder("A", [demand({ voucherId: 5 })], false);
    expect(l.availability(q, NOW)).toMatchObject({ available_number: 0, blocking_vouchers: 1, pending_orders: 1 });
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([]);
    expect(l.check([demand()], NOW)).toHaveLength(1);
  });

  it("a blocking voucher that expired blocks nothing and is refused", () => {
    const q = quota({ id: 1, size: 2 });
    const l = ledger([q], [voucher({ id: 5, maxUsages: 2, blockQuota: true, itemId: TICKET, validUntil: EARLIER })]);
    expect(l.availability(q, NOW)).toMatchObject({ available_number: 2, blocking_vouchers: 0 });
    expect(l.check([demand(), demand()], NOW)).toEqual([]);
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_expired", voucherId: 5, indices: [0] }]);
  });

  it("a voucher blocks the quota it names, or the quotas of its product and date", () => {
    const tickets = quota({ id: 1, size: 5 });
    const shirts = quota({ id: 2, size: 5, keys: [keyOf(SHIRT, null, null)] });
    const l = ledger([tickets, shirts]);
    const byQuota = voucher({ id: 5, blockQuota: true, quotaId: 2 });
    const byItem = voucher({ id: 6, blockQuota: true, itemId: TICKET });
    const otherDate = voucher({ id: 7, blockQuota: true, itemId: TICKET, subeventId: 99 });
    const nothing = voucher({ id: 8, blockQuota: true });
    expect([tickets, shirts].map((q) => l.voucherAppliesToQuota(byQuota, q))).toEqual([false, true]);
    expect([tickets, shirts].map((q) => l.voucherAppliesToQuota(byItem, q))).toEqual([true, false]);
    expect(l.voucherAppliesToQuota(otherDate, tickets)).toBe(false);
    expect(l.voucherAppliesToQuota(nothing, tickets)).toBe(false);
  });
});

describe("Ledger.check: seats", () => {
  const plan = () => ledger([quota({ id: 1, size: 10 })]);

  it("a seat held by an order is taken for everyone, also with credit", () => {
    const l = plan();
    l.addOrder("A", [demand({ seat: "s1" })], false);
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([{ code: "seat_taken", seat: "s1", indices: [0] }]);
    expect(l.check([demand({ seat: "s1" })], NOW, { cartHoldKeys: new Set(["x"]) })).toEqual([
      { code: "seat_taken", seat: "s1", indices: [0] },
    ]);
    expect(l.check([demand({ seat: "s2" })], NOW)).toEqual([]);
    l.removeOrder("A");
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([]);
  });

  it("a seat held by an unexpired cart is taken except for the request consuming that cart", () => {
    const l = plan();
    l.addCart("h1", "cart1", demand({ seat: "s1" }), LATER);
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([{ code: "seat_taken", seat: "s1", indices: [0] }]);
    expect(l.check([demand({ seat: "s1" })], NOW, { cartHoldKeys: new Set(["other"]) })).toEqual([
      { code: "seat_taken", seat: "s1", indices: [0] },
    ]);
    expect(l.check([demand({ seat: "s1" })], NOW, { cartHoldKeys: new Set(["h1"]) })).toEqual([]);
    // once the cart expired the seat is free again
    expect(l.check([demand({ seat: "s1" })], LATER)).toEqual([]);
    l.removeCart("h1");
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([]);
  });

  it("a seat is per date", () => {
    const l = ledger([
      quota({ id: 1, size: 10, subeventId: 10, keys: [keyOf(TICKET, null, 10), keyOf(TICKET, null, 11)] }),
    ]);
    l.addOrder("A", [demand({ seat: "s1", subeventId: 10 })], false);
    expect(l.check([demand({ seat: "s1", subeventId: 10 })], NOW)).toEqual([
      { code: "seat_taken", seat: "s1", indices: [0] },
    ]);
    expect(l.check([demand({ seat: "s1", subeventId: 11 })], NOW)).toEqual([]);
    expect(seatKey(10, "s1")).not.toBe(seatKey(11, "s1"));
  });

  it("refuses one seat twice in one request", () => {
    const l = plan();
    expect(l.check([demand({ seat: "s1" }), demand({ seat: "s1" })], NOW)).toEqual([
      { code: "seat_twice", seat: "s1", indices: [1] },
    ]);
    expect(l.check([demand({ seat: "s1" }), demand({ seat: "s2" })], NOW)).toEqual([]);
  });

  it("a seat reserved by a valid, unused voucher is free only with that voucher", () => {
    const l = ledger([quota({ id: 1, size: 10 })], [voucher({ id: 5, seat: "s1" }), voucher({ id: 6, maxUsages: 5 })]);
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([{ code: "seat_taken", seat: "s1", indices: [0] }]);
    expect(l.check([demand({ seat: "s1", voucherId: 6 })], NOW)).toEqual([
      { code: "seat_taken", seat: "s1", indices: [0] },
    ]);
    expect(l.check([demand({ seat: "s1", voucherId: 5 })], NOW)).toEqual([]);
    // an expired reservation reserves nothing
    const expired = ledger([quota({ id: 1, size: 10 })], [voucher({ id: 5, seat: "s1", validUntil: EARLIER })]);
    expect(expired.check([demand({ seat: "s1" })], NOW)).toEqual([]);
  });
});

describe("Ledger.availability and stateOf", () => {
  it("size − paid − pending − unexpired carts − blocked by vouchers", () => {
    const q = quota({ id: 1, size: 10 });
    const l = ledger([q], [voucher({ id: 5, maxUsages: 2, blockQuota: true, quotaId: 1 })]);
    l.addOrder("P", [demand(), demand()], true);
    l.addOrder("N", [demand()], false);
    l.addCart("c1", "cart", demand(), LATER);
    l.addCart("c0", "cart", demand(), EARLIER);
    expect(l.availability(q, NOW)).toEqual({
      available: true,
      available_number: 4,
      total_size: 10,
      pending_orders: 1,
      paid_orders: 2,
      exited_orders: 0,
      cart_positions: 1,
      blocking_vouchers: 2,
      waiting_list: 0,
    });
    l.setOrderPaid("N", true);
    expect(l.availability(q, NOW)).toMatchObject({ pending_orders: 0, paid_orders: 3, available_number: 4 });
    // a blocking voucher's unit held by a cart of that voucher counts once, as the cart
    l.addCart("cv", "cart", demand({ voucherId: 5 }), LATER);
    expect(l.availability(q, NOW)).toMatchObject({ cart_positions: 2, blocking_vouchers: 1, available_number: 4 });
  });

  it("never goes below 0; unlimited is null; closed is unavailable", () => {
    const q = quota({ id: 1, size: 1 });
    const l = ledger([
      q,
      quota({ id: 2, size: null, keys: [keyOf(SHIRT, null, null)] }),
      quota({ id: 3, size: 5, closed: true }),
    ]);
    l.addOrder("A", [demand(), demand()], false);
    expect(l.availability(q, NOW)).toMatchObject({ available: false, available_number: 0, pending_orders: 2 });
    expect(l.availability(l.quota(2)!, NOW)).toMatchObject({
      available: true,
      available_number: null,
      total_size: null,
    });
    expect(l.availability(l.quota(3)!, NOW)).toMatchObject({ available: false, available_number: 3 });
  });

  it("states: 100 available, 20 held by carts, 10 held by pending orders, 0 gone or closed", () => {
    const q = quota({ id: 1, size: 1 });
    const l = ledger([q]);
    expect(l.stateOf(q, NOW)).toBe(100);
    l.addCart("c", "cart", demand(), LATER);
    expect(l.stateOf(q, NOW)).toBe(20);
    l.removeCart("c");
    l.addOrder("N", [demand()], false);
    expect(l.stateOf(q, NOW)).toBe(10);
    l.setOrderPaid("N", true);
    expect(l.stateOf(q, NOW)).toBe(0);
    expect(l.stateOf(quota({ id: 2, size: 5, closed: true }), NOW)).toBe(0);
    expect(l.stateOf(quota({ id: 3, size: null }), NOW)).toBe(100);
  });

  it("demandState: the worst counted quota; 0 without quota; null when only ignored quotas", () => {
    const full = quota({ id: 1, size: 0 });
    const open = quota({ id: 2, size: 5 });
    const ignored = quota({ id: 3, size: 5, keys: [keyOf(SHIRT, null, null)], ignoreForEventAvailability: true });
    const l = ledger([full, open, ignored]);
    expect(l.demandState(demand(), NOW)).toBe(0);
    expect(l.demandState(demand({ itemId: SHIRT }), NOW)).toBeNull();
    expect(l.demandState(demand({ itemId: 99 }), NOW)).toBe(0);
    expect(ledger([open]).demandState(demand(), NOW)).toBe(100);
  });
});

describe("Ledger.checkVoucherSeat", () => {
  it("refuses a seat a ticket, another valid unused voucher or a cart holds on that date, naming the holder", () => {
    const l = ledger([quota({ id: 1, size: 10 })], [voucher({ id: 5, seat: "v1" })]);
    l.addOrder("A", [demand({ seat: "o1" })], false);
    l.addCart("h1", "cart1", demand({ seat: "c1" }), LATER);
    l.addCart("h0", "cart0", demand({ seat: "c0" }), EARLIER);
    const want = (seat: string, over: Partial<VoucherDef> = {}) =>
      l.checkVoucherSeat(voucher({ id: 9, itemId: TICKET, seat, ...over }), NOW);
    expect(want("o1")).toEqual([{ code: "seat_taken", seat: "o1", heldBy: "order", indices: [] }]);
    expect(want("v1")).toEqual([{ code: "seat_taken", seat: "v1", heldBy: "voucher", indices: [] }]);
    expect(want("c1")).toEqual([{ code: "seat_taken", seat: "c1", heldBy: "cart", indices: [] }]);
    // free: an expired cart's seat, a seat of the plan nobody holds, the same seat on another date
    expect(want("c0")).toEqual([]);
    expect(want("s9")).toEqual([]);
    expect(want("o1", { subeventId: 3 })).toEqual([]);
    expect(want("v1", { subeventId: 3 })).toEqual([]);
    // the voucher that holds it may keep it; no seat, nothing to check
    expect(l.checkVoucherSeat(voucher({ id: 5, seat: "v1" }), NOW)).toEqual([]);
    expect(l.checkVoucherSeat(voucher({ id: 9 }), NOW)).toEqual([]);
  });

  it("a voucher that expired or is used up holds its seat no more", () => {
    const l = ledger(
      [quota({ id: 1, size: 10 })],
      [voucher({ id: 5, seat: "s1", validUntil: EARLIER }), voucher({ id: 6, seat: "s2" })],
    );
    l.addOrder("A", [demand({ voucherId: 6 })], false);
    expect(l.checkVoucherSeat(voucher({ id: 9, seat: "s1" }), NOW)).toEqual([]);
    expect(l.checkVoucherSeat(voucher({ id: 9, seat: "s2" }), NOW)).toEqual([]);
  });
});

describe("Ledger.beginVoucherWrite", () => {
  it("a voucher being written holds its block and seat under an id of its own, also across a catalog reload", () => {
    const q = quota({ id: 1, size: 2 });
    const l = ledger([q]);
    const v = voucher({ id: 0, maxUsages: 2, blockQuota: true, itemId: TICKET, seat: "s1" });
    const a = l.beginVoucherWrite(v);
    const b = l.beginVoucherWrite({ ...v, maxUsages: 1, blockQuota: false, seat: "s2" });
    expect(a).toBeLessThan(0);
    expect(b).toBeLessThan(0);
    expect(a).not.toBe(b);
    expect(l.availability(q, NOW).available_number).toBe(0);
    expect(l.checkVoucherSeat(voucher({ id: 0, seat: "s1" }), NOW)).toEqual([
      { code: "seat_taken", seat: "s1", heldBy: "voucher", indices: [] },
    ]);
    // D1 does not have the write yet: the reloaded catalog still counts it
    l.setCatalog({ stamp: 2, quotas: [q], vouchers: [] });
    expect(l.availability(q, NOW).available_number).toBe(0);
    expect(l.checkVoucherSeat(voucher({ id: 0, seat: "s2" }), NOW)).toHaveLength(1);
    l.endVoucherWrite(a);
    expect(l.availability(q, NOW).available_number).toBe(2);
    expect(l.checkVoucherSeat(voucher({ id: 0, seat: "s1" }), NOW)).toEqual([]);
    l.setCatalog({ stamp: 3, quotas: [q], vouchers: [] });
    expect(l.checkVoucherSeat(voucher({ id: 0, seat: "s2" }), NOW)).toHaveLength(1);
    l.endVoucherWrite(b);
    expect(l.checkVoucherSeat(voucher({ id: 0, seat: "s2" }), NOW)).toEqual([]);
  });
});

describe("Ledger.checkVoucherBlock", () => {
  it("refuses a block bigger than what is free, counting the voucher's own old block as free", () => {
    const q = quota({ id: 1, size: 3 });
    const l = ledger([q]);
    l.addOrder("A", [demand()], false);
    const v = voucher({ id: 5, maxUsages: 2, blockQuota: true, itemId: TICKET });
    expect(l.checkVoucherBlock(v, NOW)).toEqual([]);
    expect(l.checkVoucherBlock({ ...v, maxUsages: 3 }, NOW)).toEqual([
      quotaRefusal({ quotaId: 1, available: 2, indices: [] }),
    ]);
    l.upsertVoucher(v);
    expect(l.availability(q, NOW).available_number).toBe(0);
    // its own two units count as free when it changes
    expect(l.checkVoucherBlock({ ...v, maxUsages: 2 }, NOW)).toEqual([]);
    expect(l.checkVoucherBlock({ ...v, maxUsages: 3 }, NOW)).toHaveLength(1);
    // another voucher finds nothing free
    expect(l.checkVoucherBlock({ ...v, id: 6, maxUsages: 1 }, NOW)).toEqual([
      quotaRefusal({ quotaId: 1, indices: [] }),
    ]);
    l.removeVoucher(5);
    expect(l.checkVoucherBlock({ ...v, id: 6, maxUsages: 2 }, NOW)).toEqual([]);
  });

  it("accepts vouchers that block nothing: not blocking, expired, used up, or on an unlimited quota", () => {
    const l = ledger([quota({ id: 1, size: 0 }), quota({ id: 2, size: null, keys: [keyOf(SHIRT, null, null)] })]);
    expect(l.checkVoucherBlock(voucher({ id: 5, itemId: TICKET }), NOW)).toEqual([]);
    expect(l.checkVoucherBlock(voucher({ id: 5, itemId: TICKET, blockQuota: true, validUntil: EARLIER }), NOW)).toEqual(
      [],
    );
    expect(l.checkVoucherBlock(voucher({ id: 5, itemId: TICKET, blockQuota: true, maxUsages: 0 }), NOW)).toEqual([]);
    expect(l.checkVoucherBlock(voucher({ id: 5, itemId: SHIRT, blockQuota: true, maxUsages: 100 }), NOW)).toEqual([]);
    expect(l.checkVoucherBlock(voucher({ id: 5, itemId: TICKET, blockQuota: true }), NOW)).toHaveLength(1);
  });
});

describe("Ledger: holds of orders", () => {
  it("an order holds its positions once; the same code again keeps what it holds", () => {
    const q = quota({ id: 1, size: 5 });
    const l = ledger([q]);
    l.addOrder("A", [demand(), demand({ seat: "s1" })], false);
    l.addOrder("A", [demand(), demand(), demand()], true);
    expect(l.availability(q, NOW)).toMatchObject({ pending_orders: 2, paid_orders: 0, available_number: 3 });
    expect(l.orderHolds("A")).toEqual({
      paid: false,
      positions: [
        { key: keyOf(TICKET, null, null), seat: null, voucherId: null },
        { key: keyOf(TICKET, null, null), seat: seatKey(null, "s1"), voucherId: null },
      ],
    });
    expect(l.orderHolds("B")).toBeUndefined();
  });

  it("holds read back from storage count as the demands they came from", () => {
    const q = quota({ id: 1, size: 5 });
    const fromDemands = ledger([q], [voucher({ id: 5, maxUsages: 2 })]);
    fromDemands.addOrder("A", [demand({ seat: "s1", voucherId: 5 })], true);
    const fromHolds = ledger([q], [voucher({ id: 5, maxUsages: 2 })]);
    fromHolds.addOrder("A", fromDemands.orderHolds("A")!.positions, true);
    expect(fromHolds.availability(q, NOW)).toEqual(fromDemands.availability(q, NOW));
    expect(fromHolds.redeemed(5)).toBe(1);
    expect(fromHolds.check([demand({ seat: "s1" })], NOW)).toEqual([{ code: "seat_taken", seat: "s1", indices: [0] }]);
  });

  it("a payment moves an order's positions from pending to paid; a removed order holds nothing", () => {
    const q = quota({ id: 1, size: 5 });
    const l = ledger([q]);
    l.addOrder("A", [demand(), demand()], false);
    l.setOrderPaid("A", true);
    expect(l.availability(q, NOW)).toMatchObject({ pending_orders: 0, paid_orders: 2, available_number: 3 });
    expect(l.orderHolds("A")?.paid).toBe(true);
    l.setOrderPaid("A", false);
    expect(l.availability(q, NOW)).toMatchObject({ pending_orders: 2, paid_orders: 0 });
    l.removeOrder("A");
    expect(l.availability(q, NOW)).toMatchObject({ pending_orders: 0, paid_orders: 0, available_number: 5 });
    expect(l.orderHolds("A")).toBeUndefined();
    // unknown orders change nothing
    l.setOrderPaid("X", true);
    l.removeOrder("X");
    expect(l.availability(q, NOW).available_number).toBe(5);
  });
});

describe("Ledger: holds of carts and their expiry", () => {
  it("a cart expiring exactly now holds nothing and is due for pruning", () => {
    const q = quota({ id: 1, size: 1 });
    const l = ledger([q]);
    l.addCart("h1", "cart1", demand({ seat: "s1" }), NOW);
    expect(l.availability(q, NOW)).toMatchObject({ cart_positions: 0, available_number: 1 });
    expect(l.availability(q, NOW - 1)).toMatchObject({ cart_positions: 1, available_number: 0 });
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([]);
    expect(l.check([demand({ seat: "s1" })], NOW - 1)).toEqual([
      { code: "seat_taken", seat: "s1", indices: [0] },
      quotaRefusal({ quotaId: 1 }),
    ]);
    expect(l.expiredCarts(NOW)).toEqual(["h1"]);
    expect(l.expiredCarts(NOW - 1)).toEqual([]);
  });

  it("a cart hold knows its cart, its expiry and what it holds; a removed one is gone", () => {
    const l = ledger([quota({ id: 1, size: 5 })], [voucher({ id: 5, maxUsages: 3 })]);
    l.addCart("h1", "cart1", demand({ seat: "s1", voucherId: 5 }), LATER);
    expect(l.cart("h1")).toEqual({
      key: keyOf(TICKET, null, null),
      seat: seatKey(null, "s1"),
      voucherId: 5,
      cartId: "cart1",
      expires: LATER,
    });
    l.removeCart("h1");
    l.removeCart("h1");
    expect(l.cart("h1")).toBeUndefined();
    expect(l.check([demand({ seat: "s1", voucherId: 5 })], NOW)).toEqual([]);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([]);
  });

  it("cartHoldKeysOf gives every hold of the carts named, so a request gets all of them as credit", () => {
    const q = quota({ id: 1, size: 3 });
    const l = ledger([q]);
    l.addCart("a1", "A", demand(), LATER);
    l.addCart("a2", "A", demand(), LATER);
    l.addCart("b1", "B", demand(), LATER);
    expect(l.cartHoldKeysOf(["A"]).sort()).toEqual(["a1", "a2"]);
    const credit = { cartHoldKeys: new Set(l.cartHoldKeysOf(["A"])) };
    expect(l.availability(q, NOW, credit)).toMatchObject({ cart_positions: 1, available_number: 2 });
    expect(l.check([demand(), demand()], NOW, credit)).toEqual([]);
    expect(l.check([demand(), demand(), demand()], NOW, credit)).toHaveLength(1);
  });
});

describe("Ledger: holds of vouchers", () => {
  it("a blocking voucher blocks what its orders and unexpired carts have not used yet", () => {
    const q = quota({ id: 1, size: 10 });
    const l = ledger([q], [voucher({ id: 5, maxUsages: 4, blockQuota: true, quotaId: 1 })]);
    expect(l.availability(q, NOW)).toMatchObject({ blocking_vouchers: 4, available_number: 6 });
    l.addOrder("A", [demand({ voucherId: 5 })], true);
    l.addCart("h1", "cart", demand({ voucherId: 5 }), LATER);
    l.addCart("h0", "cart", demand({ voucherId: 5 }), EARLIER);
    expect(l.availability(q, NOW)).toMatchObject({
      paid_orders: 1,
      cart_positions: 1,
      blocking_vouchers: 2,
      available_number: 6,
    });
    // used up: blocks nothing more
    l.addOrder("B", [demand({ voucherId: 5 }), demand({ voucherId: 5 }), demand({ voucherId: 5 })], false);
    expect(l.availability(q, NOW)).toMatchObject({ blocking_vouchers: 0, available_number: 5 });
  });

  it("adding, changing and removing a voucher changes what it blocks at once", () => {
    const q = quota({ id: 1, size: 5 });
    const l = ledger([q]);
    const v = voucher({ id: 5, maxUsages: 2, blockQuota: true, itemId: TICKET });
    l.upsertVoucher(v);
    expect(l.voucher(5)).toEqual(v);
    expect(l.availability(q, NOW).available_number).toBe(3);
    l.upsertVoucher({ ...v, maxUsages: 4 });
    expect(l.availability(q, NOW).available_number).toBe(1);
    l.upsertVoucher({ ...v, maxUsages: 4, blockQuota: false });
    expect(l.availability(q, NOW).available_number).toBe(5);
    l.upsertVoucher(v);
    l.removeVoucher(5);
    expect(l.voucher(5)).toBeUndefined();
    expect(l.availability(q, NOW)).toMatchObject({ blocking_vouchers: 0, available_number: 5 });
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_unknown", voucherId: 5, indices: [0] }]);
  });

  it("a voucher for one variation blocks the quotas covering that variation only", () => {
    const red = quota({ id: 1, size: 5, keys: [keyOf(SHIRT, 21, null)] });
    const blue = quota({ id: 2, size: 5, keys: [keyOf(SHIRT, 22, null)] });
    const l = ledger([red, blue], [voucher({ id: 5, maxUsages: 2, blockQuota: true, itemId: SHIRT, variationId: 21 })]);
    expect(l.availability(red, NOW)).toMatchObject({ blocking_vouchers: 2, available_number: 3 });
    expect(l.availability(blue, NOW)).toMatchObject({ blocking_vouchers: 0, available_number: 5 });
  });
});

describe("Ledger: quotas shared by items", () => {
  const shared = () => quota({ id: 1, size: 3, keys: [keyOf(TICKET, null, null), keyOf(SHIRT, null, null)] });

  it("a quota covering two products counts both, and a sale of either takes from it", () => {
    const q = shared();
    const l = ledger([q]);
    l.addOrder("A", [demand()], true);
    l.addCart("h1", "cart", demand({ itemId: SHIRT }), LATER);
    expect(l.availability(q, NOW)).toMatchObject({ paid_orders: 1, cart_positions: 1, available_number: 1 });
    expect(l.check([demand({ itemId: SHIRT })], NOW)).toEqual([]);
    expect(l.check([demand(), demand({ itemId: SHIRT })], NOW)).toEqual([
      quotaRefusal({ quotaId: 1, available: 1, indices: [1] }),
    ]);
  });

  it("a product in two quotas takes from both; the first that is full refuses", () => {
    const q = shared();
    const tickets = quota({ id: 2, size: 1 });
    const l = ledger([q, tickets]);
    expect(l.quotasFor(demand()).map((x) => x.id)).toEqual([1, 2]);
    expect(l.check([demand(), demand({ itemId: SHIRT })], NOW)).toEqual([]);
    expect(l.check([demand(), demand()], NOW)).toEqual([quotaRefusal({ quotaId: 2, available: 1, indices: [1] })]);
    l.addOrder("A", [demand({ itemId: SHIRT }), demand({ itemId: SHIRT })], false);
    expect(l.check([demand()], NOW)).toEqual([]);
    expect(l.check([demand({ itemId: SHIRT }), demand()], NOW)).toEqual([
      quotaRefusal({ quotaId: 1, itemId: SHIRT, available: 1, indices: [1] }),
    ]);
    expect(l.touchedQuotas([demand(), demand({ itemId: SHIRT }), demand({ itemId: 99 })]).map((x) => x.id)).toEqual([
      1, 2,
    ]);
  });

  it("a key listed twice in a quota counts once", () => {
    const q = quota({ id: 1, size: 3, keys: [keyOf(TICKET, null, null), keyOf(TICKET, null, null)] });
    const l = ledger([q]);
    l.addOrder("A", [demand()], false);
    expect(l.availability(q, NOW)).toMatchObject({ pending_orders: 1, available_number: 2 });
    expect(l.quotasFor(demand())).toHaveLength(1);
  });
});

describe("Ledger: sizes and coverage changed", () => {
  it("a new catalog keeps every hold: a smaller size leaves nothing free, a bigger one frees units", () => {
    const l = ledger([quota({ id: 1, size: 3 })]);
    l.addOrder("A", [demand(), demand()], true);
    l.addCart("h1", "cart", demand(), LATER);
    l.setCatalog({ stamp: 2, quotas: [quota({ id: 1, size: 2 })], vouchers: [] });
    expect(l.stamp).toBe(2);
    expect(l.availability(l.quota(1)!, NOW)).toMatchObject({
      total_size: 2,
      paid_orders: 2,
      cart_positions: 1,
      available_number: 0,
      available: false,
    });
    expect(l.check([demand()], NOW)).toHaveLength(1);
    l.setCatalog({ stamp: 3, quotas: [quota({ id: 1, size: 5 })], vouchers: [] });
    expect(l.availability(l.quota(1)!, NOW).available_number).toBe(2);
    l.setCatalog({ stamp: 4, quotas: [quota({ id: 1, size: null })], vouchers: [] });
    expect(l.check([demand(), demand(), demand()], NOW)).toEqual([]);
  });

  it("a product added to a quota brings its holds with it; a quota removed refuses nothing more", () => {
    const l = ledger([quota({ id: 1, size: 3 }), quota({ id: 2, size: 10, keys: [keyOf(SHIRT, null, null)] })]);
    l.addOrder("A", [demand({ itemId: SHIRT }), demand({ itemId: SHIRT })], false);
    const widened = quota({ id: 1, size: 3, keys: [keyOf(TICKET, null, null), keyOf(SHIRT, null, null)] });
    l.setCatalog({
      stamp: 2,
      quotas: [widened, quota({ id: 2, size: 10, keys: [keyOf(SHIRT, null, null)] })],
      vouchers: [],
    });
    expect(l.availability(l.quota(1)!, NOW)).toMatchObject({ pending_orders: 2, available_number: 1 });
    l.setCatalog({ stamp: 3, quotas: [quota({ id: 2, size: 10, keys: [keyOf(SHIRT, null, null)] })], vouchers: [] });
    expect(l.quota(1)).toBeUndefined();
    expect(l.check([demand()], NOW)).toEqual([quotaRefusal({})]);
  });

  it("markQuotaClosed closes a quota for every later check until a new catalog says otherwise", () => {
    const l = ledger([quota({ id: 1, size: 5 })]);
    l.markQuotaClosed(1);
    l.markQuotaClosed(99);
    expect(l.check([demand()], NOW)).toEqual([quotaRefusal({ quotaId: 1 })]);
    expect(l.availability(l.quota(1)!, NOW)).toMatchObject({ available: false, available_number: 5 });
    l.setCatalog({ stamp: 2, quotas: [quota({ id: 1, size: 5 })], vouchers: [] });
    expect(l.check([demand()], NOW)).toEqual([]);
  });

  it("catalogFromRows: a quota covers its products on its own date", () => {
    const rows = {
      stamp: 7,
      quotas: [
        {
          id: 1,
          subeventId: 10,
          size: 5,
          closed: false,
          closeWhenSoldOut: true,
          ignoreForEventAvailability: false,
          releaseAfterExit: true,
        },
        {
          id: 2,
          subeventId: null,
          size: null,
          closed: true,
          closeWhenSoldOut: false,
          ignoreForEventAvailability: true,
          releaseAfterExit: false,
        },
      ],
      coverage: [
        { quotaId: 1, itemId: TICKET, variationId: null },
        { quotaId: 1, itemId: SHIRT, variationId: 21 },
      ],
      vouchers: [voucher({ id: 5 })],
      checkin: [],
    } as unknown as InventoryCatalogRows;
    expect(catalogFromRows(rows)).toEqual({
      stamp: 7,
      quotas: [
        quota({
          id: 1,
          subeventId: 10,
          size: 5,
          closeWhenSoldOut: true,
          ignoreForEventAvailability: false,
          releaseAfterExit: true,
          keys: [keyOf(TICKET, null, 10), keyOf(SHIRT, 21, 10)],
        }),
        quota({ id: 2, size: null, closed: true, ignoreForEventAvailability: true, releaseAfterExit: false, keys: [] }),
      ],
      vouchers: [voucher({ id: 5 })],
    });
  });
});

describe("Ledger: exits with release_after_exit", () => {
  const releasing = () => quota({ id: 1, size: 2, releaseAfterExit: true });
  const key = keyOf(TICKET, null, null);

  it("a paid ticket whose last scan was an exit frees its unit in a quota that releases after exit, until it enters again", () => {
    const q = releasing();
    const keeping = quota({ id: 2, size: 2 });
    const l = ledger([q, keeping]);
    l.addOrder("A", [demand(), demand()], true);
    expect(l.check([demand()], NOW)).toHaveLength(2);
    l.setExited(100, key, "A", true);
    expect(l.availability(q, NOW)).toMatchObject({ paid_orders: 2, exited_orders: 1, available_number: 1 });
    expect(l.availability(keeping, NOW)).toMatchObject({ exited_orders: 0, available_number: 0 });
    // the same exit twice is one ticket
    l.setExited(100, key, "A", true);
    expect(l.availability(q, NOW).exited_orders).toBe(1);
    l.setExited(100, key, "A", false);
    expect(l.availability(q, NOW)).toMatchObject({ exited_orders: 0, available_number: 0 });
  });

  it("a ticket of a pending order frees nothing; it does once its order is paid, and stops when the order goes", () => {
    const q = releasing();
    const l = ledger([q]);
    l.addOrder("A", [demand(), demand()], false);
    l.setExited(100, key, "A", true);
    expect(l.availability(q, NOW)).toMatchObject({ exited_orders: 0, available_number: 0 });
    l.setOrderPaid("A", true);
    expect(l.availability(q, NOW)).toMatchObject({ exited_orders: 1, available_number: 1 });
    l.setOrderPaid("A", false);
    expect(l.availability(q, NOW).exited_orders).toBe(0);
    l.setOrderPaid("A", true);
    l.removeOrder("A");
    expect(l.availability(q, NOW)).toMatchObject({ exited_orders: 0, paid_orders: 0, available_number: 2 });
  });

  it("an exit recorded before its order is read counts once the order is there", () => {
    const q = releasing();
    const l = ledger([q]);
    l.setExited(100, key, "A", true);
    expect(l.availability(q, NOW).exited_orders).toBe(0);
    l.addOrder("A", [demand()], true);
    expect(l.availability(q, NOW)).toMatchObject({ paid_orders: 1, exited_orders: 1, available_number: 2 });
  });

  it("an exit counts in the quotas covering its ticket's product and date only", () => {
    const dateA = quota({ id: 1, size: 1, subeventId: 10, releaseAfterExit: true, keys: [keyOf(TICKET, null, 10)] });
    const dateB = quota({ id: 2, size: 1, subeventId: 11, releaseAfterExit: true, keys: [keyOf(TICKET, null, 11)] });
    const l = ledger([dateA, dateB]);
    l.addOrder("A", [demand({ subeventId: 10 })], true);
    l.addOrder("B", [demand({ subeventId: 11 })], true);
    l.setExited(100, keyOf(TICKET, null, 10), "A", true);
    expect(l.check([demand({ subeventId: 10 })], NOW)).toEqual([]);
    expect(l.check([demand({ subeventId: 11 })], NOW)).toHaveLength(1);
  });
});
