/**
 * Sales behind an on-sale queue: while an active queue applies, orders and cart positions need a
 * valid admission token in X-Queue-Admission (else 403 naming the queue, nothing created); an
 * admission places at most its orders, also when fired from many requests at once; channels,
 * devices and teams that skip the queue; deactivating or deleting the queue lifts the gate.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/lib/env";
import { type Admission, signAdmission } from "../../src/lib/waiting-room-tokens";
import { type Client, seedDevice, seedTeam } from "../harness";
import { cartsOf, eventIdOf, ordersOf, type Shop, shop } from "../helpers/sales";

const SECRET = (env as Env).TICKET_SIGNING_KEY_SECRET!;
const HEADER = "X-Queue-Admission";
const HOUR = 3_600_000;

type Gated = { s: Shop; eventId: number; ticket: { id: number }; queue: { id: number } };

/** A shop with a ticket (quota 100) behind an event-wide queue with `queue` settings. */
async function gatedShop(queue: Record<string, unknown> = {}): Promise<Gated> {
  const s = await shop();
  const ticket = await s.item();
  await s.quota({ size: 100, items: [ticket.id] });
  const q = await s.post("/onsale_queues/", {
    opens_at: "2020-01-01T00:00:00Z",
    admissions_per_minute: 60,
    ...queue,
  });
  return { s, eventId: await eventIdOf(s), ticket, queue: q };
}

/** An admission of the gated shop's queue, valid for an hour, with `o` orders (default 1). */
function admission(g: Gated, over: Partial<Admission> = {}): Promise<string> {
  return signAdmission(SECRET, {
    q: g.queue.id,
    e: g.eventId,
    s: null,
    a: crypto.randomUUID().replace(/-/g, "").slice(0, 16),
    o: 1,
    x: Date.now() + HOUR,
    ...over,
  });
}

const order = (g: Gated, token?: string | null, body: Record<string, unknown> = {}, client: Client = g.s.client) =>
  client.post(
    `${g.s.path}/orders/`,
    { positions: [{ item: g.ticket.id }], ...body },
    token ? { headers: { [HEADER]: token } } : {},
  );

const cartPosition = (g: Gated, token?: string | null, body: Record<string, unknown> = {}) =>
  g.s.client.post(
    `${g.s.path}/cartpositions/`,
    { item: g.ticket.id, price: "1.00", ...body },
    token ? { headers: { [HEADER]: token } } : {},
  );

function expectRefused(res: { status: number; body: unknown }, queueId: number, words: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body).toEqual({ detail: expect.stringContaining(words), queue: queueId });
}

