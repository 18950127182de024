/**
 * Behaviours the refactoring must keep, end to end through the API: a seat held by a cart is
 * nobody else's; the event object rebuilt after a restart still knows every hold; a view
 * permission never changes anything; idempotency keys belong to their credential.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { cartPositions, orderPayments, orders, vouchers } from "../../src/db/schema";
import { type Client, db, seedTeam } from "../harness";
import { shop, type Shop } from "../helpers/sales";

const FORBIDDEN = { detail: "You do not have permission to perform this action." };

const availability = async (s: Shop, quotaId: number) =>
  (await s.client.get(`${s.path}/quotas/${quotaId}/availability/`)).body;
const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, s.eventSlug) }))!.id;
const ordersOf = async (eventId: number) => db().select().from(orders).where(eq(orders.eventId, eventId));
const cartsOf = async (eventId: number) => db().select().from(cartPositions).where(eq(cartPositions.eventId, eventId));
const vouchersOf = async (eventId: number) => db().select().from(vouchers).where(eq(vouchers.eventId, eventId));

/** A shop whose event has a seating plan with seats s1, s2, s3, all for `ticket`. */
async function seatedShop() {
  const s = await shop();
  const ticket = await s.item();
  const q = await s.quota({ size: 100, items: [ticket.id] });
  const plan = await s.client.post(`/api/v1/organizers/${s.orgSlug}/seatingplans/`, {
    name: "Hall",
    layout: {
      categories: [{ name: "Stalls" }],
      zones: [
        {
          name: "Main",
          rows: [
            {
              row_number: "1",
              seats: ["s1", "s2", "s3"].map((guid, i) => ({
                seat_guid: guid,
                seat_number: String(i + 1),
                category: "Stalls",
              })),
            },
          ],
        },
      ],
    },
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(201);
  const patched = await s.client.patch(`${s.path}/`, {
    seating_plan: plan.body.id,
    seat_category_mapping: { Stalls: ticket.id },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  return { s, ticket, q };
}

async function cart(s: Shop, body: Record<string, unknown>) {
  const res = await s.client.post(`${s.path}/cartpositions/`, { price: "1.00", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("a seat held by an unexpired cart position", () => {
  it("is refused to another cart position", async () => {
    const { s, ticket } = await seatedShop();
    const held = await cart(s, { item: ticket.id, seat: "s1" });
    expect(held.seat).toEqual({ id: expect.any(Number), name: "Main, Row 1, Seat 1", seat_guid: "s1" });
    const other = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", seat: "s1" });
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] });
    // nor in the same cart a second time
    const sameCart = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "1.00",
      seat: "s1",
      cart_id: held.cart_id,
    });
    expect(sameCart.status).toBe(400);
    expect(sameCart.body).toEqual({ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] });
    const rows = await cartsOf(await eventIdOf(s));
    expect(rows.map((r) => r.seat)).toEqual(["s1"]);
    // another seat is still free
    expect((await cart(s, { item: ticket.id, seat: "s2" })).seat.seat_guid).toBe("s2");
  });

  it("is refused to an order that does not consume that cart, also one consuming another cart", async () => {
    const { s, ticket } = await seatedShop();
    await cart(s, { item: ticket.id, seat: "s1" });
    const otherCart = await cart(s, { item: ticket.id, seat: "s2" });
    const plain = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s1" }] });
    expect(plain.status).toBe(400);
    expect(plain.body).toEqual({
      positions: [{ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] }],
    });
    const wrongCart = await s.client.post(`${s.path}/orders/`, {
      consume_carts: [otherCart.cart_id],
      positions: [{ item: ticket.id, seat: "s1" }],
    });
    expect(wrongCart.status).toBe(400);
    expect(wrongCart.body).toEqual({
      positions: [{ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] }],
    });
    const eventId = await eventIdOf(s);
    expect(await ordersOf(eventId)).toHaveLength(0);
    // the refused order consumed nothing: both carts are still there and still hold their seats
    expect((await cartsOf(eventId)).map((r) => r.seat).sort()).toEqual(["s1", "s2"]);
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s2" }] })).status).toBe(
      400,
    );
  });

  it("goes to the order that consumes the cart holding it", async () => {
    const { s, ticket, q } = await seatedShop();
    const held = await cart(s, { item: ticket.id, seat: "s1" });
    expect(await availability(s, q.id)).toMatchObject({ cart_positions: 1, pending_orders: 0 });
    const order = await s.client.post(`${s.path}/orders/`, {
      consume_carts: [held.cart_id],
      positions: [{ item: ticket.id, seat: "s1" }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.positions[0].seat).toEqual({
      id: expect.any(Number),
      name: "Main, Row 1, Seat 1",
      seat_guid: "s1",
    });
    const eventId = await eventIdOf(s);
    expect((await ordersOf(eventId)).map((o) => o.code)).toEqual([order.body.code]);
    // the cart is gone, its unit is now the order's
    expect(await cartsOf(eventId)).toEqual([]);
    expect(await availability(s, q.id)).toMatchObject({ cart_positions: 0, pending_orders: 1, available_number: 99 });
    // and the seat is the order's now: no one else gets it, with or without that cart id
    const again = await s.client.post(`${s.path}/orders/`, {
      consume_carts: [held.cart_id],
      positions: [{ item: ticket.id, seat: "s1" }],
    });
    expect(again.body).toEqual({
      positions: [{ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] }],
    });
  });
});

