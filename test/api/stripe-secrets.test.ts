/**
 * The organizer's Stripe keys never come back: not in an API answer (settings, the organizer,
 * orders, payments, refunds, the payment page, refusals of a bad key), not in a log line (every
 * console call the service makes while the keys are set, used, refused by Stripe, and while
 * Stripe is down), not in an export, a mail or a webhook of this service; and D1 holds them
 * sealed only.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mailOutbox, organizerSettings, webhookCalls } from "../../src/db/schema";
import type { ExportMessage } from "../../src/lib/queues";
import { db } from "../harness";
import { captureExportMessages, drain } from "../helpers/exports";
import { getPage, placeOrder, readOrder } from "../helpers/pages";
import { newSecretKey, openPaymentPage, paidByCard, standin, type StripeShop, stripeShop } from "../helpers/stripe";

/** Everything the service wrote to the console, each call as one text. */
let logged: string[] = [];
let exportsSent: ExportMessage[] = [];

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return `${value.name}: ${value.message}\n${value.stack ?? ""}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

beforeEach(() => {
  logged = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logged.push(args.map(text).join(" "));
    });
  }
  exportsSent = captureExportMessages();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Answers collected as text, to search for the keys. */
class Seen {
  readonly texts: string[] = [];
  add(label: string, value: unknown): void {
    this.texts.push(`${label}: ${text(value)}`);
  }
  expectFreeOf(...secrets: string[]): void {
    expect(this.texts.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      const found = this.texts.filter((t) => t.includes(secret));
      expect(found, `a secret appears in: ${found.join("\n").slice(0, 500)}`).toEqual([]);
    }
  }
}

async function runExport(s: StripeShop, base: string, identifier: string, body: unknown): Promise<unknown> {
  const run = await s.client.post(`${base}/exporters/${identifier}/run/`, body);
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  await drain(exportsSent);
  const file = await s.client.get(run.body.download);
  expect(file.status).toBe(200);
  return file.text;
}

describe("the organizer's Stripe keys are never shown", () => {
  it("not in any answer, log line, export, mail or webhook while they are set, used and refunded with", async () => {
    const s = await stripeShop();
    const keys = [s.secretKey, s.webhookSecret];
    const seen = new Seen();
    await s.client.post(`/api/v1/organizers/${s.orgSlug}/webhooks/`, {
      target_url: "https://hooks.example.org/all",
      action_types: ["pretix.event.order.paid", "pretix.event.order.refund.done"],
    });
    const org = `/api/v1/organizers/${s.orgSlug}`;

    // setting them again answers only that they are set
    const set = await s.client.patch(`${org}/settings/`, {
      payment_stripe_secret_key: s.secretKey,
      payment_stripe_webhook_secret: s.webhookSecret,
    });
    expect(set.status).toBe(200);
    expect([set.body.payment_stripe_secret_key, set.body.payment_stripe_webhook_secret]).toEqual([true, true]);
    seen.add("PATCH settings", set.body);
    for (const path of [`${org}/settings/`, `${org}/settings/?explain=true`, `${org}/`, `/api/v1/openapi.json`]) {
      const res = await s.client.get(path);
      expect(res.status).toBe(200);
      seen.add(`GET ${path}`, res.body);
    }

    // paid by card, the payment page, a partial refund, the order and its refunds
    const order = await paidByCard(s);
    expect(order.status).toBe("p");
    seen.add("order", order);
    const page = await getPage(order.url);
    seen.add("order page", page.text);
    const refund = await s.client.post(`${s.path}/orders/${order.code}/payments/1/refund/`, { amount: "1.00" });
    expect(refund.status).toBe(200);
    seen.add("refund", refund.body);
    seen.add("refunds", (await s.client.get(`${s.path}/orders/${order.code}/refunds/`)).body);
    seen.add("payments", (await s.client.get(`${s.path}/orders/${order.code}/payments/`)).body);
    seen.add("order after", await readOrder(s, order.code));

    // Stripe down while a customer opens the payment page: logged, without the key
    const pending = await placeOrder(s, { payment_provider: "stripe" });
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "error" });
    const down = await openPaymentPage(pending.payments[0].payment_url);
    await standin(s.secretKey, "POST", "/__standin/outage", { mode: "off" });
    expect(down.status).toBe(503);
    seen.add("payment page, Stripe down", down.text);

    // exports of the event and of the organizer
    seen.add("json export", await runExport(s, s.path, "json", {}));
    seen.add("orderlist export", await runExport(s, org, "orderlist", { _format: "orders:default" }));

    // what the service sent out: mails, its own webhooks
    for (const m of await db().select().from(mailOutbox)) seen.add("mail", m);
    for (const w of await db().select().from(webhookCalls)) seen.add("webhook", w.payload);

    seen.expectFreeOf(...keys);
    expect(logged.length).toBeGreaterThan(5);
    expect(logged.some((l) => l.includes("a Stripe Checkout Session could not be created"))).toBe(true);
    expect(logged.filter((l) => keys.some((k) => l.includes(k)))).toEqual([]);

    // stored sealed: D1 has neither key in the clear
    const stored = await db().select().from(organizerSettings).where(eq(organizerSettings.organizerId, s.org.id));
    const secrets = stored.filter((r) => r.key.startsWith("payment_stripe_"));
    expect(secrets.map((r) => r.key).sort()).toEqual(["payment_stripe_secret_key", "payment_stripe_webhook_secret"]);
    for (const r of secrets) for (const k of keys) expect(JSON.stringify(r.value)).not.toContain(k);
  });

  it("not in the refusal of a malformed key, nor in the log when Stripe refuses the key", async () => {
    const s = await stripeShop();
    const seen = new Seen();
    const org = `/api/v1/organizers/${s.orgSlug}`;
    const malformed = `pk_test_${newSecretKey().slice(8)}`;
    const refused = await s.client.patch(`${org}/settings/`, { payment_stripe_secret_key: malformed });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      payment_stripe_secret_key: ['The provided key does not look valid. It should start with "sk_" or "rk_".'],
    });
    seen.add("refusal", refused.body);

    // a key Stripe does not know (a live key at the test stand-in): Stripe answers 401
    const unknown = `sk_live_${newSecretKey().slice(8)}`;
    expect((await s.client.patch(`${org}/settings/`, { payment_stripe_secret_key: unknown })).status).toBe(200);
    const order = await placeOrder(s, { payment_provider: "stripe" });
    const page = await openPaymentPage(order.payments[0].payment_url);
    expect(page.status).toBe(503);
    seen.add("payment page, key refused", page.text);
    seen.expectFreeOf(malformed, unknown, s.webhookSecret);
    expect(logged.some((l) => l.includes("a Stripe Checkout Session could not be created"))).toBe(true);
    expect(logged.filter((l) => [malformed, unknown, s.webhookSecret].some((k) => l.includes(k)))).toEqual([]);
  });
});
