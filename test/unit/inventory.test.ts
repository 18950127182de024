/**
 * The quota ledger's decisions on their own (src/rules/inventory/): what `check` refuses
 * and allows for quotas, carts, credits, vouchers and seats, and the numbers `availability`,
 * `stateOf` and `checkVoucherBlock` give. The event object only records what these decide.
 */
import { describe, expect, it } from "vitest";
import { type Demand, keyOf, Ledger, type QuotaDef, seatKey, type VoucherDef } from "../../src/rules/inventory";

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
      { code: "quota", quotaId: 7, itemId: TICKET, variationId: null, subeventId: null, available: 2 },
    ]);
    l.addOrder("A", [demand()], false);
    expect(l.check([demand()], NOW)).toEqual([]);
    expect(l.check([demand(), demand()], NOW)).toEqual([
      { code: "quota", quotaId: 7, itemId: TICKET, variationId: null, subeventId: null, available: 1 },
    ]);
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
    expect(l.check([demand({ itemId: 99 })], NOW)).toEqual([
      { code: "quota", quotaId: null, itemId: 99, variationId: null, subeventId: null, available: 0 },
    ]);
    expect(l.check([demand({ itemId: SHIRT })], NOW)).toEqual([
      { code: "quota", quotaId: 2, itemId: SHIRT, variationId: null, subeventId: null, available: 0 },
    ]);
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
      { code: "quota", quotaId: null, itemId: SHIRT, variationId: 6, subeventId: null, available: 0 },
    ]);
  });

  it("ignoreQuota skips quotas (even a missing or closed one) but never seats or vouchers", () => {
    const l = ledger([quota({ id: 1, size: 1, closed: true })], [voucher({ id: 5, maxUsages: 1 })]);
    l.addOrder("A", [demand({ voucherId: 5, seat: "s1" })], false);
    expect(l.check([demand(), demand({ itemId: 99 })], NOW, undefined, { ignoreQuota: true })).toEqual([]);
    expect(l.check([demand({ seat: "s1" })], NOW, undefined, { ignoreQuota: true })).toEqual([
      { code: "seat_taken", seat: "s1" },
    ]);
    expect(l.check([demand({ voucherId: 5 })], NOW, undefined, { ignoreQuota: true })).toEqual([
      { code: "voucher_used_up", voucherId: 5 },
    ]);
  });

  it("a voucher with allow_ignore_quota skips quotas for its own positions only", () => {
    const l = ledger([quota({ id: 1, size: 1 })], [voucher({ id: 5, maxUsages: 3, allowIgnoreQuota: true })]);
    l.addOrder("A", [demand()], false);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([]);
    expect(l.check([demand({ voucherId: 5 }), demand()], NOW)).toEqual([
      { code: "quota", quotaId: 1, itemId: TICKET, variationId: null, subeventId: null, available: 0 },
    ]);
  });
});

