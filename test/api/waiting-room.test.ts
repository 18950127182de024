/**
 * The on-sale queue's public endpoints through HTTP: join, status, the live socket; the order and
 * the rate of admission (the coordinator's step run directly), the admission token, a closed queue.
 */
import { exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { onsaleQueues } from "../../src/db/schema/index";
import { readAdmission, readQueueTicket, signQueueTicket } from "../../src/lib/waiting-room-tokens";
import { anonymous, BASE, db } from "../harness";
import { byArrival, queuedShop, SECRET, type Visitor } from "../helpers/waiting-room";

const MINUTE = 60_000;

async function statesOf(q: Awaited<ReturnType<typeof queuedShop>>, visitors: Visitor[]) {
  return Promise.all(
    visitors.map(async (v) => {
      const res = await q.status(v.token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    }),
  );
}

async function joinMany(q: Awaited<ReturnType<typeof queuedShop>>, n: number): Promise<Visitor[]> {
  const out: Visitor[] = [];
  for (let i = 0; i < n; i++) out.push(await q.join());
  return out;
}

describe("joining", () => {
  it("before the opening (first come): 201 with the ticket, the place and the wait", async () => {
    const opensAt = Date.now() + 10 * MINUTE;
    const q = await queuedShop({ opensAt, admissionsPerMinute: 30 });
    const first = await q.join();
    const second = await q.join();
    expect(first.joined).toEqual({
      queue: q.queue.id,
      state: "waiting",
      opens_at: new Date(opensAt).toISOString().replace(".000Z", "Z"),
      position: 1,
      ahead: 0,
      estimated_wait_seconds: expect.any(Number),
      poll_seconds: expect.any(Number),
      admission: null,
      ticket: expect.stringMatching(/^qt1\.[\w-]+\.[\w-]+$/),
    });
    // the time until the opening (less what the join took) and a place at 30 a minute
    expect(first.joined.estimated_wait_seconds).toBeGreaterThan(570);
    expect(first.joined.estimated_wait_seconds).toBeLessThanOrEqual(602);
    expect(first.ticket).toMatchObject({ q: q.queue.id, e: q.eventId, n: expect.stringMatching(/^[A-Za-z0-9]{16}$/) });
    expect(first.ticket.s).toBeGreaterThanOrEqual(0);
    expect(first.ticket.s).toBeLessThan(16);
    expect(Math.abs(first.ticket.j - Date.now())).toBeLessThan(MINUTE);
    // the second visitor's place counts the first (exactly once the coordinator has summed the shards)
    await q.step();
    const status = await q.status(second.token);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ state: "waiting", position: 2, ahead: 1, admission: null });
    expect(status.body).not.toHaveProperty("ticket");
  });

  it("before the opening of a shuffled queue: no place yet", async () => {
    const q = await queuedShop({ arrivalOrder: "shuffle" });
    const v = await q.join();
    expect(v.joined).toMatchObject({ state: "waiting", position: null, ahead: null, estimated_wait_seconds: null });
  });

  it("after the opening: placed behind those waiting", async () => {
    const q = await queuedShop({ opensAt: Date.now() - 1000, admissionsPerMinute: 1 });
    await q.join();
    await q.step();
    const late = await q.join();
    expect(late.joined).toMatchObject({ state: "waiting", position: 2, ahead: 1 });
  });

  it("404 without an active queue, for an unknown event, and for a date without one", async () => {
    const q = await queuedShop({ active: false });
    expect((await anonymous.post(`${q.base}/join/`, {})).status).toBe(404);
    expect((await anonymous.post(`/api/v1/organizers/${q.orgSlug}/events/nope/queue/join/`, {})).status).toBe(404);
    const series = await queuedShop({}, { series: true });
    const date = await series.subevent();
    const otherDate = await series.subevent();
    await series.change({ subeventId: date.id });
    expect((await anonymous.post(`${series.base}/join/`, {})).status).toBe(404);
    expect((await anonymous.post(`${series.base}/join/`, { subevent: otherDate.id })).status).toBe(404);
    expect((await anonymous.post(`${series.base}/join/`, { subevent: date.id })).status).toBe(201);
  });

  it("400 for a body that is not what the description says", async () => {
    const q = await queuedShop();
    const res = await anonymous.post(`${q.base}/join/`, { subevent: "x" }, { contract: false });
    expect(res.status).toBe(400);
    expect(res.body).toHaveProperty("subevent");
  });
});

