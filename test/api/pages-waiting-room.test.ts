/**
 * The waiting page of an on-sale queue (`/{organizer}/{event}/queue/`) as the worker serves it:
 * where it applies (404 elsewhere), the settings its script gets, its language, its policy
 * (scripts of this origin only), framing, return_url and the script itself. What the script
 * does in a browser is test/browser/queue-page.test.ts.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { onsaleQueues } from "../../src/db/schema/index";
import { db } from "../harness";
import { fetchPage, getPage, textOf } from "../helpers/pages";
import { eventIdOf, type Shop, shop } from "../helpers/sales";

type QueueRow = typeof onsaleQueues.$inferSelect;

/** A queue row of the shop's event, straight in D1 (the resource is tested with its routes). */
async function addQueue(s: Shop, values: Partial<typeof onsaleQueues.$inferInsert>): Promise<QueueRow> {
  const now = Date.now();
  const [row] = await db()
    .insert(onsaleQueues)
    .values({
      organizerId: s.org.id,
      eventId: await eventIdOf(s),
      opensAt: Date.parse("2030-03-01T09:00:00Z"),
      admissionsPerMinute: 100,
      bypassSalesChannels: [],
      bypassTeams: [],
      createdAt: now,
      updatedAt: now,
      ...values,
    })
    .returning();
  return row!;
}

/** A live event (redirection to shop.example.org allowed) with a queue in front of its sales. */
async function queuedShop(opts: { series?: boolean } = {}): Promise<Shop & { queue: QueueRow }> {
  const s = await shop({ series: opts.series, event: { timezone: "Europe/Berlin" } });
  const ticket = await s.item();
  // a series sells by date: its quota is a date's
  const first = opts.series ? await s.subevent() : null;
  await s.quota({ size: 10, items: [ticket.id], ...(first ? { subevent: first.id } : {}) });
  const live = await s.client.patch(`${s.path}/`, {
    live: true,
    plugins: ["pretix.plugins.manualpayment", "pretix.plugins.returnurl"],
  });
  expect(live.status, JSON.stringify(live.body)).toBe(200);
  await s.client.patch(`${s.path}/settings/`, { returnurl_prefix: "https://shop.example.org/" });
  return { ...s, queue: await addQueue(s, {}) };
}

const pageOf = (s: Shop, query = "") => `/${s.orgSlug}/${s.eventSlug}/queue/${query}`;

/** The settings the page hands its script (`data-config`, HTML-escaped JSON). */
function configOf(text: string): any {
  const attr = /data-config="([^"]*)"/.exec(text)?.[1];
  expect(attr, "the page's data-config").toBeDefined();
  const json = attr!
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
  return JSON.parse(json);
}

