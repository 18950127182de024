/**
 * The hosted shop at the event's public_url in a real browser (docs/customer-pages.md "The
 * shop"): choosing products, an add-on and a voucher's hidden product, with JavaScript off (the
 * customer's context) and on; a refusal next to its field; removing from the cart. Every page
 * is photographed and checked by axe-core and for phone overflow (browser.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { type Service, startService } from "../bench/server.ts";
import { type Browsing, openBrowser } from "./browser.ts";
import { buildShop, type Json, type Shop } from "./shop.ts";

let service: Service | undefined;
let browsing: Browsing | undefined;
let shop: Shop;
let parking: Json;
let vip: Json;
let voucherCode: string;

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`shop browser tests: ${line}\n`);
  const [svc, br] = await Promise.allSettled([
    startService({
      organizer: { slug: "harbour", name: "Harbour Nights" },
      countRoundTrips: false,
      stateDirPrefix: "ticketing-shop-",
      log,
    }),
    openBrowser(),
  ]);
  if (svc.status === "fulfilled") service = svc.value;
  if (br.status === "fulfilled") browsing = br.value;
  for (const r of [svc, br]) if (r.status === "rejected") throw r.reason;
  shop = await buildShop(need(service), "https://site.example.org/return/");
  const a = shop.api;
  const extras = await a.ok("POST", `${shop.path}/categories/`, { name: { en: "Extras" }, is_addon: true });
  parking = await a.ok("POST", `${shop.path}/items/`, {
    name: { en: "Parking" },
    default_price: "5.00",
    category: extras.id,
  });
  vip = await a.ok("POST", `${shop.path}/items/`, {
    name: { en: "VIP lounge" },
    default_price: "100.00",
    hide_without_voucher: true,
  });
  await a.ok("POST", `${shop.path}/quotas/`, { name: "Extras", size: 50, items: [parking.id, vip.id] });
  await a.ok("POST", `${shop.path}/items/${shop.pass.id}/addons/`, {
    addon_category: extras.id,
    min_count: 0,
    max_count: 1,
  });
  voucherCode = "HARBOURVIP";
  await a.ok("POST", `${shop.path}/vouchers/`, {
    code: voucherCode,
    item: vip.id,
    price_mode: "set",
    value: "80.00",
  });
});

afterEach(() => {
  if (browsing) expect(browsing.takeProblems()).toEqual([]);
});

afterAll(async () => {
  await browsing?.close();
  await service?.stop();
});

const shopUrl = () => `${need(service).base}/${shop.org}/${shop.event}/`;

async function follow(page: Page, what: Locator): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), what.click()]);
}

async function mainText(page: Page): Promise<string> {
  return ((await page.locator("main").innerText()) ?? "").replace(/\s+/g, " ").trim();
}

describe("the hosted shop", () => {
  it("without scripts: chooses tickets with an add-on, holds them in the cart, shows the checkout", async () => {
    const page = await need(browsing).newPage();
    await page.goto(shopUrl(), { waitUntil: "load" });
    await need(browsing).inspect(page, "shop-catalog");
    expect(await mainText(page)).toContain("Festival pass");
    await page.getByLabel("Quantity of Festival pass").fill("2");
    await page.getByLabel("Add Parking to each Festival pass").fill("1");
    await follow(page, page.getByRole("button", { name: "Add to cart" }));
    const text = await mainText(page);
    expect(text).toMatch(/Your cart Festival pass \+ Parking \(EUR 5\.00\) EUR 25\.00/);
    expect(text).toContain("Total EUR 50.00");
    expect(text).toMatch(/Reserved for you until \d\d:\d\d/);
    const checkout = page.getByRole("link", { name: "Checkout" });
    expect(await checkout.getAttribute("href")).toMatch(/\/checkout\?cart=[A-Za-z0-9]+%40shop$/);
    await need(browsing).inspect(page, "shop-cart");

    // more than an order may hold: the message stands at the product, the cart unchanged
    await page.getByLabel("Quantity of Festival pass").fill("9");
    await follow(page, page.getByRole("button", { name: "Add to cart" }));
    expect(await mainText(page)).toContain("Your cart was not changed.");
    expect(await mainText(page)).toContain("An order may hold at most 10 products.");
    await need(browsing).inspect(page, "shop-refused");

    await follow(page, page.getByRole("button", { name: "Remove Festival pass" }).first());
    expect(await mainText(page)).toContain("Total EUR 25.00");
    await page.close();
  });

  it("with scripts: a voucher unlocks its hidden product at the voucher's price", async () => {
    const context = await need(browsing).browser.newContext({
      javaScriptEnabled: true,
      viewport: { width: 390, height: 844 },
    });
    const page = await context.newPage();
    await page.goto(shopUrl(), { waitUntil: "load" });
    expect(await mainText(page)).not.toContain("VIP lounge");
    await page.getByLabel("Voucher code").fill(voucherCode);
    await follow(page, page.getByRole("button", { name: "Redeem voucher" }));
    expect(await mainText(page)).toContain("VIP lounge EUR 80.00");
    await need(browsing).inspect(page, "shop-voucher");
    await page.getByLabel("Quantity of VIP lounge").fill("1");
    await follow(page, page.getByRole("button", { name: "Add to cart" }));
    expect(await mainText(page)).toContain("Total EUR 80.00");
    // the script counts the reservation down in place of the time it ends
    await expect
      .poll(() => page.locator("#cart-timer").textContent())
      .toMatch(/^Reserved for you for another \d+:\d\d\.$/);
    expect(await page.locator("#cart-timer").getAttribute("role")).toBe("timer");
    const unknown = `${shopUrl()}?voucher=NOPE`;
    await page.goto(unknown, { waitUntil: "load" });
    expect(await page.getByLabel("Voucher code").getAttribute("aria-describedby")).toBe("err-voucher");
    await need(browsing).inspect(page, "shop-voucher-unknown");
    await context.close();
  });
});
