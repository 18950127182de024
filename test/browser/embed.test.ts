/**
 * The embed script in a real browser (docs/embedding.md): an organizer's site on another origin,
 * with a strict CSP of its own, pastes the snippet. The button opens the shop framed (`iframe=1`)
 * in an accessible overlay that Escape closes, focus going back; the list shows the products
 * with prices; the window mode opens a new page. axe-core checks the host page with the widget.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { type Service, startService } from "../bench/server.ts";
import { type AxeViolation, type Browsing, DESKTOP, openBrowser, PHONE, SCREENSHOT_DIR } from "./browser.ts";
import { buildShop, type Shop } from "./shop.ts";
import { escapeHtml, type Site, startSite } from "./site.ts";

let service: Service | undefined;
let site: Site | undefined;
let browsing: Browsing | undefined;
let visitors: BrowserContext | undefined;
let shop: Shop;
let eventUrl: string;

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

/** The organizer's page: its own CSP allows the service in script-src, frame-src and connect-src only. */
function hostPage(base: string, widgets: string): string {
  const csp = `default-src 'self'; script-src ${base}; frame-src ${base}; connect-src ${base}; style-src 'self'; img-src 'self'`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Harbour Days: tickets</title></head>
<body><main><h1>Harbour Days</h1><p>Three days of music by the water.</p>
${widgets}
<p><a href="/about">About us</a></p></main>
<script src="${escapeHtml(base)}/widget/v1.js" async></script></body></html>`;
}

const widget = (attrs: Record<string, string>, fallback: string) =>
  `<div class="ticketing-widget" ${Object.entries(attrs)
    .map(([k, v]) => `data-${k}="${escapeHtml(v)}"`)
    .join(" ")}><a href="${escapeHtml(eventUrl)}">${escapeHtml(fallback)}</a></div>`;

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`embed browser tests: ${line}\n`);
  const [svc, st, br] = await Promise.allSettled([
    startService({
      organizer: { slug: "harbour", name: "Harbour Days" },
      countRoundTrips: false,
      stateDirPrefix: "ticketing-embed-browser-",
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
  eventUrl = (await shop.api.ok("GET", `${shop.path}/`)).public_url;
  // a product that shows what is left, as the list does
  const boat = await shop.api.ok("POST", `${shop.path}/items/`, {
    name: { en: "Boat trip" },
    default_price: "12.50",
    show_quota_left: true,
  });
  await shop.api.ok("POST", `${shop.path}/quotas/`, { name: "Boat", size: 5, items: [boat.id] });
  const base = need(service).base;
  need(site).setPage(
    "/tickets",
    hostPage(
      base,
      `<h2>Tickets</h2>${widget({ event: eventUrl, voucher: "HARBOUR10" }, "Buy tickets")}
<h2>What is on sale</h2>${widget({ event: eventUrl, mode: "list" }, "See the tickets")}
<h2>In a new window</h2>${widget({ event: eventUrl, target: "window" }, "Open the shop")}`,
    ),
  );
  // the visitors' browser: JavaScript on (the customer context of browser.ts has it off)
  visitors = await need(browsing).browser.newContext({ javaScriptEnabled: true, viewport: DESKTOP });
  // a busy machine (other suites migrating their own databases) may take longer than the default
}, 600_000);

afterEach(() => {
  if (browsing) expect(browsing.takeProblems()).toEqual([]);
});

afterAll(async () => {
  await visitors?.close();
  await browsing?.close();
  await site?.close();
  if (service) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(path.join(SCREENSHOT_DIR, "embed-server.log"), `${service.logTail(1000)}\n`);
    await service.stop();
  }
});

// ---- helpers ----

/** The organizer's page with the widgets built; CSP reports and script errors are collected. */
async function openHost(): Promise<{ page: Page; complaints: string[] }> {
  const page = await need(visitors).newPage();
  const complaints: string[] = [];
  page.on("console", (m: ConsoleMessage) => {
    // (a browser's own favicon request of the framed page is no complaint about the widget)
    if (/favicon\.ico$/.test(m.location().url)) return;
    if (m.type() === "error" || /Content Security Policy/i.test(m.text()))
      complaints.push(`${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => complaints.push(String(e)));
  await page.goto(`${need(site).base}/tickets`, { waitUntil: "load" });
  await page.locator(".ticketing-widget-list").waitFor();
  return { page, complaints };
}

/** The first widget's button (the list has a "Buy tickets" button of its own). */
const buyButton = (page: Page) =>
  page.locator(".ticketing-widget").first().getByRole("button", { name: "Buy tickets" });

const activeClass = (page: Page) => page.evaluate("document.activeElement?.className ?? ''") as Promise<string>;

async function axe(page: Page): Promise<AxeViolation[]> {
  if ((await page.evaluate("typeof axe")) !== "object") await page.evaluate(axeSource);
  // the host page itself: the shop in the frame is checked by the shop's own tests
  const result = (await page.evaluate(`axe.run(document, { iframes: false, resultTypes: ["violations"] })`)) as {
    violations: AxeViolation[];
  };
  return result.violations;
}

