/**
 * Card payments in the tests: the local stand-in of Stripe's HTTP API (test/stripe/standin.ts,
 * at STRIPE_API_BASE), an account of its own per shop (a fresh `sk_test_…` key), the official
 * SDK pointed at the stand-in for what the organizer does in Stripe's dashboard (refunds,
 * expiring a session, reading events), and webhook deliveries signed with the SDK's own test
 * helper, sent to the service as Stripe sends them.
 */
import { env, exports } from "cloudflare:workers";
import Stripe from "stripe";
import { expect } from "vitest";
import { randomString } from "../../src/lib/crypto";
import { BASE, type Json } from "../harness";
import { type OrderShop, placeOrder, readOrder, ticketShop } from "./pages";

export const STANDIN = (env as unknown as { STRIPE_API_BASE: string }).STRIPE_API_BASE;

const crypto = Stripe.createSubtleCryptoProvider();

/** The SDK on the stand-in account of `key` (the organizer's own view of its Stripe account). */
export function stripeAs(key: string): Stripe {
  const u = new URL(STANDIN);
  return new Stripe(key, {
    host: u.hostname,
    port: Number(u.port),
    protocol: "http",
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 0,
  });
}

export type StripeShop = OrderShop & { secretKey: string; webhookSecret: string; webhookUrl: string; stripe: Stripe };

export const newSecretKey = () => `sk_test_${randomString(24)}`;
export const newWebhookSecret = () => `whsec_${randomString(32)}`;

/** A ticket shop whose organizer takes card payments: Stripe keys set, the event's Stripe plugin on. */
export async function stripeShop(opts: { size?: number; price?: string; event?: Record<string, unknown> } = {}) {
  const s = await ticketShop({ ...opts, event: { plugins: ["pretix.plugins.stripe"], ...opts.event } });
  const secretKey = newSecretKey();
  const webhookSecret = newWebhookSecret();
  const res = await s.client.patch(`/api/v1/organizers/${s.orgSlug}/settings/`, {
    payment_stripe_secret_key: secretKey,
    payment_stripe_webhook_secret: webhookSecret,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const webhookUrl = `${BASE}/api/v1/organizers/${s.orgSlug}/stripe/webhook/`;
  return { ...s, secretKey, webhookSecret, webhookUrl, stripe: stripeAs(secretKey) } satisfies StripeShop;
}

/** A pending order paying by card, with its payment's `payment_url`. */
export async function stripeOrder(s: StripeShop, body: Record<string, unknown> = {}) {
  const o = await placeOrder(s, { payment_provider: "stripe", ...body });
  return { order: o, paymentUrl: o.payments[0].payment_url as string };
}

/** Opens the payment page: its answer (a 303 to the stand-in's checkout page when it hands off). */
export async function openPaymentPage(url: string) {
  const res = await exports.default.fetch(new Request(url, { redirect: "manual" }));
  return { status: res.status, location: res.headers.get("Location"), text: await res.text() };
}

/** The customer at the stand-in's checkout page: pays (or starts a debit that settles later); where Stripe sends them. */
export async function payAtStripe(checkoutUrl: string, outcome: "paid" | "processing" = "paid"): Promise<string> {
  const res = await fetch(checkoutUrl, {
    method: "POST",
    body: new URLSearchParams({ outcome }),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    redirect: "manual",
  });
  expect(res.status).toBe(303);
  await res.arrayBuffer();
  return res.headers.get("Location")!;
}

/** A test control of the stand-in account (outage, how refunds end, settling a debit, a refund's later state). */
export async function standin(key: string, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${STANDIN}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** What the service sent to Stripe (the stand-in's record of the account's API requests). */
export async function sentToStripe(key: string): Promise<Json[]> {
  return (await standin(key, "GET", "/__standin/requests")).requests;
}

/** The account's events of a type, newest first, as Stripe lists them. */
export async function stripeEvents(s: StripeShop, type: string): Promise<Stripe.Event[]> {
  return (await s.stripe.events.list({ type, limit: 100 })).data;
}

/** The newest event of a type. */
export async function lastEvent(s: StripeShop, type: string): Promise<Stripe.Event> {
  const [e] = await stripeEvents(s, type);
  expect(e, `no ${type} event`).toBeDefined();
  return e!;
}

/** A `Stripe-Signature` header for `payload` (the SDK's test helper); `timestamp` in Unix seconds. */
export function signature(payload: string, secret: string, timestamp?: number): Promise<string> {
  return Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp, cryptoProvider: crypto });
}

export type Delivery = { status: number; body: Json };

/** Delivers a webhook as Stripe does: the JSON body with its signature header. */
export async function deliverRaw(url: string, payload: string, header: string | null): Promise<Delivery> {
  const headers: Record<string, string> = { "Content-Type": "application/json; charset=utf-8" };
  if (header !== null) headers["Stripe-Signature"] = header;
  const res = await exports.default.fetch(new Request(url, { method: "POST", headers, body: payload }));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Delivers one of the account's events to the organizer's endpoint, correctly signed. */
export async function deliver(s: StripeShop, event: Stripe.Event | Json): Promise<Delivery> {
  const payload = JSON.stringify(event);
  return deliverRaw(s.webhookUrl, payload, await signature(payload, s.webhookSecret));
}

/** Order → payment page → Stripe's checkout (paid) → the completion's webhook: the order as it is then. */
export async function paidByCard(s: StripeShop, body: Record<string, unknown> = {}) {
  const { order, paymentUrl } = await stripeOrder(s, body);
  const page = await openPaymentPage(paymentUrl);
  expect(page.status).toBe(303);
  await payAtStripe(page.location!);
  const delivered = await deliver(s, await lastEvent(s, "checkout.session.completed"));
  expect(delivered).toEqual({ status: 200, body: { received: true } });
  return readOrder(s, order.code);
}
