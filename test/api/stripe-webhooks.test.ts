/**
 * Stripe's webhooks (`POST /api/v1/organizers/{o}/stripe/webhook/`): events made by the local
 * stand-in of Stripe's API as the customer pays, signed with the SDK's own test helper and
 * delivered as Stripe delivers them. A completed payment confirms through the event object
 * (order paid, mail, this service's webhooks); each event acts once however often, and in any
 * order it arrives; forged, tampered and stale deliveries are refused and change nothing.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, orders, stripeEvents, webhookCalls } from "../../src/db/schema";
import { BAD_SIGNATURE, NO_WEBHOOK_SECRET } from "../../src/services/payments/stripe-events";
import { BASE, db, seedOrganizer } from "../harness";
import { readOrder } from "../helpers/pages";
import {
  deliver,
  deliverRaw,
  lastEvent,
  openPaymentPage,
  paidByCard,
  payAtStripe,
  signature,
  standin,
  type StripeShop,
  stripeOrder,
  stripeShop,
} from "../helpers/stripe";

const ACTIONS = [
  "pretix.event.order.payment.confirmed",
  "pretix.event.order.paid",
  "pretix.event.order.refund.created.externally",
];

/** A shop whose organizer also has a webhook of this service listening to payment actions. */
async function shopWithWebhook(opts: Parameters<typeof stripeShop>[0] = {}) {
  const s = await stripeShop(opts);
  const res = await s.client.post(`/api/v1/organizers/${s.orgSlug}/webhooks/`, {
    target_url: "https://hooks.example.org/tickets",
    action_types: ACTIONS,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return s;
}

async function callsOf(code: string): Promise<string[]> {
  const rows = await db().select().from(webhookCalls).where(eq(webhookCalls.code, code)).orderBy(webhookCalls.id);
  return rows.map((r) => r.actionType);
}

/** The organizer's mails of a kind to an address (other test files mail the same addresses: they share the database). */
async function mailsOf(s: StripeShop, address: string, kind: string) {
  return db()
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.organizerId, s.org.id), eq(mailOutbox.toAddress, address), eq(mailOutbox.kind, kind)));
}

async function recordedEvents(s: StripeShop) {
  return db().select().from(stripeEvents).where(eq(stripeEvents.organizerId, s.org.id));
}

/** An order paid at Stripe's checkout whose completion event has not been delivered yet. */
async function paidAtStripe(s: StripeShop, email = "buyer@example.org") {
  const { order, paymentUrl } = await stripeOrder(s, { email });
  await payAtStripe((await openPaymentPage(paymentUrl)).location!);
  return { order, completed: await lastEvent(s, "checkout.session.completed") };
}

