/**
 * The waiting page of an on-sale queue in a real browser: Debian's Chromium (JavaScript on, the
 * page's script is what keeps the place) against the service started as `npm start` starts it.
 * Visitors open the page before the opening and see their place; when the queue opens the page
 * moves on to the shop's `return_url` with an admission token, and the API accepts that token
 * for an order (`X-Queue-Admission`). Once over the WebSocket, once with the WebSocket blocked
 * (polling); framed with `iframe=1`; in German. Every page shown is checked by axe-core.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Frame, Page, WebSocket } from "playwright-core";
import { type Service, startService } from "../bench/server.ts";
import { type Browsing, DESKTOP, openBrowser, SCREENSHOT_DIR } from "./browser.ts";
import { buildShop, type Json, type Shop } from "./shop.ts";
import { escapeHtml, type Site, startSite } from "./site.ts";

let service: Service | undefined;
let site: Site | undefined;
let browsing: Browsing | undefined;
let visitors: BrowserContext | undefined;
let shop: Shop;
let queue: Json;

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`queue page browser tests: ${line}\n`);
  const [svc, st, br] = await Promise.allSettled([
    startService({
      organizer: { slug: "riverside", name: "Riverside Live" },
      countRoundTrips: false,
      stateDirPrefix: "ticketing-queue-browser-",
      log,
    }),
    startSite(),
    openBrowser(),
  ]);
  if (svc.status === "fulfilled") service = svc.value;
  if (st.status === "fulfilled") site = st.value;
  if (br.status === "fulfilled") browsing = br.value;
  for (const r of [svc, st, br]) if (r.status === "rejected") throw r.reason;
  log(`service on ${need(service).base}, shop site on ${need(site).base}, screenshots in ${SCREENSHOT_DIR}`);
  shop = await buildShop(need(service), `${need(site).base}/return/`);
  // the visitors' browser: JavaScript on (the customer context of browser.ts has it off)
  visitors = await need(browsing).browser.newContext({ javaScriptEnabled: true, viewport: DESKTOP });
});

afterEach(() => {
  if (browsing) expect(browsing.takeProblems()).toEqual([]);
});

afterAll(async () => {
  await visitors?.close();
  await browsing?.close();
  await site?.close();
  if (service) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(path.join(SCREENSHOT_DIR, "queue-server.log"), `${service.logTail(1000)}\n`);
    await service.stop();
  }
});

// ---- helpers ----

const queuePage = (params: Record<string, string> = {}) => {
  const u = new URL(`${need(service).base}/${shop.org}/${shop.event}/queue/`);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
};

/** The words of the page's live region (the place, the wait, what happens next). */
const statusOf = async (page: Page | Frame) => (await page.locator("#queue-status").innerText()).trim();