describe("the ticket", () => {
  it("a missing, malformed or forged ticket is 400; another event's 404", async () => {
    const q = await queuedShop();
    const other = await queuedShop();
    const v = await q.join();
    const theirs = await other.join();
    expect((await anonymous.get(`${q.base}/status/`)).status).toBe(400);
    expect((await q.status("qt1.nonsense")).status).toBe(400);
    const forged = await signQueueTicket("another-secret-of-at-least-thirty-two-chars", v.ticket);
    expect((await q.status(forged)).status).toBe(400);
    const [kind, payload, mac] = v.token.split(".");
    expect((await q.status(`${kind}.${payload}x.${mac}`)).status).toBe(400);
    const res = await q.status(theirs.token);
    expect(res.status).toBe(404);
    expect((await other.status(theirs.token)).status).toBe(200);
  });
});

describe("admission", () => {
  it("first come: exactly in order of arrival, at exactly the rate", async () => {
    const q = await queuedShop({ admissionsPerMinute: 10 });
    const visitors = byArrival(await joinMany(q, 25));
    // opened a minute ago at 10 a minute: 10 due
    await q.change({ opensAt: Date.now() - MINUTE });
    let states = await statesOf(q, visitors);
    expect(states.map((s) => s.state)).toEqual([...Array(10).fill("admitted"), ...Array(15).fill("waiting")]);
    // a step a moment later admits nobody more
    await q.step();
    states = await statesOf(q, visitors);
    expect(states.filter((s) => s.state === "admitted")).toHaveLength(10);
    expect(states[10]).toMatchObject({ position: 11, ahead: 0 });
    expect(states[24]).toMatchObject({ position: 25, ahead: 14 });
    // a minute more: 10 more, the next ten
    await q.change({ opensAt: Date.now() - 2 * MINUTE });
    states = await statesOf(q, visitors);
    expect(states.map((s) => s.state)).toEqual([...Array(20).fill("admitted"), ...Array(5).fill("waiting")]);
    expect(await q.counters()).toEqual({ joined: 25, admitted: 20 });
  });

  it("shuffle: those before the opening in a random order, all before those after it", async () => {
    const q = await queuedShop({ arrivalOrder: "shuffle", admissionsPerMinute: 20 });
    const early = byArrival(await joinMany(q, 40));
    await q.change({ opensAt: Date.now() - 10 });
    const late = byArrival(await joinMany(q, 5));
    // 60 minutes' worth: everybody is due, the early ones first
    await q.change({ opensAt: Date.now() - MINUTE });
    const admitted = (await statesOf(q, [...early, ...late])).map((s) => s.state === "admitted");
    expect(admitted.slice(0, 40).filter(Boolean)).toHaveLength(20);
    expect(admitted.slice(40).some(Boolean)).toBe(false);
    // not the first twenty to arrive (a chance of 1 in 137 billion)
    expect(admitted.slice(0, 20).every(Boolean)).toBe(false);
    await q.change({ opensAt: Date.now() - 3 * MINUTE });
    const all = await statesOf(q, [...early, ...late]);
    expect(all.every((s) => s.state === "admitted")).toBe(true);
  });

  it("the admission token: its payload, the same token on every ask, then expired", async () => {
    const q = await queuedShop({ admissionsPerMinute: 60, admissionMinutes: 5, ordersPerAdmission: 3 });
    const v = await q.join();
    await q.change({ opensAt: Date.now() - 2000 });
    const first = await q.status(v.token);
    expect(first.body).toMatchObject({
      state: "admitted",
      position: null,
      ahead: null,
      admission: { token: expect.stringMatching(/^qa1\./), expires: expect.any(String), orders_allowed: 3 },
    });
    const admission = await readAdmission(SECRET(), first.body.admission.token);
    expect(admission).toEqual({ q: q.queue.id, e: q.eventId, s: null, a: v.ticket.n, o: 3, x: expect.any(Number) });
    expect(admission!.x).toBe(Date.parse(first.body.admission.expires));
    expect(admission!.x - Date.now()).toBeGreaterThan(4 * MINUTE);
    expect(admission!.x - Date.now()).toBeLessThanOrEqual(5 * MINUTE);
    const again = await Promise.all([q.status(v.token), q.status(v.token)]);
    for (const r of again) expect(r.body.admission.token).toBe(first.body.admission.token);
    // its time runs out: expired, no token any more
    await q.change({ admissionMinutes: 0 });
    const expired = await q.status(v.token);
    expect(expired.body).toMatchObject({ state: "expired", admission: null });
  });

  it("200 joins at once across the shards: each recorded once, each admitted once, nobody skipped", async () => {
    const q = await queuedShop({ admissionsPerMinute: 100 });
    const results = await Promise.all(Array.from({ length: 200 }, () => anonymous.post(`${q.base}/join/`, {})));
    expect(results.map((r) => r.status)).toEqual(Array(200).fill(201));
    const visitors = await Promise.all(
      results.map(async (r) => ({
        token: r.body.ticket as string,
        ticket: (await readQueueTicket(SECRET(), r.body.ticket))!,
      })),
    );
    expect(new Set(visitors.map((v) => v.ticket.n)).size).toBe(200);
    expect(new Set(visitors.map((v) => v.ticket.s)).size).toBeGreaterThan(8);
    await q.change({ opensAt: Date.now() - MINUTE });
    expect(await q.counters()).toEqual({ joined: 200, admitted: 100 });
    await q.change({ opensAt: Date.now() - 2 * MINUTE });
    await q.step();
    expect(await q.counters()).toEqual({ joined: 200, admitted: 200 });
    const states = await Promise.all(visitors.map((v) => q.status(v.token)));
    const tokens = states.map((s) => s.body.admission?.token);
    expect(states.every((s) => s.body.state === "admitted")).toBe(true);
    expect(new Set(tokens).size).toBe(200);
  });
});

