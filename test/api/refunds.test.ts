/**
 * Refunds (pretix docs orders.rst, "Order refund endpoints"): the list and detail of an order's
 * refunds, and the refund of a confirmed card payment through Stripe (the local stand-in,
 * which records what it was sent): pretix's body (`amount`, `mark_canceled`, `comment`) and
 * answers, a refund larger than what is left refused with the amount named, Stripe's refusals
 * and absence, and Stripe's refund events moving the refund on.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookCalls } from "../../src/db/schema";
import { db, type Json } from "../harness";
import { placeOrder, readOrder } from "../helpers/pages";
import { deliver, lastEvent, paidByCard, sentToStripe, standin, type StripeShop, stripeShop } from "../helpers/stripe";

const refundsOf = (s: StripeShop, code: string) => s.client.get(`${s.path}/orders/${code}/refunds/`);
const refund = (s: StripeShop, code: string, body: Json = {}, local = 1) =>
  s.client.post(`${s.path}/orders/${code}/payments/${local}/refund/`, body);
const stripeRefunds = async (s: StripeShop) =>
  (await sentToStripe(s.secretKey)).filter((r) => r.method === "POST" && r.path === "/v1/refunds");

async function callsOf(code: string): Promise<string[]> {
  const rows = await db().select().from(webhookCalls).where(eq(webhookCalls.code, code)).orderBy(webhookCalls.id);
  return rows.map((r) => r.actionType);
}

/** A shop with a webhook of this service on the refund actions, and an order paid by card. */
async function paidShop(opts: Parameters<typeof stripeShop>[0] = {}) {
  const s = await stripeShop(opts);
  const hook = await s.client.post(`/api/v1/organizers/${s.orgSlug}/webhooks/`, {
    target_url: "https://hooks.example.org/refunds",
    action_types: [
      "pretix.event.order.refund.created",
      "pretix.event.order.refund.done",
      "pretix.event.order.refund.failed",
      "pretix.event.order.canceled",
    ],
  });
  expect(hook.status).toBe(201);
  const order = await paidByCard(s);
  expect(order.status).toBe("p");
  return { s, order };
}

describe("the refund resources", () => {
  it("an order without refunds: an empty list, detail 404, and the order's refunds empty", async () => {
    const { s, order } = await paidShop();
    const list = await refundsOf(s, order.code);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await s.client.get(`${s.path}/orders/${order.code}/refunds/1/`)).status).toBe(404);
    expect((await s.client.get(`${s.path}/orders/NOSUCH/refunds/`)).status).toBe(404);
    expect(order.refunds).toEqual([]);
  });
});

