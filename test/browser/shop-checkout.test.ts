/**
 * The shop's checkout in a real browser (JavaScript off), against the service as `npm start`
 * starts it and the local stand-in of Stripe (test/stripe/standin.ts): a buyer puts a ticket in
 * the cart on the shop page's form, fills the checkout (email, attendee, a question answered
 * out of range first), pays by card on Stripe's page or chooses manual payment, and gets the
 * ticket PDF link. Every page is checked by axe-core and at phone size (browser.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
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
let question: Json;
const secretKey = `sk_test_checkout${Math.random().toString(36).slice(2, 14)}`;

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`shop checkout browser tests: ${line}\n`);
  standin = await startStripeStandin();
  const [svc, st, br] = await Promise.allSettled([
    startService({
      organizer: { slug: "riverside", name: "Riverside Stages" },
      countRoundTrips: false,
      stateDirPrefix: "ticketing-browser-checkout-",
      vars: { STRIPE_API_BASE: standin.base },
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
  // card payments as docs/payments.md sets them up, against the stand-in
  const u = new URL(standin.base);
  const stripe = new Stripe(secretKey, {
    host: u.hostname,
    port: Number(u.port),
    protocol: "http",
    maxNetworkRetries: 0,
  });
  const org = `/api/v1/organizers/${shop.org}`;
  await shop.api.ok("PATCH", `${org}/settings/`, { payment_stripe_secret_key: secretKey });
  const endpoint = await stripe.webhookEndpoints.create({
    url: `${need(service).base}${org}/stripe/webhook/`,
    enabled_events: ["checkout.session.completed", "checkout.session.expired"],
  });
  await shop.api.ok("PATCH", `${org}/settings/`, { payment_stripe_webhook_secret: endpoint.secret! });
  await shop.api.ok("PATCH", `${shop.path}/`, {
    plugins: ["pretix.plugins.manualpayment", "pretix.plugins.returnurl", "pretix.plugins.stripe"],
  });
  await shop.api.ok("PATCH", `${shop.path}/settings/`, {
    attendee_names_required: true,
    payment_manual_pending_description: {
      en: "Transfer {total} {currency} to IBAN DE00 1234 5678, reference {order}.",
    },
  });
  question = await shop.api.ok("POST", `${shop.path}/questions/`, {
    question: { en: "How many days will you stay?" },
    type: "N",
    required: true,
    valid_number_min: "1",
    valid_number_max: "3",
    items: [shop.pass.id],
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
    writeFileSync(path.join(SCREENSHOT_DIR, "server-shop-checkout.log"), `${service.logTail(1000)}\n`);
    await service.stop();
  }
  await standin?.close();
});

async function follow(page: Page, what: Locator): Promise<Response | null> {
  const [response] = await Promise.all([page.waitForNavigation({ waitUntil: "load" }), what.click()]);
  return response;
}

async function mainText(page: Page): Promise<string> {
  return ((await page.locator("main").innerText()) ?? "").replace(/\s+/g, " ").trim();
}

/**
 * One festival pass in the cart through the shop page's form (`item_<id>`, pages/shop/), then
 * on to the checkout by its link; false when this build has no shop cart form.
 */
async function toCheckout(page: Page): Promise<void> {
  // a fresh visitor: no cart of an earlier test in the shop's cookie
  await page.context().clearCookies();
  await page.goto(`${need(service).base}/${shop.org}/${shop.event}/`, { waitUntil: "load" });
  const quantity = page.locator(`input[name="item_${shop.pass.id}"], select[name="item_${shop.pass.id}"]`);
  if ((await quantity.evaluate((e) => e.tagName)) === "SELECT") await quantity.selectOption("1");
  else await quantity.fill("1");
  await follow(page, page.locator(`form:has([name="item_${shop.pass.id}"]) button[type="submit"]`).last());
  await follow(page, page.locator('a[href*="/checkout"]').first());
  expect(new URL(page.url()).pathname).toBe(`/${shop.org}/${shop.event}/checkout`);
}

/** Fills the checkout; `days` is the answer to the question. */
async function fill(page: Page, email: string, days: string, payment: string) {
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Attendee name").fill("Grace Hopper");
  await page.getByLabel("How many days will you stay?").fill(days);
  await page.getByRole("radio", { name: payment }).check();
}

describe("the shop's checkout in Chromium", () => {
  it("an answer out of range comes back next to its field; then pays by card on Stripe's page and gets the ticket", async () => {
    const page = await need(browsing).newPage();
    await toCheckout(page);
    expect(await mainText(page)).toContain("Festival pass EUR 20.00");
    await need(browsing).inspect(page, "checkout");

    await fill(page, "grace@example.org", "9", "Credit card");
    const invalid = await follow(page, page.getByRole("button", { name: "Place binding order" }));
    expect(invalid?.status()).toBe(400);
    const field = page.getByLabel("How many days will you stay?");
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator(`#p0-q${question.id}-error`).innerText()).toBe("The number is out of the allowed range.");
    expect(await page.getByLabel("Email address").inputValue()).toBe("grace@example.org");
    await need(browsing).inspect(page, "checkout-errors");

    await field.fill("3");
    await follow(page, page.getByRole("button", { name: "Place binding order" }));
    expect(page.url().startsWith(`${need(standin).base}/c/pay/`)).toBe(true);
    await follow(page, page.getByRole("button", { name: "Pay 20.00 EUR" }));
    expect(page.url()).toMatch(/\/order\/[A-Z0-9]+\/[a-z0-9]+\/\?paid=yes$/);
    expect(await mainText(page)).toContain("Thank you! Your payment has been received.");
    await need(browsing).inspect(page, "checkout-paid-card");
    const code = /\/order\/([A-Z0-9]+)\//.exec(page.url())![1]!;
    const order = await shop.readOrder(code);
    expect(order.status).toBe("p");
    expect(order.positions[0].attendee_name).toBe("Grace Hopper");
    expect(order.positions[0].answers).toEqual([expect.objectContaining({ question: question.id, answer: "3" })]);
    const pdf = page.getByRole("link", { name: "Download your tickets (PDF)" });
    expect(await pdf.getAttribute("href")).toBe(`${order.url}download/pdf/`);
    await page.close();
  });

  it("manual payment: the instructions with the order code and amount, then the order page", async () => {
    const page = await need(browsing).newPage();
    await toCheckout(page);
    await fill(page, "ada@example.org", "2", "Bank transfer or as agreed with the organizer");
    await follow(page, page.getByRole("button", { name: "Place binding order" }));
    const code = /\/order\/([A-Z0-9]+)\//.exec(page.url())![1]!;
    expect(await mainText(page)).toContain(`Transfer 20.00 EUR to IBAN DE00 1234 5678, reference ${code}.`);
    await need(browsing).inspect(page, "checkout-manual");
    await follow(page, page.getByRole("link", { name: "View the order" }));
    expect(await mainText(page)).toContain(`Order ${code} pending`);
    expect((await shop.readOrder(code)).payments).toEqual([
      expect.objectContaining({ provider: "manual", state: "created", amount: "20.00" }),
    ]);
    await page.close();
  });
});
