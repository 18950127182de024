/**
 * Webhooks when D1 fails (issue 12, "faults are survived on every write path"): creating,
 * changing, disabling and re-keying a webhook answer a confirmed success or a retryable 503,
 * never a 500, and a retry never makes a second webhook; a queue message whose D1 work fails is
 * retried, and the notification is delivered (never lost; at least once, as pretix delivers).
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookCalls, webhooks } from "../../src/db/schema";
import { notificationStatement, ORDER_ACTIONS } from "../../src/db/webhooks";
import { LEASE_MS } from "../../src/services/organizers/webhooks-delivery";
import { handleQueueBatch } from "../../src/jobs/queue";
import type { QueueMessage } from "../../src/lib/queues";
import { db, HARNESS_GROUP, seedEventRow, seedOrganizer } from "../harness";
import { injectD1Fault } from "../helpers/faults";
import { deliverAt, receiver, useReceivers } from "../helpers/receivers";

useReceivers();

const hooksUrl = (slug: string) => `/api/v1/organizers/${slug}/webhooks/`;
const body = { target_url: "https://hooks.example.org/in", action_types: [ORDER_ACTIONS.placed] };
const INSERT_WEBHOOK = /^insert into "webhooks"/i;
const UPDATE_WEBHOOK = /^update "webhooks" set/i;

const hooksOf = (organizerId: number) =>
  db().select().from(webhooks).where(eq(webhooks.organizerId, organizerId)).orderBy(asc(webhooks.id));

function expectRetryable(res: { status: number; headers: Headers; body: unknown }) {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.headers.get("retry-after")).not.toBeNull();
}

describe("webhook changes when D1 fails", () => {
  it("create: a refused write is a 503 and nothing is stored; the retry creates exactly one", async () => {
    const org = await seedOrganizer();
    const fault = injectD1Fault(INSERT_WEBHOOK, "fail");
    expectRetryable(await org.client.post(hooksUrl(org.slug), body));
    expect(fault.hits()).toBe(1);
    expect(await hooksOf(org.id)).toEqual([]);
    const retried = await org.client.post(hooksUrl(org.slug), body);
    expect(retried.status).toBe(201);
    expect((await hooksOf(org.id)).map((h) => h.id)).toEqual([retried.body.id]);
  });

  it("create: a write committed with its answer lost is the 201 (found by its secret), once", async () => {
    const org = await seedOrganizer();
    const fault = injectD1Fault(INSERT_WEBHOOK, "lost");
    const res = await org.client.post(hooksUrl(org.slug), { ...body, limit_events: [] });
    expect(fault.hits()).toBe(1);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const stored = await hooksOf(org.id);
    expect(stored).toHaveLength(1);
    expect(res.body).toMatchObject({
      id: stored[0]!.id,
      target_url: body.target_url,
      action_types: body.action_types,
      secret: stored[0]!.secret,
    });
  });

  it("create: when D1 cannot say whether the write is there either, a 503 that says so", async () => {
    const org = await seedOrganizer();
    injectD1Fault(INSERT_WEBHOOK, "lost");
    // the check after the fault reads by the new secret
    injectD1Fault(
      /^select .* from "webhooks" where \("webhooks"\."organizer_id" = \? and "webhooks"\."secret" = \?\)/i,
      "fail",
    );
    const res = await org.client.post(hooksUrl(org.slug), body);
    expectRetryable(res);
    expect(res.body.detail).toMatch(/did not confirm/);
    expect(await hooksOf(org.id)).toHaveLength(1);
  });

  it("change, disable: a refused write is a 503 and changes nothing; a lost answer is a 503 the retry settles", async () => {
    const org = await seedOrganizer();
    const hook = (await org.client.post(hooksUrl(org.slug), body)).body;
    const url = `${hooksUrl(org.slug)}${hook.id}/`;
    injectD1Fault(UPDATE_WEBHOOK, "fail");
    expectRetryable(await org.client.patch(url, { comment: "changed" }));
    expect((await hooksOf(org.id))[0]).toMatchObject({ comment: null, enabled: true });
    injectD1Fault(UPDATE_WEBHOOK, "lost");
    expectRetryable(await org.client.patch(url, { comment: "changed" }));
    const again = await org.client.patch(url, { comment: "changed" });
    expect(again.status).toBe(200);
    expect(again.body.comment).toBe("changed");
    injectD1Fault(UPDATE_WEBHOOK, "fail");
    expectRetryable(await org.client.delete(url));
    expect((await hooksOf(org.id))[0]!.enabled).toBe(true);
    expect((await org.client.delete(url)).status).toBe(204);
    expect((await hooksOf(org.id)).map((h) => h.enabled)).toEqual([false]);
  });

  it("rotate_secret: a lost answer is the success with the secret D1 has; a refused one keeps the old secret", async () => {
    const org = await seedOrganizer();
    const hook = (await org.client.post(hooksUrl(org.slug), body)).body;
    const url = `${hooksUrl(org.slug)}${hook.id}/rotate_secret/`;
    injectD1Fault(UPDATE_WEBHOOK, "fail");
    expectRetryable(await org.client.post(url, {}));
    expect((await hooksOf(org.id))[0]!.secret).toBe(hook.secret);
    injectD1Fault(UPDATE_WEBHOOK, "lost");
    const rotated = await org.client.post(url, {});
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expect((await hooksOf(org.id))[0]!.secret).toBe(rotated.body.secret);
  });
});

describe("delivery when D1 fails", () => {
  async function pendingNotification(code: string) {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const r = receiver(() => 200, { background: true });
    const hook = (
      await org.client.post(hooksUrl(org.slug), { target_url: r.url, action_types: [ORDER_ACTIONS.placed] })
    ).body;
    await notificationStatement(db(), { eventId: ev.id, code, actions: [ORDER_ACTIONS.placed], now: Date.now() });
    const message = { kind: "webhook", eventId: ev.id, code, group: HARNESS_GROUP } satisfies QueueMessage;
    const deliver = async () => {
      const batch = createMessageBatch<QueueMessage>("ticketing-webhooks", [
        { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: message },
      ]);
      await handleQueueBatch(batch, env);
      return getQueueResult(batch, createExecutionContext());
    };
    const calls = () => db().select().from(webhookCalls).where(eq(webhookCalls.webhookId, hook.id));
    return { ev, r, deliver, calls };
  }

  it("the claim refused: the message is retried, nothing was sent, and the retry delivers once", async () => {
    const w = await pendingNotification("CLAIM1");
    const fault = injectD1Fault(/^update "webhook_calls" set .*"last_attempt_at" = \?/i, "fail");
    const failed = await w.deliver();
    expect(fault.hits()).toBe(1);
    expect(failed.explicitAcks).toEqual([]);
    expect(failed.retryMessages).toHaveLength(1);
    expect(w.r.requests).toHaveLength(0);
    expect((await w.calls())[0]).toMatchObject({ state: "pending", attempts: 0 });
    const retried = await w.deliver();
    expect(retried.explicitAcks).toHaveLength(1);
    expect(w.r.requests).toHaveLength(1);
    expect((await w.calls())[0]).toMatchObject({ state: "delivered", attempts: 1 });
  });

  it("the outcome's write lost after it committed: the message is retried and sends nothing twice", async () => {
    const w = await pendingNotification("LOST2");
    const fault = injectD1Fault(/^update "webhook_calls" set "state"/i, "lost");
    const failed = await w.deliver();
    expect(fault.hits()).toBe(1);
    expect(failed.retryMessages).toHaveLength(1);
    const retried = await w.deliver();
    expect(retried.explicitAcks).toHaveLength(1);
    expect(w.r.requests).toHaveLength(1);
    expect((await w.calls())[0]).toMatchObject({ state: "delivered", attempts: 1 });
  });

  it("the outcome's write refused: the message is retried; the notification is not lost but sent again once its claim ran out", async () => {
    const w = await pendingNotification("FAIL3");
    injectD1Fault(/^update "webhook_calls" set "state"/i, "fail");
    expect((await w.deliver()).retryMessages).toHaveLength(1);
    expect(w.r.requests).toHaveLength(1);
    expect((await w.calls())[0]).toMatchObject({ state: "pending", attempts: 1 });
    // while the claim lasts, a repeated message sends nothing
    expect((await w.deliver()).explicitAcks).toHaveLength(1);
    expect(w.r.requests).toHaveLength(1);
    // after it: delivered (a second time, with the same notification id: at least once)
    await deliverAt(Date.now() + LEASE_MS + 1000, { eventId: w.ev.id, code: "FAIL3" });
    expect(w.r.requests.map((q) => q.json.code)).toEqual(["FAIL3", "FAIL3"]);
    expect(new Set(w.r.requests.map((q) => q.json.notification_id)).size).toBe(1);
    expect((await w.calls())[0]).toMatchObject({ state: "delivered", attempts: 2 });
  });
});