const summary = (violations: AxeViolation[]) =>
  violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`);

// ---- the tests ----

describe("the embed script on an organizer's site", () => {
  it("the button opens the shop framed (iframe=1, the voucher passed along) in a modal dialog; Escape closes it, focus returns", async () => {
    const { page, complaints } = await openHost();
    const button = buyButton(page);
    // styled through a constructed style sheet, which the host's style-src 'self' does not refuse
    expect(
      await page.evaluate("getComputedStyle(document.querySelector('.ticketing-widget-button')).backgroundColor"),
    ).toBe("rgb(29, 78, 216)");
    await button.focus();
    const shopAnswer = page.waitForResponse((r) => r.url().startsWith(eventUrl));
    await button.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Ticket shop" });
    await dialog.waitFor();
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    expect(await activeClass(page)).toBe("ticketing-widget-close");
    const frameEl = dialog.locator("iframe");
    const src = new URL((await frameEl.getAttribute("src")) ?? "");
    expect(`${src.origin}${src.pathname}`).toBe(eventUrl);
    expect(Object.fromEntries(src.searchParams)).toEqual({ iframe: "1", voucher: "HARBOUR10" });
    expect(await frameEl.getAttribute("title")).toBe("Ticket shop");
    // the page allowed being framed, and it is the event's page (the shop) that shows
    const answer = await shopAnswer;
    expect(answer.status()).toBe(200);
    expect(answer.headers()["x-frame-options"]).toBeUndefined();
    expect(answer.headers()["content-security-policy"] ?? "").not.toContain("frame-ancestors 'none'");
    const frame = await (await frameEl.elementHandle())!.contentFrame();
    if (!frame) throw new Error("the overlay's iframe has no document");
    await frame.getByRole("heading", { level: 1, name: shop.eventName }).waitFor();
    await need(browsing).screenshot(page, "embed-overlay");
    // the host page behind is inert while the dialog is open
    expect(await page.evaluate("document.querySelector('dialog').open")).toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(await activeClass(page)).toBe("ticketing-widget-button");
    expect(await page.evaluate("document.activeElement.textContent")).toBe("Buy tickets");
    // the close button does the same
    await button.click();
    await dialog.waitFor();
    await page.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await page.evaluate("document.activeElement.textContent")).toBe("Buy tickets");
    expect(complaints).toEqual([]);
    await page.close();
  });

  it("fills the whole screen on a phone", async () => {
    const { page } = await openHost();
    await page.setViewportSize(PHONE);
    await buyButton(page).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    expect(box).toEqual({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "embed-overlay-phone.png") });
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await page.close();
  });

  it("the list shows the products with their prices, and its button opens the shop titled with the event's name", async () => {
    const { page, complaints } = await openHost();
    const list = page.locator(".ticketing-widget-list");
    const text = await list.innerText();
    expect(text).toContain(shop.eventName);
    expect(text).toContain("Festival pass");
    expect(text).toContain("€20.00");
    expect(text).toContain("All three days, all stages.");
    expect(text).toContain("Children's entry");
    expect(text).toContain("Free");
    expect(text).toMatch(/Boat trip\s+€12\.50\s+5 left/);
    expect(await page.getByRole("region", { name: shop.eventName }).count()).toBe(1);
    await list.getByRole("button", { name: "Buy tickets" }).click();
    const dialog = page.getByRole("dialog", { name: shop.eventName });
    await dialog.waitFor();
    expect(await dialog.locator("iframe").getAttribute("src")).toBe(`${eventUrl}?iframe=1`);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(complaints).toEqual([]);
    await page.close();
  });

  it("the window mode opens the shop in a new page, not framed", async () => {
    const { page } = await openHost();
    const link = page.getByRole("link", { name: /Open the shop/ });
    expect(await link.getAttribute("href")).toBe(eventUrl);
    const [opened] = await Promise.all([need(visitors).waitForEvent("page"), link.click()]);
    await opened.waitForLoadState("load");
    expect(opened.url()).toBe(eventUrl);
    await opened.getByRole("heading", { level: 1, name: shop.eventName }).waitFor();
    await opened.close();
    await page.close();
  });

  it("axe-core finds no violation on the host page with the widgets, closed and open", async () => {
    const { page } = await openHost();
    await need(browsing).screenshot(page, "embed-host");
    expect(summary(await axe(page))).toEqual([]);
    await buyButton(page).click();
    await page.getByRole("dialog").waitFor();
    expect(summary(await axe(page))).toEqual([]);
    await page.close();
  });

  it("without the script the organizer's link leads to the shop", async () => {
    const page = await need(browsing).newPage();
    await page.goto(`${need(site).base}/tickets`, { waitUntil: "load" });
    expect(await page.getByRole("link", { name: "Buy tickets" }).getAttribute("href")).toBe(eventUrl);
    await page.close();
  });
});
