/**
 * The simulated remote D1 primary of the benchmark (src/db/remote-primary.ts): which calls wait
 * the round trip, how writes share a database's single writer, and that it is off by default; the
 * Worker's entries (src/index.ts) and the event object apply it when its variables are set.
 */
import {
  createExecutionContext,
  createScheduledController,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { Env } from "../../src/lib/env";
import type { QueueMessage } from "../../src/lib/queues";
import { isWrite, simulatedPrimary, simulateRemotePrimary, writerBusyUntil } from "../../src/db/remote-primary";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { BASE, seedOrganizer, unique } from "../harness";
import { eventIdOf, ordersOf, shop } from "../helpers/sales";

const RTT = 300;

/** Milliseconds `fn` took (the runtime's clock advances with I/O; timers are I/O). */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = Date.now();
  await fn();
  return Date.now() - start;
}

let n = 0;
/** A fresh database name per test: its own writer. */
const name = () => `SIM_TEST_${++n}`;

describe("isWrite", () => {
  it("tells reads from writes as D1 does", () => {
    expect(isWrite("select 1")).toBe(false);
    expect(isWrite("  /* c */ -- line\n SELECT * FROM orders")).toBe(false);
    expect(isWrite("(select 1) union (select 2)")).toBe(false);
    expect(isWrite("with t as (select 1) select * from t")).toBe(false);
    expect(isWrite("explain query plan select 1")).toBe(false);
    expect(isWrite('select "updated_at" from orders')).toBe(false);
    expect(isWrite('insert into "orders" ("code") values (?) returning "id"')).toBe(true);
    expect(isWrite("update orders set status = 'p'")).toBe(true);
    expect(isWrite("delete from carts")).toBe(true);
    expect(isWrite("with t as (select 1) insert into x select * from t")).toBe(true);
    expect(isWrite("create table x (a)")).toBe(true);
  });
});

