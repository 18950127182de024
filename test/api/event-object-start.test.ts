/**
 * A restarted event object does not read its orders (issue "Production hardening", item 4):
 * the orders' holds stay in its storage (objects/event/order-book.ts), with totals that triggers keep
 * in the same statement, so the start reads the same few rows for 10 positions held as for
 * 100,000 and keeps nothing per order in memory. The totals must always equal the rows, and
 * what a restarted object decides must equal what D1 says was sold. Rebuilt, it still knows every
 * hold: voucher uses, seats and units held by orders and by carts, paid and pending apart.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { db } from "../harness";
import { cart, cartsOf, ordersOf, seatedShop, type Shop, shop } from "../helpers/sales";

const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq }) => eq(e.slug, s.eventSlug) }))!.id;

const availability = async (s: Shop, quotaId: number) => {
  const res = await s.client.get(`${s.path}/quotas/${quotaId}/availability/`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** The object's storage: the totals, and the same counted from the rows. */
function storage(eventId: number) {
  return runInDurableObject(eventObject(env, eventId), (_: EventObject, state: DurableObjectState) => {
    const q = <T extends Record<string, SqlStorageValue>>(s: string) => [...state.storage.sql.exec<T>(s)];
    return {
      totals: q<{ key: string; paid: number; n: number }>(
        "SELECT key, paid, n FROM order_totals WHERE n <> 0 ORDER BY key, paid",
      ),
      counted: q<{ key: string; paid: number; n: number }>(
        "SELECT key, paid, count(*) AS n FROM holds WHERE kind = 'order' GROUP BY key, paid ORDER BY key, paid",
      ),
      voucherTotals: q<{ voucher_id: number; n: number }>(
        "SELECT voucher_id, n FROM voucher_totals WHERE n <> 0 ORDER BY voucher_id",
      ),
      voucherCounted: q<{ voucher_id: number; n: number }>(
        "SELECT voucher_id, count(*) AS n FROM holds WHERE kind = 'order' AND voucher_id IS NOT NULL GROUP BY voucher_id ORDER BY voucher_id",
      ),
    };
  });
}

const startOf = (eventId: number) => runInDurableObject(eventObject(env, eventId), (o: EventObject) => o.startReport());