describe("a completed payment", () => {
  it("confirms the payment and marks the order paid, with the paid mail and this service's webhooks", async () => {
    const s = await shopWithWebhook();
    const { order, completed } = await paidAtStripe(s, "paid-by-card@example.org");
    expect(await deliver(s, completed)).toEqual({ status: 200, body: { received: true } });
    const after = await readOrder(s, order.code);
    expect(after.status).toBe("p");
    const intent = (await lastEvent(s, "payment_intent.succeeded")).data.object as { id: string };
    expect(after.payments[0]).toMatchObject({
      local_id: 1,
      state: "confirmed",
      provider: "stripe",
      payment_url: null,
      details: { id: intent.id, checkout_session: (completed.data.object as { id: string }).id },
    });
    expect(after.payments[0].payment_date).not.toBeNull();
    expect(await mailsOf(s, "paid-by-card@example.org", "order_paid")).toHaveLength(1);
    expect(await callsOf(order.code)).toEqual(["pretix.event.order.payment.confirmed", "pretix.event.order.paid"]);
    expect((await recordedEvents(s)).map((e) => [e.eventId, e.type])).toEqual([[completed.id, completed.type]]);
  });

  it("the same webhook delivered ten times at once confirms once: one mail, one set of webhook calls", async () => {
    const s = await shopWithWebhook();
    const { order, completed } = await paidAtStripe(s, "ten-times@example.org");
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(s, completed)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect((await readOrder(s, order.code)).status).toBe("p");
    expect(await mailsOf(s, "ten-times@example.org", "order_paid")).toHaveLength(1);
    expect(await callsOf(order.code)).toEqual(["pretix.event.order.payment.confirmed", "pretix.event.order.paid"]);
    expect(await recordedEvents(s)).toHaveLength(1);

    // and once more, later: still nothing new
    expect((await deliver(s, completed)).status).toBe(200);
    expect(await mailsOf(s, "ten-times@example.org", "order_paid")).toHaveLength(1);
    expect(await callsOf(order.code)).toHaveLength(2);
  });

  it("a debit that settles later: pending at completion, confirmed and paid when it succeeds", async () => {
    const s = await stripeShop();
    const { order, paymentUrl } = await stripeOrder(s);
    const checkout = (await openPaymentPage(paymentUrl)).location!;
    await payAtStripe(checkout, "processing");
    expect((await deliver(s, await lastEvent(s, "checkout.session.completed"))).status).toBe(200);
    let now = await readOrder(s, order.code);
    expect([now.status, now.payments[0].state]).toEqual(["n", "pending"]);

    const session = checkout.split("/").at(-1)!;
    await standin(s.secretKey, "POST", `/__standin/sessions/${session}/settle`, { result: "succeeded" });
    expect((await deliver(s, await lastEvent(s, "checkout.session.async_payment_succeeded"))).status).toBe(200);
    now = await readOrder(s, order.code);
    expect([now.status, now.payments[0].state]).toEqual(["p", "confirmed"]);
  });

  it("a debit that fails: the payment failed, pretix's payment failed mail, the order still pending and payable", async () => {
    const s = await stripeShop();
    const { order, paymentUrl } = await stripeOrder(s, { email: "debit@example.org" });
    const checkout = (await openPaymentPage(paymentUrl)).location!;
    await payAtStripe(checkout, "processing");
    await deliver(s, await lastEvent(s, "checkout.session.completed"));
    await standin(s.secretKey, "POST", `/__standin/sessions/${checkout.split("/").at(-1)}/settle`, {
      result: "failed",
    });
    expect((await deliver(s, await lastEvent(s, "checkout.session.async_payment_failed"))).status).toBe(200);
    const after = await readOrder(s, order.code);
    expect([after.status, after.payments[0].state]).toEqual(["n", "failed"]);
    const [mail] = await mailsOf(s, "debit@example.org", "order_payment_failed");
    expect(mail?.subject).toBe(`Payment failed for your order: ${order.code}`);
  });

  it("an expired Checkout Session cancels the payment; the customer chooses again on pay/change", async () => {
    const s = await stripeShop();
    const { order, paymentUrl } = await stripeOrder(s);
    const session = (await openPaymentPage(paymentUrl)).location!.split("/").at(-1)!;
    await s.stripe.checkout.sessions.expire(session);
    expect((await deliver(s, await lastEvent(s, "checkout.session.expired"))).status).toBe(200);
    const after = await readOrder(s, order.code);
    expect([after.status, after.payments[0].state, after.payments[0].payment_url]).toEqual(["n", "canceled", null]);
  });
});

