/**
 * The ticket PDF as the buyer sees it: the service started as a newcomer starts it, a paid order
 * of the browser tests' shop, its ticket downloaded through the API and drawn by pdf.js (unpdf's
 * build, served to the page by the test) in Chromium; the page photographed (SCREENSHOT_DIR,
 * `ticket-pdf.png`) and its drawn area measured: the default layout fills the A4 page.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startService } from "../bench/server.ts";
import { launchChromium, SCREENSHOT_DIR } from "./browser.ts";
import { buildShop, type Shop } from "./shop.ts";

const PDFJS = readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve("unpdf")), "pdfjs.mjs"));
const ORIGIN = "http://ticket.test";

let service: Service | undefined;
let browser: Browser | undefined;
let shop: Shop;

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`ticket pdf: ${line}\n`);
  const [svc, br] = await Promise.allSettled([
    startService({
      organizer: { slug: "lakeside", name: "Lakeside Concerts" },
      countRoundTrips: false,
      stateDirPrefix: "ticketing-browser-ticket-",
      log,
    }),
    launchChromium(),
  ]);
  if (svc.status === "fulfilled") service = svc.value;
  if (br.status === "fulfilled") browser = br.value;
  for (const r of [svc, br]) if (r.status === "rejected") throw r.reason;
  shop = await buildShop(need(service), "https://shop.example.org/return/");
}, 480_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** The ticket PDF of a position, once the documents queue rendered it. */
async function ticketPdf(positionId: number): Promise<Buffer> {
  const url = `${need(service).base}${shop.path}/orderpositions/${positionId}/download/pdf/`;
  for (let i = 0; i < 60; i++) {
    const res = await fetch(url, { headers: { Authorization: `Token ${need(service).token}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status === 200) return bytes;
    expect(res.status).toBe(409);
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error("the ticket was not rendered in a minute");
}

/** The page that draws the PDF's first page onto a canvas at 2 px per point, white background. */
const VIEWER = `<!doctype html><html lang="en"><head><title>Ticket</title>
<style>body { margin: 0; background: #888; } canvas { display: block; margin: 0 auto; background: #fff; }</style></head>
<body><canvas id="page"></canvas>
<script type="module">
import { getDocument } from "/pdfjs.mjs";
const data = new Uint8Array(await (await fetch("/ticket.pdf")).arrayBuffer());
const pdf = await getDocument({ data, isEvalSupported: false }).promise;
const page = await pdf.getPage(1);
const viewport = page.getViewport({ scale: 2 });
const canvas = document.getElementById("page");
canvas.width = viewport.width;
canvas.height = viewport.height;
const ctx = canvas.getContext("2d");
ctx.fillStyle = "#fff";
ctx.fillRect(0, 0, canvas.width, canvas.height);
await page.render({ canvasContext: ctx, viewport }).promise;
// the rows of the page (top to bottom) that hold anything darker than near-white
const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
const inked = [];
for (let y = 0; y < canvas.height; y++) {
  let dark = false;
  for (let x = 0; x < canvas.width && !dark; x++) dark = pixels[(y * canvas.width + x) * 4] < 200;
  inked.push(dark);
}
window.drawn = { height: canvas.height, inked };
</script></body></html>`;

describe("the ticket PDF in Chromium", () => {
  it("is drawn over the whole A4 page: event and start with time zone at the top, QR code in the middle, holder below", async () => {
    const order = await shop.order({
      payment_provider: "manual",
      positions: [{ item: shop.pass.id, attendee_name: "Alex Lakeside-Marsh" }],
    });
    await shop.api.ok("POST", `${shop.path}/orders/${order.code}/mark_paid/`, {}, 200);
    const pdf = await ticketPdf(order.positions[0].id);
    writeFileSync(path.join(SCREENSHOT_DIR, "ticket.pdf"), pdf);

    const context = await need(browser).newContext({
      javaScriptEnabled: true,
      viewport: { width: 1240, height: 1754 },
    });
    // the viewer, pdf.js and the PDF from the test itself; nothing else is reachable
    await context.route("**/*", async (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      if (url.pathname === "/") return route.fulfill({ contentType: "text/html", body: VIEWER });
      if (url.pathname === "/pdfjs.mjs") return route.fulfill({ contentType: "text/javascript", body: PDFJS });
      if (url.pathname === "/ticket.pdf") return route.fulfill({ contentType: "application/pdf", body: pdf });
      return route.fulfill({ status: 404, body: "" });
    });
    const page = await context.newPage();
    await page.goto(`${ORIGIN}/`, { waitUntil: "load" });
    await page.waitForFunction("window.drawn !== undefined", undefined, { timeout: 60_000 });
    await page.locator("#page").screenshot({ path: path.join(SCREENSHOT_DIR, "ticket-pdf.png") });
    const drawn = (await page.evaluate("window.drawn")) as { height: number; inked: boolean[] };
    await context.close();

    // inked from the top tenth to the bottom tenth of the page, with no empty band of a fifth of it
    const rows = drawn.inked.map((v, y) => (v ? y : -1)).filter((y) => y >= 0);
    expect(rows[0]! / drawn.height).toBeLessThan(0.1);
    expect(rows.at(-1)! / drawn.height).toBeGreaterThan(0.9);
    const gaps = rows.slice(1).map((y, k) => y - rows[k]!);
    expect(Math.max(...gaps) / drawn.height).toBeLessThan(0.2);
    // the middle of the page is the QR code: about a third of its rows are inked
    const middle = drawn.inked.slice(Math.round(drawn.height * 0.35), Math.round(drawn.height * 0.55));
    expect(middle.filter(Boolean).length / middle.length).toBeGreaterThan(0.9);
  });
});
