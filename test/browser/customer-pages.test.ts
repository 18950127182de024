/**
 * The customer pages in a real browser, used as customers use them: Debian's Chromium driven by
 * playwright-core, with JavaScript disabled, against the service started as a newcomer starts
 * it (`npm start` into a fresh state directory, an organizer made with the operator command, a
 * shop built through the API). Every page visited is photographed at desktop and phone size,
 * checked for horizontal overflow on the phone and by axe-core (browser.ts); side effects are
 * read back through the API.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Frame, Locator, Page, Response } from "playwright-core";
import { extractText, getDocumentProxy } from "unpdf";
import { type Service, startService } from "../bench/server.ts";
import { type Browsing, openBrowser, SCREENSHOT_DIR } from "./browser.ts";
import { buildShop, type Json, linkFromMail, type Shop } from "./shop.ts";
import { escapeHtml, type Site, startSite } from "./site.ts";

let service: Service | undefined;
let site: Site | undefined;
let browsing: Browsing | undefined;
let shop: Shop;
const started = Date.now();

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the set-up did not finish");
  return value;
}

beforeAll(async () => {
  const log = (line: string) => process.stderr.write(`browser tests: ${line}\n`);
  const [svc, st, br] = await Promise.allSettled([
    startService({
      organizer: { slug: "lakeside", name: "Lakeside Concerts" },
      countRoundTrips: false,
      stateDirPrefix: "ticketing-browser-",
      log,
    }),
    startSite(),
    openBrowser(),
  ]);
  if (svc.status === "fulfilled") service = svc.value;
  if (st.status === "fulfilled") site = st.value;
  if (br.status === "fulfilled") browsing = br.value;
  for (const r of [svc, st, br]) if (r.status === "rejected") throw r.reason;
  log(`service on ${need(service).base}, integrator site on ${need(site).base}, screenshots in ${SCREENSHOT_DIR}`);
  shop = await buildShop(need(service), `${need(site).base}/return/`);
});

afterEach(() => {
  // the page checks (phone overflow, axe-core) of the pages this test visited
  if (browsing) expect(browsing.takeProblems()).toEqual([]);
});

afterAll(async () => {
  await browsing?.close();
  await site?.close();
  if (service) {
    // the server's output beside the screenshots, for when something went wrong
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    writeFileSync(path.join(SCREENSHOT_DIR, "server.log"), `${service.logTail(1000)}\n`);
    await service.stop();
  }
  const pages = browsing?.reports.length ?? 0;
  process.stdout.write(
    `\nbrowser tests: ${pages} page checks (screenshots at desktop and phone size in ${SCREENSHOT_DIR}) in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
});

// ---- helpers ----

/** Clicks (a link or a submit button) and waits for the page it leads to. */
async function follow(target: Page | Frame, what: Locator): Promise<Response | null> {
  const [response] = await Promise.all([target.waitForNavigation({ waitUntil: "load" }), what.click()]);
  return response;
}

async function visit(page: Page, url: string): Promise<Response> {
  const res = await page.goto(url, { waitUntil: "load" });
  if (!res) throw new Error(`no response for ${url}`);
  return res;
}

/** The visible text of the page's main content, whitespace collapsed. */
async function mainText(page: Page | Frame): Promise<string> {
  return ((await page.locator("main").innerText()) ?? "").replace(/\s+/g, " ").trim();
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

async function newPage(): Promise<Page> {
  return need(browsing).newPage();
}

const inspect = (page: Page, name: string) => need(browsing).inspect(page, name);

/**
 * Clicks a ticket download link as a customer does and waits for the saved file: while the
 * ticket is being rendered the link answers a page that reloads itself (Refresh header, no
 * JavaScript), then the PDF as an attachment. `answers`: the statuses of the link's URL, in order.
 */
async function downloadFrom(
  page: Page,
  link: Locator,
): Promise<{ bytes: Buffer; filename: string; answers: number[] }> {
  const href = new URL((await link.getAttribute("href"))!, page.url()).toString();
  const answers: number[] = [];
  const seen = (r: Response) => {
    if (r.url() === href) answers.push(r.status());
  };
  page.on("response", seen);
  try {
    const [download] = await Promise.all([page.waitForEvent("download", { timeout: 90_000 }), link.click()]);
    expect(download.url()).toBe(href);
    const file = await download.path();
    return { bytes: readFileSync(file), filename: download.suggestedFilename(), answers };
  } catch (e) {
    throw new Error(
      `no ticket was saved from ${href} (answers: ${answers.join(", ") || "none"}; the page shows: ${await mainText(page).catch(() => "?")}): ${e}`,
    );
  } finally {
    page.off("response", seen);
  }
}

/** A PDF whose text layer contains every one of `texts`. */
async function expectTicket(bytes: Buffer, texts: string[]): Promise<void> {
  expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text, totalPages } = await extractText(pdf, { mergePages: true });
  expect(totalPages).toBe(1);
  for (const t of texts) expect(text).toContain(t);
}