describe("payments that cannot make the order paid (pretix: the payment is confirmed, the order stays)", () => {
  it("the order expired and its quota is gone: payment confirmed, order expired, no paid mail, only payment.confirmed", async () => {
    const s = await shopWithWebhook({ size: 1 });
    const { order, completed } = await paidAtStripe(s, "late@example.org");
    expect((await s.client.post(`${s.path}/orders/${order.code}/mark_expired/`)).status).toBe(200);
    const other = await s.client.post(`${s.path}/orders/`, {
      positions: [{ item: s.ticket.id }],
      status: "p",
      payment_provider: "manual",
    });
    expect(other.status).toBe(201);
    expect((await deliver(s, completed)).status).toBe(200);
    const after = await readOrder(s, order.code);
    expect(after.status).toBe("e");
    expect(after.payments[0].state).toBe("confirmed");
    expect(await mailsOf(s, "late@example.org", "order_paid")).toHaveLength(0);
    expect(await callsOf(order.code)).toEqual(["pretix.event.order.payment.confirmed"]);
  });

  it("the order expired but its quota is there: it becomes paid", async () => {
    const s = await stripeShop({ size: 1 });
    const { order, completed } = await paidAtStripe(s);
    expect((await s.client.post(`${s.path}/orders/${order.code}/mark_expired/`)).status).toBe(200);
    expect((await deliver(s, completed)).status).toBe(200);
    expect((await readOrder(s, order.code)).status).toBe("p");
  });

  it("the order was canceled meanwhile: the (canceled) payment is confirmed, the order stays canceled", async () => {
    const s = await stripeShop();
    const { order, completed } = await paidAtStripe(s);
    expect((await s.client.post(`${s.path}/orders/${order.code}/mark_canceled/`)).status).toBe(200);
    expect((await deliver(s, completed)).status).toBe(200);
    const after = await readOrder(s, order.code);
    expect([after.status, after.payments[0].state]).toEqual(["c", "confirmed"]);
  });
});

describe("in any order", () => {
  it("a refund made in Stripe's dashboard arrives before the payment's completion: payment confirmed first, then the external refund", async () => {
    const s = await shopWithWebhook();
    const { order, completed } = await paidAtStripe(s, "early-refund@example.org");
    const intent = (await lastEvent(s, "payment_intent.succeeded")).data.object as { id: string };
    await s.stripe.refunds.create({ payment_intent: intent.id, amount: 500 });
    expect((await deliver(s, await lastEvent(s, "refund.created"))).status).toBe(200);
    let after = await readOrder(s, order.code);
    expect(after.status).toBe("p");
    expect(after.payments[0].state).toBe("confirmed");
    expect(after.refunds).toEqual([
      expect.objectContaining({
        local_id: 1,
        state: "external",
        source: "external",
        amount: "5.00",
        payment: 1,
        provider: "stripe",
      }),
    ]);

    // the completion comes last: nothing more happens
    expect((await deliver(s, completed)).status).toBe(200);
    after = await readOrder(s, order.code);
    expect(after.status).toBe("p");
    expect(after.refunds).toHaveLength(1);
    expect(await mailsOf(s, "early-refund@example.org", "order_paid")).toHaveLength(1);
    expect(await callsOf(order.code)).toEqual([
      "pretix.event.order.payment.confirmed",
      "pretix.event.order.paid",
      "pretix.event.order.refund.created.externally",
    ]);
  });

  it("Stripe unreachable while a refund event needs the PaymentIntent: 503, nothing recorded, delivered again it applies", async () => {
    const s = await stripeShop();
    const { order } = await paidAtStripe(s);
    const intent = (await lastEvent(s, "payment_intent.succeeded")).data.object as { id: string };
    await s.stripe.refunds.create({ payment_intent: intent.id });
    const refundEvent = await lastEvent(s, "refund.created");
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "error" });
    expect((await deliver(s, refundEvent)).status).toBe(503);
    expect(await recordedEvents(s)).toHaveLength(0);
    expect((await readOrder(s, order.code)).status).toBe("n");
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "off" });
    expect((await deliver(s, refundEvent)).status).toBe(200);
    const after = await readOrder(s, order.code);
    expect([after.status, after.refunds.length]).toEqual(["p", 1]);
  });
});