describe("Ledger.check: carts and credits", () => {
  it("an unexpired cart holds its unit; an expired one holds nothing", () => {
    const l = ledger([quota({ id: 1, size: 1 })]);
    l.addCart("h1", "cart1", demand(), LATER);
    expect(l.check([demand()], NOW)).toEqual([
      { code: "quota", quotaId: 1, itemId: TICKET, variationId: null, subeventId: null, available: 0 },
    ]);
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
    expect(l.check([demand({ voucherId: 42 })], NOW)).toEqual([{ code: "voucher_unknown", voucherId: 42 }]);
  });

  it("counts redemptions by orders and by unexpired carts against max_usages, within one request too", () => {
    const l = ledger([quota({ id: 1, size: 10 })], [voucher({ id: 5, maxUsages: 3 })]);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([]);
    expect(
      l.check(
        Array.from({ length: 4 }, () => demand({ voucherId: 5 })),
        NOW,
      ),
    ).toEqual([{ code: "voucher_used_up", voucherId: 5 }]);
    l.addOrder("A", [demand({ voucherId: 5 })], false);
    expect(l.redeemed(5)).toBe(1);
    l.addCart("h1", "cart1", demand({ voucherId: 5 }), LATER);
    l.addCart("h0", "cart0", demand({ voucherId: 5 }), EARLIER); // expired: does not count
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([]);
    expect(l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW)).toEqual([
      { code: "voucher_used_up", voucherId: 5 },
    ]);
    // the request's own cart is credit
    expect(
      l.check([demand({ voucherId: 5 }), demand({ voucherId: 5 })], NOW, { cartHoldKeys: new Set(["h1"]) }),
    ).toEqual([]);
    l.addOrder("B", [demand({ voucherId: 5 })], true);
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_used_up", voucherId: 5 }]);
    // a removed order gives its redemption back
    l.removeOrder("A");
    expect(l.redeemed(5)).toBe(1);
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([]);
  });

  it("refuses an expired voucher (valid_until now or earlier)", () => {
    const l = ledger(
      [quota({ id: 1, size: 5 })],
      [voucher({ id: 5, validUntil: NOW }), voucher({ id: 6, validUntil: LATER })],
    );
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_expired", voucherId: 5 }]);
    expect(l.check([demand({ voucherId: 6 })], NOW)).toEqual([]);
  });

  it("a voucher blocking quota takes units from everyone else and brings its own unit", () => {
    const q = quota({ id: 1, size: 2 });
    const l = ledger([q], [voucher({ id: 5, maxUsages: 2, blockQuota: true, itemId: TICKET })]);
    expect(l.availability(q, NOW)).toMatchObject({ available_number: 0, blocking_vouchers: 2 });
    expect(l.check([demand()], NOW)).toEqual([
      { code: "quota", quotaId: 1, itemId: TICKET, variationId: null, subeventId: null, available: 0 },
    ]);
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
    expect(l.check([demand({ voucherId: 5 })], NOW)).toEqual([{ code: "voucher_expired", voucherId: 5 }]);
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
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([{ code: "seat_taken", seat: "s1" }]);
    expect(l.check([demand({ seat: "s1" })], NOW, { cartHoldKeys: new Set(["x"]) })).toEqual([
      { code: "seat_taken", seat: "s1" },
    ]);
    expect(l.check([demand({ seat: "s2" })], NOW)).toEqual([]);
    l.removeOrder("A");
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([]);
  });

  it("a seat held by an unexpired cart is taken except for the request consuming that cart", () => {
    const l = plan();
    l.addCart("h1", "cart1", demand({ seat: "s1" }), LATER);
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([{ code: "seat_taken", seat: "s1" }]);
    expect(l.check([demand({ seat: "s1" })], NOW, { cartHoldKeys: new Set(["other"]) })).toEqual([
      { code: "seat_taken", seat: "s1" },
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
    expect(l.check([demand({ seat: "s1", subeventId: 10 })], NOW)).toEqual([{ code: "seat_taken", seat: "s1" }]);
    expect(l.check([demand({ seat: "s1", subeventId: 11 })], NOW)).toEqual([]);
    expect(seatKey(10, "s1")).not.toBe(seatKey(11, "s1"));
  });

  it("refuses one seat twice in one request", () => {
    const l = plan();
    expect(l.check([demand({ seat: "s1" }), demand({ seat: "s1" })], NOW)).toEqual([
      { code: "seat_twice", seat: "s1" },
    ]);
    expect(l.check([demand({ seat: "s1" }), demand({ seat: "s2" })], NOW)).toEqual([]);
  });

  it("a seat reserved by a valid, unused voucher is free only with that voucher", () => {
    const l = ledger([quota({ id: 1, size: 10 })], [voucher({ id: 5, seat: "s1" }), voucher({ id: 6, maxUsages: 5 })]);
    expect(l.check([demand({ seat: "s1" })], NOW)).toEqual([{ code: "seat_taken", seat: "s1" }]);
    expect(l.check([demand({ seat: "s1", voucherId: 6 })], NOW)).toEqual([{ code: "seat_taken", seat: "s1" }]);
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

describe("Ledger.checkVoucherBlock", () => {
  it("refuses a block bigger than what is free, counting the voucher's own old block as free", () => {
    const q = quota({ id: 1, size: 3 });
    const l = ledger([q]);
    l.addOrder("A", [demand()], false);
    const v = voucher({ id: 5, maxUsages: 2, blockQuota: true, itemId: TICKET });
    expect(l.checkVoucherBlock(v, NOW)).toEqual([]);
    expect(l.checkVoucherBlock({ ...v, maxUsages: 3 }, NOW)).toEqual([
      { code: "quota", quotaId: 1, itemId: TICKET, variationId: null, subeventId: null, available: 2 },
    ]);
    l.upsertVoucher(v);
    expect(l.availability(q, NOW).available_number).toBe(0);
    // its own two units count as free when it changes
    expect(l.checkVoucherBlock({ ...v, maxUsages: 2 }, NOW)).toEqual([]);
    expect(l.checkVoucherBlock({ ...v, maxUsages: 3 }, NOW)).toHaveLength(1);
    // another voucher finds nothing free
    expect(l.checkVoucherBlock({ ...v, id: 6, maxUsages: 1 }, NOW)).toEqual([
      { code: "quota", quotaId: 1, itemId: TICKET, variationId: null, subeventId: null, available: 0 },
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
