/**
 * Webhook delivery: which notifications the order changes write (pretix's action types and
 * payload), the signature, the retry schedule with receivers that fail, refuse, time out, answer
 * slowly or are gone, the bounded retry window, order per order code with a receiver that is
 * down for an hour, claims under concurrent and repeated queue messages, the check-in
 * notifications the event object writes with each scan (also when it dies mid-write), the
 * cron sweep, and the calls log of the API.
 *
 * Time is simulated: the tests deliver at chosen instants (`deliverAt`). Notifications whose
 * attempts are counted exactly are written at a simulated time ahead of the real clock, so the
 * queue consumer running in the background (with the real clock) never finds them due.
 */
import { breakObjectWrites } from "../helpers/faults";
import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins, webhookCalls, webhooks } from "../../src/db/schema";
import { notificationStatement, ORDER_ACTIONS } from "../../src/db/webhooks";
import { RETRY_INTERVALS, RETRY_WINDOW_MS, SIGNATURE_HEADER } from "../../src/services/organizers/webhooks-delivery";
import { expireOverdueOrders } from "../../src/services/orders/order-status";
import { handleQueueBatch } from "../../src/jobs/queue";
import type { QueueMessage } from "../../src/lib/queues";
import { eventObject } from "../../src/objects/client";
import { sweepWebhooks } from "../../src/jobs/webhooks";
import { db, HARNESS_GROUP, type Json, seedEventRow, seedOrganizer, groupTestEnv } from "../harness";
import { venue } from "../helpers/checkin";
import { type Behaviour, deliverAt, receiver, useReceivers } from "../helpers/receivers";
import { shop } from "../helpers/sales";

useReceivers();

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const ALL_ORDER_ACTIONS = Object.values(ORDER_ACTIONS);
const hooksUrl = (slug: string) => `/api/v1/organizers/${slug}/webhooks/`;

async function createHook(
  client: { post: (p: string, b: unknown) => Promise<Json> },
  slug: string,
  body: Record<string, unknown>,
) {
  const res = await client.post(hooksUrl(slug), body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; secret: string };
}

async function callsOf(webhookId: number) {
  return db().select().from(webhookCalls).where(eq(webhookCalls.webhookId, webhookId)).orderBy(asc(webhookCalls.id));
}

/** An organizer with an event (no orders: only the notifications a test writes exist) and a webhook to a receiver. */
async function world(behaviour: Behaviour = () => 200, actionTypes: string[] = ALL_ORDER_ACTIONS) {
  const org = await seedOrganizer();
  const ev = await seedEventRow(org.id);
  const r = receiver(behaviour);
  const hook = await createHook(org.client, org.slug, { target_url: r.url, action_types: actionTypes });
  return { org, ev, r, hook };
}

/** Writes notifications about an order code at a simulated time, with the statement the order writes use. */
async function notify(eventId: number, code: string, actions: string[], at: number) {
  await notificationStatement(db(), { eventId, code, actions, now: at });
}