describe("simulatedPrimary", () => {
  const sim = { roundTripMs: RTT, writeMs: 0 };

  it("passes every call's results through", async () => {
    const d1 = simulatedPrimary(env.DB, name(), { roundTripMs: 2, writeMs: 1 });
    const stmt = d1.prepare("SELECT ? AS v");
    expect(await stmt.bind(7).first("v")).toBe(7);
    expect(await stmt.bind(8).first()).toEqual({ v: 8 });
    expect((await stmt.bind(9).all()).results).toEqual([{ v: 9 }]);
    expect(await stmt.bind(10).raw()).toEqual([[10]]);
    expect(await stmt.bind(11).raw({ columnNames: true })).toEqual([["v"], [11]]);
    const results = await d1.batch<{ v: number }>([stmt.bind(1), d1.prepare("SELECT 2 AS v")]);
    expect(results.map((r) => r.results[0]!.v)).toEqual([1, 2]);
    const session = d1.withSession("first-unconstrained");
    expect(await session.prepare("SELECT 3 AS v").first("v")).toBe(3);
    expect((await session.batch<{ v: number }>([session.prepare("SELECT 4 AS v")]))[0]!.results).toEqual([{ v: 4 }]);
  });

  it("the binding without a session goes to the primary for every call, reads too", async () => {
    const d1 = simulatedPrimary(env.DB, name(), sim);
    expect(await timed(() => d1.prepare("SELECT 1").first())).toBeGreaterThanOrEqual(RTT);
    expect(await timed(() => d1.batch([d1.prepare("SELECT 1"), d1.prepare("SELECT 2")]))).toBeGreaterThanOrEqual(RTT);
  });

  it("a session at the primary pays its first call and its writes; its later reads come from a replica", async () => {
    const d1 = simulatedPrimary(env.DB, name(), sim);
    const session = d1.withSession("first-primary");
    expect(await timed(() => session.prepare("SELECT 1").first())).toBeGreaterThanOrEqual(RTT);
    expect(await timed(() => session.prepare("SELECT 2").first())).toBeLessThan(RTT / 2);
    const write = session.prepare("UPDATE organizers SET name = name WHERE id = -1");
    expect(await timed(() => write.run())).toBeGreaterThanOrEqual(RTT);
    // a batch holding one write goes to the primary whole
    const mixed = [session.prepare("SELECT 1"), write];
    expect(await timed(() => session.batch(mixed))).toBeGreaterThanOrEqual(RTT);
    expect(await timed(() => session.batch([session.prepare("SELECT 1")]))).toBeLessThan(RTT / 2);
  });

  it("an unconstrained session and one at a bookmark read from a replica, and write at the primary", async () => {
    const d1 = simulatedPrimary(env.DB, name(), sim);
    const anywhere = d1.withSession("first-unconstrained");
    expect(await timed(() => anywhere.prepare("SELECT 1").first())).toBeLessThan(RTT / 2);
    expect(
      await timed(() => anywhere.prepare("DELETE FROM sweep_marks WHERE rowid = -1").run()),
    ).toBeGreaterThanOrEqual(RTT);
    const bookmark = anywhere.getBookmark() ?? "first-unconstrained";
    const later = d1.withSession(bookmark);
    expect(await timed(() => later.prepare("SELECT 1").all())).toBeLessThan(RTT / 2);
    const unnamed = d1.withSession();
    expect(await timed(() => unnamed.prepare("SELECT 1").raw())).toBeLessThan(RTT / 2);
  });

  it("a database takes one write at a time, for the write time of each write statement; another database is apart", async () => {
    const writeMs = 150;
    const aName = name();
    const a = simulatedPrimary(env.DB, aName, { roundTripMs: 0, writeMs });
    const write = (d1: D1Database) => d1.prepare("DELETE FROM sweep_marks WHERE rowid = -1");
    // one statement: one write time; a batch of three writes: three
    expect(await timed(() => write(a).run())).toBeGreaterThanOrEqual(writeMs);
    expect(await timed(() => a.batch([write(a), write(a), write(a), a.prepare("SELECT 1")]))).toBeGreaterThanOrEqual(
      3 * writeMs,
    );
    // reads do not take the writer (its timeline, not the clock: a busy machine delays timers)
    const busy = writerBusyUntil(aName);
    await a.prepare("SELECT 1").first();
    expect(writerBusyUntil(aName)).toBe(busy);
    // four writes at once on one database queue behind each other
    expect(await timed(() => Promise.all([1, 2, 3, 4].map(() => write(a).run())))).toBeGreaterThanOrEqual(4 * writeMs);
    // four writes at once on four databases do not: each writer is taken for one write time
    const names = [1, 2, 3, 4].map(() => name());
    const four = names.map((n4) => simulatedPrimary(env.DB, n4, { roundTripMs: 0, writeMs }));
    const start = Date.now();
    await Promise.all(four.map((d1) => write(d1).run()));
    for (const n4 of names) {
      // each write was queued at the start (the runtime's clock stands still without I/O)
      expect(writerBusyUntil(n4) - start).toBeGreaterThanOrEqual(writeMs);
      expect(writerBusyUntil(n4) - start).toBeLessThan(2 * writeMs);
    }
    // wrappers of the same database name share its writer
    const shared = name();
    const one = simulatedPrimary(env.DB, shared, { roundTripMs: 0, writeMs });
    const other = simulatedPrimary(env.DB, shared, { roundTripMs: 0, writeMs });
    expect(await timed(() => Promise.all([write(one).run(), write(other).run()]))).toBeGreaterThanOrEqual(2 * writeMs);
  });
});

describe("simulateRemotePrimary", () => {
  it("is off unless configured: the env itself, nothing wrapped", () => {
    expect(simulateRemotePrimary(env)).toBe(env);
    const zero = { ...env, SIMULATE_D1_PRIMARY_MS: "0", SIMULATE_D1_WRITE_MS: "" };
    expect(simulateRemotePrimary(zero)).toBe(zero);
  });

  it("wraps every D1 binding it is given, and nothing else", async () => {
    const given = { ...env, SECOND_DB: env.DB, SIMULATE_D1_PRIMARY_MS: String(RTT), SIMULATE_D1_WRITE_MS: "1" };
    const out = simulateRemotePrimary(given);
    expect(out).not.toBe(given);
    expect(out.DB).not.toBe(env.DB);
    expect(out.SECOND_DB).not.toBe(env.DB);
    expect(out.FILES).toBe(env.FILES);
    expect(out.EVENT_OBJECT).toBe(env.EVENT_OBJECT);
    expect(out.SIMULATE_D1_PRIMARY_MS).toBe(String(RTT));
    // the same env gives the same wrapping; a wrapped env is not wrapped again
    expect(simulateRemotePrimary(given)).toBe(out);
    expect(simulateRemotePrimary(out)).toBe(out);
    expect(await timed(() => out.DB.prepare("SELECT 1").first())).toBeGreaterThanOrEqual(RTT);
    expect(await timed(() => out.SECOND_DB.prepare("SELECT 1").first())).toBeGreaterThanOrEqual(RTT);
  });

  it("a bad value is ignored (off)", () => {
    const bad = { ...env, SIMULATE_D1_PRIMARY_MS: "soon", SIMULATE_D1_WRITE_MS: "-1" };
    expect(simulateRemotePrimary(bad)).toBe(bad);
  });
});

