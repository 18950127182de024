/** X-Idempotency-Key (spec "Limits"). */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { idempotencyKeys, orders, teams } from "../../src/db/schema";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { env } from "cloudflare:workers";
import { type Client, db, seedDevice, seedOrganizer, seedTeam, tokenClient } from "../harness";
import { eventIdOf, ordersOf, type Shop, shop, vouchersOf } from "../helpers/sales";

const availability = async (s: Shop, quotaId: number) =>
  (await s.client.get(`${s.path}/quotas/${quotaId}/availability/`)).body;

const teamCount = async (organizerId: number) =>
  (await db().select().from(teams).where(eq(teams.organizerId, organizerId))).length;

describe("idempotency keys", () => {
  it("a repeat with the same key returns the stored response without acting again", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    const first = await org.client.post(url, { name: "Once" }, { headers: { "X-Idempotency-Key": key } });
    expect(first.status).toBe(201);
    const again = await org.client.post(url, { name: "Once" }, { headers: { "X-Idempotency-Key": key } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(await teamCount(org.id)).toBe(2); // the seeded admin team and "Once"
  });

  it("stores most errors too: a 403 stays a 403 for that key", async () => {
    const org = await seedOrganizer();
    const key = crypto.randomUUID();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const denied = await tokenClient(org.token).post(
      `/api/v1/organizers/someone-else/teams/`,
      { name: "x" },
      { headers: { "X-Idempotency-Key": key } },
    );
    expect(denied.status).toBe(403);
    const bad = await org.client.post(url, {}, { headers: { "X-Idempotency-Key": key } });
    expect(bad.status).toBe(403);
  });

  it("keys are scoped to the Authorization and Cookie headers", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    await org.client.post(url, { name: "A" }, { headers: { "X-Idempotency-Key": key } });
    const withCookie = await org.client.post(
      url,
      { name: "B" },
      { headers: { "X-Idempotency-Key": key, Cookie: "x=1" } },
    );
    expect(withCookie.status).toBe(201);
    expect(withCookie.body.name).toBe("B");
    expect(await teamCount(org.id)).toBe(3);
  });

  it("has no effect on GET", async () => {
    const org = await seedOrganizer();
    const key = crypto.randomUUID();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    await org.client.get(url, { headers: { "X-Idempotency-Key": key } });
    await org.client.post(url, { name: "After GET" }, { headers: { "X-Idempotency-Key": key } });
    const list = await org.client.get(url, { headers: { "X-Idempotency-Key": key } });
    expect(list.body.count).toBe(2);
  });

  it("two simultaneous requests with one key never both act", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        org.client.post(url, { name: "Parallel" }, { headers: { "X-Idempotency-Key": key } }),
      ),
    );
    expect(await teamCount(org.id)).toBe(2);
    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status === 409);
    expect(created.length + busy.length).toBe(12);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of busy) {
      expect(r.headers.get("retry-after")).toBe("5");
      expect(r.body.detail).toMatch(/still being processed/);
    }
  });

  it("a 409 is not stored, and an in-progress key answers 409 until it completes", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    const { sha256Hex } = await import("../../src/lib/crypto");
    const keyHash = await sha256Hex(JSON.stringify([key, `Token ${org.token}`, ""]));
    await db().insert(idempotencyKeys).values({ keyHash, state: "running", createdAt: Date.now() });
    const busy = await org.client.post(url, { name: "Busy" }, { headers: { "X-Idempotency-Key": key } });
    expect(busy.status).toBe(409);
    expect(await teamCount(org.id)).toBe(1);
    // the 409 left the first request's record alone; once it is gone the key acts again
    await db().delete(idempotencyKeys).where(eq(idempotencyKeys.keyHash, keyHash));
    const done = await org.client.post(url, { name: "Busy" }, { headers: { "X-Idempotency-Key": key } });
    expect(done.status).toBe(201);
  });

  it("keys expire after 24 hours and the cron trigger removes them", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    await org.client.post(url, { name: "Old" }, { headers: { "X-Idempotency-Key": key } });
    await db()
      .update(idempotencyKeys)
      .set({ createdAt: Date.now() - 25 * 3600 * 1000 });
    const fresh = await org.client.post(url, { name: "Old" }, { headers: { "X-Idempotency-Key": key } });
    expect(fresh.status).toBe(201);
    expect(await teamCount(org.id)).toBe(3);

    await db()
      .update(idempotencyKeys)
      .set({ createdAt: Date.now() - 25 * 3600 * 1000 });
    await runHousekeeping(env, Date.now());
    expect(await db().select().from(idempotencyKeys)).toHaveLength(0);
  });
});

describe("one key, two credentials", () => {
  /** A shop, and a second API token of the organizer's own team: the same team, another credential. */
  async function world() {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const made = await s.client.post(`/api/v1/organizers/${s.orgSlug}/teams/${s.org.teamId}/tokens/`, {
      name: "second",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const eventId = (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, s.eventSlug) }))!.id;
    return { s, ticket, q, second: tokenClient(made.body.token), eventId };
  }
  const codesOf = async (eventId: number) =>
    (await db().select({ code: orders.code }).from(orders).where(eq(orders.eventId, eventId)))
      .map((o) => o.code)
      .sort();
  const order = (client: Client, w: Awaited<ReturnType<typeof world>>, key: string, email: string) =>
    client.post(
      `${w.s.path}/orders/`,
      { email, positions: [{ item: w.ticket.id }] },
      { headers: { "X-Idempotency-Key": key } },
    );

  it("two tokens of the same team: the key acts once for each, and each token's repeat replays its own answer", async () => {
    const w = await world();
    const key = crypto.randomUUID();
    const first = await order(w.s.client, w, key, "first@example.org");
    const second = await order(w.second, w, key, "second@example.org");
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.code).not.toBe(first.body.code);
    expect([first.body.email, second.body.email]).toEqual(["first@example.org", "second@example.org"]);
    expect(await codesOf(w.eventId)).toEqual([first.body.code, second.body.code].sort());
    const againFirst = await order(w.s.client, w, key, "first@example.org");
    const againSecond = await order(w.second, w, key, "second@example.org");
    expect(againFirst.body).toEqual(first.body);
    expect(againSecond.body).toEqual(second.body);
    expect(await codesOf(w.eventId)).toHaveLength(2);
    expect((await w.s.client.get(`${w.s.path}/quotas/${w.q.id}/availability/`)).body).toMatchObject({
      pending_orders: 2,
      available_number: 8,
    });
  });

  it("a team token and a device: the key acts once for each", async () => {
    const w = await world();
    const device = await seedDevice(w.s.org.id);
    const key = crypto.randomUUID();
    const [byToken, byDevice] = await Promise.all([
      order(w.s.client, w, key, "token@example.org"),
      order(device.client, w, key, "device@example.org"),
    ]);
    expect([byToken.status, byDevice.status]).toEqual([201, 201]);
    expect([byToken.body.email, byDevice.body.email]).toEqual(["token@example.org", "device@example.org"]);
    expect(await codesOf(w.eventId)).toEqual([byToken.body.code, byDevice.body.code].sort());
    expect((await order(device.client, w, key, "device@example.org")).body).toEqual(byDevice.body);
    expect(await codesOf(w.eventId)).toHaveLength(2);
  });
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
