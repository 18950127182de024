/**
 * The event object's invariants under load and failure: many buyers at once never get one
 * ticket more than the quota, a voucher or a seat twice; an order retried with its
 * idempotency key exists once; an object aborted in the middle of an order loses nothing and
 * writes nothing half.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions, orders } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { db } from "../harness";
import { breakObjectWrites } from "../helpers/faults";
import { shop, type Shop } from "../helpers/sales";

const availability = async (s: Shop, quotaId: number) =>
  (await s.client.get(`${s.path}/quotas/${quotaId}/availability/`)).body;
const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, s.eventSlug) }))!.id;
const ordersOf = async (eventId: number) => db().select().from(orders).where(eq(orders.eventId, eventId));

describe("selling under contention", () => {
  it("60 parallel orders on a quota of 10: exactly 10 succeed and availability then says 0", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        s.client.post(`${s.path}/orders/`, { email: `b${i}@example.org`, positions: [{ item: ticket.id }] }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 400)).toHaveLength(50);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body).toEqual({
        positions: [{ item: ['There is not enough quota available on quota "Tickets" to perform the operation.'] }],
      });
    expect(await availability(s, q.id)).toMatchObject({ available: false, available_number: 0, pending_orders: 10 });
    expect(await ordersOf(await eventIdOf(s))).toHaveLength(10);
  });

  it("orders of several positions never oversell either", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 9, items: [ticket.id] });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }, { item: ticket.id }] }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    const positions = await db().select().from(orderPositions).where(eq(orderPositions.itemId, ticket.id));
    expect(positions).toHaveLength(8);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1 });
  });

  it("parallel uses of a voucher with max_usages 3: exactly 3", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 100, items: [ticket.id] });
    const v = await s.voucher({ code: "THREETIMES", max_usages: 3, price_mode: "set", value: "0.00" });
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "THREETIMES" }] }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body).toEqual({
        positions: [{ voucher: ["The voucher has already been used the maximum number of times."] }],
      });
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(3);
  });

  it("a voucher deleted while orders redeem it: deleted and never redeemed, or redeemed and kept", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 100, items: [ticket.id] });
    const v = await s.voucher({ code: "RACEDELETE", max_usages: 5 });
    const buy = () => s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "RACEDELETE" }] });
    const [before, deleted, after] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, buy)),
      s.client.delete(`${s.path}/vouchers/${v.id}/`),
      Promise.all(Array.from({ length: 6 }, buy)),
    ]);
    const sold = [...before, ...after].filter((r) => r.status === 201).length;
    const stored = await s.client.get(`${s.path}/vouchers/${v.id}/`);
    if (deleted.status === 204) {
      expect(sold).toBe(0);
      expect(stored.status).toBe(404);
    } else {
      expect(deleted.status).toBe(403);
      expect(sold).toBeGreaterThan(0);
      expect(stored.body.redeemed).toBe(sold);
    }
    const positions = await db().select().from(orderPositions).where(eq(orderPositions.itemId, ticket.id));
    expect(positions).toHaveLength(sold);
  });

  it("one seat requested by 20 parallel orders: one order", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 100, items: [ticket.id] });
    const planRes = await s.client.post(`/api/v1/organizers/${s.orgSlug}/seatingplans/`, {
      name: "Hall",
      layout: {
        categories: [{ name: "Stalls" }],
        zones: [
          {
            name: "Main",
            rows: [
              {
                row_number: "1",
                seats: [
                  { seat_guid: "s1", seat_number: "1", category: "Stalls" },
                  { seat_guid: "s2", seat_number: "2", category: "Stalls" },
                ],
              },
            ],
          },
        ],
      },
    });
    expect(planRes.status, JSON.stringify(planRes.body)).toBe(201);
    const patched = await s.client.patch(`${s.path}/`, {
      seating_plan: planRes.body.id,
      seat_category_mapping: { Stalls: ticket.id },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const noSeat = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
    expect(noSeat.body.positions).toEqual([{ seat: ["The specified product requires to choose a seat."] }]);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s1" }] }),
      ),
    );
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.positions[0].seat).toEqual({
      id: expect.any(Number),
      name: "Main, Row 1, Seat 1",
      seat_guid: "s1",
    });
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body).toEqual({ positions: [{ seat: ['The selected seat "Main, Row 1, Seat 1" is not available.'] }] });
    // a cart cannot take it either, another seat is still free
    expect(
      (await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", seat: "s1" })).status,
    ).toBe(400);
    expect(
      (await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", seat: "s2" })).status,
    ).toBe(201);
  });

  it("an order retried with its idempotency key exists once, also when the retries run in parallel", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const key = crypto.randomUUID();
    const body = { email: "retry@example.org", positions: [{ item: ticket.id }] };
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        s.client.post(`${s.path}/orders/`, body, { headers: { "X-Idempotency-Key": key } }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.code)).size).toBe(1);
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const later = await s.client.post(`${s.path}/orders/`, body, { headers: { "X-Idempotency-Key": key } });
    expect(later.status).toBe(201);
    expect(later.body.code).toBe(created[0]!.body.code);
    expect(await ordersOf(await eventIdOf(s))).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 9 });
  });
});

describe("an event object that fails in the middle of an order", () => {
  it("aborted after deciding, before D1 has the order: the alarm writes it, whole, once; nothing is sold twice", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 2, items: [ticket.id] });
    const eventId = await eventIdOf(s);
    await availability(s, q.id); // the object is running
    await breakObjectWrites(eventId, "hang");
    const pending = s.client.post(`${s.path}/orders/`, {
      email: "crash@example.org",
      positions: [{ item: ticket.id }, { item: ticket.id }],
    });
    await new Promise((r) => setTimeout(r, 300));
    await abortAllDurableObjects();
    const lost = await pending;
    expect(lost.status).toBe(503);
    expect(await ordersOf(eventId)).toHaveLength(0);

    // the restarted object still holds the decided capacity: nothing can be sold twice
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, pending_orders: 2 });
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(400);

    // its alarm replays the outbox: the order lands in D1 with all its positions
    expect(await runDurableObjectAlarm(eventObject(env, eventId))).toBe(true);
    const written = await ordersOf(eventId);
    expect(written).toHaveLength(1);
    expect(written[0]!.email).toBe("crash@example.org");
    expect(await db().select().from(orderPositions).where(eq(orderPositions.orderId, written[0]!.id))).toHaveLength(2);
    // replaying again changes nothing
    await runDurableObjectAlarm(eventObject(env, eventId));
    expect(await ordersOf(eventId)).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, pending_orders: 2 });
    // and canceling it gives the capacity back
    await s.client.post(`${s.path}/orders/${written[0]!.code}/mark_canceled/`, { send_email: false });
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2, pending_orders: 0 });
  });

  it("a D1 write that fails releases the capacity at once", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const eventId = await eventIdOf(s);
    await availability(s, q.id);
    await breakObjectWrites(eventId, "fail");
    const failed = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
    expect(failed.status).toBe(503);
    expect(failed.headers.get("retry-after")).toBe("1");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0 });
    await abortAllDurableObjects(); // a fresh object with working D1
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(201);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, pending_orders: 1 });
  });

  it("evicted in the middle of a rush: no oversell, and orders plus free capacity add up", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const eventId = await eventIdOf(s);
    const wave = (n: number) =>
      Array.from({ length: n }, () => s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] }));
    const first = wave(15);
    await new Promise((r) => setTimeout(r, 20));
    await abortAllDurableObjects();
    const second = wave(15);
    const results = await Promise.all([...first, ...second]);
    const sold = (await ordersOf(eventId)).length;
    expect(sold).toBeLessThanOrEqual(10);
    expect(results.filter((r) => r.status === 201).length).toBeLessThanOrEqual(sold);
    // replay whatever an aborted request left behind, then check the books
    await runDurableObjectAlarm(eventObject(env, eventId));
    const after = (await ordersOf(eventId)).length;
    expect(after).toBeLessThanOrEqual(10);
    const a = await availability(s, q.id);
    expect(a.pending_orders).toBe(after);
    expect(a.available_number).toBe(10 - after);
  });
});