describe("sales behind an on-sale queue", () => {
  it("no sale without an admission: orders, cart positions and bulk_create answer 403 naming the queue, and create nothing", async () => {
    const g = await gatedShop();
    expectRefused(await order(g), g.queue.id, HEADER);
    expectRefused(await cartPosition(g), g.queue.id, HEADER);
    const bulk = await g.s.client.post(`${g.s.path}/cartpositions/bulk_create/`, [
      { item: g.ticket.id, price: "1.00" },
      { item: g.ticket.id, price: "1.00" },
    ]);
    expectRefused(bulk, g.queue.id, HEADER);
    // an invalid order is refused by the queue first: nothing about the order is told
    expectRefused(await order(g, null, { positions: [{ item: 999999 }] }), g.queue.id, HEADER);
    expect(await ordersOf(g.eventId)).toHaveLength(0);
    expect(await cartsOf(g.eventId)).toHaveLength(0);
  });

  it("with a valid admission the order and the cart position are created", async () => {
    const g = await gatedShop();
    const token = await admission(g);
    expect((await cartPosition(g, token)).status).toBe(201);
    const res = await order(g, token);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await ordersOf(g.eventId)).toHaveLength(1);
    expect(await cartsOf(g.eventId)).toHaveLength(1);
  });

  it("refused: a token of another event, another queue, another date, forged, expired, or a queue ticket", async () => {
    const g = await gatedShop();
    const other = await gatedShop();
    const refusedWith = async (token: string, words: string) => {
      expectRefused(await order(g, token), g.queue.id, words);
      expectRefused(await cartPosition(g, token), g.queue.id, words);
    };
    await refusedWith(await admission(other), "another queue");
    await refusedWith(await admission(g, { e: other.eventId }), "another queue");
    await refusedWith(await admission(g, { q: other.queue.id }), "another queue");
    await refusedWith(await admission(g, { s: 12345 }), "another queue");
    await refusedWith(await admission(g, { x: Date.now() - 1 }), "expired");
    const good = await admission(g);
    const [kind, payload, mac] = good.split(".");
    const more = btoa(JSON.stringify({ ...JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/"))), o: 50 }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    await refusedWith(`${kind}.${more}.${mac}`, "not valid");
    await refusedWith(good.slice(0, -3), "not valid");
    await refusedWith(await signAdmission("another-deployment-secret-0123456789abcdef", JSON.parse("{}")), "not valid");
    await refusedWith(`qt1.${payload}.${mac}`, "not valid");
    await refusedWith("garbage", "not valid");
    expect(await ordersOf(g.eventId)).toHaveLength(0);
    expect(await cartsOf(g.eventId)).toHaveLength(0);
    // the same token, good, still sells
    expect((await order(g, good)).status).toBe(201);
  });

  it("an admission with o = 2 places 2 orders and the 3rd is refused; carts do not count; cancelling gives nothing back", async () => {
    const g = await gatedShop({ orders_per_admission: 2 });
    const token = await admission(g, { o: 2 });
    expect((await cartPosition(g, token)).status).toBe(201);
    const first = await order(g, token);
    expect(first.status).toBe(201);
    expect((await order(g, token)).status).toBe(201);
    expectRefused(await order(g, token), g.queue.id, "placed the 2 orders it allows");
    // carts still pass (they place no order), and a canceled order gives no order back
    expect((await cartPosition(g, token)).status).toBe(201);
    const cancel = await g.s.client.post(`${g.s.path}/orders/${first.body.code}/mark_canceled/`, {});
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expectRefused(await order(g, token), g.queue.id, "placed the 2 orders it allows");
    expect(await ordersOf(g.eventId)).toHaveLength(2);
    // another admission of the same queue has its own count
    expect((await order(g, await admission(g))).status).toBe(201);
  });

  it("an order refused for its content does not use up the admission", async () => {
    const g = await gatedShop();
    const token = await admission(g);
    const soldOut = await g.s.item();
    await g.s.quota({ size: 0, items: [soldOut.id] });
    const refused = await order(g, token, { positions: [{ item: soldOut.id }] });
    expect(refused.status).toBe(400);
    expect((await order(g, token)).status).toBe(201);
    expectRefused(await order(g, token), g.queue.id, "placed the order it allows");
  });

  it("the same admission fired from 20 requests at once places exactly o orders", async () => {
    const g = await gatedShop({ orders_per_admission: 3 });
    const token = await admission(g, { o: 3 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => order(g, token, { email: `b${i}@example.org` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(17);
    for (const r of refused) expectRefused(r, g.queue.id, "placed the 3 orders it allows");
    expect(await ordersOf(g.eventId)).toHaveLength(3);
  });

  it("20 admissions buying the last 5 tickets at once: 5 orders, the rest refused for quota, none oversold", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    const q = await s.post("/onsale_queues/", { opens_at: "2020-01-01T00:00:00Z", admissions_per_minute: 60 });
    const g: Gated = { s, eventId: await eventIdOf(s), ticket, queue: q };
    const tokens = await Promise.all(Array.from({ length: 20 }, () => admission(g)));
    const results = await Promise.all(tokens.map((t) => order(g, t)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 400)).toHaveLength(15);
    expect(await ordersOf(g.eventId)).toHaveLength(5);
  });

  it("deactivating the queue lifts the gate, activating it again brings it back; deleting it lifts it for good", async () => {
    const g = await gatedShop();
    const url = `${g.s.path}/onsale_queues/${g.queue.id}/`;
    expectRefused(await order(g), g.queue.id, HEADER);
    expect((await g.s.client.patch(url, { active: false })).status).toBe(200);
    expect((await order(g)).status).toBe(201);
    expect((await cartPosition(g)).status).toBe(201);
    expect((await g.s.client.patch(url, { active: true })).status).toBe(200);
    expectRefused(await order(g), g.queue.id, HEADER);
    expect((await g.s.client.delete(url)).status).toBe(204);
    expect((await order(g)).status).toBe(201);
    expect(await ordersOf(g.eventId)).toHaveLength(2);
  });

  it("skipped by a bypass sales channel, by devices when bypass_devices, by the bypass teams' tokens", async () => {
    const g = await gatedShop({ bypass_sales_channels: ["pretixpos"], bypass_devices: true });
    const url = `${g.s.path}/onsale_queues/${g.queue.id}/`;
    expect((await order(g, null, { sales_channel: "pretixpos" })).status).toBe(201);
    expect((await cartPosition(g, null, { sales_channel: "pretixpos" })).status).toBe(201);
    expectRefused(await order(g, null, { sales_channel: "resellers" }), g.queue.id, HEADER);
    const device = await seedDevice(g.s.org.id);
    expect((await order(g, null, {}, device.client)).status).toBe(201);
    expect((await g.s.client.patch(url, { bypass_devices: false })).status).toBe(200);
    expectRefused(await order(g, null, {}, device.client), g.queue.id, HEADER);
    const boxOffice = await seedTeam(g.s.org.id, { permissions: ["can_change_orders"] });
    const others = await seedTeam(g.s.org.id, { permissions: ["can_change_orders"] });
    expect((await g.s.client.patch(url, { bypass_teams: [boxOffice.teamId] })).status).toBe(200);
    expect((await order(g, null, {}, boxOffice.client)).status).toBe(201);
    expectRefused(await order(g, null, {}, others.client), g.queue.id, HEADER);
    expectRefused(await order(g), g.queue.id, HEADER);
    expect(await ordersOf(g.eventId)).toHaveLength(3);
  });

  it("a series: a date's own queue before the event-wide one; dates without their own queue are behind the event-wide one", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const d1 = await s.subevent();
    const d2 = await s.subevent();
    for (const d of [d1, d2]) await s.quota({ size: 100, items: [ticket.id], subevent: d.id });
    const wide = await s.post("/onsale_queues/", { opens_at: "2020-01-01T00:00:00Z", admissions_per_minute: 60 });
    const own = await s.post("/onsale_queues/", {
      opens_at: "2020-01-01T00:00:00Z",
      admissions_per_minute: 60,
      subevent: d1.id,
    });
    const eventId = await eventIdOf(s);
    const g = (queue: { id: number }): Gated => ({ s, eventId, ticket, queue });
    const at = (d: { id: number }) => ({ positions: [{ item: ticket.id, subevent: d.id }] });
    const wideToken = await admission(g(wide));
    const ownToken = await admission(g(own), { s: d1.id });
    expectRefused(await order(g(own), null, at(d1)), own.id, HEADER);
    expectRefused(await order(g(wide), null, at(d2)), wide.id, HEADER);
    expectRefused(await order(g(own), wideToken, at(d1)), own.id, "another queue");
    expectRefused(await order(g(wide), ownToken, at(d2)), wide.id, "another queue");
    expect((await order(g(own), ownToken, at(d1))).status).toBe(201);
    expect((await order(g(wide), wideToken, at(d2))).status).toBe(201);
    // one order for both dates would need two admissions
    const both = {
      positions: [
        { item: ticket.id, subevent: d1.id },
        { item: ticket.id, subevent: d2.id },
      ],
    };
    expect((await order(g(own), await admission(g(own), { s: d1.id }), both)).status).toBe(403);
    // a date's inactive queue is no queue for that date, even with an active event-wide one
    expect((await s.client.patch(`${s.path}/onsale_queues/${own.id}/`, { active: false })).status).toBe(200);
    expect((await order(g(own), null, at(d1))).status).toBe(201);
    expect(await ordersOf(eventId)).toHaveLength(3);
  });
});
