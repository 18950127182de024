/**
 * The payment page of a card payment (provider `stripe`): it hands the customer to Stripe's
 * hosted checkout — the local stand-in of Stripe's API, which records what the service sent —
 * once per payment, within the order's reservation, back to the order page or the
 * `return_url`; framed it leaves the frame first; an expired or canceled order offers nothing;
 * Stripe being down is a clear page that changes nothing.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPayments, orders } from "../../src/db/schema";
import { PAYMENT_ERRORS } from "../../src/rules/payments";
import { db } from "../harness";
import { allowReturnUrls, getPage, placeOrder, postForm, readOrder, textOf, withQuery } from "../helpers/pages";
import {
  openPaymentPage,
  payAtStripe,
  sentToStripe,
  STANDIN,
  standin,
  stripeOrder,
  stripeShop,
} from "../helpers/stripe";

const RETURN = "https://shop.example.org/checkout/return?tx=42";

const sessionsCreated = async (key: string) =>
  (await sentToStripe(key)).filter((r) => r.method === "POST" && r.path === "/v1/checkout/sessions");

/** The payment's stored info, read from D1. */
async function storedInfo(code: string) {
  const [row] = await db()
    .select({ info: orderPayments.info })
    .from(orderPayments)
    .innerJoin(orders, eq(orders.id, orderPayments.orderId))
    .where(eq(orders.code, code));
  return row!.info;
}

