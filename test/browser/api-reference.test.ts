/**
 * The API reference page (`/api/docs`) in a real browser on a closed network: Debian's Chromium
 * driven by playwright-core against the service started as a newcomer starts it (`npm start`),
 * with every request to another host aborted. The reference renders from the service alone
 * (its operations are listed, taken from the description the service serves), and the page's
 * plain link to the description is there, also when the script cannot load or run.
 */
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "../bench/server.ts";
import { DESKTOP, launchChromium, SCREENSHOT_DIR } from "./browser.ts";

type Json = any;

/** The machine may be busy: a 5 MB script to compile, a description of 200 operations to render. */
const RENDER_MS = 240_000;

let starting: Promise<Service> | undefined;
let service: Service | undefined;
let browser: Browser | undefined;

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

// Starting the service applies the migrations first: minutes on a busy machine.
const START_MS = 480_000;

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`api reference: ${line}\n`);
  starting = startService({
    organizer: { slug: "reference", name: "Reference" },
    countRoundTrips: false,
    stateDirPrefix: "ticketing-reference-",
    log,
  });
  const [svc, br] = await Promise.allSettled([starting, launchChromium()]);
  if (svc.status === "fulfilled") service = svc.value;
  if (br.status === "fulfilled") browser = br.value;
  for (const r of [svc, br]) if (r.status === "rejected") throw r.reason;
}, START_MS);

afterAll(async () => {
  await browser?.close();
  // a start still under way when the set-up gave up is stopped once it is done
  await starting?.then(
    (s) => s.stop(),
    () => undefined,
  );
}, START_MS);

/**
 * A browser context on a closed network: requests to the service pass, every other http(s)
 * request is aborted and recorded; `block` aborts the service's own paths too.
 */
async function offline(opts: { javaScript?: boolean; block?: string[] } = {}) {
  const base = need(service).base;
  const context: BrowserContext = await need(browser).newContext({
    viewport: DESKTOP,
    javaScriptEnabled: opts.javaScript ?? true,
  });
  const elsewhere: string[] = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.origin === base && !opts.block?.includes(url.pathname)) return route.continue();
    if (url.origin !== base) elsewhere.push(url.href);
    return route.abort("internetdisconnected");
  });
  return { context, elsewhere };
}

/** The page's plain link to the description, and what it leads to. */
async function expectDescriptionLink(page: Page) {
  const link = page.getByRole("link", { name: "openapi.json", exact: true });
  await link.waitFor({ state: "visible", timeout: RENDER_MS });
  expect(await link.getAttribute("href")).toBe("/api/v1/openapi.json");
  const res = await page.request.get(new URL("/api/v1/openapi.json", page.url()).toString());
  expect(res.status()).toBe(200);
  expect((await res.json()).openapi).toBe("3.1.0");
}

describe("GET /api/docs, with no network but the service", () => {
  it(
    "renders the reference: the operations of the description are listed; nothing is asked of another host",
    async () => {
      const { context, elsewhere } = await offline();
      const page = await context.newPage();
      const failures: string[] = [];
      page.on("pageerror", (e) => failures.push(e.message));
      try {
        const doc: Json = await (await fetch(`${need(service).base}/api/v1/openapi.json`)).json();
        const summaries = (tag: string) =>
          Object.values(doc.paths as Record<string, Record<string, Json>>)
            .flatMap((item) => Object.values(item))
            .filter((op) => op.tags?.[0] === tag)
            .map((op) => op.summary as string);
        const res = await page.goto(`${need(service).base}/api/docs`, { waitUntil: "load", timeout: RENDER_MS });
        expect(res?.status()).toBe(200);

        // the reference's sidebar (an <aside>)
        const sidebar = page.getByRole("complementary").first();
        // the first group is open: each of its operations is listed
        const first = doc.tags[0].name as string;
        expect(summaries(first).length).toBeGreaterThan(2);
        for (const summary of summaries(first))
          await sidebar.getByText(summary, { exact: true }).first().waitFor({ state: "visible", timeout: RENDER_MS });
        // another group opens on a click and lists its operations
        const orders = summaries("Orders");
        expect(orders).toContain("Create an order");
        await sidebar.getByText("Orders", { exact: true }).first().click({ timeout: RENDER_MS });
        for (const summary of orders)
          await sidebar.getByText(summary, { exact: true }).first().waitFor({ state: "visible", timeout: RENDER_MS });
        await page.getByRole("heading", { name: doc.info.title }).first().waitFor({ timeout: RENDER_MS });

        await expectDescriptionLink(page);
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, "api-docs.desktop.png"), timeout: RENDER_MS });
        expect(failures).toEqual([]);
        expect(elsewhere).toEqual([]);
      } finally {
        await context.close();
      }
    },
    2 * RENDER_MS,
  );

  it(
    "an operation's curl example sends the Token scheme and the description's example body (no testmode, no code)",
    async () => {
      const { context } = await offline();
      const page = await context.newPage();
      try {
        await page.goto(`${need(service).base}/api/docs`, { waitUntil: "load", timeout: RENDER_MS });
        const sidebar = page.getByRole("complementary").first();
        await sidebar.getByText("Orders", { exact: true }).first().click({ timeout: RENDER_MS });
        await sidebar.getByText("Create an order", { exact: true }).first().click({ timeout: RENDER_MS });
        // every curl example sends the Token scheme; the order's carries the description's example body
        const curls = page.locator("pre").filter({ hasText: "curl" });
        await curls.first().waitFor({ state: "visible", timeout: RENDER_MS });
        const order = curls.filter({ hasText: '"positions"' }).first();
        await order.waitFor({ state: "visible", timeout: RENDER_MS });
        await order.scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, "api-docs-order-example.desktop.png") });
        const code = (await order.innerText()).replace(/\s+/g, " ");
        process.stderr.write(`api reference: the order's curl example: ${code}\n`);
        expect(code).toContain("Authorization: Token YOUR_SECRET_TOKEN");
        expect(code).not.toContain("testmode");
        expect(code).not.toContain('"code"');
        for (const text of await curls.allInnerTexts())
          expect(text).toContain("Authorization: Token YOUR_SECRET_TOKEN");
      } finally {
        await context.close();
      }
    },
    2 * RENDER_MS,
  );

  it(
    "keeps the plain link to the description when the script cannot load, and without JavaScript",
    async () => {
      for (const opts of [{ block: ["/api/docs/api-reference.js"] }, { javaScript: false }]) {
        const { context, elsewhere } = await offline(opts);
        try {
          const page = await context.newPage();
          await page.goto(`${need(service).base}/api/docs`, { waitUntil: "load", timeout: RENDER_MS });
          await expectDescriptionLink(page);
          expect(elsewhere).toEqual([]);
        } finally {
          await context.close();
        }
      }
    },
    2 * RENDER_MS,
  );
});