async function cardValue(card: Json): Promise<string> {
  return (await shop.api.ok("GET", `/api/v1/organizers/${shop.org}/giftcards/${card.id}/`)).value;
}

// ---- the flows ----

describe("customer pages in Chromium, JavaScript off", () => {
  it("runs the customer's browser with JavaScript disabled", async () => {
    need(site).setPage(
      "/script",
      `<!doctype html><html lang="en"><head><title>before</title></head><body><main><script>document.title = "after"</script></main></body></html>`,
    );
    const page = await newPage();
    await visit(page, `${need(site).base}/script`);
    expect(await page.title()).toBe("before");
    await page.close();
  });

  it("shows the public organizer page and, one click further, the event's shop", async () => {
    const page = await newPage();
    const res = await visit(page, `${need(service).base}/${shop.org}/`);
    expect(res.status()).toBe(200);
    expect(await page.locator("h1").innerText()).toBe(shop.orgName);
    const org = await mainText(page);
    expect(org).toContain("Open-air concerts by the lake, every summer since 1998.");
    expect(org).toContain("Upcoming events");
    expect(await page.locator("footer").innerText()).toContain("Contact: hello@festival.example.org");
    await inspect(page, "organizer");

    const event = await follow(page, page.getByRole("link", { name: shop.eventName }));
    expect(event?.status()).toBe(200);
    expect(page.url()).toBe(`${need(service).base}/${shop.org}/${shop.event}/`);
    expect(await page.locator("h1").innerText()).toBe(shop.eventName);
    const text = await mainText(page);
    expect(text).toContain("Lakeside Park, North Shore");
    expect(text).toMatch(/Festival pass All three days, all stages\. EUR 20\.00/);
    expect(text).toContain("Children's entry EUR 0.00");
    // the event page is the hosted shop (test/browser/shop-catalog.test.ts buys there)
    expect(text).toContain("Your cart is empty.");
    expect(await page.getByLabel("Quantity of Festival pass").getAttribute("max")).toBe("10");
    expect(await page.getByRole("button", { name: "Add to cart" }).isVisible()).toBe(true);
    await inspect(page, "event");
    await page.close();
  });

  it("pays an order with a gift card: order page → pay/change → payment page → code → paid", async () => {
    const order = await shop.order({});
    expect(order.payments).toEqual([]);
    const card = await shop.giftCard("50.00");
    const page = await newPage();

    expect((await visit(page, order.url)).status()).toBe(200);
    expect(await mainText(page)).toContain(`Order ${order.code} pending`);
    expect(await mainText(page)).toContain("No payment has been started yet.");
    await inspect(page, "order-pending");

    await follow(page, page.getByRole("link", { name: "Choose a payment method" }));
    expect(page.url()).toBe(`${order.url}pay/change`);
    expect(await mainText(page)).toContain(`Order ${order.code}: EUR 20.00 to pay.`);
    await inspect(page, "pay-change");

    await page.getByLabel(/Gift card/).check();
    await follow(page, page.getByRole("button", { name: "Continue" }));
    expect(page.url()).toBe(`${order.url}pay/1/`);
    expect(await mainText(page)).toContain("Pay EUR 20.00 with a gift card.");
    await inspect(page, "payment-giftcard");

    await page.getByLabel("Gift card code").fill("NO-SUCH-CARD");
    const refused = await follow(page, page.getByRole("button", { name: "Pay EUR 20.00" }));
    expect(refused?.status()).toBe(400);
    expect(await mainText(page)).toContain("This gift card is not known.");
    await inspect(page, "payment-giftcard-unknown");
    expect((await shop.readOrder(order.code)).status).toBe("n");

    await page.getByLabel("Gift card code").fill(card.secret);
    const paid = await follow(page, page.getByRole("button", { name: "Pay EUR 20.00" }));
    expect(paid?.status()).toBe(200);
    expect(page.url()).toBe(`${order.url}?paid=yes`);
    expect(await mainText(page)).toContain("Thank you! Your payment has been received.");
    expect(await mainText(page)).toContain(`Order ${order.code} paid`);
    await inspect(page, "order-paid");

    const after = await shop.readOrder(order.code);
    expect(after.status).toBe("p");
    expect(after.payments).toEqual([
      expect.objectContaining({ local_id: 1, provider: "giftcard", state: "confirmed", amount: "20.00" }),
    ]);
    expect(await cardValue(card)).toBe("30.00");
    await page.close();
  });

  it("shows a manual payment's instructions: amount and the order code as reference", async () => {
    const order = await shop.order({ payment_provider: "manual" });
    const page = await newPage();
    expect((await visit(page, order.payments[0].payment_url)).status()).toBe(200);
    const text = await mainText(page);
    expect(text).toContain(
      `Please pay EUR 20.00 as agreed with the organizer, stating ${order.code} as the payment reference.`,
    );
    expect(text).toContain(`Payment reference ${order.code}`);
    expect(text).toContain("The organizer confirms the payment when it has arrived.");
    expect(await page.locator("form").count()).toBe(0);
    await inspect(page, "payment-manual");

    await follow(page, page.getByRole("link", { name: "View the order" }));
    expect(page.url()).toBe(order.url);
    expect(await mainText(page)).toMatch(/Manual payment open EUR 20\.00 Pay now/);
    const after = await shop.readOrder(order.code);
    expect(after.status).toBe("n");
    expect(after.payments[0].state).toBe("created");
    await page.close();
  });

  it("leaves through return_url: error=<code> on failure, the plain URL once paid; a foreign return_url is refused", async () => {
    const order = await shop.order({ payment_provider: "giftcard" });
    const poor = await shop.giftCard("5.00");
    const card = await shop.giftCard("20.00");
    const ret = `${need(site).base}/return/checkout?tx=42`;
    const pay = withQuery(order.payments[0].payment_url, { return_url: ret });
    const page = await newPage();

    await visit(page, pay);
    await inspect(page, "payment-giftcard-return-url");
    await page.getByLabel("Gift card code").fill("NO-SUCH-CARD");
    await follow(page, page.getByRole("button", { name: "Pay EUR 20.00" }));
    expect(page.url()).toBe(`${ret}&error=card_unknown`);
    expect(await page.locator("#param-error").innerText()).toBe("card_unknown");

    await visit(page, pay);
    await page.getByLabel("Gift card code").fill(poor.secret);
    await follow(page, page.getByRole("button", { name: "Pay EUR 20.00" }));
    expect(page.url()).toBe(`${ret}&error=insufficient_credit`);
    expect(await cardValue(poor)).toBe("5.00");
    expect((await shop.readOrder(order.code)).status).toBe("n");

    await visit(page, pay);
    await page.getByLabel("Gift card code").fill(card.secret);
    await follow(page, page.getByRole("button", { name: "Pay EUR 20.00" }));
    expect(page.url()).toBe(ret);
    expect(await page.locator("#param-tx").innerText()).toBe("42");
    expect(await page.locator("#param-error").count()).toBe(0);
    expect((await shop.readOrder(order.code)).status).toBe("p");
    expect(await cardValue(card)).toBe("0.00");

    // a return_url outside the event's returnurl_prefix: a 400 page, and the customer stays
    const foreign = withQuery(order.url, { return_url: "http://127.0.0.2:9/steal" });
    const refused = await visit(page, foreign);
    expect(refused.status()).toBe(400);
    expect(page.url()).toBe(foreign);
    expect(await page.title()).toBe("Return URL not allowed");
    expect(await mainText(page)).toContain(
      "The return_url parameter does not lie below a base URL configured for this event.",
    );
    await inspect(page, "return-url-refused");
    expect(need(site).requests.filter((r) => r.startsWith("GET /return/checkout"))).toEqual([
      "GET /return/checkout?tx=42&error=card_unknown",
      "GET /return/checkout?tx=42&error=insufficient_credit",
      "GET /return/checkout?tx=42",
    ]);
    await page.close();
  });

  it("opens the order page inside an iframe with iframe=1 and pays there; without iframe=1 the browser refuses to frame it", async () => {
    const order = await shop.order({ payment_provider: "giftcard" });
    const card = await shop.giftCard("20.00");
    const ret = `${need(site).base}/return/embedded?tx=7`;
    const framedUrl = withQuery(order.url, { return_url: ret, iframe: "1" });
    need(site).setPage(
      "/embed",
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Integrator shop</title>
<style>body{font-family:sans-serif;margin:1rem}iframe{width:100%;height:560px;border:1px solid #999}</style></head>
<body><main><h1>Our shop, with the order embedded</h1>
<iframe name="framed" title="Your order" src="${escapeHtml(framedUrl)}"></iframe>
<h2>Not allowed: without iframe=1</h2>
<iframe name="unframed" title="Your order, unframed" src="${escapeHtml(order.url)}"></iframe></main></body></html>`,
    );
    const page = await newPage();
    await visit(page, `${need(site).base}/embed`);
    const framed = page.frame({ name: "framed" })!;
    const unframed = page.frame({ name: "unframed" })!;
    expect(framed.url()).toBe(framedUrl);
    expect(await mainText(framed)).toContain(`Order ${order.code} pending`);
    // refused by X-Frame-Options / frame-ancestors: Chromium shows its error page instead
    expect(unframed.url()).not.toBe(order.url);
    expect(unframed.url()).toMatch(/^chrome-error:/);
    expect(await unframed.locator("body").innerText()).not.toContain(order.code);
    await need(browsing).screenshot(page, "iframe-host");

    // paying inside the frame: the last step leaves the frame with a target="_top" button
    await follow(framed, framed.getByRole("link", { name: "Pay now" }));
    expect(framed.url()).toBe(withQuery(order.payments[0].payment_url, { return_url: ret, iframe: "1" }));
    await framed.getByLabel("Gift card code").fill(card.secret);
    await follow(framed, framed.getByRole("button", { name: "Pay EUR 20.00" }));
    expect(await mainText(framed)).toContain("Thank you, your payment has been received.");
    expect(page.url()).toBe(`${need(site).base}/embed`);
    await need(browsing).screenshot(page, "iframe-paid");
    await follow(page, framed.getByRole("link", { name: "Continue" }));
    expect(page.url()).toBe(ret);
    expect((await shop.readOrder(order.code)).status).toBe("p");
    await page.close();
  });

  it("accepts a team invitation through the link of the invitation mail", async () => {
    const email = "robin.member@example.org";
    const teamPath = `/api/v1/organizers/${shop.org}/teams/${need(service).team}`;
    await shop.api.ok("POST", `${teamPath}/invites/`, { email });
    const link = await linkFromMail(need(service), email, /http:\/\/\S+\/invite\/\w+/);
    expect(link.startsWith(`${need(service).base}/invite/`)).toBe(true);

    const page = await newPage();
    expect((await visit(page, link)).status()).toBe(200);
    expect(await mainText(page)).toContain(
      `You have been invited to join the team Administrators of ${shop.orgName} as ${email}.`,
    );
    await inspect(page, "team-invitation");

    await page.getByLabel("Your full name").fill("Robin Member");
    await follow(page, page.getByRole("button", { name: "Join the team" }));
    expect(await mainText(page)).toContain("You are now a member of the team Administrators.");
    await inspect(page, "team-invitation-accepted");

    const members = await shop.api.ok("GET", `${teamPath}/members/`);
    expect(members.results).toEqual([expect.objectContaining({ email, fullname: "Robin Member" })]);
    expect((await shop.api.ok("GET", `${teamPath}/invites/`)).count).toBe(0);
    expect((await visit(page, link)).status()).toBe(404);
    await page.close();
  });

  it("activates a customer account through the link of the activation mail", async () => {
    const email = "jane.customer@example.org";
    const customers = `/api/v1/organizers/${shop.org}/customers`;
    const customer = await shop.api.ok("POST", `${customers}/`, {
      email,
      name_parts: { full_name: "Jane Customer" },
      is_verified: false,
      send_email: true,
    });
    expect(customer.is_verified).toBe(false);
    const link = await linkFromMail(need(service), email, /http:\/\/\S+\/customer\/activate\/[a-z0-9]+/);

    const page = await newPage();
    expect((await visit(page, link)).status()).toBe(200);
    expect(await mainText(page)).toContain(`Choose a password for your account ${email} at ${shop.orgName}.`);
    await inspect(page, "customer-activation");

    await page.getByLabel(/^Password/).fill("lake-view-2030");
    await page.getByLabel("Repeat the password").fill("lake-view-2031");
    const mismatch = await follow(page, page.getByRole("button", { name: "Activate account" }));
    expect(mismatch?.status()).toBe(400);
    expect(await mainText(page)).toContain("The two passwords do not match.");
    await inspect(page, "customer-activation-mismatch");
    expect((await shop.api.ok("GET", `${customers}/${customer.identifier}/`)).is_verified).toBe(false);

    await page.getByLabel(/^Password/).fill("lake-view-2030");
    await page.getByLabel("Repeat the password").fill("lake-view-2030");
    const done = await follow(page, page.getByRole("button", { name: "Activate account" }));
    expect(done?.status()).toBe(200);
    expect(await mainText(page)).toContain(`Your password has been set and your account at ${shop.orgName} is active.`);
    await inspect(page, "customer-activated");
    expect((await shop.api.ok("GET", `${customers}/${customer.identifier}/`)).is_verified).toBe(true);
    await page.close();
  });

  it("answers unknown orders with a 404 page", async () => {
    const order = await shop.order({});
    const page = await newPage();
    const res = await visit(page, order.url.replace(order.secret, "wrongsecret12345"));
    expect(res.status()).toBe(404);
    expect(await mainText(page)).toContain("This order does not exist.");
    await inspect(page, "order-not-found");
    await page.close();
  });

  it("stays readable in an organizer's light accent color", async () => {
    await shop.api.ok("PATCH", `/api/v1/organizers/${shop.org}/settings/`, { primary_color: "#ffd43b" });
    try {
      const order = await shop.order({ payment_provider: "giftcard" });
      const page = await newPage();
      await visit(page, `${need(service).base}/${shop.org}/${shop.event}/`);
      expect(await page.evaluate(`getComputedStyle(document.querySelector("header")).backgroundColor`)).toBe(
        "rgb(255, 212, 59)",
      );
      await inspect(page, "event-light-color");
      await visit(page, order.payments[0].payment_url);
      await inspect(page, "payment-light-color");
      await page.close();
    } finally {
      await shop.api.ok("PATCH", `/api/v1/organizers/${shop.org}/settings/`, { primary_color: null });
    }
  });

  it("downloads the tickets from a paid order's page: the whole order's and one position's, PDFs that name the attendee", async () => {
    const attendee = "Alex Lakeside-Marsh";
    const order = await shop.order({
      payment_provider: "manual",
      positions: [{ item: shop.pass.id, attendee_name: attendee }],
    });
    await shop.api.ok("POST", `${shop.path}/orders/${order.code}/mark_paid/`, {}, 200);
    const position = order.positions[0];
    const page = await newPage();
    await visit(page, order.url);
    expect(await mainText(page)).toContain(`Order ${order.code} paid`);
    expect(await mainText(page)).toContain(attendee);
    await inspect(page, "order-paid-downloads");

    // both links must be there: a page without them fails here
    const whole = page.getByRole("link", { name: "Download your tickets (PDF)" });
    const single = page.getByRole("link", { name: "Ticket (PDF)" });
    expect(await whole.count()).toBe(1);
    expect(await single.count()).toBe(1);
    expect(await whole.getAttribute("href")).toBe(`${order.url}download/pdf/`);
    expect(await single.getAttribute("href")).toBe(`${order.url}download/pdf/${position.id}/`);

    const all = await downloadFrom(page, whole);
    expect(all.filename).toBe(`${shop.event}-${order.code}.pdf`);
    await expectTicket(all.bytes, [attendee, shop.eventName]);
    // the file was not there yet: the customer saw the page that reloads itself until it is
    expect(all.answers[0]).toBe(409);
    expect(page.url()).toBe(`${order.url}download/pdf/`);
    expect(await page.title()).toBe("Preparing your ticket");
    expect(await mainText(page)).toContain("Your ticket is being prepared. This page reloads by itself in a moment.");
    await inspect(page, "ticket-preparing");
    await follow(page, page.getByRole("link", { name: "Back to the order" }));
    expect(page.url()).toBe(order.url);

    const one = await downloadFrom(page, page.getByRole("link", { name: "Ticket (PDF)" }));
    expect(one.filename).toBe(`${shop.event}-${order.code}-${position.positionid}.pdf`);
    await expectTicket(one.bytes, [attendee, shop.eventName]);

    // the order's tickets again: the file is ready now, saved at once
    await visit(page, order.url);
    const again = await downloadFrom(page, page.getByRole("link", { name: "Download your tickets (PDF)" }));
    expect(again.answers).toEqual([200]);
    expect(again.bytes.equals(all.bytes)).toBe(true);
    expect(page.url()).toBe(order.url);
    await page.close();
  });
});