/** Verifies the signature header as a receiver would (docs/webhooks.md). */
async function verify(secret: string, header: string, body: string): Promise<{ ok: boolean; t: number }> {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${parts.t}.${body}`)));
  const hex = [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { ok: hex === parts.v1, t: Number(parts.t) };
}

describe("notifications of order changes", () => {
  it("writes pretix's action types with pretix's payload for every order change, in the order they happened", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 20, items: [ticket.id] });
    const r = receiver();
    const hook = await createHook(s.client, s.orgSlug, { target_url: r.url, action_types: ALL_ORDER_ACTIONS });
    const placedOnly = await createHook(s.client, s.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.order.placed"],
    });

    const a = await s.post("/orders/", { payment_provider: "manual", positions: [{ item: ticket.id }] });
    expect((await s.client.post(`${s.path}/orders/${a.code}/mark_paid/`, {})).status).toBe(200);
    expect((await s.client.post(`${s.path}/orders/${a.code}/mark_canceled/`, {})).status).toBe(200);
    const b = await s.post("/orders/", { status: "p", payment_provider: "manual", positions: [{ item: ticket.id }] });
    const c = await s.post("/orders/", { payment_provider: "manual", positions: [{ item: ticket.id }] });
    expect((await s.client.post(`${s.path}/orders/${c.code}/mark_expired/`, {})).status).toBe(200);
    const d = await s.post("/orders/", { payment_provider: "manual", positions: [{ item: ticket.id }] });
    expect((await s.client.post(`${s.path}/orders/${d.code}/payments/1/confirm/`, {})).status).toBe(200);
    // refused changes write nothing
    expect((await s.client.post(`${s.path}/orders/${b.code}/mark_expired/`, {})).status).toBe(400);
    // automatic expiry (cron): it expires every order overdue then, the other test files' too
    // (they share the database); of this event only e, as the calls below show
    const e = await s.post("/orders/", { payment_provider: "manual", positions: [{ item: ticket.id }] });
    await s.settle();
    expect(await expireOverdueOrders(groupTestEnv(), db(), Date.parse(e.expires) + 60_000)).toBeGreaterThanOrEqual(1);
    expect((await s.client.get(`${s.path}/orders/${e.code}/`)).body.status).toBe("e");

    const calls = await callsOf(hook.id);
    expect(calls.map((x) => [x.code, x.actionType])).toEqual([
      [a.code, "pretix.event.order.placed"],
      [a.code, "pretix.event.order.payment.confirmed"],
      [a.code, "pretix.event.order.paid"],
      [a.code, "pretix.event.order.canceled"],
      [b.code, "pretix.event.order.placed"],
      [b.code, "pretix.event.order.payment.confirmed"],
      [b.code, "pretix.event.order.paid"],
      [c.code, "pretix.event.order.placed"],
      [c.code, "pretix.event.order.expired"],
      [d.code, "pretix.event.order.placed"],
      [d.code, "pretix.event.order.payment.confirmed"],
      [d.code, "pretix.event.order.paid"],
      [e.code, "pretix.event.order.placed"],
      [e.code, "pretix.event.order.expired"],
    ]);
    expect((await callsOf(placedOnly.id)).map((x) => x.code)).toEqual([a.code, b.code, c.code, d.code, e.code]);

    // delivered: exactly pretix's body, notification_id first
    for (const code of [a.code, b.code, c.code, d.code, e.code])
      await deliverAt(Date.now() + HOUR, { eventId: calls[0]!.eventId, code, webhookId: hook.id });
    expect(r.accepted.map((j) => `${j.code} ${j.action}`)).toEqual(calls.map((x) => `${x.code} ${x.actionType}`));
    const first = r.requests.find((q) => q.json.notification_id === calls[0]!.id)!;
    expect(first.body).toBe(
      JSON.stringify({
        notification_id: calls[0]!.id,
        organizer: s.orgSlug,
        event: s.eventSlug,
        code: a.code,
        action: "pretix.event.order.placed",
      }),
    );
    expect(first.headers.get("content-type")).toBe("application/json");
  });

  it("never writes for another organizer's event, a webhook limited to other events, other action types, or a disabled webhook", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const otherEvent = (
      await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
        name: { en: "Other" },
        slug: "other-event",
        currency: "EUR",
        date_from: "2030-06-01T19:00:00Z",
      })
    ).body;
    const all = await createHook(s.client, s.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.order.placed"],
    });
    const limitedHere = await createHook(s.client, s.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.order.placed"],
      limit_events: [s.eventSlug],
    });
    const limitedElsewhere = await createHook(s.client, s.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.order.placed"],
      limit_events: [otherEvent.slug],
    });
    const otherTypes = await createHook(s.client, s.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.order.canceled", "pretix.event.checkin"],
    });
    const disabled = await createHook(s.client, s.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.order.placed"],
      enabled: false,
    });
    const foreign = await seedOrganizer();
    const foreignHook = await createHook(foreign.client, foreign.slug, {
      target_url: receiver().url,
      action_types: ALL_ORDER_ACTIONS,
    });

    const order = await s.post("/orders/", { positions: [{ item: ticket.id }] });
    expect((await callsOf(all.id)).map((c) => c.code)).toEqual([order.code]);
    expect((await callsOf(limitedHere.id)).map((c) => c.code)).toEqual([order.code]);
    expect(await callsOf(limitedElsewhere.id)).toEqual([]);
    expect(await callsOf(otherTypes.id)).toEqual([]);
    expect(await callsOf(disabled.id)).toEqual([]);
    expect(await callsOf(foreignHook.id)).toEqual([]);
    const rows = await db().select().from(webhookCalls).where(eq(webhookCalls.organizerId, foreign.id));
    expect(rows).toEqual([]);
  });
});

describe("notifications of concurrent changes", () => {
  it("of many simultaneous cancelations and payments of one order, only the change that happened is reported", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const hook = await createHook(s.client, s.orgSlug, { target_url: receiver().url, action_types: ALL_ORDER_ACTIONS });
    const order = await s.post("/orders/", { payment_provider: "manual", positions: [{ item: ticket.id }] });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.client.post(`${s.path}/orders/${order.code}/${i % 2 ? "mark_canceled" : "mark_paid"}/`, {}),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    const final = (await s.client.get(`${s.path}/orders/${order.code}/`)).body.status;
    const actions = (await callsOf(hook.id)).map((c) => c.actionType);
    // placed, then what the order went through: paid, or canceled, or paid and then canceled
    const expected: Record<string, string[][]> = {
      p: [["pretix.event.order.payment.confirmed", "pretix.event.order.paid"]],
      c: [
        ["pretix.event.order.canceled"],
        ["pretix.event.order.payment.confirmed", "pretix.event.order.paid", "pretix.event.order.canceled"],
      ],
    };
    expect(expected[final]!).toContainEqual(actions.slice(1));
    expect(actions[0]).toBe("pretix.event.order.placed");
    expect(ok.length).toBe(actions.length - 1 - (actions.includes("pretix.event.order.paid") ? 1 : 0));
  });
});

describe("the signature", () => {
  it("signs the exact body with the webhook's secret and a timestamp; a rotated secret signs from then on", async () => {
    const w = await world();
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "SIGN1", [ORDER_ACTIONS.placed], t0);
    await deliverAt(t0, { eventId: w.ev.id, code: "SIGN1" });
    const req = w.r.requests[0]!;
    const header = req.headers.get(SIGNATURE_HEADER)!;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await verify(w.hook.secret, header, req.body)).toEqual({ ok: true, t: Math.floor(t0 / 1000) });
    expect((await verify(w.hook.secret, header, req.body.replace("SIGN1", "SIGN2"))).ok).toBe(false);
    expect((await verify("another secret", header, req.body)).ok).toBe(false);

    const rotated = await w.org.client.post(`${hooksUrl(w.org.slug)}${w.hook.id}/rotate_secret/`);
    await notify(w.ev.id, "SIGN1", [ORDER_ACTIONS.paid], t0 + SECOND);
    await deliverAt(t0 + SECOND, { eventId: w.ev.id, code: "SIGN1" });
    const second = w.r.requests[1]!;
    expect((await verify(rotated.body.secret, second.headers.get(SIGNATURE_HEADER)!, second.body)).ok).toBe(true);
    expect((await verify(w.hook.secret, second.headers.get(SIGNATURE_HEADER)!, second.body)).ok).toBe(false);
  });

  it("sends credentials of the target URL as Basic authentication, not in the URL", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const r = receiver();
    const target = r.url.replace("https://", "https://shop:p%40ss@");
    await createHook(org.client, org.slug, { target_url: target, action_types: ["pretix.event.order.placed"] });
    const t0 = Date.now() + DAY;
    await notify(ev.id, "AUTH1", [ORDER_ACTIONS.placed], t0);
    await deliverAt(t0, { eventId: ev.id, code: "AUTH1" });
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.url).toBe(r.url);
    expect(r.requests[0]!.headers.get("authorization")).toBe(`Basic ${btoa("shop:p@ss")}`);
  });
});

describe("retries", () => {
  it("retries a failing receiver on pretix's schedule and records every answer", async () => {
    const w = await world((n) => (n < 3 ? 500 : 200));
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "RETRY1", [ORDER_ACTIONS.placed], t0);
    const key = { eventId: w.ev.id, code: "RETRY1" };
    await deliverAt(t0, key);
    let [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({
      state: "pending",
      attempts: 1,
      lastStatusCode: 500,
      lastResponse: "answer 500",
      lastError: null,
      nextAttemptAt: t0 + 5 * SECOND,
      lastAttemptAt: t0,
    });
    // not due yet: nothing happens
    await deliverAt(t0 + 5 * SECOND - 1, key);
    expect(w.r.requests).toHaveLength(1);
    await deliverAt(t0 + 5 * SECOND, key);
    [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({ state: "pending", attempts: 2, nextAttemptAt: t0 + 35 * SECOND });
    await deliverAt(t0 + 35 * SECOND, key);
    [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({ state: "pending", attempts: 3, nextAttemptAt: t0 + 95 * SECOND });
    await deliverAt(t0 + 95 * SECOND, key);
    [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({
      state: "delivered",
      attempts: 4,
      lastStatusCode: 200,
      deliveredAt: t0 + 95 * SECOND,
      nextAttemptAt: null,
      leaseToken: null,
    });
    expect(w.r.requests.map((q) => q.answered)).toEqual([500, 500, 500, 200]);
    // the same notification every time, byte for byte
    expect(new Set(w.r.requests.map((q) => q.body)).size).toBe(1);
    await deliverAt(t0 + DAY, key);
    expect(w.r.requests).toHaveLength(4);
  });

  it("treats a refused connection, a redirect and a receiver that does not answer in time as failures", async () => {
    const w = await world((n) => (["refuse", 302, "hang"] as const)[n] ?? 204);
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "FAIL1", [ORDER_ACTIONS.placed], t0);
    const key = { eventId: w.ev.id, code: "FAIL1" };
    await deliverAt(t0, key);
    let [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({
      state: "pending",
      attempts: 1,
      lastStatusCode: null,
      lastError: "Connection failed: connection refused",
    });
    await deliverAt(t0 + 5 * SECOND, key);
    [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({ state: "pending", attempts: 2, lastStatusCode: 302, lastError: null });
    await deliverAt(t0 + 35 * SECOND, key, { timeoutMs: 50 });
    [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({
      state: "pending",
      attempts: 3,
      lastStatusCode: null,
      lastResponse: null,
      lastError: "No answer within 0.05 seconds.",
    });
    await deliverAt(t0 + 95 * SECOND, key);
    [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({ state: "delivered", attempts: 4, lastStatusCode: 204, lastResponse: "" });
    expect(w.r.requests).toHaveLength(4);
  });

  it("waits for a slow receiver that answers in time", async () => {
    const w = await world(() => ({ status: 200, afterMs: 40, body: "thanks" }));
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "SLOW1", [ORDER_ACTIONS.placed, ORDER_ACTIONS.paid], t0);
    const run = await deliverAt(t0, { eventId: w.ev.id, code: "SLOW1" }, { timeoutMs: 10_000 });
    expect(run).toEqual({ delivered: 2, attempted: 2 });
    const calls = await callsOf(w.hook.id);
    expect(calls.map((c) => [c.state, c.lastResponse])).toEqual([
      ["delivered", "thanks"],
      ["delivered", "thanks"],
    ]);
    expect(calls[0]!.lastDurationMs).toBeGreaterThanOrEqual(30);
  });

  it("a receiver that answers slowly: a run starts no attempt after its time budget; the next message goes on, in order", async () => {
    const w = await world(() => ({ status: 200, afterMs: 40 }));
    const t0 = Date.now() + DAY;
    const actions = [
      ORDER_ACTIONS.placed,
      ORDER_ACTIONS.paymentConfirmed,
      ORDER_ACTIONS.paid,
      ORDER_ACTIONS.canceled,
      ORDER_ACTIONS.placed,
      ORDER_ACTIONS.paid,
    ];
    await notify(w.ev.id, "SLOW2", actions, t0);
    const key = { eventId: w.ev.id, code: "SLOW2" };
    // every answer takes at least 40 ms: with a budget of 100 ms, at most three attempts start
    const first = await deliverAt(t0, key, { budgetMs: 100 });
    expect(first.delivered).toBeGreaterThanOrEqual(1);
    expect(first.delivered).toBeLessThanOrEqual(3);
    expect(first.attempted).toBe(first.delivered);
    const states = (await callsOf(w.hook.id)).map((c) => c.state);
    expect(states).toEqual(actions.map((_, i) => (i < first.delivered ? "delivered" : "pending")));
    for (let i = 0; i < 10 && (await callsOf(w.hook.id)).some((c) => c.state === "pending"); i++)
      await deliverAt(t0, key, { budgetMs: 100 });
    const calls = await callsOf(w.hook.id);
    expect(calls.map((c) => [c.state, c.attempts])).toEqual(actions.map(() => ["delivered", 1]));
    expect(w.r.requests.map((q) => q.json.notification_id)).toEqual(calls.map((c) => c.id));
  });

  it("a receiver that hangs holds up only its own webhook", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const hanging = receiver(() => "hang");
    const fine = receiver();
    const a = await createHook(org.client, org.slug, {
      target_url: hanging.url,
      action_types: ["pretix.event.order.placed"],
    });
    const b = await createHook(org.client, org.slug, {
      target_url: fine.url,
      action_types: ["pretix.event.order.placed"],
    });
    const t0 = Date.now() + DAY;
    await notify(ev.id, "HANG1", [ORDER_ACTIONS.placed], t0);
    const run = await deliverAt(t0, { eventId: ev.id, code: "HANG1" }, { timeoutMs: 100 });
    expect(run).toEqual({ delivered: 1, attempted: 2 });
    expect((await callsOf(a.id))[0]).toMatchObject({ state: "pending", lastError: "No answer within 0.1 seconds." });
    expect((await callsOf(b.id))[0]).toMatchObject({ state: "delivered" });
  });

  it("gives up after pretix's attempts (about three days); a call held back behind it still gets tried within its own window", async () => {
    const w = await world(() => 503);
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "GIVEUP", [ORDER_ACTIONS.placed, ORDER_ACTIONS.paid], t0);
    const key = { eventId: w.ev.id, code: "GIVEUP" };
    let now = t0;
    await deliverAt(now, key);
    for (const interval of RETRY_INTERVALS) {
      now += interval * SECOND;
      await deliverAt(now, key);
    }
    const [first, second] = await callsOf(w.hook.id);
    expect(first).toMatchObject({
      state: "failed",
      attempts: RETRY_INTERVALS.length + 1,
      nextAttemptAt: null,
      lastAttemptAt: now,
      lastStatusCode: 503,
    });
    expect(now - t0).toBeLessThan(RETRY_WINDOW_MS);
    // the second waited until the first was given up; then it was tried at once
    const tried = w.r.requests.map((q) => q.json.notification_id as number);
    expect(tried.slice(0, RETRY_INTERVALS.length + 1)).toEqual(Array(RETRY_INTERVALS.length + 1).fill(first!.id));
    expect(tried.slice(RETRY_INTERVALS.length + 1)).toEqual([second!.id]);
    // and it is retried only while its next attempt stays within three days of its notification
    expect(second).toMatchObject({ state: "pending", attempts: 1, lastAttemptAt: now });
    for (let i = 0; i < 20; i++) {
      const [, s2] = await callsOf(w.hook.id);
      if (s2!.state !== "pending") break;
      now = Math.max(now, s2!.nextAttemptAt!);
      await deliverAt(now, key);
    }
    const [, after] = await callsOf(w.hook.id);
    expect(after!.state).toBe("failed");
    expect(after!.attempts).toBeGreaterThan(1);
    expect(after!.lastAttemptAt!).toBeLessThanOrEqual(t0 + RETRY_WINDOW_MS);
  });

  it("a call that becomes due after its window gets one attempt, then fails", async () => {
    const w = await world(() => 500);
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "LATE1", [ORDER_ACTIONS.placed], t0);
    await deliverAt(t0 + 4 * DAY, { eventId: w.ev.id, code: "LATE1" });
    const [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({ state: "failed", attempts: 1, nextAttemptAt: null });
  });

  it("410 Gone disables the webhook and cancels what is pending (pretix's rule)", async () => {
    const w = await world(() => 410);
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "GONE1", [ORDER_ACTIONS.placed, ORDER_ACTIONS.paid], t0);
    await notify(w.ev.id, "GONE2", [ORDER_ACTIONS.placed], t0);
    await deliverAt(t0, { eventId: w.ev.id, code: "GONE1" });
    const calls = await callsOf(w.hook.id);
    expect(calls.map((c) => [c.code, c.state, c.lastStatusCode])).toEqual([
      ["GONE1", "failed", 410],
      ["GONE1", "canceled", null],
      ["GONE2", "canceled", null],
    ]);
    const [hook] = await db().select().from(webhooks).where(eq(webhooks.id, w.hook.id));
    expect(hook!.enabled).toBe(false);
    await deliverAt(t0 + HOUR, { eventId: w.ev.id, code: "GONE2" });
    expect(w.r.requests).toHaveLength(1);
  });

  it("does not send to a stored target the deployment no longer accepts", async () => {
    const w = await world();
    await db().update(webhooks).set({ targetUrl: "https://10.0.0.5/in" }).where(eq(webhooks.id, w.hook.id));
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "PRIV1", [ORDER_ACTIONS.placed], t0);
    await deliverAt(t0, { eventId: w.ev.id, code: "PRIV1" });
    const [call] = await callsOf(w.hook.id);
    expect(call).toMatchObject({
      state: "pending",
      attempts: 1,
      lastStatusCode: null,
      targetUrl: "https://10.0.0.5/in",
      lastError: "Not sent: The URL must not point to a private, loopback, link-local or otherwise non-public address.",
    });
    expect(w.r.requests).toHaveLength(0);
  });
});

describe("order per order code", () => {
  it("a receiver down for an hour gets every notification afterwards, each order's in order", async () => {
    let clock = 0;
    const t0 = Date.now() + DAY;
    const w = await world(() => (clock < t0 + HOUR ? "refuse" : 200));
    const codes = ["ORDA", "ORDB", "ORDC"];
    // interleaved changes of three orders during the outage
    const plan: [string, string][] = [
      ["ORDA", ORDER_ACTIONS.placed],
      ["ORDB", ORDER_ACTIONS.placed],
      ["ORDA", ORDER_ACTIONS.paymentConfirmed],
      ["ORDA", ORDER_ACTIONS.paid],
      ["ORDC", ORDER_ACTIONS.placed],
      ["ORDB", ORDER_ACTIONS.expired],
      ["ORDA", ORDER_ACTIONS.canceled],
      ["ORDC", ORDER_ACTIONS.paid],
    ];
    for (let i = 0; i < plan.length; i++) await notify(w.ev.id, plan[i]![0], [plan[i]![1]], t0 + i * 60 * SECOND);
    // the queue hands out messages whenever a head is due, until nothing is pending
    clock = t0;
    for (let step = 0; step < 200; step++) {
      const pending = (await callsOf(w.hook.id)).filter((c) => c.state === "pending");
      if (pending.length === 0) break;
      const heads = codes.map((code) => pending.find((c) => c.code === code)).filter((c) => c !== undefined);
      clock = Math.max(clock, Math.min(...heads.map((c) => c.nextAttemptAt!)));
      for (const h of heads) if (h.nextAttemptAt! <= clock) await deliverAt(clock, { eventId: w.ev.id, code: h.code });
    }
    const calls = await callsOf(w.hook.id);
    expect(calls.every((c) => c.state === "delivered")).toBe(true);
    for (const code of codes) {
      const ids = calls.filter((c) => c.code === code).map((c) => c.id);
      expect(w.r.accepted.filter((j) => j.code === code).map((j) => j.notification_id)).toEqual(ids);
      // never was a later notification of an order tried before an earlier one was accepted
      const tried = w.r.requests.filter((q) => q.json.code === code).map((q) => q.json.notification_id as number);
      expect(tried).toEqual([...tried].sort((x, y) => x - y));
    }
    expect(w.r.accepted.map((j) => `${j.code} ${j.action}`).sort()).toEqual(plan.map(([c, a]) => `${c} ${a}`).sort());
    expect(Math.min(...calls.map((c) => c.deliveredAt!))).toBeGreaterThanOrEqual(t0 + HOUR);
    expect(Math.max(...calls.map((c) => c.deliveredAt!))).toBeLessThan(t0 + 3 * HOUR);
  });

  it("many deliveries of the same order at once: each notification sent once, in order", async () => {
    const w = await world(() => ({ status: 200, afterMs: 5 }));
    const t0 = Date.now() + DAY;
    const actions = [ORDER_ACTIONS.placed, ORDER_ACTIONS.paymentConfirmed, ORDER_ACTIONS.paid, ORDER_ACTIONS.canceled];
    await notify(w.ev.id, "RACE1", actions, t0);
    await Promise.all(Array.from({ length: 12 }, () => deliverAt(t0, { eventId: w.ev.id, code: "RACE1" })));
    // whatever a run found held by another is picked up by the next message
    await deliverAt(t0, { eventId: w.ev.id, code: "RACE1" });
    const calls = await callsOf(w.hook.id);
    expect(calls.map((c) => [c.state, c.attempts])).toEqual(actions.map(() => ["delivered", 1]));
    expect(w.r.requests.map((q) => q.json.action)).toEqual(actions);
  });
});

describe("the queue", () => {
  it("a message delivered twice (also at the same time) sends once and records one delivery", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const r = receiver(() => 200, { background: true });
    const hook = await createHook(org.client, org.slug, {
      target_url: r.url,
      action_types: ["pretix.event.order.placed"],
    });
    await notify(ev.id, "TWICE1", [ORDER_ACTIONS.placed], Date.now());
    const message = { kind: "webhook", eventId: ev.id, code: "TWICE1", group: HARNESS_GROUP } satisfies QueueMessage;
    const batch = () =>
      createMessageBatch<QueueMessage>("ticketing-webhooks", [
        { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: message },
      ]);
    const batches = [batch(), batch(), batch()];
    await Promise.all(batches.slice(0, 2).map((b) => handleQueueBatch(b, env)));
    await handleQueueBatch(batches[2]!, env);
    for (const b of batches) {
      const result = await getQueueResult(b, createExecutionContext());
      expect(result.explicitAcks).toHaveLength(1);
      expect(result.retryMessages).toEqual([]);
    }
    expect(r.requests).toHaveLength(1);
    const [call] = await callsOf(hook.id);
    expect(call).toMatchObject({ state: "delivered", attempts: 1 });
  });

  it("the cron sweep hands on a due notification whose message was lost, and trims the old log", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const r = receiver(() => 200, { background: true });
    const hook = await createHook(org.client, org.slug, {
      target_url: r.url,
      action_types: ["pretix.event.order.placed"],
    });
    const now = Date.now();
    await notify(ev.id, "LOST1", [ORDER_ACTIONS.placed], now - 10 * 60 * SECOND);
    await notify(ev.id, "OLD1", [ORDER_ACTIONS.placed], now - 40 * DAY);
    await db()
      .update(webhookCalls)
      .set({ state: "delivered", nextAttemptAt: null })
      .where(and(eq(webhookCalls.webhookId, hook.id), eq(webhookCalls.code, "OLD1")));
    await sweepWebhooks(groupTestEnv(), db(), now);
    expect((await callsOf(hook.id)).map((c) => c.code)).toEqual(["LOST1"]);
    // the message goes through the real queue to its consumer
    for (let i = 0; i < 200 && (await callsOf(hook.id))[0]!.state !== "delivered"; i++)
      await new Promise((res) => setTimeout(res, 50));
    expect((await callsOf(hook.id))[0]).toMatchObject({ state: "delivered", attempts: 1 });
    expect(r.accepted.map((j) => j.code)).toEqual(["LOST1"]);
  });
});

describe("check-in notifications", () => {
  /** Waits until the real queue consumer has delivered every call of the webhook (a background receiver). */
  async function allDelivered(webhookId: number, n: number) {
    for (let i = 0; i < 200; i++) {
      const calls = await callsOf(webhookId);
      if (calls.length === n && calls.every((c) => c.state === "delivered")) return calls;
      await new Promise((res) => setTimeout(res, 50));
    }
    return callsOf(webhookId);
  }

  it("every scan that passes writes pretix's check-in payload with the check-in, after the order's notifications, and the queue delivers it", async () => {
    const v = await venue();
    const list = await v.list();
    const r = receiver(() => 200, { background: true });
    const hook = await createHook(v.client, v.orgSlug, {
      target_url: r.url,
      action_types: ["pretix.event.checkin", "pretix.event.order.placed", "pretix.event.order.paid"],
    });
    const ordersOnly = await createHook(v.client, v.orgSlug, {
      target_url: receiver().url,
      action_types: ALL_ORDER_ACTIONS,
    });
    const foreign = await seedOrganizer();
    const foreignHook = await createHook(foreign.client, foreign.slug, {
      target_url: receiver().url,
      action_types: ["pretix.event.checkin", ...ALL_ORDER_ACTIONS],
    });

    const pos = await v.sell();
    // the order's notifications are delivered first: the scans' own queue messages deliver theirs
    expect((await allDelivered(hook.id, 2)).map((c) => c.state)).toEqual(["delivered", "delivered"]);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
    // refused: nothing reported
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body.reason).toBe("already_redeemed");
    expect((await v.redeem({ secret: "no-such-ticket", lists: [list.id] })).status).toBe(404);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], type: "exit" })).status).toBe(201);
    // the per-list redeem goes through the same door
    expect((await v.scanner.post(`${v.path}/checkinlists/${list.id}/positions/${pos.secret}/redeem/`, {})).status).toBe(
      201,
    );

    const calls = await allDelivered(hook.id, 5);
    expect(calls.map((c) => [c.code, c.actionType, c.state])).toEqual([
      [pos.order, "pretix.event.order.placed", "delivered"],
      [pos.order, "pretix.event.order.paid", "delivered"],
      [pos.order, "pretix.event.checkin", "delivered"],
      [pos.order, "pretix.event.checkin", "delivered"],
      [pos.order, "pretix.event.checkin", "delivered"],
    ]);
    const base = {
      organizer: v.orgSlug,
      event: v.eventSlug,
      code: pos.order,
      action: "pretix.event.checkin",
      orderposition_id: pos.id,
      orderposition_positionid: pos.positionid,
      checkin_list: list.id,
    };
    expect(calls.slice(2).map((c) => JSON.parse(c.payload))).toEqual([
      { ...base, type: "entry", first_checkin: true },
      { ...base, type: "exit", first_checkin: false },
      { ...base, type: "entry", first_checkin: false },
    ]);
    // delivered by the real queue consumer, in the order they happened, exactly this body
    expect(r.accepted.map((j) => j.notification_id)).toEqual(calls.map((c) => c.id));
    expect(r.requests.find((q) => q.json.notification_id === calls[2]!.id)!.body).toBe(
      JSON.stringify({ notification_id: calls[2]!.id, ...base, type: "entry", first_checkin: true }),
    );
    expect((await callsOf(ordersOnly.id)).map((c) => c.actionType)).toEqual([
      "pretix.event.order.placed",
      "pretix.event.order.payment.confirmed",
      "pretix.event.order.paid",
    ]);
    expect(await callsOf(foreignHook.id)).toEqual([]);
  });

  it("an upload repeated with the same nonce reports once; automatic check-ins report nothing (as in pretix)", async () => {
    const v = await venue();
    const list = await v.list();
    const auto = await v.list({ name: "Box office", auto_checkin_sales_channels: ["web"] });
    const hook = await createHook(v.client, v.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.checkin"],
    });
    const pos = await v.sell();
    expect(pos.checkins).toEqual([expect.objectContaining({ list: auto.id, auto_checked_in: true })]);
    expect(await callsOf(hook.id)).toEqual([]);
    const upload = {
      secret: pos.secret,
      lists: [list.id],
      force: true,
      nonce: "offline-1",
      datetime: "2030-06-01T18:00:00Z",
    };
    expect((await v.redeem(upload)).status).toBe(201);
    expect((await v.redeem(upload)).status).toBe(201);
    const calls = await callsOf(hook.id);
    expect(calls.map((c) => [c.actionType, JSON.parse(c.payload).checkin_list])).toEqual([
      ["pretix.event.checkin", list.id],
    ]);
    expect(
      await db()
        .select()
        .from(checkins)
        .where(and(eq(checkins.positionId, pos.id), eq(checkins.listId, list.id))),
    ).toHaveLength(1);
  });

  it("20 gates scanning one ticket at once: one check-in, one notification", async () => {
    const v = await venue();
    const list = await v.list();
    const hook = await createHook(v.client, v.orgSlug, {
      target_url: receiver().url,
      action_types: ["pretix.event.checkin"],
    });
    const pos = await v.sell();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => v.redeem({ secret: pos.secret, lists: [list.id] })),
    );
    expect(results.filter((x) => x.status === 201)).toHaveLength(1);
    expect((await callsOf(hook.id)).map((c) => c.actionType)).toEqual(["pretix.event.checkin"]);
  });

  describe("an object that fails in the middle of a check-in", () => {
    for (const mode of ["hang", "commit-then-hang"] as const) {
      it(`${mode === "hang" ? "before D1 has the check-in" : "after D1 committed it, before the object heard"}: the alarm's replay leaves exactly one notification`, async () => {
        const v = await venue();
        const list = await v.list();
        const hook = await createHook(v.client, v.orgSlug, {
          target_url: receiver().url,
          action_types: ["pretix.event.checkin"],
        });
        const pos = await v.sell();
        await breakObjectWrites(v.eventId, mode);
        const pending = v.redeem({ secret: pos.secret, lists: [list.id] });
        await new Promise((res) => setTimeout(res, 300));
        await abortAllDurableObjects();
        expect((await pending).status).toBe(503);
        const written = await db()
          .select()
          .from(checkins)
          .where(and(eq(checkins.positionId, pos.id), eq(checkins.successful, true)));
        expect(written).toHaveLength(mode === "hang" ? 0 : 1);
        expect(await callsOf(hook.id)).toHaveLength(mode === "hang" ? 0 : 1);
        // the restarted object replays its outbox: the check-in and its notification, once
        expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
        await runDurableObjectAlarm(eventObject(env, v.eventId));
        expect(
          await db()
            .select()
            .from(checkins)
            .where(and(eq(checkins.positionId, pos.id), eq(checkins.successful, true))),
        ).toHaveLength(1);
        const calls = await callsOf(hook.id);
        expect(
          calls.map((c) => [c.actionType, JSON.parse(c.payload).orderposition_id, JSON.parse(c.payload).first_checkin]),
        ).toEqual([["pretix.event.checkin", pos.id, true]]);
      });
    }
  });
});