describe("a seat held by an expired cart position", () => {
  it("is free again, for carts and orders", async () => {
    const { s, ticket } = await seatedShop();
    await cart(s, { item: ticket.id, seat: "s1" });
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s1" }] })).status).toBe(
      400,
    );
    // 31 minutes later (the event object runs in this isolate and sees the same clock)
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 31 * 60_000);
      const order = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s1" }] });
      expect(order.status, JSON.stringify(order.body)).toBe(201);
      expect(order.body.positions[0].seat.seat_guid).toBe("s1");
      const late = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", seat: "s1" });
      expect(late.body).toEqual({ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] });
    } finally {
      vi.useRealTimers();
    }
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

describe("a view permission is never enough to change", () => {
  async function orderWorld() {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const order = await s.client.post(`${s.path}/orders/`, {
      email: "buyer@example.org",
      payment_provider: "manual",
      positions: [{ item: ticket.id }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.status).toBe("n");
    expect(order.body.payments).toHaveLength(1);
    const held = await cart(s, { item: ticket.id });
    const viewer = (await seedTeam(s.org.id, { permissions: ["can_view_orders"] })).client;
    const eventId = await eventIdOf(s);
    const [row] = await ordersOf(eventId);
    return { s, ticket, q, order: order.body, orderId: row!.id, held, viewer, eventId };
  }

  type OrderWorld = Awaited<ReturnType<typeof orderWorld>>;
  const ORDER_CHANGES: [string, (w: OrderWorld) => Promise<{ status: number; body: unknown }>][] = [
    ["POST orders (create)", (w) => w.viewer.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] })],
    [
      "POST orders/:code/mark_paid",
      (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/mark_paid/`, { send_email: false }),
    ],
    [
      "POST orders/:code/mark_canceled",
      (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/mark_canceled/`, { send_email: false }),
    ],
    ["POST orders/:code/mark_expired", (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/mark_expired/`, {})],
    [
      "POST orders/:code/payments/:local/confirm",
      (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/payments/1/confirm/`, {}),
    ],
    [
      "POST cartpositions (create)",
      (w) => w.viewer.post(`${w.s.path}/cartpositions/`, { item: w.ticket.id, price: "1.00" }),
    ],
    [
      "POST cartpositions/bulk_create",
      (w) => w.viewer.post(`${w.s.path}/cartpositions/bulk_create/`, [{ item: w.ticket.id, price: "1.00" }]),
    ],
    ["DELETE cartpositions/:id", (w) => w.viewer.delete(`${w.s.path}/cartpositions/${w.held.id}/`)],
  ];

  for (const [name, change] of ORDER_CHANGES) {
    it(`${name} with only can_view_orders: 403, and orders, payments, carts and quota unchanged`, async () => {
      const w = await orderWorld();
      // the viewer sees the very objects it is refused to change
      const seen = await w.viewer.get(`${w.s.path}/orders/${w.order.code}/`);
      expect(seen.status).toBe(200);
      expect(seen.body.code).toBe(w.order.code);
      expect((await w.viewer.get(`${w.s.path}/cartpositions/${w.held.id}/`)).status).toBe(200);
      const before = {
        order: (await w.s.client.get(`${w.s.path}/orders/${w.order.code}/`)).body,
        orders: await ordersOf(w.eventId),
        payments: await db().select().from(orderPayments).where(eq(orderPayments.orderId, w.orderId)),
        carts: await cartsOf(w.eventId),
        availability: await availability(w.s, w.q.id),
      };
      const res = await change(w);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
      expect((await w.s.client.get(`${w.s.path}/orders/${w.order.code}/`)).body).toEqual(before.order);
      expect(await ordersOf(w.eventId)).toEqual(before.orders);
      expect(await db().select().from(orderPayments).where(eq(orderPayments.orderId, w.orderId))).toEqual(
        before.payments,
      );
      expect(await cartsOf(w.eventId)).toEqual(before.carts);
      expect(await availability(w.s, w.q.id)).toEqual(before.availability);
    });
  }

  async function voucherWorld() {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const voucher = await s.voucher({ code: "KEEPME", item: ticket.id, block_quota: true, max_usages: 2 });
    const viewer = (await seedTeam(s.org.id, { permissions: ["can_view_vouchers"] })).client;
    return { s, ticket, q, voucher, viewer, eventId: await eventIdOf(s) };
  }

  type VoucherWorld = Awaited<ReturnType<typeof voucherWorld>>;
  const VOUCHER_CHANGES: [string, (w: VoucherWorld) => Promise<{ status: number; body: unknown }>][] = [
    [
      "POST vouchers (create)",
      (w) => w.viewer.post(`${w.s.path}/vouchers/`, { code: "NEWONE", item: w.ticket.id, block_quota: true }),
    ],
    [
      "POST vouchers/batch_create",
      (w) => w.viewer.post(`${w.s.path}/vouchers/batch_create/`, [{ code: "BATCH1" }, { code: "BATCH2" }]),
    ],
    [
      "PATCH vouchers/:id",
      (w) => w.viewer.patch(`${w.s.path}/vouchers/${w.voucher.id}/`, { max_usages: 5, comment: "changed" }),
    ],
    [
      "PUT vouchers/:id",
      (w) => w.viewer.put(`${w.s.path}/vouchers/${w.voucher.id}/`, { code: "RENAMED", max_usages: 1 }),
    ],
    ["DELETE vouchers/:id", (w) => w.viewer.delete(`${w.s.path}/vouchers/${w.voucher.id}/`)],
  ];

  for (const [name, change] of VOUCHER_CHANGES) {
    it(`${name} with only can_view_vouchers: 403, and vouchers and quota unchanged`, async () => {
      const w = await voucherWorld();
      const seen = await w.viewer.get(`${w.s.path}/vouchers/${w.voucher.id}/`);
      expect(seen.status).toBe(200);
      expect(seen.body).toEqual(w.voucher);
      const before = { vouchers: await vouchersOf(w.eventId), availability: await availability(w.s, w.q.id) };
      expect(before.availability).toMatchObject({ blocking_vouchers: 2, available_number: 8 });
      const res = await change(w);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
      expect((await w.s.client.get(`${w.s.path}/vouchers/${w.voucher.id}/`)).body).toEqual(w.voucher);
      expect(await vouchersOf(w.eventId)).toEqual(before.vouchers);
      expect(await availability(w.s, w.q.id)).toEqual(before.availability);
    });
  }
});