describe("the live socket", () => {
  it("sends the place on connecting, then the admission, and closes", async () => {
    const q = await queuedShop({ admissionsPerMinute: 60 });
    const v = await q.join();
    const res = await exports.default.fetch(
      new Request(`${BASE}${q.base}/live/?ticket=${encodeURIComponent(v.token)}`, {
        headers: { Upgrade: "websocket" },
      }),
    );
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    const messages: any[] = [];
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    const got = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (messages.length >= n ? resolve() : setTimeout(check, 10));
        check();
      });
    ws.addEventListener("message", (e) => messages.push(JSON.parse(e.data as string)));
    ws.accept();
    await got(1);
    expect(messages[0]).toMatchObject({ queue: q.queue.id, state: "waiting", position: 1, admission: null });
    await q.change({ opensAt: Date.now() - 2000 });
    await got(2);
    expect(messages[messages.length - 1]).toMatchObject({ state: "admitted", admission: { orders_allowed: 1 } });
    expect(await closed).toBe(1000);
  });

  it("refuses a request that is no upgrade, and a forged ticket", async () => {
    const q = await queuedShop();
    const v = await q.join();
    expect((await anonymous.get(`${q.base}/live/?ticket=${encodeURIComponent(v.token)}`)).status).toBe(400);
    const forged = await exports.default.fetch(
      new Request(`${BASE}${q.base}/live/?ticket=qt1.x.y`, { headers: { Upgrade: "websocket" } }),
    );
    expect(forged.status).toBe(400);
  });
});

describe("a closed queue", () => {
  it("deactivated: visitors see closed, nobody joins; active again: they wait again", async () => {
    const q = await queuedShop();
    const v = await q.join();
    await q.change({ active: false });
    expect((await q.status(v.token)).body).toMatchObject({ state: "closed", position: null, admission: null });
    expect((await anonymous.post(`${q.base}/join/`, {})).status).toBe(404);
    await q.change({ active: true });
    expect((await q.status(v.token)).body).toMatchObject({ state: "waiting", position: 1 });
  });

  it("deleted: visitors see closed", async () => {
    const q = await queuedShop();
    const v = await q.join();
    await db().delete(onsaleQueues).where(eq(onsaleQueues.id, q.queue.id));
    await q.step();
    expect((await q.status(v.token)).body).toMatchObject({ state: "closed" });
  });
});

describe("end to end with the sales gate", () => {
  it("join → admitted → order with X-Queue-Admission → 201; without it, or twice, refused", async () => {
    const q = await queuedShop({ admissionsPerMinute: 10 });
    const ticket = await q.item();
    await q.quota({ size: 5, items: [ticket.id] });
    const visitors = byArrival(await joinMany(q, 12));
    const order = (admission?: string) =>
      q.client.post(
        `${q.path}/orders/`,
        { positions: [{ item: ticket.id }] },
        admission ? { headers: { "X-Queue-Admission": admission } } : {},
      );
    const refused = await order();
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ queue: q.queue.id });
    await q.change({ opensAt: Date.now() - MINUTE });
    const states = await statesOf(q, visitors);
    const tokens = states.filter((s) => s.state === "admitted").map((s) => s.admission.token as string);
    expect(tokens).toHaveLength(10);
    // ten admitted buyers, each sending its order twice at once, on the last five tickets
    const results = await Promise.all([...tokens, ...tokens].map((t) => order(t)));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(5);
    expect(results.every((r) => r.status === 201 || r.status === 400 || r.status === 403)).toBe(true);
    const quotas = await q.client.get(`${q.path}/quotas/`);
    const availability = await q.client.get(`${q.path}/quotas/${quotas.body.results[0].id}/availability/`);
    expect(availability.body).toMatchObject({ available_number: 0, pending_orders: 5 });
    // a waiting visitor has no token to send: still refused
    expect(states[11].state).toBe("waiting");
    expect((await order()).status).toBe(403);
  });
});