describe("the service under a simulated remote primary", () => {
  const SLOW = 600;

  it("the Worker: a read request goes to a replica, a write request pays the primary for its credential and its write", async () => {
    const org = await seedOrganizer();
    const simulated = { ...env, SIMULATE_D1_PRIMARY_MS: String(SLOW), SIMULATE_D1_WRITE_MS: "" };
    const call = (method: string, path: string, body?: unknown) =>
      worker.fetch(
        new Request(`${BASE}${path}`, {
          method,
          headers: { Authorization: `Token ${org.token}`, "Content-Type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        simulated as Env,
        createExecutionContext(),
      );
    let res: Response | undefined;
    expect(await timed(async () => (res = await call("GET", `/api/v1/organizers/${org.slug}/`)))).toBeLessThan(SLOW);
    expect(res!.status).toBe(200);
    const body = { name: { en: "Far" }, slug: unique("far"), currency: "EUR", date_from: "2030-06-01T19:00:00Z" };
    const took = await timed(async () => (res = await call("POST", `/api/v1/organizers/${org.slug}/events/`, body)));
    expect(res!.status).toBe(201);
    expect(took).toBeGreaterThanOrEqual(2 * SLOW);
  });

  it("the event object: an order it answers waits for no primary; D1 gets it after, once; one D1 must decide on waits", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    // the object's first order is written before its answer (it leases the ids of the next ones)
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(201);
    const eventId = await eventIdOf(s);
    await runInDurableObject(eventObject(env, eventId), (instance: EventObject) => {
      (instance as unknown as { env: typeof env }).env = { ...env, SIMULATE_D1_PRIMARY_MS: String(SLOW) };
    });
    let status = 0;
    const took = await timed(async () => {
      status = (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status;
    });
    expect(status).toBe(201);
    expect(took).toBeLessThan(SLOW);
    // D1 follows: its write pays the round trip
    expect(took + (await timed(() => s.settle()))).toBeGreaterThanOrEqual(SLOW);
    expect(await ordersOf(eventId)).toHaveLength(2);
    // a code the client chose is D1's to accept: that order is written before its answer
    const chosen = await timed(async () => {
      status = (await s.client.post(`${s.path}/orders/`, { code: "CHOSEN1", positions: [{ item: ticket.id }] })).status;
    });
    expect(status).toBe(201);
    expect(chosen).toBeGreaterThanOrEqual(SLOW);
    expect(await ordersOf(eventId)).toHaveLength(3);
  });

  it("the queue consumer: its reads on the binding go to the primary", async () => {
    let acked = 0;
    const message = { id: "m1", attempts: 1, body: { kind: "mail", mailId: -1 }, ack: () => acked++, retry: () => {} };
    const batch = { queue: "ticketing-mail", messages: [message] } as unknown as MessageBatch<QueueMessage>;
    const simulated = { ...env, SIMULATE_D1_PRIMARY_MS: String(SLOW) } as Env;
    // a mail that does not exist: one read, then the message is done
    expect(await timed(() => worker.queue(batch, simulated))).toBeGreaterThanOrEqual(SLOW);
    expect(acked).toBe(1);
  });

  it("the cron: each of its D1 calls goes to the primary", { timeout: 90_000 }, async () => {
    // short: the cron's passes (the waiting lists' among them) read every event's rows the suite left
    const rtt = 50;
    const simulated = { ...env, SIMULATE_D1_PRIMARY_MS: String(rtt) } as Env;
    // idempotency keys, uploads, mails, carts, overdue orders, ...: more than three calls
    const cron = async () => {
      const ctx = createExecutionContext();
      await worker.scheduled(
        createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }),
        simulated,
        ctx,
      );
      await waitOnExecutionContext(ctx);
    };
    expect(await timed(cron)).toBeGreaterThanOrEqual(3 * rtt);
  });
});