describe("idempotency keys belong to their credential", () => {
  async function twoTokens() {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const a = (await seedTeam(s.org.id, { permissions: ["can_change_orders"] })).client;
    const b = (await seedTeam(s.org.id, { permissions: ["can_change_orders"] })).client;
    return { s, ticket, q, a, b, eventId: await eventIdOf(s) };
  }
  const order = (client: Client, s: Shop, item: number, key: string) =>
    client.post(
      `${s.path}/orders/`,
      { email: "same@example.org", positions: [{ item }] },
      { headers: { "X-Idempotency-Key": key } },
    );

  it("two tokens sending the same key one after the other each create their own order", async () => {
    const { s, ticket, q, a, b, eventId } = await twoTokens();
    const key = crypto.randomUUID();
    const first = await order(a, s, ticket.id, key);
    const second = await order(b, s, ticket.id, key);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.code).not.toBe(first.body.code);
    expect((await ordersOf(eventId)).map((o) => o.code).sort()).toEqual([first.body.code, second.body.code].sort());
    expect(await availability(s, q.id)).toMatchObject({ pending_orders: 2, available_number: 8 });
    // each token's repeat is a replay of its own order
    const againA = await order(a, s, ticket.id, key);
    const againB = await order(b, s, ticket.id, key);
    expect([againA.body.code, againB.body.code]).toEqual([first.body.code, second.body.code]);
    expect(await ordersOf(eventId)).toHaveLength(2);
  });

  it("two tokens sending the same key at once: both act, neither waits for the other", async () => {
    const { s, ticket, a, b, eventId } = await twoTokens();
    const key = crypto.randomUUID();
    const [first, second] = await Promise.all([order(a, s, ticket.id, key), order(b, s, ticket.id, key)]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.code).not.toBe(first.body.code);
    expect(await ordersOf(eventId)).toHaveLength(2);
  });

  it("two tokens sending the same key create their own voucher each", async () => {
    const s = await shop();
    const a = (await seedTeam(s.org.id, { permissions: ["can_change_vouchers"] })).client;
    const b = (await seedTeam(s.org.id, { permissions: ["can_change_vouchers"] })).client;
    const key = crypto.randomUUID();
    const first = await a.post(`${s.path}/vouchers/`, { code: "FROMA" }, { headers: { "X-Idempotency-Key": key } });
    const second = await b.post(`${s.path}/vouchers/`, { code: "FROMB" }, { headers: { "X-Idempotency-Key": key } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect([first.body.code, second.body.code]).toEqual(["FROMA", "FROMB"]);
    expect(second.body.id).not.toBe(first.body.id);
    expect((await vouchersOf(await eventIdOf(s))).map((v) => v.code).sort()).toEqual(["FROMA", "FROMB"]);
  });
});
