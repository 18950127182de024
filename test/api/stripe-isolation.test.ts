/**
 * What keeps one organizer's card payments apart from another's and from a payment that closed
 * (issue 36 point 6): a Stripe event of one organizer's account whose PaymentIntent names
 * another organizer's order changes nothing (both in one database group); a Checkout Session
 * made while its payment was canceled or paid is stored on it in no way; a sealed Stripe key
 * copied to another organizer's row does not open there; two different events about one refund
 * processed at once record one refund.
 */
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  orderPayments,
  orderRefunds,
  orders,
  organizerSettings,
  stripeObjects,
  webhookCalls,
} from "../../src/db/schema";
import { storeCheckout } from "../../src/db/stripe";
import { stripeKeys } from "../../src/services/payments/stripe-client";
import { db, type Json } from "../harness";
import { readOrder } from "../helpers/pages";
import {
  deliver,
  lastEvent,
  openPaymentPage,
  paidByCard,
  payAtStripe,
  type StripeShop,
  stripeOrder,
  stripeShop,
} from "../helpers/stripe";

const paymentRow = async (s: StripeShop, code: string) =>
  (
    await db()
      .select({ id: orderPayments.id, state: orderPayments.state, info: orderPayments.info })
      .from(orderPayments)
      .innerJoin(orders, eq(orders.id, orderPayments.orderId))
      .where(and(eq(orders.eventId, s.eventId), eq(orders.code, code)))
  )[0]!;

describe("one organizer's Stripe account cannot reach another organizer's orders", () => {
  it("a refund of a PaymentIntent whose metadata names the other organizer's order changes nothing there", async () => {
    const s = await stripeShop();
    const other = await stripeShop();
    expect(other.org.group).toBe(s.org.group);
    const { order } = await stripeOrder(s);
    // in the other organizer's Stripe account, a payment whose metadata names this organizer's order
    const metadata = { event: String(s.eventId), order: order.code, payment: "1" };
    const session = await other.stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ quantity: 1, price_data: { currency: "eur", unit_amount: 2000, product_data: { name: "x" } } }],
      success_url: "https://example.org/ok",
      metadata,
      payment_intent_data: { metadata },
    });
    await payAtStripe(session.url!);
    const intent = (await lastEvent(other, "payment_intent.succeeded")).data.object as { id: string };
    await other.stripe.refunds.create({ payment_intent: intent.id, amount: 500 });
    for (const type of ["checkout.session.completed", "payment_intent.succeeded", "refund.created"])
      expect((await deliver(other, await lastEvent(other, type))).status, type).toBe(200);
    const after = await readOrder(s, order.code);
    expect(after.status).toBe("n");
    expect(after.payments.map((p: Json) => p.state)).toEqual(["created"]);
    expect(after.refunds).toEqual([]);
    expect(await db().select().from(stripeObjects).where(eq(stripeObjects.organizerId, other.org.id))).toEqual([]);
  });
});

describe("a Checkout Session of a payment that closed meanwhile", () => {
  for (const state of ["canceled", "confirmed"] as const) {
    it(`is stored on a payment ${state} while Stripe made it in no way: neither its info nor a link`, async () => {
      const s = await stripeShop();
      const { order, paymentUrl } = await stripeOrder(s);
      const payment = await paymentRow(s, order.code);
      await db().update(orderPayments).set({ state }).where(eq(orderPayments.id, payment.id));
      const stored = await storeCheckout(
        db(),
        s.org.id,
        payment.id,
        { session: "cs_test_late", url: "https://checkout.example/late", expires: Date.now() + 3_600_000, attempt: 1 },
        Date.now(),
      );
      expect(stored).toBe(false);
      expect((await paymentRow(s, order.code)).info).toEqual(payment.info);
      expect(
        await db()
          .select()
          .from(stripeObjects)
          .where(and(eq(stripeObjects.organizerId, s.org.id), eq(stripeObjects.reference, "cs_test_late"))),
      ).toEqual([]);
      // an open payment takes its session and the link in the same batch
      await db().update(orderPayments).set({ state: "created" }).where(eq(orderPayments.id, payment.id));
      expect((await openPaymentPage(paymentUrl)).status).toBe(303);
      const linked = await db().select().from(stripeObjects).where(eq(stripeObjects.paymentId, payment.id));
      expect(linked).toHaveLength(1);
      expect((await paymentRow(s, order.code)).info.checkout_session).toBe(linked[0]!.reference);
    });
  }
});

describe("a sealed Stripe key", () => {
  it("copied to another organizer's settings row does not open there", async () => {
    const s = await stripeShop();
    const other = await stripeShop();
    const own = await db().select().from(organizerSettings).where(eq(organizerSettings.organizerId, s.org.id));
    expect(own.length).toBeGreaterThanOrEqual(2);
    for (const row of own)
      await db()
        .update(organizerSettings)
        .set({ value: row.value })
        .where(and(eq(organizerSettings.organizerId, other.org.id), eq(organizerSettings.key, row.key)));
    expect((await stripeKeys(env, db(), s.org.id)).secretKey).toBe(s.secretKey);
    expect(await stripeKeys(env, db(), other.org.id)).toEqual({ secretKey: null, webhookSecret: null });
    // the copied webhook secret opens nothing either: a delivery signed with it is refused
    expect(
      (await deliver(other, { id: "evt_x", object: "event", type: "customer.created", data: { object: {} } })).status,
    ).not.toBe(200);
  });
});

describe("one refund, told by several events", () => {
  it("two different events about one dashboard refund processed at once record one refund", async () => {
    const s = await stripeShop();
    const hook = await s.client.post(`/api/v1/organizers/${s.orgSlug}/webhooks/`, {
      target_url: "https://hooks.example.org/tickets",
      action_types: ["pretix.event.order.refund.created.externally"],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const order = await paidByCard(s);
    expect(order.status).toBe("p");
    const intent = (await lastEvent(s, "payment_intent.succeeded")).data.object as { id: string };
    await s.stripe.refunds.create({ payment_intent: intent.id, amount: 700 });
    const created = await lastEvent(s, "refund.created");
    // the same refund as Stripe's other event types carry it, each an event of its own
    const others = ["refund.updated", "charge.refund.updated", "refund.updated"].map((type, i) => ({
      ...created,
      id: `${created.id}_${i}`,
      type,
    }));
    const answers = await Promise.all([created, ...others, created].map((e) => deliver(s, e)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const after = await readOrder(s, order.code);
    expect(after.refunds).toEqual([expect.objectContaining({ local_id: 1, amount: "7.00", source: "external" })]);
    const orderId = (await db().select({ id: orders.id }).from(orders).where(eq(orders.code, order.code)))[0]!.id;
    expect(await db().select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId))).toHaveLength(1);
    const calls = await db().select().from(webhookCalls).where(eq(webhookCalls.code, order.code));
    expect(calls.filter((c) => c.actionType === "pretix.event.order.refund.created.externally")).toHaveLength(1);
  });
});
