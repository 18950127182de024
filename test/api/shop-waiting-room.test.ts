/**
 * The hosted shop behind an on-sale queue and for a series (docs/customer-pages.md "The
 * shop"): a visitor without a valid admission is sent to the waiting page; an admitted one
 * (`?admission=` as the waiting page appends it) lands in the shop with the admission kept and
 * applied to the cart. A series chooses its date first (`?subevent=`).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/lib/env";
import { signAdmission } from "../../src/lib/waiting-room-tokens";
import { fetchPage, getPage, postForm, textOf } from "../helpers/pages";
import { cartsOf, shop } from "../helpers/sales";

const SECRET = (env as Env).TICKET_SIGNING_KEY_SECRET!;

/** A live event with a ticket behind an open event-wide queue. */
async function queuedShop() {
  const s = await shop();
  const ticket = await s.item({ name: { en: "Day ticket" } });
  await s.quota({ size: 100, items: [ticket.id] });
  const queue = await s.post("/onsale_queues/", { opens_at: "2020-01-01T00:00:00Z", admissions_per_minute: 60 });
  expect((await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] })).status).toBe(
    200,
  );
  const admission = (over: { x?: number } = {}) =>
    signAdmission(SECRET, {
      q: queue.id,
      e: s.eventId,
      s: null,
      a: crypto.randomUUID().replace(/-/g, "").slice(0, 16),
      o: 1,
      x: Date.now() + 3_600_000,
      ...over,
    });
  return { s, ticket, queue, admission, url: `/${s.orgSlug}/${s.eventSlug}/` };
}

describe("the shop behind the waiting room", () => {
  it("sends a visitor without a valid admission to the waiting page (GET and cart POST), holding nothing", async () => {
    const { s, ticket, admission, url } = await queuedShop();
    const visit = await getPage(url);
    expect(visit.status).toBe(303);
    expect(visit.location).toBe(`http://ticketing.test${url}queue/`);
    const expired = await getPage(`${url}?admission=${await admission({ x: Date.now() - 1000 })}`);
    expect(expired.status).toBe(303);
    const post = await postForm(`${url}cart`, { [`item_${ticket.id}`]: "1" });
    expect(post.status).toBe(303);
    expect(post.location).toBe(`http://ticketing.test${url}queue/`);
    expect(await cartsOf(s.eventId)).toHaveLength(0);
  });

  it("an admitted visitor lands in the shop with the admission kept (links, cookie) and applied to the cart", async () => {
    const { s, ticket, admission, url } = await queuedShop();
    const token = await admission();
    const landed = await getPage(`${url}?admission=${token}`);
    expect(landed.status).toBe(200);
    expect(landed.headers.get("Set-Cookie")).toContain("shop_admission=");
    expect(landed.text).toContain(`action="http://ticketing.test${url}cart?admission=${token}"`);
    const added = await postForm(`${url}cart?admission=${token}`, { [`item_${ticket.id}`]: "1" });
    expect(added.status).toBe(303);
    const next = new URL(added.location!);
    expect(next.searchParams.get("admission")).toBe(token);
    expect(next.searchParams.get("cart")).toMatch(/@shop$/);
    expect(await cartsOf(s.eventId)).toHaveLength(1);
    // the cookie alone carries the admission back to the bare URL
    const cookie = landed.headers.get("Set-Cookie")!.match(/shop_admission=[^;]+/)![0];
    expect((await fetchPage("GET", url, { headers: { Cookie: cookie } })).status).toBe(200);
  });
});

describe("a series", () => {
  it("chooses the date first; the date's shop sells for that date", async () => {
    const s = await shop({ series: true, event: { name: { en: "Theatre Season" } } });
    const seat = await s.item({ name: { en: "Stalls seat" }, default_price: "40.00" });
    const premiere = await s.subevent({ name: { en: "Premiere" }, date_from: "2030-10-01T18:00:00Z" });
    await s.quota({ size: 10, items: [seat.id], subevent: premiere.id });
    expect((await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] })).status).toBe(
      200,
    );
    const url = `/${s.orgSlug}/${s.eventSlug}/`;
    const dates = await getPage(url);
    expect(textOf(dates.text)).toContain("Choose a date Premiere");
    expect(dates.text).toContain(`href="http://ticketing.test${url}?subevent=${premiere.id}"`);
    expect(textOf(dates.text)).not.toContain("Add to cart");
    const datePage = await getPage(`${url}?subevent=${premiere.id}`);
    expect(textOf(datePage.text)).toContain("Premiere");
    expect(datePage.text).toContain(`action="http://ticketing.test${url}cart?subevent=${premiere.id}"`);
    const added = await postForm(`${url}cart?subevent=${premiere.id}`, { [`item_${seat.id}`]: "1" });
    expect(added.status).toBe(303);
    const [row] = await cartsOf(s.eventId);
    expect(row).toMatchObject({ itemId: seat.id, subeventId: premiere.id, price: 4000 });
    // without a date the cart post goes back to the dates
    expect((await postForm(`${url}cart`, { [`item_${seat.id}`]: "1" })).status).toBe(303);
    expect(await cartsOf(s.eventId)).toHaveLength(1);
  });
});