describe("the waiting page", () => {
  it("renders for an event with an active queue: the opening, the live region, the script and its settings", async () => {
    const s = await queuedShop();
    const res = await getPage(pageOf(s));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain("<h2>Waiting room</h2>");
    // 09:00 UTC is 10:00 in Berlin (winter time)
    expect(res.text).toContain("The sale opens on Fri, 1 March 2030 at 10:00 CET.");
    expect(res.text).toMatch(/<p id="queue-status" class="note" role="status" aria-live="polite" aria-atomic="true">/);
    expect(res.text).toContain('<script type="module" src="/static/queue-page.js"></script>');
    expect(res.text).toContain("<noscript>");
    const api = `/api/v1/organizers/${s.orgSlug}/events/${s.eventSlug}/queue/`;
    expect(configOf(res.text)).toMatchObject({
      join: `${api}join/`,
      status: `${api}status/`,
      live: `${api}live/`,
      subevent: null,
      // no shop_url: the hosted shop at the event's public_url
      returnUrl: `http://ticketing.test/${s.orgSlug}/${s.eventSlug}/`,
      iframe: false,
      eventUrl: `http://ticketing.test/${s.orgSlug}/${s.eventSlug}/`,
      locale: "en-GB",
      timeZone: "Europe/Berlin",
      texts: expect.objectContaining({ place: "Your place", continue: "Continue to the shop" }),
    });
  });

  it("allows scripts and connections of this origin only, and refuses framing unless iframe=1", async () => {
    const s = await queuedShop();
    const standalone = await getPage(pageOf(s));
    const policy = standalone.headers.get("content-security-policy") ?? "";
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ])
      expect(policy).toContain(directive);
    expect(policy).not.toContain("unsafe-inline' 'self");
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(standalone.headers.get("x-frame-options")).toBe("DENY");

    const framed = await getPage(pageOf(s, "?iframe=1"));
    expect(framed.status).toBe(200);
    expect(framed.headers.get("x-frame-options")).toBeNull();
    expect(framed.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(framed.headers.get("content-security-policy")).not.toContain("frame-ancestors");
    // framed: the integrator's page has its own chrome
    expect(framed.text).not.toContain("<header>");
    expect(framed.text).not.toContain("<footer>");
    expect(framed.text).toContain('<main class="bare"><h1>Concert</h1>');
    expect(configOf(framed.text).iframe).toBe(true);
    expect(standalone.text).toContain("<header><h1>Concert</h1>");
  });

  it("speaks German by locale or by the browser's Accept-Language, English otherwise", async () => {
    const s = await queuedShop();
    const byLocale = await getPage(pageOf(s, "?locale=de-AT"));
    expect(byLocale.text).toContain('<html lang="de">');
    expect(byLocale.text).toContain("<h2>Warteraum</h2>");
    expect(byLocale.text).toContain("Der Verkauf beginnt am Fr., 1. März 2030 um 10:00 MEZ.");
    expect(configOf(byLocale.text)).toMatchObject({
      locale: "de-DE",
      texts: expect.objectContaining({ place: "Ihr Platz" }),
    });

    const browser = await fetchPage("GET", pageOf(s), { headers: { "Accept-Language": "fr-FR, de;q=0.8, en;q=0.5" } });
    expect(browser.text).toContain("<h2>Warteraum</h2>");
    const english = await fetchPage("GET", pageOf(s), { headers: { "Accept-Language": "en-US, de;q=0.9" } });
    expect(english.text).toContain("<h2>Waiting room</h2>");
    const overridden = await fetchPage("GET", pageOf(s, "?locale=en"), { headers: { "Accept-Language": "de" } });
    expect(overridden.text).toContain("<h2>Waiting room</h2>");
  });

  it("takes a return_url below the event's redirection prefix, and refuses another with 400", async () => {
    const s = await queuedShop();
    const ok = await getPage(pageOf(s, `?return_url=${encodeURIComponent("https://shop.example.org/checkout?x=1")}`));
    expect(ok.status).toBe(200);
    expect(configOf(ok.text).returnUrl).toBe("https://shop.example.org/checkout?x=1");
    const foreign = await getPage(pageOf(s, `?return_url=${encodeURIComponent("https://evil.example.com/")}`));
    expect(foreign.status).toBe(400);
    expect(foreign.text).toContain("The return_url parameter does not lie below a base URL configured for this event.");
    expect(foreign.text).not.toContain("data-config");
  });

  it("without a return_url, the event's shop_url is where an admitted visitor goes on to, else the hosted shop; a return_url wins", async () => {
    const s = await queuedShop();
    expect(configOf((await getPage(pageOf(s))).text).returnUrl).toBe(
      `http://ticketing.test/${s.orgSlug}/${s.eventSlug}/`,
    );
    const set = await s.client.patch(`${s.path}/settings/`, { shop_url: "https://shop.example.org/tickets" });
    expect(set.status).toBe(200);
    expect(configOf((await getPage(pageOf(s))).text).returnUrl).toBe("https://shop.example.org/tickets");
    const given = await getPage(pageOf(s, `?return_url=${encodeURIComponent("https://shop.example.org/checkout")}`));
    expect(configOf(given.text).returnUrl).toBe("https://shop.example.org/checkout");
  });

  it("once the opening passed it says the sale opened; what the script hides once admitted has its ids; no admission code texts", async () => {
    const s = await queuedShop();
    await db()
      .update(onsaleQueues)
      .set({ opensAt: Date.parse("2026-01-05T09:00:00Z") })
      .where(eq(onsaleQueues.id, s.queue.id));
    const res = await getPage(pageOf(s));
    expect(res.text).toContain(
      '<p id="queue-opens" class="muted">The sale opened on Mon, 5 January 2026 at 10:00 CET.</p>',
    );
    expect(res.text).not.toMatch(/<p[^>]*>The sale opens on/);
    expect(res.text).toMatch(/<p id="queue-intro">[^<]*keep this page open/);
    // what the script hides stays hidden whatever the page's style says of the element (dl.facts is a grid)
    expect(res.text).toContain("[hidden]{display:none!important}");
    const texts = configOf(res.text).texts;
    expect(texts.admission).toBeUndefined();
    expect(texts.admittedHere).toBe(
      "It is your turn! Your admission is valid until {time} and allows {orders} order(s). The event page says where tickets are sold.",
    );
  });

  it("the event page is the hosted shop: behind the active queue a visitor without an admission is sent to the waiting page", async () => {
    const s = await queuedShop();
    const without = await getPage(`/${s.orgSlug}/${s.eventSlug}/`);
    expect(without.status).toBe(303);
    expect(without.location).toBe(`http://ticketing.test/${s.orgSlug}/${s.eventSlug}/queue/`);
    const german = await getPage(`/${s.orgSlug}/${s.eventSlug}/?locale=de&iframe=1`);
    expect(german.location).toBe(`http://ticketing.test/${s.orgSlug}/${s.eventSlug}/queue/?locale=de&iframe=1`);
    await db().update(onsaleQueues).set({ active: false }).where(eq(onsaleQueues.id, s.queue.id));
    const open = await getPage(`/${s.orgSlug}/${s.eventSlug}/`);
    expect(open.status).toBe(200);
    expect(textOf(open.text)).toContain("Add to cart");
  });

  it("answers 404 where no active queue applies: no queue, a deactivated one, an event not live, unknown slugs, a malformed date", async () => {
    const none = await shop();
    expect((await getPage(pageOf(none))).status).toBe(404);

    const off = await queuedShop();
    await db().update(onsaleQueues).set({ active: false }).where(eq(onsaleQueues.id, off.queue.id));
    const offPage = await getPage(pageOf(off));
    expect(offPage.status).toBe(404);
    expect(offPage.text).toContain("This queue does not exist.");

    const draft = await queuedShop();
    await draft.client.patch(`${draft.path}/`, { live: false });
    expect((await getPage(pageOf(draft))).status).toBe(404);

    const s = await queuedShop();
    expect((await getPage(pageOf(s, "?subevent=abc"))).status).toBe(404);
    expect((await getPage(`/${s.orgSlug}/no-such-event/queue/`)).status).toBe(404);
    expect((await getPage(`/no-such-organizer/${s.eventSlug}/queue/`)).status).toBe(404);
    expect((await getPage(pageOf(s))).status).toBe(200);
  });

  it("for a series: the date's own queue or the event-wide one, by ?subevent", async () => {
    const s = await queuedShop({ series: true });
    const date = await s.subevent();
    const other = await s.subevent();
    const closed = await s.subevent();
    await addQueue(s, { subeventId: date.id, opensAt: Date.parse("2030-04-01T09:00:00Z") });
    await addQueue(s, { subeventId: closed.id, active: false });
    const own = await getPage(pageOf(s, `?subevent=${date.id}`));
    expect(own.status).toBe(200);
    expect(own.text).toContain("The sale opens on Mon, 1 April 2030 at 11:00 CEST.");
    expect(configOf(own.text)).toMatchObject({ subevent: date.id });
    const wide = await getPage(pageOf(s, `?subevent=${other.id}`));
    expect(wide.status).toBe(200);
    expect(wide.text).toContain("The sale opens on Fri, 1 March 2030 at 10:00 CET.");
    // a date whose own queue is inactive has none, whatever the event-wide one
    expect((await getPage(pageOf(s, `?subevent=${closed.id}`))).status).toBe(404);
  });

  it("serves its script with an entity tag, and 304 for the same tag", async () => {
    const res = await getPage("/static/queue-page.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=UTF-8");
    expect(res.text).toContain('document.getElementById("queue")');
    expect(res.text).toContain("new WebSocket(");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{24}"$/);
    const again = await fetchPage("GET", "/static/queue-page.js", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });
});