describe("the calls log", () => {
  it("lists a webhook's calls newest first with what became of them; filters; detail", async () => {
    const w = await world((n) => (n === 0 ? 500 : 200));
    const t0 = Date.now() + DAY;
    await notify(w.ev.id, "LOG1", [ORDER_ACTIONS.placed, ORDER_ACTIONS.paid], t0);
    await deliverAt(t0, { eventId: w.ev.id, code: "LOG1" });
    const path = `${hooksUrl(w.org.slug)}${w.hook.id}/calls/`;
    const list = await w.org.client.get(path);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    const [paid, placed] = list.body.results;
    expect(placed).toEqual({
      id: expect.any(Number),
      action_type: "pretix.event.order.placed",
      event: w.ev.slug,
      code: "LOG1",
      state: "pending",
      attempts: 1,
      created: new Date(t0).toISOString(),
      last_attempt: new Date(t0).toISOString(),
      next_attempt: new Date(t0 + 5 * SECOND).toISOString(),
      delivered: null,
      target_url: w.r.url,
      last_status_code: 500,
      last_response: "answer 500",
      last_error: null,
      last_execution_time: expect.any(Number),
      payload: {
        notification_id: placed.id,
        organizer: w.org.slug,
        event: w.ev.slug,
        code: "LOG1",
        action: "pretix.event.order.placed",
      },
    });
    expect(paid).toMatchObject({
      action_type: "pretix.event.order.paid",
      state: "pending",
      attempts: 0,
      last_attempt: null,
      next_attempt: new Date(t0).toISOString(),
    });
    expect(paid.id).toBeGreaterThan(placed.id);

    await deliverAt(t0 + 5 * SECOND, { eventId: w.ev.id, code: "LOG1" });
    const delivered = await w.org.client.get(`${path}?state=delivered&ordering=id`);
    expect(delivered.body.results.map((c: Json) => [c.action_type, c.attempts, c.delivered])).toEqual([
      ["pretix.event.order.placed", 2, new Date(t0 + 5 * SECOND).toISOString()],
      ["pretix.event.order.paid", 1, new Date(t0 + 5 * SECOND).toISOString()],
    ]);
    expect((await w.org.client.get(`${path}?action_type=pretix.event.order.paid`)).body.count).toBe(1);
    expect((await w.org.client.get(`${path}?code=NOPE`)).body.count).toBe(0);
    const bad = await w.org.client.get(`${path}?state=lost`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ state: ["Select a valid choice. lost is not one of the available choices."] });

    const detail = await w.org.client.get(`${path}${placed.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: placed.id, state: "delivered", last_status_code: 200, next_attempt: null });
    // another webhook's call is not found under this one
    const other = await createHook(w.org.client, w.org.slug, {
      target_url: receiver().url,
      action_types: ["pretix.event.order.placed"],
    });
    expect((await w.org.client.get(`${hooksUrl(w.org.slug)}${other.id}/calls/${placed.id}/`)).status).toBe(404);
    expect((await w.org.client.get(`${hooksUrl(w.org.slug)}${other.id}/calls/`)).body.count).toBe(0);
  });
});