/** Sells `n` orders of two positions each (one in four with the voucher), pays every second, cancels every fifth. */
async function sell(s: Shop, ticket: number, voucher: string, n: number, offset: number) {
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = offset + i;
    const res = await s.client.post(`${s.path}/orders/`, {
      email: `buyer${k}@example.org`,
      positions: [{ item: ticket }, { item: ticket, ...(k % 4 === 0 ? { voucher } : {}) }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    codes.push(res.body.code);
  }
  for (const [i, code] of codes.entries()) {
    const k = offset + i;
    if (k % 2 === 0) expect((await s.client.post(`${s.path}/orders/${code}/mark_paid/`, {})).status).toBe(200);
    if (k % 5 === 0) expect((await s.client.post(`${s.path}/orders/${code}/mark_canceled/`, {})).status).toBe(200);
  }
}

/** What D1 says is held: positions of pending and paid orders. */
async function heldInD1(s: Shop) {
  let pending = 0;
  let paid = 0;
  for (let page = 1; ; page++) {
    const res = await s.client.get(`${s.path}/orders/?page=${page}`);
    expect(res.status).toBe(200);
    for (const o of res.body.results as { status: string; positions: unknown[] }[]) {
      if (o.status === "n") pending += o.positions.length;
      if (o.status === "p") paid += o.positions.length;
    }
    if (!res.body.next) return { pending, paid };
  }
}

describe("a restarted event object", { timeout: 120_000 }, () => {
  it("reads the same rows at its start however many positions it holds, and counts exactly what D1 sold", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1000, items: [ticket.id] });
    const voucher = await s.voucher({ item: ticket.id, max_usages: 100 });
    const eventId = await eventIdOf(s);

    await sell(s, ticket.id, voucher.code, 6, 0);
    const held6 = await heldInD1(s);
    await abortAllDurableObjects();
    const after6 = await availability(s, q.id);
    const start6 = await startOf(eventId);
    expect({ pending: after6.pending_orders, paid: after6.paid_orders }).toEqual(held6);
    expect(start6.heldPositions).toBe(held6.pending + held6.paid);

    await sell(s, ticket.id, voucher.code, 30, 6);
    const held36 = await heldInD1(s);
    expect(held36.pending + held36.paid).toBeGreaterThan(4 * (held6.pending + held6.paid));
    await abortAllDurableObjects();
    const after36 = await availability(s, q.id);
    const start36 = await startOf(eventId);
    expect({ pending: after36.pending_orders, paid: after36.paid_orders }).toEqual(held36);
    expect(after36.available_number).toBe(1000 - held36.pending - held36.paid);
    expect(start36.heldPositions).toBe(held36.pending + held36.paid);
    // six times the positions, the same reads: no order is read back at the start
    expect(start36.rowsRead).toBe(start6.rowsRead);
    expect(start36.rowsRead).toBeLessThanOrEqual(20);

    // the totals are the rows, for capacity and for the voucher (pretix: redeemed by pending and paid orders)
    const st = await storage(eventId);
    expect(st.totals).toEqual(st.counted);
    expect(st.voucherTotals).toEqual(st.voucherCounted);
    const used = (await s.client.get(`${s.path}/vouchers/${voucher.id}/`)).body.redeemed;
    expect(st.voucherTotals).toEqual(used > 0 ? [{ voucher_id: voucher.id, n: used }] : []);
  });

  it("decides on the totals after the restart: sells exactly what is left, no more", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 12, items: [ticket.id] });
    const eventId = await eventIdOf(s);
    for (let i = 0; i < 5; i++)
      expect(
        (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }, { item: ticket.id }] })).status,
      ).toBe(201);
    await abortAllDurableObjects();
    // 2 left: 6 parallel buyers of one ticket each, after the restart
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 400, 400, 400, 400]);
    expect(await availability(s, q.id)).toMatchObject({ available: false, available_number: 0, pending_orders: 12 });
    expect((await startOf(eventId)).heldPositions).toBe(10);
  });
});

