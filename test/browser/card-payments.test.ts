/**
 * Card payments in a real browser: Debian's Chromium (JavaScript off) against the service
 * started as `npm start` starts it, with STRIPE_API_BASE pointing at the local stand-in of
 * Stripe's HTTP API (test/stripe/standin.ts; never the real Stripe). The organizer sets up
 * Stripe as docs/payments.md shows (its key, a webhook endpoint in its Stripe account, the
 * endpoint's signing secret, the event's Stripe plugin); the customer goes from the order page
 * to Stripe's checkout page and back, Stripe's webhook (sent by the stand-in, signed with the
 * SDK's test helper) confirms, and the organizer refunds part of it through the API.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Locator, Page, Response } from "playwright-core";
import Stripe from "stripe";
import { type Service, startService } from "../bench/server.ts";
import { type StripeStandin, startStripeStandin } from "../stripe/standin.ts";
import { type Browsing, openBrowser, SCREENSHOT_DIR } from "./browser.ts";
import { buildShop, type Json, type Shop } from "./shop.ts";
import { type Site, startSite } from "./site.ts";

let standin: StripeStandin | undefined;
let service: Service | undefined;
let site: Site | undefined;
let browsing: Browsing | undefined;
let shop: Shop;
let stripe: Stripe;
const secretKey = `sk_test_browser${Math.random().toString(36).slice(2, 14)}`;
let webhookSecret = "";

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`card payment browser tests: ${line}\n`);
  standin = await startStripeStandin();
  const [svc, st, br] = await Promise.allSettled([
    startService({
      organizer: { slug: "harbour", name: "Harbour Nights" },
      countRoundTrips: false,
      stateDirPrefix: "ticketing-browser-stripe-",
      vars: { STRIPE_API_BASE: standin.base },
      // the Worker's log lines too: the last test reads them for the keys
      logLevel: "log",
      log,
    }),
    startSite(),
    openBrowser(),
  ]);
  if (svc.status === "fulfilled") service = svc.value;
  if (st.status === "fulfilled") site = st.value;
  if (br.status === "fulfilled") browsing = br.value;
  for (const r of [svc, st, br]) if (r.status === "rejected") throw r.reason;
  shop = await buildShop(need(service), `${need(site).base}/return/`);

  // the organizer's Stripe account (the stand-in): a webhook endpoint sending to the service
  const u = new URL(standin.base);
  stripe = new Stripe(secretKey, { host: u.hostname, port: Number(u.port), protocol: "http", maxNetworkRetries: 0 });
  const org = `/api/v1/organizers/${shop.org}`;
  await shop.api.ok("PATCH", `${org}/settings/`, { payment_stripe_secret_key: secretKey });
  const endpoint = await stripe.webhookEndpoints.create({
    url: `${need(service).base}${org}/stripe/webhook/`,
    enabled_events: [
      "checkout.session.completed",
      "checkout.session.async_payment_succeeded",
      "checkout.session.async_payment_failed",
      "checkout.session.expired",
      "refund.created",
      "refund.updated",
      "refund.failed",
    ],
  });
  webhookSecret = endpoint.secret!;
  await shop.api.ok("PATCH", `${org}/settings/`, { payment_stripe_webhook_secret: webhookSecret });
  await shop.api.ok("PATCH", `${shop.path}/`, {
    plugins: ["pretix.plugins.manualpayment", "pretix.plugins.returnurl", "pretix.plugins.stripe"],
  });
});

afterEach(() => {
  if (browsing) expect(browsing.takeProblems()).toEqual([]);
});

afterAll(async () => {
  await browsing?.close();
  await site?.close();
  if (service) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(path.join(SCREENSHOT_DIR, "server-card-payments.log"), `${service.logTail(1000)}\n`);
    await service.stop();
  }
  await standin?.close();
});

async function follow(page: Page, what: Locator): Promise<Response | null> {
  const [response] = await Promise.all([page.waitForNavigation({ waitUntil: "load" }), what.click()]);
  return response;
}

async function visit(page: Page, url: string): Promise<Response> {
  const res = await page.goto(url, { waitUntil: "load" });
  if (!res) throw new Error(`no response for ${url}`);
  return res;
}

async function mainText(page: Page): Promise<string> {
  return ((await page.locator("main").innerText()) ?? "").replace(/\s+/g, " ").trim();
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** Polls the order until `check` holds (Stripe's events arrive a moment after an API call). */
async function eventually(code: string, check: (order: Json) => boolean): Promise<Json> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const order = await shop.readOrder(code);
    if (check(order)) return order;
    if (Date.now() > deadline) throw new Error(`the order never reached the expected state: ${JSON.stringify(order)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("card payments in Chromium, through the local stand-in of Stripe", () => {
  it("pays by card: order page → Pay now → Stripe's checkout page → back on the order page, paid", async () => {
    const order = await shop.order({ payment_provider: "stripe" });
    expect(order.payments).toEqual([expect.objectContaining({ local_id: 1, provider: "stripe", state: "created" })]);
    const page = await need(browsing).newPage();
    await visit(page, order.url);
    expect(await mainText(page)).toContain(`Order ${order.code} pending`);
    await need(browsing).inspect(page, "order-pending-card");

    // the payment page hands the customer to Stripe's hosted checkout
    await follow(page, page.getByRole("link", { name: "Pay now" }));
    expect(page.url()).toMatch(new RegExp(`^${need(standin).base}/c/pay/cs_test_\\w+$`));
    expect(await page.title()).toBe("Stripe Checkout (test stand-in)");
    expect(await mainText(page)).toContain(`Pay 20.00 EUR for ${shop.eventName} – ${order.code}`);
    await need(browsing).screenshot(page, "stripe-checkout");

    // paid: Stripe's webhook confirms before Stripe sends the customer back
    const back = await follow(page, page.getByRole("button", { name: "Pay 20.00 EUR" }));
    expect(back?.status()).toBe(200);
    expect(page.url()).toBe(`${order.url}?paid=yes`);
    expect(await mainText(page)).toContain("Thank you! Your payment has been received.");
    expect(await mainText(page)).toContain(`Order ${order.code} paid`);
    await need(browsing).inspect(page, "order-paid-card");

    const after = await shop.readOrder(order.code);
    expect(after.status).toBe("p");
    expect(after.payments).toEqual([
      expect.objectContaining({ local_id: 1, provider: "stripe", state: "confirmed", amount: "20.00" }),
    ]);
    await page.close();
  });

  it("goes back from Stripe's checkout to the return_url with error=payment_aborted; the same link pays later", async () => {
    const order = await shop.order({ payment_provider: "stripe" });
    const ret = `${need(site).base}/return/card?tx=9`;
    const pay = withQuery(order.payments[0].payment_url, { return_url: ret });
    const page = await need(browsing).newPage();

    await visit(page, pay);
    const checkout = page.url();
    expect(checkout.startsWith(`${need(standin).base}/c/pay/`)).toBe(true);
    await follow(page, page.getByRole("link", { name: "Back" }));
    expect(page.url()).toBe(`${ret}&error=payment_aborted`);
    expect(await page.locator("#param-error").innerText()).toBe("payment_aborted");
    const open = await shop.readOrder(order.code);
    expect([open.status, open.payments[0].state]).toEqual(["n", "created"]);

    // the same payment link again: the same Checkout Session (once per payment), then paid
    await visit(page, pay);
    expect(page.url()).toBe(checkout);
    await follow(page, page.getByRole("button", { name: "Pay 20.00 EUR" }));
    expect(page.url()).toBe(ret);
    expect(await page.locator("#param-error").count()).toBe(0);
    expect((await shop.readOrder(order.code)).status).toBe("p");
    expect(need(site).requests.filter((r) => r.startsWith("GET /return/card"))).toEqual([
      "GET /return/card?tx=9&error=payment_aborted",
      "GET /return/card?tx=9",
    ]);
    await page.close();
  });

  it("refunds part of a card payment through the API: sent to Stripe, done when Stripe's event arrives", async () => {
    const order = await shop.order({ payment_provider: "stripe" });
    const page = await need(browsing).newPage();
    await visit(page, order.payments[0].payment_url);
    await follow(page, page.getByRole("button", { name: "Pay 20.00 EUR" }));
    expect((await shop.readOrder(order.code)).status).toBe("p");
    await page.close();

    const refund = await shop.api.ok(
      "POST",
      `${shop.path}/orders/${order.code}/payments/1/refund/`,
      { amount: "5.00", comment: "One day missed" },
      200,
    );
    expect(refund).toEqual(
      expect.objectContaining({ local_id: 1, payment: 1, amount: "5.00", provider: "stripe", source: "admin" }),
    );
    const refunds = await stripe.refunds.list();
    expect(refunds.data.map((r) => [r.amount, r.currency, r.status])).toContainEqual([500, "eur", "succeeded"]);
    const after = await eventually(order.code, (o) => o.refunds.length === 1 && o.refunds[0].state === "done");
    expect(after.refunds).toEqual([expect.objectContaining({ local_id: 1, amount: "5.00", state: "done" })]);
    const listed = await shop.api.ok("GET", `${shop.path}/orders/${order.code}/refunds/`);
    expect(listed.count).toBe(1);

    // more than is left: 400 naming the amount
    const tooMuch = await shop.api.call("POST", `${shop.path}/orders/${order.code}/payments/1/refund/`, {
      amount: "15.01",
    });
    expect(tooMuch).toEqual({
      status: 400,
      body: { amount: ["Invalid refund amount, only 15.00 are available to refund."] },
    });
  });

  it("never shows the organizer's Stripe keys: settings say only that they are set, the server's log never has them", async () => {
    const settings = await shop.api.ok("GET", `/api/v1/organizers/${shop.org}/settings/`);
    expect(settings.payment_stripe_secret_key).toBe(true);
    expect(settings.payment_stripe_webhook_secret).toBe(true);
    const log = readFileSync(path.join(need(service).stateDir, "wrangler.log"), "utf8");
    // the Worker's lines are there: the settings changes, Stripe's webhook deliveries, the refund
    for (const route of [
      "/api/v1/organizers/:organizer/settings",
      "/api/v1/organizers/:organizer/stripe/webhook",
      "/api/v1/organizers/:organizer/events/:event/orders/:code/payments/:local/refund",
    ])
      expect(log).toContain(route);
    expect(log).not.toContain(secretKey);
    expect(log).not.toContain(webhookSecret);
  });
});