describe("the hand-off to Stripe's checkout", () => {
  it("sends the customer to a Checkout Session for the payment's amount and currency, tied to the payment", async () => {
    const s = await stripeShop({ price: "23.50" });
    const { order, paymentUrl } = await stripeOrder(s, { email: "card@example.org" });
    expect(order.payments[0]).toMatchObject({ provider: "stripe", state: "created", amount: "23.50" });

    const page = await openPaymentPage(paymentUrl);
    expect(page.status).toBe(303);
    expect(page.location).toMatch(new RegExp(`^${STANDIN}/c/pay/cs_test_\\w+$`));

    const [sent] = await sessionsCreated(s.secretKey);
    const eventId = sent.params.metadata.event;
    expect(sent.params).toEqual({
      mode: "payment",
      line_items: [
        {
          quantity: "1",
          price_data: { currency: "eur", unit_amount: "2350", product_data: { name: `Concert – ${order.code}` } },
        },
      ],
      success_url: `${order.url}?paid=yes`,
      cancel_url: order.url,
      client_reference_id: `${order.code}-P-1`,
      customer_email: "card@example.org",
      metadata: { event: eventId, order: order.code, payment: "1" },
      payment_intent_data: { metadata: { event: eventId, order: order.code, payment: "1" } },
    });
    // the order is reserved for days: Stripe's own limit (24 hours) ends the session first
    expect(sent.params.expires_at).toBeUndefined();
    expect(sent.idempotencyKey).toBe(`checkout-${eventId}-${order.code}-1-1`);

    const after = await readOrder(s, order.code);
    const session = page.location!.split("/").at(-1);
    expect(after.payments[0]).toMatchObject({
      state: "created",
      payment_url: paymentUrl,
      details: { id: null, checkout_session: session },
    });
    expect(after.status).toBe("n");
  });

  it("once per payment: opened again, the same session without asking Stripe; opened five times at once, one session", async () => {
    const s = await stripeShop();
    const { paymentUrl } = await stripeOrder(s);
    const first = await openPaymentPage(paymentUrl);
    const again = await openPaymentPage(paymentUrl);
    expect(again.location).toBe(first.location);
    expect(await sessionsCreated(s.secretKey)).toHaveLength(1);

    const other = await stripeOrder(s);
    const pages = await Promise.all(Array.from({ length: 5 }, () => openPaymentPage(other.paymentUrl)));
    const locations = new Set(pages.map((p) => p.location));
    expect(pages.map((p) => p.status)).toEqual([303, 303, 303, 303, 303]);
    expect(locations.size).toBe(1);
    const created = (await sessionsCreated(s.secretKey)).slice(1);
    // every request sent the payment's one key: Stripe made one session and answered it to all
    expect(new Set(created.map((r) => r.idempotencyKey)).size).toBe(1);
  });

  it("comes back to the return_url: paid without error, went back with error=payment_aborted", async () => {
    const s = await stripeShop();
    await allowReturnUrls(s, "https://shop.example.org/checkout/", ["pretix.plugins.stripe"]);
    const { paymentUrl } = await stripeOrder(s);
    const page = await openPaymentPage(withQuery(paymentUrl, { return_url: RETURN }));
    expect(page.status).toBe(303);
    const [sent] = await sessionsCreated(s.secretKey);
    expect(sent.params.success_url).toBe(RETURN);
    expect(sent.params.cancel_url).toBe(`${RETURN}&error=payment_aborted`);
    expect(await payAtStripe(page.location!)).toBe(RETURN);
  });

  it("framed (iframe=1): a button that leaves the frame for the payment page, and nothing asked of Stripe yet", async () => {
    const s = await stripeShop();
    const { paymentUrl } = await stripeOrder(s);
    const page = await getPage(withQuery(paymentUrl, { iframe: "1" }));
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<a class="button" href="${paymentUrl}" target="_top">Pay by card</a>`);
    expect(page.headers.get("X-Frame-Options")).toBeNull();
    expect(await sessionsCreated(s.secretKey)).toHaveLength(0);
  });

  it("after paying, the order page says the payment is being processed until Stripe's webhook confirms it", async () => {
    const s = await stripeShop();
    const { order, paymentUrl } = await stripeOrder(s);
    const back = await payAtStripe((await openPaymentPage(paymentUrl)).location!);
    expect(back).toBe(`${order.url}?paid=yes`);
    const page = await getPage(back);
    expect(textOf(page.text)).toContain(
      "Thank you! Your payment is being processed; this page shows the order as paid as soon as the payment is confirmed.",
    );
  });
});

describe("nothing to pay", () => {
  it("an expired order: the page offers nothing and Stripe is not asked; pay/change no longer offers card payments", async () => {
    const s = await stripeShop();
    const { order, paymentUrl } = await stripeOrder(s);
    expect((await s.client.post(`${s.path}/orders/${order.code}/mark_expired/`)).status).toBe(200);
    const page = await openPaymentPage(paymentUrl);
    expect(page.status).toBe(400);
    expect(textOf(page.text)).toContain(PAYMENT_ERRORS.expired);
    expect(await sessionsCreated(s.secretKey)).toHaveLength(0);
    const change = await getPage(`${order.url}pay/change`);
    expect(change.text).not.toContain('value="stripe"');
    expect(change.text).toContain('value="giftcard"');
  });

  it("a canceled order: the payment is canceled with it, the page only says so", async () => {
    const s = await stripeShop();
    const { order, paymentUrl } = await stripeOrder(s);
    expect((await s.client.post(`${s.path}/orders/${order.code}/mark_canceled/`)).status).toBe(200);
    const page = await openPaymentPage(paymentUrl);
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("This payment is canceled.");
    expect(await sessionsCreated(s.secretKey)).toHaveLength(0);
  });

  it("an organizer without a Stripe key: not offered on pay/change, and a stripe payment's page says it is not available", async () => {
    const s = await stripeShop();
    expect(
      (await s.client.patch(`/api/v1/organizers/${s.orgSlug}/settings/`, { payment_stripe_secret_key: null })).status,
    ).toBe(200);
    const { order, paymentUrl } = await stripeOrder(s);
    const page = await openPaymentPage(paymentUrl);
    expect(page.status).toBe(400);
    expect(textOf(page.text)).toContain(PAYMENT_ERRORS.provider);
    expect((await getPage(`${order.url}pay/change`)).text).not.toContain('value="stripe"');
  });
});

describe("Stripe down", () => {
  for (const mode of ["error", "drop"] as const) {
    it(`(${mode === "error" ? "Stripe answers 500" : "the connection is cut"}): a clear error page, nothing changed, and the same link works later`, async () => {
      const s = await stripeShop();
      const { order, paymentUrl } = await stripeOrder(s);
      await standin(s.secretKey, "POST", "/__standin/outage", { mode });
      const down = await openPaymentPage(paymentUrl);
      expect(down.status).toBe(503);
      expect(textOf(down.text)).toContain(PAYMENT_ERRORS.stripe_unavailable);
      expect(down.text).toContain(`href="${paymentUrl}">Try again</a>`);
      // asked (once, then once more), and only the failed attempt counted (the next one sends a new key)
      expect((await sessionsCreated(s.secretKey)).length).toBeGreaterThanOrEqual(1);
      expect(await storedInfo(order.code)).toEqual({ checkout_failed_attempt: 1 });
      const unchanged = await readOrder(s, order.code);
      expect(unchanged.status).toBe("n");
      expect(unchanged.payments[0]).toMatchObject({ state: "created", details: { id: null, checkout_session: null } });

      await standin(s.secretKey, "POST", "/__standin/outage", { mode: "off" });
      const later = await openPaymentPage(paymentUrl);
      expect(later.status).toBe(303);
      expect(later.location).toMatch(/\/c\/pay\/cs_test_/);
    });
  }
});

describe("after Stripe's 500 (kept by Stripe under its idempotency key for 24 hours)", () => {
  it("the next attempt sends a new key and gets a session; the failed key is never sent again", async () => {
    const s = await stripeShop();
    const { order, paymentUrl } = await stripeOrder(s);
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "error_once" });
    const down = await openPaymentPage(paymentUrl);
    expect(down.status).toBe(503);
    expect(textOf(down.text)).toContain(PAYMENT_ERRORS.stripe_unavailable);

    const later = await openPaymentPage(paymentUrl);
    expect(later.status).toBe(303);
    expect(later.location).toMatch(/\/c\/pay\/cs_test_/);
    const again = await openPaymentPage(paymentUrl);
    expect(again.location).toBe(later.location);

    const sent = await sessionsCreated(s.secretKey);
    const eventId = sent[0]!.params.metadata.event;
    const base = `checkout-${eventId}-${order.code}-1`;
    expect(sent.map((r) => r.idempotencyKey)).toEqual([`${base}-1`, `${base}-2`]);
    expect(await storedInfo(order.code)).toMatchObject({ checkout_failed_attempt: 1, checkout_attempt: 2 });
    expect((await readOrder(s, order.code)).payments[0]).toMatchObject({
      state: "created",
      details: { checkout_session: later.location!.split("/").at(-1) },
    });
  });

  it("the stand-in, as Stripe, answers the stored 500 again for the same key, and a new key normally", async () => {
    const s = await stripeShop();
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "error_once" });
    const stripe = s.stripe;
    const params = {
      mode: "payment" as const,
      success_url: "https://x.example/",
      line_items: [{ quantity: 1, price_data: { currency: "eur", unit_amount: 100, product_data: { name: "T" } } }],
    };
    const first = await stripe.checkout.sessions.create(params, { idempotencyKey: "k-1" }).catch((e) => e);
    const replay = await stripe.checkout.sessions.create(params, { idempotencyKey: "k-1" }).catch((e) => e);
    const fresh = await stripe.checkout.sessions.create(params, { idempotencyKey: "k-2" }).catch((e) => e);
    expect([first.statusCode, replay.statusCode]).toEqual([500, 500]);
    expect(fresh.statusCode).toBeUndefined();
  });
});

describe("pay/change", () => {
  it("offers card payments with the Stripe plugin and keys; choosing it leads to the hand-off", async () => {
    const s = await stripeShop();
    const o = await placeOrder(s);
    const form = await getPage(`${o.url}pay/change`);
    expect(textOf(form.text)).toContain("Credit card (Stripe) Pay by card on Stripe's secure payment page.");
    const chosen = await postForm(`${o.url}pay/change`, { provider: "stripe" });
    expect(chosen.status).toBe(303);
    expect(chosen.location).toBe(`${o.url}pay/1/`);
    const page = await openPaymentPage(chosen.location!);
    expect(page.status).toBe(303);
    expect((await readOrder(s, o.code)).payments).toEqual([
      expect.objectContaining({ local_id: 1, provider: "stripe", state: "created" }),
    ]);
  });

  it("does not offer card payments without the event's Stripe plugin", async () => {
    const s = await stripeShop({ event: { plugins: [] } });
    const o = await placeOrder(s);
    expect((await getPage(`${o.url}pay/change`)).text).not.toContain('value="stripe"');
  });
});