describe("an event object starting on storage written before its totals existed", () => {
  /** Storage as the object wrote it when orders' holds had no totals: the rows only. */
  const toStorageWithoutTotals = (eventId: number) =>
    runInDurableObject(eventObject(env, eventId), (_: EventObject, state: DurableObjectState) => {
      const sql = state.storage.sql;
      for (const trigger of ["holds_order_in", "holds_order_out", "holds_order_paid"])
        sql.exec(`DROP TRIGGER ${trigger}`);
      sql.exec("DROP INDEX holds_order_seat");
      sql.exec("DROP TABLE order_totals");
      sql.exec("DROP TABLE voucher_totals");
      return [...sql.exec<{ name: string }>("SELECT name FROM sqlite_master ORDER BY name")].map((r) => r.name);
    });

  it("counts the orders' units and voucher uses from the rows: a used-up voucher stays used up", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const voucher = await s.voucher({ item: ticket.id, max_usages: 3 });
    const other = await s.voucher({ item: ticket.id, max_usages: 5 });
    const eventId = await eventIdOf(s);
    const buy = async (positions: Record<string, unknown>[], status?: "p") => {
      const res = await s.client.post(`${s.path}/orders/`, {
        ...(status ? { status, payment_provider: "manual" } : {}),
        positions,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    // the voucher: two uses by a pending order, one by a paid one (3 of 3); the other voucher once
    await buy([
      { item: ticket.id, voucher: voucher.code },
      { item: ticket.id, voucher: voucher.code },
    ]);
    await buy([{ item: ticket.id, voucher: voucher.code }, { item: ticket.id }], "p");
    await buy([{ item: ticket.id, voucher: other.code }]);
    const before = await storage(eventId);
    expect(before.voucherTotals).toEqual([
      { voucher_id: voucher.id, n: 3 },
      { voucher_id: other.id, n: 1 },
    ]);

    const left = await toStorageWithoutTotals(eventId);
    expect(left).toContain("holds");
    expect(left).not.toContain("order_totals");
    expect(left).not.toContain("voucher_totals");
    await abortAllDurableObjects();

    // the restarted object counts what the rows hold
    expect(await availability(s, q.id)).toMatchObject({
      available_number: 5,
      pending_orders: 3,
      paid_orders: 2,
      cart_positions: 0,
    });
    const usedUp = { positions: [{ voucher: ["The voucher has already been used the maximum number of times."] }] };
    const cartUsedUp = { voucher: ["The specified voucher has already been used the maximum number of times."] };
    const order = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: voucher.code }] });
    expect(order.status).toBe(400);
    expect(order.body).toEqual(usedUp);
    const cart = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "1.00",
      voucher: voucher.code,
    });
    expect(cart.status).toBe(400);
    expect(cart.body).toEqual(cartUsedUp);
    expect((await s.client.get(`${s.path}/orders/`)).body.count).toBe(3);
    // and its totals are the rows again
    const after = await storage(eventId);
    expect(after.voucherTotals).toEqual(before.voucherTotals);
    expect(after.totals).toEqual(before.totals);
    expect(after.totals).toEqual(after.counted);
    expect((await startOf(eventId)).heldPositions).toBe(5);

    // the totals are kept again from here on: the other voucher's remaining uses, exactly
    const four = await s.client.post(`${s.path}/orders/`, {
      positions: Array.from({ length: 4 }, () => ({ item: ticket.id, voucher: other.code })),
    });
    expect(four.status, JSON.stringify(four.body)).toBe(201);
    const fifth = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: other.code }] });
    expect(fifth.body).toEqual(usedUp);
    const final = await storage(eventId);
    expect(final.voucherTotals).toEqual(final.voucherCounted);
    expect(final.voucherTotals).toEqual([
      { voucher_id: voucher.id, n: 3 },
      { voucher_id: other.id, n: 5 },
    ]);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 7, paid_orders: 2 });
  });
});