/** Waits until the live region's words match `pattern`; they are returned, or the last ones named in the failure. */
async function untilStatus(page: Page | Frame, pattern: RegExp, timeout = 30_000): Promise<string> {
  const deadline = Date.now() + timeout;
  let last = "";
  while (Date.now() < deadline) {
    last = await statusOf(page);
    if (pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the page's status did not come to ${pattern} within ${timeout} ms; it says: "${last}"`);
}

/** Waits until the element's text matches `pattern`. */
async function untilText(page: Page, selector: string, pattern: RegExp, timeout = 30_000): Promise<void> {
  await page.locator(selector).filter({ hasText: pattern }).waitFor({ timeout });
}

/** An order of one festival pass, with the admission token when given: status and body. */
async function orderWith(admission: string | null): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${need(service).base}${shop.path}/orders/`, {
    method: "POST",
    headers: {
      Authorization: `Token ${need(service).token}`,
      "Content-Type": "application/json",
      ...(admission === null ? {} : { "X-Queue-Admission": admission }),
    },
    body: JSON.stringify({ email: "fan@example.org", positions: [{ item: shop.pass.id }] }),
  });
  return { status: res.status, body: await res.json() };
}

/** The messages a page received over WebSockets to the queue's `live/`. */
function liveMessages(page: Page): Json[] {
  const received: Json[] = [];
  page.on("websocket", (ws: WebSocket) => {
    if (!ws.url().includes("/queue/live/")) return;
    ws.on("framereceived", (frame) => received.push(JSON.parse(String(frame.payload))));
  });
  return received;
}

// ---- the flows ----

describe("the waiting page of an on-sale queue, in Chromium", () => {
  it("answers 404 where no queue applies", async () => {
    const page = await need(visitors).newPage();
    const res = await page.goto(queuePage(), { waitUntil: "load" });
    expect(res?.status()).toBe(404);
    expect(await page.locator("main").innerText()).toContain("This queue does not exist.");
    await need(browsing).inspect(page, "queue-none");
    await page.close();
  });

  it("before the opening a visitor sees its place; at the opening the page moves on to return_url with an admission the API accepts for an order — over the WebSocket and, with it blocked, by polling", async () => {
    const opensAt = Date.now() + 30_000;
    queue = await shop.api.ok("POST", `${shop.path}/onsale_queues/`, {
      opens_at: new Date(opensAt).toISOString(),
      arrival_order: "first_come",
      admissions_per_minute: 600,
      admission_minutes: 15,
      orders_per_admission: 1,
    });
    expect(queue.waiting_page_url).toBe(queuePage());

    const live = await need(visitors).newPage();
    const frames = liveMessages(live);
    const polling = await need(browsing).browser.newContext({ javaScriptEnabled: true, viewport: DESKTOP });
    try {
      const poller = await polling.newPage();
      // the WebSocket answered by nobody but closed at once: the page falls back to polling
      let blocked = 0;
      await poller.routeWebSocket(/\/queue\/live\//, (ws) => {
        blocked += 1;
        ws.close();
      });
      const statusCalls: string[] = [];
      poller.on("request", (r) => {
        if (r.url().includes("/queue/status/")) statusCalls.push(r.headers()["x-queue-ticket"] ?? "");
      });

      await live.goto(queuePage({ return_url: `${need(site).base}/return/live?visit=1` }), { waitUntil: "load" });
      expect(await live.title()).toBe(`Waiting room – ${shop.eventName}`);
      await untilStatus(live, /^You are in the queue\. Your place: 1\. People ahead of you: 0\./);
      expect(await live.locator("#queue-place").innerText()).toBe("1");
      await untilText(live, "#queue-channel", /^Updates arrive live\.$/);
      await need(browsing).inspect(live, "queue-waiting");

      await poller.goto(queuePage({ return_url: `${need(site).base}/return/polled` }), { waitUntil: "load" });
      await untilStatus(poller, /Your place: 2\. People ahead of you: 1\./);
      await untilText(poller, "#queue-channel", /^Updates are checked every \d+ seconds\.$/);
      expect(blocked).toBeGreaterThanOrEqual(1);
      expect(Date.now()).toBeLessThan(opensAt);

      // the opening: both move on by themselves
      await live.waitForURL(/\/return\/live\?/, { timeout: 60_000 });
      const first = new URL(live.url());
      expect(first.searchParams.get("visit")).toBe("1");
      const admission = first.searchParams.get("admission")!;
      expect(admission).toMatch(/^qa1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(await live.locator("#param-admission").innerText()).toBe(admission);
      expect(frames.length).toBeGreaterThanOrEqual(1);
      expect(frames.at(-1)).toMatchObject({ queue: queue.id, state: "admitted", admission: { token: admission } });

      await poller.waitForURL(/\/return\/polled\?/, { timeout: 90_000 });
      const second = new URL(poller.url()).searchParams.get("admission")!;
      expect(second).toMatch(/^qa1\./);
      expect(second).not.toBe(admission);
      expect(statusCalls.length).toBeGreaterThanOrEqual(2);
      expect(new Set(statusCalls).size).toBe(1);
      expect(statusCalls[0]).toMatch(/^qt1\./);

      // behind the queue, no sale without an admission; the shop's backend places the order
      // with the admission: once, as the queue allows
      const refused = await orderWith(null);
      expect(refused.status).toBe(403);
      expect(refused.body.queue).toBe(queue.id);
      const sold = await orderWith(admission);
      expect(sold.status, JSON.stringify(sold.body)).toBe(201);
      const again = await orderWith(admission);
      expect(again.status).toBe(403);
      expect((await orderWith(second)).status).toBe(201);
      expect((await orderWith("qa1.forged.token")).status).toBe(403);
    } finally {
      await polling.close();
      await live.close();
    }
  });

  it("framed with iframe=1: no page chrome, and the admitted visitor leaves the frame by a button", async () => {
    const ret = `${need(site).base}/return/framed`;
    const framedUrl = queuePage({ iframe: "1", return_url: ret });
    need(site).setPage(
      "/shop-queue",
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title></head>
<body><main><h1>Tickets</h1><iframe name="queue" title="Waiting room" style="width:100%;height:520px" src="${escapeHtml(framedUrl)}"></iframe></main></body></html>`,
    );
    const page = await need(visitors).newPage();
    await page.goto(`${need(site).base}/shop-queue`, { waitUntil: "load" });
    const frame = page.frame({ name: "queue" })!;
    expect(frame.url()).toBe(framedUrl);
    expect(await frame.locator("header").count()).toBe(0);
    expect(await frame.locator("footer").count()).toBe(0);
    expect(await frame.locator("main h1").innerText()).toBe(shop.eventName);
    // the queue is open: this visitor is admitted within a moment, and offered the way on
    const go = frame.getByRole("link", { name: "Continue to the shop" });
    await go.waitFor({ timeout: 60_000 });
    expect(await statusOf(frame)).toBe("It is your turn! Taking you to the shop…");
    expect(await go.getAttribute("target")).toBe("_top");
    const frameDoc = await frame.content();
    const checked = await need(visitors).newPage();
    await checked.setContent(frameDoc);
    await need(browsing).inspect(checked, "queue-framed-admitted");
    await checked.close();
    await Promise.all([page.waitForURL(/\/return\/framed\?admission=qa1\./), go.click()]);
    await page.close();
  });

  it("speaks German with locale=de or a German browser; without return_url or shop_url it moves on to the hosted shop with the admission", async () => {
    const german = await need(browsing).browser.newContext({
      javaScriptEnabled: true,
      viewport: DESKTOP,
      locale: "de-DE",
    });
    try {
      const page = await german.newPage();
      const inShop = (locale: string | null) => (u: URL) =>
        u.pathname === `/${shop.org}/${shop.event}/` &&
        /^qa1\./.test(u.searchParams.get("admission") ?? "") &&
        u.searchParams.get("locale") === locale;
      await page.goto(queuePage(), { waitUntil: "load" });
      expect(await page.locator("html").getAttribute("lang")).toBe("de");
      expect(await page.locator("h2").innerText()).toBe("Warteraum");
      // admitted: on to the hosted shop at the event's public_url, which lets the admission in
      await page.waitForURL(inShop(null), { timeout: 30_000, waitUntil: "load" });
      expect(await page.getByRole("button", { name: "Add to cart" }).isVisible()).toBe(true);
      await need(browsing).inspect(page, "queue-admitted-shop");

      // the same tab again: the ticket kept in sessionStorage resumes, no second place
      const joins: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/queue/join/")) joins.push(r.url());
      });
      await page.goto(queuePage({ locale: "en" }), { waitUntil: "commit" });
      await page.waitForURL(inShop("en"), { timeout: 30_000, waitUntil: "load" });
      expect(joins).toEqual([]);
    } finally {
      await german.close();
    }
  });
});