describe("refunding a card payment", () => {
  it("a partial refund: sent to Stripe, done, listed; the order is pending again with a new term, as pretix does", async () => {
    const { s, order } = await paidShop();
    const res = await refund(s, order.code, { amount: "5.00", comment: "Goodwill" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      local_id: 1,
      state: "done",
      source: "admin",
      amount: "5.00",
      payment: 1,
      created: expect.any(String),
      execution_date: expect.any(String),
      comment: "Goodwill",
      provider: "stripe",
      details: {},
    });
    const [sent] = await stripeRefunds(s);
    expect(sent.params).toEqual({
      payment_intent: order.payments[0].details.id,
      amount: "500",
      metadata: { refund: expect.any(String), event: expect.any(String), order: order.code },
    });
    expect(sent.idempotencyKey).toBe(`refund-${sent.params.metadata.refund}`);

    const list = await refundsOf(s, order.code);
    expect(list.body.results).toEqual([res.body]);
    expect((await s.client.get(`${s.path}/orders/${order.code}/refunds/1/`)).body).toEqual(res.body);
    const after = await readOrder(s, order.code);
    expect(after.refunds).toEqual([res.body]);
    expect(after.status).toBe("n");
    expect(Date.parse(after.expires)).toBeGreaterThan(Date.now());
    expect(after.payments[0].state).toBe("confirmed");
    expect(await callsOf(order.code)).toEqual(["pretix.event.order.refund.created", "pretix.event.order.refund.done"]);
  });

  it("more than is left: 400 naming the amount, nothing created and nothing sent", async () => {
    const { s, order } = await paidShop();
    expect((await refund(s, order.code, { amount: "15.00" })).status).toBe(200);
    const res = await refund(s, order.code, { amount: "5.01" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ amount: ["Invalid refund amount, only 5.00 are available to refund."] });
    expect((await refundsOf(s, order.code)).body.count).toBe(1);
    expect(await stripeRefunds(s)).toHaveLength(1);
  });

  it("two refunds at once that do not both fit: one is made, the other refused naming what is left", async () => {
    const { s, order } = await paidShop();
    const answers = await Promise.all([
      refund(s, order.code, { amount: "15.00" }),
      refund(s, order.code, { amount: "15.00" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)!.body).toEqual({
      amount: ["Invalid refund amount, only 5.00 are available to refund."],
    });
    expect((await refundsOf(s, order.code)).body.count).toBe(1);
    expect(await stripeRefunds(s)).toHaveLength(1);
  });

  it("all of it with mark_canceled: the order is canceled, the payment refunded", async () => {
    const { s, order } = await paidShop();
    const res = await refund(s, order.code, { mark_canceled: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount: "20.00", state: "done" });
    const after = await readOrder(s, order.code);
    expect(after.status).toBe("c");
    expect(after.payments[0].state).toBe("refunded");
    expect(await callsOf(order.code)).toEqual([
      "pretix.event.order.refund.created",
      "pretix.event.order.refund.done",
      "pretix.event.order.canceled",
    ]);
  });

  it("pretix's refusals: no amount to speak of, a payment not confirmed, a provider that cannot refund", async () => {
    const { s, order } = await paidShop();
    expect((await refund(s, order.code, { amount: "0.00" })).body).toEqual({ amount: ["Invalid refund amount."] });
    expect((await refund(s, order.code, { amount: "-1.00" })).body).toEqual({ amount: ["Invalid refund amount."] });
    expect((await refund(s, order.code, { amount: "abc" })).body).toEqual({ amount: ["A valid number is required."] });
    expect((await refund(s, order.code, {}, 2)).status).toBe(404);

    const pending = await placeOrder(s, { payment_provider: "stripe" });
    expect(await refund(s, pending.code)).toMatchObject({ status: 400, body: { detail: "Invalid state of payment." } });

    const manual = await placeOrder(s);
    expect((await s.client.post(`${s.path}/orders/${manual.code}/mark_paid/`)).status).toBe(200);
    expect((await refund(s, manual.code)).body).toEqual({
      amount: ["Full refund not available for this payment method."],
    });
    expect((await refund(s, manual.code, { amount: "1.00" })).body).toEqual({
      amount: ["Partial refund not available for this payment method."],
    });
    expect(await stripeRefunds(s)).toHaveLength(0);
    expect((await refundsOf(s, manual.code)).body.count).toBe(0);
  });

  it("Stripe refuses (refunded in the dashboard already): 400 External error, the refund recorded as failed, the order as it was", async () => {
    const { s, order } = await paidShop();
    await s.stripe.refunds.create({ payment_intent: order.payments[0].details.id });
    const res = await refund(s, order.code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: "External error: Refund amount (2000) is greater than unrefunded amount on charge (0)",
    });
    const after = await readOrder(s, order.code);
    expect(after.status).toBe("p");
    expect(after.refunds).toEqual([expect.objectContaining({ local_id: 1, state: "failed", amount: "20.00" })]);
    expect(await callsOf(order.code)).toEqual([
      "pretix.event.order.refund.created",
      "pretix.event.order.refund.failed",
    ]);
  });

  it("Stripe down: 400 External error, the refund failed, and the amount is there to refund again later", async () => {
    const { s, order } = await paidShop();
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "error" });
    const res = await refund(s, order.code, { amount: "5.00" });
    expect(res).toMatchObject({
      status: 400,
      body: { detail: "External error: Stripe could not be reached. Please try again later." },
    });
    expect((await readOrder(s, order.code)).refunds).toEqual([expect.objectContaining({ state: "failed" })]);
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "off" });
    expect((await refund(s, order.code, { amount: "20.00" })).body).toMatchObject({ local_id: 2, state: "done" });
  });
});

describe("Stripe's refund events", () => {
  it("a refund Stripe has not settled yet is in transit; its later success makes it done", async () => {
    const { s, order } = await paidShop();
    await standin(s.secretKey, "POST", "/__standin/refund_status", { status: "pending" });
    const res = await refund(s, order.code, { amount: "5.00" });
    expect(res.body).toMatchObject({ state: "transit", execution_date: null });
    const stripeRefund = (await lastEvent(s, "refund.created")).data.object as { id: string };
    const { event } = await standin(s.secretKey, "POST", `/__standin/refunds/${stripeRefund.id}/status`, {
      status: "succeeded",
    });
    expect((await deliver(s, event)).status).toBe(200);
    const [after] = (await refundsOf(s, order.code)).body.results;
    expect(after).toMatchObject({ local_id: 1, state: "done", source: "admin" });
    expect(after.execution_date).not.toBeNull();
    // the creation's own event, delivered late, finds the refund by its metadata and changes nothing
    expect((await deliver(s, await lastEvent(s, "refund.created"))).status).toBe(200);
    expect((await refundsOf(s, order.code)).body.results).toEqual([after]);
  });

  it("a refund that fails later: failed, and its amount can be refunded again", async () => {
    const { s, order } = await paidShop();
    await standin(s.secretKey, "POST", "/__standin/refund_status", { status: "pending" });
    expect((await refund(s, order.code, { amount: "20.00", mark_canceled: false })).status).toBe(200);
    const stripeRefund = (await lastEvent(s, "refund.created")).data.object as { id: string };
    const { event } = await standin(s.secretKey, "POST", `/__standin/refunds/${stripeRefund.id}/status`, {
      status: "failed",
    });
    expect((await deliver(s, event)).status).toBe(200);
    expect((await refundsOf(s, order.code)).body.results[0].state).toBe("failed");
    await standin(s.secretKey, "POST", "/__standin/refund_status", { status: "succeeded" });
    expect((await refund(s, order.code, { amount: "20.00" })).body).toMatchObject({ local_id: 2, state: "done" });
  });
});