describe("the event object rebuilt after a restart", () => {
  it("still knows voucher redemptions: the next order for a used-up voucher is refused", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 100, items: [ticket.id] });
    const v = await s.voucher({ code: "ONCEONLY", max_usages: 1 });
    const first = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "ONCEONLY" }] });
    expect(first.status).toBe(201);
    await abortAllDurableObjects();
    const second = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "ONCEONLY" }] });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      positions: [{ voucher: ["The voucher has already been used the maximum number of times."] }],
    });
    expect(await ordersOf(await eventIdOf(s))).toHaveLength(1);
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(1);
  });

  it("still knows seats held by orders: the next order for a sold seat is refused", async () => {
    const { s, ticket, q } = await seatedShop();
    const first = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s1" }] });
    expect(first.status).toBe(201);
    await abortAllDurableObjects();
    const second = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s1" }] });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({
      positions: [{ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] }],
    });
    const viaCart = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", seat: "s1" });
    expect(viaCart.body).toEqual({ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] });
    expect(await ordersOf(await eventIdOf(s))).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ pending_orders: 1, available_number: 99 });
  });

  it("still knows a voucher's last use held by a cart: other carts and orders are refused, the cart's own order gets it", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 100, items: [ticket.id] });
    const v = await s.voucher({ code: "LASTUSE", max_usages: 2 });
    const used = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "LASTUSE" }] });
    expect(used.status, JSON.stringify(used.body)).toBe(201);
    const held = await cart(s, { item: ticket.id, voucher: "LASTUSE" });
    expect(held.voucher).toBe(v.id);
    await abortAllDurableObjects();
    const usedUp = { positions: [{ voucher: ["The voucher has already been used the maximum number of times."] }] };
    const otherCart = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "1.00",
      voucher: "LASTUSE",
    });
    expect(otherCart.status).toBe(400);
    expect(otherCart.body).toEqual({
      voucher: ["The specified voucher has already been used the maximum number of times."],
    });
    const plain = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "LASTUSE" }] });
    expect(plain.status).toBe(400);
    expect(plain.body).toEqual(usedUp);
    const eventId = await eventIdOf(s);
    expect((await ordersOf(eventId)).map((o) => o.code)).toEqual([used.body.code]);
    expect((await cartsOf(eventId)).map((c) => [c.cartId, c.voucherId])).toEqual([[held.cart_id, v.id]]);
    // the cart holding the use turns it into an order
    const consuming = await s.client.post(`${s.path}/orders/`, {
      consume_carts: [held.cart_id],
      positions: [{ item: ticket.id, voucher: "LASTUSE" }],
    });
    expect(consuming.status, JSON.stringify(consuming.body)).toBe(201);
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(2);
    expect(await availability(s, q.id)).toMatchObject({ pending_orders: 2, cart_positions: 0, available_number: 98 });
  });

  it("still knows a seat held by a cart: other carts and orders are refused, the cart's own order gets it", async () => {
    const { s, ticket, q } = await seatedShop();
    const held = await cart(s, { item: ticket.id, seat: "s2" });
    await abortAllDurableObjects();
    const taken = { positions: [{ seat: ['The selected seat "Main, Row 1, Seat 2" is not available.'] }] };
    const otherCart = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", seat: "s2" });
    expect(otherCart.status).toBe(400);
    expect(otherCart.body).toEqual({ seat: ['The selected seat "Main, Row 1, Seat 2" is not available.'] });
    const plain = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s2" }] });
    expect(plain.status).toBe(400);
    expect(plain.body).toEqual(taken);
    const eventId = await eventIdOf(s);
    expect(await ordersOf(eventId)).toHaveLength(0);
    expect((await cartsOf(eventId)).map((c) => [c.cartId, c.seat])).toEqual([[held.cart_id, "s2"]]);
    expect(await availability(s, q.id)).toMatchObject({ cart_positions: 1, available_number: 99 });
    const consuming = await s.client.post(`${s.path}/orders/`, {
      consume_carts: [held.cart_id],
      positions: [{ item: ticket.id, seat: "s2" }],
    });
    expect(consuming.status, JSON.stringify(consuming.body)).toBe(201);
    expect(consuming.body.positions[0].seat.seat_guid).toBe("s2");
  });

  it("still knows units held by carts: a quota of 1 held by a cart refuses the next order", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const held = await cart(s, { item: ticket.id });
    await abortAllDurableObjects();
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, cart_positions: 1, pending_orders: 0 });
    const order = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
    expect(order.status).toBe(400);
    expect(order.body).toEqual({
      positions: [{ item: ['There is not enough quota available on quota "Tickets" to perform the operation.'] }],
    });
    expect(await ordersOf(await eventIdOf(s))).toHaveLength(0);
    // the cart's own order still gets the unit
    const consuming = await s.client.post(`${s.path}/orders/`, {
      consume_carts: [held.cart_id],
      positions: [{ item: ticket.id }],
    });
    expect(consuming.status, JSON.stringify(consuming.body)).toBe(201);
  });

  it("still knows paid and pending orders apart: canceling after the restart frees exactly the order's units", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 3, items: [ticket.id] });
    const pending = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
    const paid = await s.client.post(`${s.path}/orders/`, {
      status: "p",
      payment_provider: "manual",
      positions: [{ item: ticket.id }, { item: ticket.id }],
    });
    expect([pending.status, paid.status]).toEqual([201, 201]);
    await abortAllDurableObjects();
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, pending_orders: 1, paid_orders: 2 });
    expect(
      (await s.client.post(`${s.path}/orders/${paid.body.code}/mark_canceled/`, { send_email: false })).status,
    ).toBe(200);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2, pending_orders: 1, paid_orders: 0 });
  });
});
