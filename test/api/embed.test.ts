/**
 * Embedding (docs/embedding.md): the script organizers paste (`/widget/v1.js`: its type, caching
 * and the headers that let other sites load it) and the product list it reads
 * (`/{organizer}/{event}/widget/product_list`): public JSON for any origin, the products the event
 * page lists with prices and live availability, 404 for events customers may not see.
 */
import { describe, expect, it } from "vitest";
import { RESERVED_SEGMENTS } from "../../src/lib/reserved-segments";
import type { Json } from "../harness";
import { fetchPage, getPage } from "../helpers/pages";
import { type Shop, shop } from "../helpers/sales";

const listPath = (s: Shop, query = "") => `/${s.orgSlug}/${s.eventSlug}/widget/product_list${query}`;

async function goLive(s: Shop, body: Record<string, unknown> = {}) {
  const res = await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function productList(s: Shop, query = "", headers: Record<string, string> = {}) {
  const res = await fetchPage("GET", listPath(s, query), { headers });
  return { ...res, body: res.text ? (JSON.parse(res.text) as Json) : null };
}

describe("the embed script", () => {
  it("is JavaScript any site may load, cached and revalidated by its tag, without page framing headers", async () => {
    const res = await getPage("/widget/v1.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/javascript; charset=UTF-8");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Cross-Origin-Resource-Policy")).toBe("cross-origin");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=300");
    // a script, not a page: no page CSP or framing refusal of its own
    expect(res.headers.get("X-Frame-Options")).toBeNull();
    expect(res.headers.get("Content-Security-Policy")).toBeNull();
    expect(res.text).toContain("ticketing-widget");
    expect(res.text).toContain("TicketingWidget");
    // nothing a host CSP without 'unsafe-eval' would refuse
    expect(res.text).not.toMatch(/\beval\(|new Function\(|innerHTML/);
    const etag = res.headers.get("ETag");
    expect(etag).toMatch(/^"[0-9a-f]{24}"$/);
    const again = await fetchPage("GET", "/widget/v1.js", { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });

  it("an unknown file under /widget/ is 404, and widget is a segment no organizer may take", async () => {
    expect(RESERVED_SEGMENTS.has("widget")).toBe(true);
    expect((await getPage("/widget/v2.js")).status).toBe(404);
    expect((await getPage("/widget/")).status).toBe(404);
  });
});

describe("the product list", () => {
  it("lists the products the event page lists, by category, with prices and what is left, for any origin", async () => {
    const s = await shop({ event: { name: { en: "Jazz Night", de: "Jazznacht" } } });
    const category = await s.post("/categories/", { name: { en: "Merchandise", de: "Fanartikel" } });
    const day = await s.item({ name: { en: "Day ticket" }, default_price: "35.00", show_quota_left: true });
    const shirt = await s.item({
      name: { en: "Band shirt", de: "Bandshirt" },
      description: { en: "Organic cotton" },
      default_price: "20.00",
      category: category.id,
      variations: [{ value: { en: "S" } }, { value: { en: "XL" }, default_price: "22.50" }],
    });
    const hidden = await s.item({ name: { en: "Hidden goodie" }, hide_without_voucher: true });
    const retired = await s.item({ name: { en: "Retired item" }, active: false });
    const boxOffice = await s.item({ name: { en: "Box office only" }, sales_channels: ["pretixpos"] });
    const voucherOnly = await s.item({ name: { en: "Crew pass" }, default_price: "0.00", require_voucher: true });
    await s.quota({ size: 3, items: [day.id] });
    await s.quota({ size: 0, items: [shirt.id], variations: [shirt.variations[0].id] });
    await s.quota({
      size: 50,
      items: [shirt.id, hidden.id, retired.id, boxOffice.id, voucherOnly.id],
      variations: [shirt.variations[1].id],
    });
    await goLive(s);
    // one sold: the list counts as the shop does
    const order = await s.client.post(`${s.path}/orders/`, {
      email: "buyer@example.org",
      payment_provider: "manual",
      positions: [{ item: day.id }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);

    const res = await productList(s, "", { Origin: "https://organizer.example.org" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.body).toEqual({
      name: "Jazz Night",
      public_url: `http://ticketing.test/${s.orgSlug}/${s.eventSlug}/`,
      currency: "EUR",
      date_from: "2030-06-01T19:00:00Z",
      date_to: null,
      has_subevents: false,
      subevent: null,
      // the event page's order: categories first, then products without one
      items_by_category: [
        {
          id: category.id,
          name: "Merchandise",
          items: [
            {
              id: shirt.id,
              name: "Band shirt",
              description: "Organic cotton",
              free_price: false,
              require_voucher: false,
              price: "20.00",
              availability_state: null,
              available_number: null,
              variations: [
                {
                  id: shirt.variations[0].id,
                  value: "S",
                  price: "20.00",
                  availability_state: 0,
                  available_number: null,
                },
                {
                  id: shirt.variations[1].id,
                  value: "XL",
                  price: "22.50",
                  availability_state: 100,
                  available_number: null,
                },
              ],
            },
          ],
        },
        {
          id: null,
          name: null,
          items: [
            {
              id: day.id,
              name: "Day ticket",
              description: null,
              free_price: false,
              require_voucher: false,
              price: "35.00",
              availability_state: 100,
              available_number: 2,
              variations: [],
            },
            {
              id: voucherOnly.id,
              name: "Crew pass",
              description: null,
              free_price: false,
              require_voucher: true,
              price: "0.00",
              availability_state: 100,
              available_number: null,
              variations: [],
            },
          ],
        },
      ],
    });
    // in the language asked for
    const de = await productList(s, "?locale=de");
    expect(de.body.name).toBe("Jazznacht");
    expect(de.body.items_by_category[0].name).toBe("Fanartikel");
    expect(de.body.items_by_category[0].items[0].name).toBe("Bandshirt");
  });

  it("answers a preflight for any origin, and its errors carry the CORS header too", async () => {
    const s = await shop();
    await s.quota({ size: 5, items: [(await s.item()).id] });
    await goLive(s);
    const pre = await fetchPage("OPTIONS", listPath(s), {
      headers: { Origin: "https://organizer.example.org", "Access-Control-Request-Method": "GET" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(pre.headers.get("Access-Control-Allow-Methods")).toContain("GET");
    const missing = await productList({ ...s, eventSlug: "no-such-event" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(missing.body).toEqual({ detail: "Not found." });
  });

  it("is 404 for an unknown organizer or event, an event not live and a private one", async () => {
    const draft = await shop();
    await draft.quota({ size: 5, items: [(await draft.item()).id] });
    expect((await productList(draft)).status).toBe(404);
    const hidden = await shop();
    await hidden.quota({ size: 5, items: [(await hidden.item()).id] });
    await goLive(hidden, { is_public: false });
    expect((await productList(hidden)).status).toBe(404);
    expect((await productList({ ...hidden, orgSlug: "no-such-organizer" })).status).toBe(404);
    expect((await getPage("/api/widget/product_list")).status).toBe(404);
  });

  it("a series: prices without numbers for the whole series, one date's availability with ?subevent=", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item({ name: { en: "Entry" }, show_quota_left: true });
    const d1 = await s.subevent({ date_from: "2030-07-01T19:00:00Z" });
    const d2 = await s.subevent({ date_from: "2030-08-01T19:00:00Z" });
    const hiddenDate = await s.subevent({ date_from: "2030-09-01T19:00:00Z", is_public: false });
    await s.quota({ size: 0, items: [ticket.id], subevent: d1.id });
    await s.quota({ size: 4, items: [ticket.id], subevent: d2.id });
    await goLive(s);
    const entry = (state: number | null, left: number | null) => [
      {
        id: null,
        name: null,
        items: [
          {
            id: ticket.id,
            name: "Entry",
            description: null,
            free_price: false,
            require_voucher: false,
            price: "20.00",
            availability_state: state,
            available_number: left,
            variations: [],
          },
        ],
      },
    ];
    const all = await productList(s);
    expect(all.status).toBe(200);
    expect(all.body.has_subevents).toBe(true);
    expect(all.body.items_by_category).toEqual(entry(null, null));
    const second = await productList(s, `?subevent=${d2.id}`);
    expect(second.body.subevent).toBe(d2.id);
    expect(second.body.items_by_category).toEqual(entry(100, 4));
    expect((await productList(s, `?subevent=${d1.id}`)).body.items_by_category).toEqual(entry(0, 0));
    // a date customers do not see is a field error, as on the live availability
    const bad = await productList(s, `?subevent=${hiddenDate.id}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ subevent: [`Invalid pk "${hiddenDate.id}" - object does not exist.`] });
    expect((await productList(s, "?subevent=abc")).status).toBe(404);
  });
});
