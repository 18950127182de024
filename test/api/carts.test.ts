/**
 * Cart positions (spec "Cart positions"): reservations decided by the event object, and the
 * seats they hold: nobody else's until the cart expires or its own order consumes it.
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { cartPositions } from "../../src/db/schema";
import { db, seedTeam } from "../harness";
import { cart, cartsOf, eventIdOf, ordersOf, seatedShop, shop } from "../helpers/sales";

const availability = async (s: Awaited<ReturnType<typeof shop>>, quotaId: number) =>
  (await s.client.get(`${s.path}/quotas/${quotaId}/availability/`)).body;

describe("cart positions", () => {
  it("creates a position with a generated cart id and the default expiry, and lists it", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 5, items: [ticket.id] });
    const before = Date.now();
    const res = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "23.00",
      attendee_name_parts: { given_name: "Peter", family_name: "Miller", _scheme: "given_family" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      cart_id: res.body.cart_id,
      datetime: res.body.datetime,
      expires: res.body.expires,
      item: ticket.id,
      variation: null,
      price: "23.00",
      attendee_name: "Peter Miller",
      attendee_name_parts: { given_name: "Peter", family_name: "Miller", _scheme: "given_family" },
      attendee_email: null,
      voucher: null,
      addon_to: null,
      is_bundled: false,
      subevent: null,
      includes_tax: true,
      sales_channel: "web",
      seat: null,
      answers: [],
      addons: [],
      bundled: [],
    });
    expect(res.body.cart_id).toMatch(/^[a-z0-9]{48}@api$/);
    const expires = Date.parse(res.body.expires);
    expect(expires - before).toBeGreaterThanOrEqual(30 * 60_000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(30 * 60_000 + 5000);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 4, cart_positions: 1 });
    const list = await s.client.get(`${s.path}/cartpositions/`);
    expect(list.headers.get("x-page-generated")).toBeTruthy();
    expect(list.body.results).toEqual([res.body]);
    expect((await s.client.get(`${s.path}/cartpositions/${res.body.id}/`)).body).toEqual(res.body);
  });

  it("requires item and price, checks cart_id, variation and date, and reserves nothing on error", async () => {
    const s = await shop();
    const shirt = await s.item({ variations: [{ value: { en: "S" } }] });
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    expect((await s.client.post(`${s.path}/cartpositions/`, { price: "1.00" })).body).toEqual({
      item: ["This field is required."],
    });
    expect((await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id })).body).toEqual({
      price: ["This field is required."],
    });
    expect(
      (await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", cart_id: "abc" })).body,
    ).toEqual({ cart_id: ['Cart ID should end in "@api".'] });
    expect((await s.client.post(`${s.path}/cartpositions/`, { item: shirt.id, price: "1.00" })).body).toEqual({
      non_field_errors: ["You should specify a variation for this item."],
    });
    expect(
      (await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", subevent: 1 })).body,
    ).toEqual({ subevent: ["You cannot set a subevent for this event."] });
    expect((await s.client.post(`${s.path}/cartpositions/`, { item: 999999, price: "1.00" })).body).toEqual({
      item: ['Invalid pk "999999" - object does not exist.'],
    });
    expect((await s.client.get(`${s.path}/cartpositions/`)).body.count).toBe(0);
  });

  it("answers 400 when the quota is exhausted and 400 for items without any quota", async () => {
    const s = await shop();
    const ticket = await s.item();
    const orphan = await s.item({ name: { en: "No quota" } });
    await s.quota({ size: 2, items: [ticket.id] });
    for (let i = 0; i < 2; i++)
      expect((await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" })).status).toBe(201);
    const full = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expect(full.status).toBe(400);
    // pretix answers a single creation's quota refusal with a bare list, naming the quota
    expect(full.body).toEqual(['There is not enough quota available on quota "Tickets" to perform the operation.']);
    const none = await s.client.post(`${s.path}/cartpositions/`, { item: orphan.id, price: "1.00" });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ non_field_errors: ['The product "No quota" is not assigned to a quota.'] });
  });

  it("stops blocking quota once expired, by itself", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    expect((await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" })).status).toBe(201);
    expect((await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" })).status).toBe(400);
    // 31 minutes later (the event object runs in this isolate and sees the same clock)
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 31 * 60_000);
      expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 0 });
      expect((await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" })).status).toBe(201);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a cart created already expired blocks nothing", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const past = new Date(Date.now() - 60_000).toISOString();
    expect(
      (await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", expires: past })).status,
    ).toBe(201);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 0 });
  });

  it("takes nested add-ons and bundled positions, each needing quota", async () => {
    const s = await shop();
    const ticket = await s.item();
    const cat = await s.post("/categories/", { name: { en: "Extras" }, is_addon: true });
    const parking = await s.item({ name: { en: "Parking" }, category: cat.id, default_price: "5.00" });
    const program = await s.item({ name: { en: "Program" }, default_price: "0.00" });
    await s.quota({ size: 10, items: [ticket.id, program.id] });
    const parkingQuota = await s.quota({ size: 1, items: [parking.id] });
    const res = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "20.00",
      addons: [{ item: parking.id, price: "5.00" }],
      bundled: [{ item: program.id, price: "0.00" }],
    });
    expect(res.status).toBe(201);
    expect(res.body.addons).toHaveLength(1);
    expect(res.body.addons[0]).toMatchObject({
      item: parking.id,
      addon_to: res.body.id,
      is_bundled: false,
      cart_id: res.body.cart_id,
    });
    expect(res.body.bundled[0]).toMatchObject({ item: program.id, addon_to: res.body.id, is_bundled: true });
    expect(await availability(s, parkingQuota.id)).toMatchObject({ available_number: 0 });
    // the whole group is refused when an add-on has no quota left; nothing is reserved
    const again = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "20.00",
      addons: [{ item: parking.id, price: "5.00" }],
    });
    expect(again.status).toBe(400);
    expect((await s.client.get(`${s.path}/cartpositions/`)).body.count).toBe(3);
    // deleting the base removes its add-ons and frees their quota
    expect((await s.client.delete(`${s.path}/cartpositions/${res.body.id}/`)).status).toBe(204);
    expect((await s.client.get(`${s.path}/cartpositions/`)).body.count).toBe(0);
    expect(await availability(s, parkingQuota.id)).toMatchObject({ available_number: 1 });
  });

  it("redeems vouchers by code within their usages and checks their restrictions", async () => {
    const s = await shop();
    const ticket = await s.item();
    const other = await s.item({ name: { en: "Other" } });
    await s.quota({ size: 10, items: [ticket.id, other.id] });
    const v = await s.voucher({ code: "CARTVOUCHER", item: ticket.id, max_usages: 1 });
    const ok = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "0.00",
      voucher: "cartvoucher",
    });
    expect(ok.status).toBe(201);
    expect(ok.body.voucher).toBe(v.id);
    const twice = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "0.00",
      voucher: "CARTVOUCHER",
    });
    expect(twice.body).toEqual({
      voucher: ["The specified voucher has already been used the maximum number of times."],
    });
    const wrong = await s.client.post(`${s.path}/cartpositions/`, {
      item: other.id,
      price: "0.00",
      voucher: "CARTVOUCHER",
    });
    expect(wrong.body).toEqual({ voucher: ["The specified voucher is not valid for the given item and variation."] });
    expect(
      (await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "0.00", voucher: "NOPE" })).body,
    ).toEqual({ voucher: ["The specified voucher does not exist."] });
  });

  it("validates answers against the item's questions", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const q = await s.post("/questions/", {
      question: { en: "Diet" },
      type: "C",
      items: [ticket.id],
      options: [{ answer: { en: "Vegan" } }, { answer: { en: "Any" } }],
    });
    const n = await s.post("/questions/", {
      question: { en: "Age" },
      type: "N",
      items: [ticket.id],
      valid_number_min: "0",
      valid_number_max: "120",
    });
    const res = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "1.00",
      answers: [
        { question: q.id, options: [q.options[0].id] },
        { question: n.id, answer: "42" },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.answers).toEqual([
      {
        question: q.id,
        answer: "Vegan",
        question_identifier: q.identifier,
        options: [q.options[0].id],
        option_identifiers: [q.options[0].identifier],
      },
      { question: n.id, answer: "42", question_identifier: n.identifier, options: [], option_identifiers: [] },
    ]);
    const bad = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "1.00",
      answers: [{ question: n.id, answer: "200" }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ answers: [{ non_field_errors: ["The number is out of the allowed range."] }] });
  });

  it("bulk_create is not atomic: one result per input, in order", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 2, items: [ticket.id] });
    const res = await s.client.post(`${s.path}/cartpositions/bulk_create/`, [
      { item: ticket.id, price: "1.00" },
      { item: ticket.id },
      { item: ticket.id, price: "1.00" },
      { item: ticket.id, price: "1.00" },
      "not an object",
    ]);
    expect(res.status).toBe(200);
    const r = res.body.results;
    expect(r.map((x: { success: boolean }) => x.success)).toEqual([true, false, true, false, false]);
    expect(r[0].errors).toBeNull();
    expect(r[0].data.item).toBe(ticket.id);
    expect(r[1]).toEqual({ success: false, errors: { price: ["This field is required."] }, data: null });
    expect(r[3].errors).toEqual({
      non_field_errors: ['There is not enough quota available on quota "Tickets" to perform the operation.'],
    });
    expect(r[4].success).toBe(false);
    expect((await s.client.get(`${s.path}/cartpositions/`)).body.count).toBe(2);
    const notList = await s.client.post(`${s.path}/cartpositions/bulk_create/`, { item: ticket.id });
    expect(notList.status).toBe(400);
  });

  it("answers 404 for missing positions and positions of other events", async () => {
    const s = await shop();
    const other = await shop();
    const t = await other.item();
    await other.quota({ size: 1, items: [t.id] });
    const theirs = await other.client.post(`${other.path}/cartpositions/`, { item: t.id, price: "1.00" });
    expect((await s.client.get(`${s.path}/cartpositions/${theirs.body.id}/`)).status).toBe(404);
    expect((await s.client.delete(`${s.path}/cartpositions/${theirs.body.id}/`)).status).toBe(404);
    expect((await s.client.delete(`${s.path}/cartpositions/999999/`)).status).toBe(404);
    expect((await other.client.get(`${other.path}/cartpositions/${theirs.body.id}/`)).status).toBe(200);
  });

  it("needs can_change_orders to reserve", async () => {
    const s = await shop();
    const viewer = await seedTeam(s.org.id, { permissions: ["can_view_orders"] });
    expect((await viewer.client.get(`${s.path}/cartpositions/`)).status).toBe(200);
    expect((await viewer.client.post(`${s.path}/cartpositions/`, { item: 1, price: "1.00" })).status).toBe(403);
  });

  it("never reserves more than the quota under many parallel requests", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 7, items: [ticket.id] });
    const results = await Promise.all(
      Array.from({ length: 40 }, () => s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(7);
    expect(results.filter((r) => r.status === 400)).toHaveLength(33);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, cart_positions: 7 });
    const rows = await db().select().from(cartPositions).where(eq(cartPositions.itemId, ticket.id));
    expect(rows).toHaveLength(7);
    void env;
  });
});

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