describe("refused deliveries change nothing", () => {
  async function refused(
    mutate: (s: StripeShop, payload: string) => Promise<{ payload: string; header: string | null }>,
  ) {
    const s = await stripeShop();
    const { order, completed } = await paidAtStripe(s);
    const { payload, header } = await mutate(s, JSON.stringify(completed));
    const res = await deliverRaw(s.webhookUrl, payload, header);
    const after = await readOrder(s, order.code);
    expect([after.status, after.payments[0].state]).toEqual(["n", "created"]);
    expect(await recordedEvents(s)).toEqual([]);
    return res;
  }

  it("a forged signature (another secret)", async () => {
    const res = await refused(async (_s, payload) => ({
      payload,
      header: await signature(payload, "whsec_forged0000"),
    }));
    expect(res).toEqual({ status: 400, body: { detail: BAD_SIGNATURE } });
  });

  it("a replayed old signature (signed ten minutes ago)", async () => {
    const res = await refused(async (s, payload) => ({
      payload,
      header: await signature(payload, s.webhookSecret, Math.floor(Date.now() / 1000) - 600),
    }));
    expect(res).toEqual({ status: 400, body: { detail: BAD_SIGNATURE } });
  });

  it("a body changed after signing", async () => {
    const res = await refused(async (s, payload) => ({
      payload: payload.replace('"payment_status":"paid"', '"payment_status":"paid" '),
      header: await signature(payload, s.webhookSecret),
    }));
    expect(res).toEqual({ status: 400, body: { detail: BAD_SIGNATURE } });
  });

  it("no signature at all", async () => {
    const res = await refused(async (_s, payload) => ({ payload, header: null }));
    expect(res).toEqual({ status: 400, body: { detail: BAD_SIGNATURE } });
  });

  it("a correctly signed body that is no Stripe event: 400 naming the fields", async () => {
    const s = await stripeShop();
    const { order } = await paidAtStripe(s);
    const payload = JSON.stringify({ object: "event", type: 7, data: { object: "cs_test" } });
    const res = await deliverRaw(s.webhookUrl, payload, await signature(payload, s.webhookSecret));
    expect(res).toEqual({
      status: 400,
      body: {
        id: ["This field is required."],
        type: ["Not a valid string."],
        data: { object: ["Expected an object."] },
      },
    });
    expect((await readOrder(s, order.code)).status).toBe("n");
    expect(await recordedEvents(s)).toEqual([]);
  });

  it("an organizer without a webhook secret, and an unknown organizer", async () => {
    const org = await seedOrganizer();
    const payload = JSON.stringify({
      id: "evt_x",
      object: "event",
      type: "checkout.session.completed",
      data: { object: {} },
    });
    const header = await signature(payload, "whsec_anything");
    expect(await deliverRaw(`${BASE}/api/v1/organizers/${org.slug}/stripe/webhook/`, payload, header)).toEqual({
      status: 400,
      body: { detail: NO_WEBHOOK_SECRET },
    });
    expect((await deliverRaw(`${BASE}/api/v1/organizers/no-such-org/stripe/webhook/`, payload, header)).status).toBe(
      404,
    );
  });
});

describe("events of no interest", () => {
  it("are answered and recorded; an event about a session that is none of the organizer's changes nothing", async () => {
    const s = await stripeShop();
    const other = await stripeShop();
    const { order, completed } = await paidAtStripe(other);
    // the other organizer's completion, signed with this organizer's secret
    expect((await deliver(s, completed)).status).toBe(200);
    expect((await readOrder(other, order.code)).status).toBe("n");
    const ping = { id: "evt_test_ping", object: "event", type: "customer.created", data: { object: { id: "cus_1" } } };
    expect(await deliver(s, ping)).toEqual({ status: 200, body: { received: true } });
    expect((await recordedEvents(s)).map((e) => e.eventId).sort()).toEqual([completed.id, "evt_test_ping"].sort());
    expect(await db().select().from(orders).where(eq(orders.code, order.code))).toHaveLength(1);
  });
});

describe("the whole flow", () => {
  it("order → payment page → Stripe's checkout → webhook: paid", async () => {
    const s = await stripeShop();
    const after = await paidByCard(s);
    expect(after.status).toBe("p");
  });
});
