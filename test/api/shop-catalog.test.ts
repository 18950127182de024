/**
 * The hosted shop at the event's public_url (docs/customer-pages.md "The shop"): its products
 * with prices, taxes and availability, vouchers, add-ons and bundles, the cart held by the event
 * object through form posts (prices from the sale's pricing, refusals next to their field, nothing
 * held on a refusal), German, and a rush for the last tickets that never holds more than the quota.
 */
import { describe, expect, it } from "vitest";
import type { Json } from "../harness";
import { fetchPage, getPage, type PageResponse, postForm, textOf } from "../helpers/pages";
import { cartsOf, type Shop, shop } from "../helpers/sales";

/** A live event with a day ticket (35.00, quota `size`) and the settings given. */
async function liveShop(opts: { size?: number; ticket?: Record<string, unknown>; settings?: Json } = {}) {
  const s = await shop({ event: { name: { en: "Jazz Night", de: "Jazznacht" } } });
  const ticket = await s.item({
    name: { en: "Day ticket", de: "Tagesticket" },
    default_price: "35.00",
    ...opts.ticket,
  });
  const quota = await s.quota({ size: opts.size ?? 100, items: [ticket.id] });
  const live = await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] });
  expect(live.status, JSON.stringify(live.body)).toBe(200);
  if (opts.settings) expect((await s.client.patch(`${s.path}/settings/`, opts.settings)).status).toBe(200);
  return { s, ticket, quota, url: `/${s.orgSlug}/${s.eventSlug}/` };
}

/** The cart id a successful cart post sent the visitor on with. */
function cartIdOf(res: PageResponse): string {
  expect(res.status, res.text.slice(0, 400)).toBe(303);
  const id = new URL(res.location!).searchParams.get("cart");
  expect(id).toMatch(/@shop$/);
  return id!;
}

const held = async (s: Shop) => (await cartsOf(s.eventId)).filter((r) => r.expires > Date.now());

describe("the shop's products", () => {
  it("lists products by category with their prices incl. tax, availability and labelled quantity fields within the limits", async () => {
    const { s, ticket, url } = await liveShop({ ticket: { max_per_order: 4 } });
    expect(
      (await s.client.patch(`/api/v1/organizers/${s.orgSlug}/settings/`, { primary_color: "#123abc" })).status,
    ).toBe(200);
    const vat = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
    const merch = await s.post("/categories/", { name: { en: "Merchandise" } });
    const shirt = await s.item({
      name: { en: "Band shirt" },
      default_price: "20.00",
      tax_rule: vat.id,
      category: merch.id,
      show_quota_left: true,
      variations: [{ value: { en: "S" } }, { value: { en: "XL" }, default_price: "22.50" }],
    });
    await s.quota({ size: 3, items: [shirt.id], variations: shirt.variations.map((v: Json) => v.id) });
    const res = await getPage(url);
    expect(res.status).toBe(200);
    const t = textOf(res.text);
    expect(t).toContain("Day ticket EUR 35.00 Quantity of Day ticket");
    expect(t).toContain("Merchandise Band shirt S EUR 20.00 (incl. 19% tax) · 3 left");
    expect(t).toContain("XL EUR 22.50 (incl. 19% tax) · 3 left");
    expect(res.text).toMatch(
      new RegExp(
        `<label for="q-item_${ticket.id}">Quantity of Day ticket</label>\\s*<input type="number"[^>]* name="item_${ticket.id}" min="0" max="4"`,
      ),
    );
    expect(res.text).toContain(`name="variation_${shirt.id}_${shirt.variations[1].id}"`);
    expect(res.text).toContain("background:#123abc");
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    const framed = await getPage(`${url}?iframe=1`);
    expect(framed.headers.get("X-Frame-Options")).toBeNull();
    expect(framed.text).toContain(`action="http://ticketing.test${url}cart?iframe=1"`);
  });

  it("speaks German from the event's languages, by ?locale or Accept-Language; English where the event has no German", async () => {
    const { s, url } = await liveShop({ settings: { locales: ["en", "de"] } });
    const de = textOf((await getPage(`${url}?locale=de`)).text);
    expect(de).toContain("Tagesticket EUR 35.00 Anzahl Tagesticket");
    expect(de).toContain("In den Warenkorb");
    expect(de).toContain("Gutscheincode");
    const byBrowser = await fetchPage("GET", url, { headers: { "Accept-Language": "de-AT,de;q=0.9,en;q=0.5" } });
    expect(byBrowser.text).toContain('<html lang="de">');
    expect(textOf(byBrowser.text)).toContain("Ihr Warenkorb ist leer.");
    expect((await s.client.patch(`${s.path}/settings/`, { locales: ["en"] })).status).toBe(200);
    expect(textOf((await getPage(`${url}?locale=de`)).text)).toContain("Add to cart");
  });

  it("a seated product says it is sold through the API only, without a quantity field", async () => {
    const { s, url } = await liveShop();
    const seat = await s.item({ name: { en: "Stalls seat" } });
    await s.quota({ size: 10, items: [seat.id] });
    const plan = await s.client.post(`/api/v1/organizers/${s.orgSlug}/seatingplans/`, {
      name: "Hall",
      layout: {
        categories: [{ name: "Stalls" }],
        zones: [
          {
            name: "Main",
            rows: [{ row_number: "1", seats: [{ seat_guid: "s1", seat_number: "1", category: "Stalls" }] }],
          },
        ],
      },
    });
    expect(plan.status).toBe(201);
    expect(
      (await s.client.patch(`${s.path}/`, { seating_plan: plan.body.id, seat_category_mapping: { Stalls: seat.id } }))
        .status,
    ).toBe(200);
    const res = await getPage(url);
    expect(textOf(res.text)).toContain(
      "Stalls seat Sold with a seat: this shop does not sell seats yet. Seats are sold through the organizer's own shop (the API). EUR 20.00",
    );
    expect(res.text).not.toContain(`name="item_${seat.id}"`);
    const refused = await postForm(`${url}cart`, { [`item_${seat.id}`]: "1" });
    expect(refused.status).toBe(400);
    expect(await held(s)).toHaveLength(0);
  });
});

describe("the shop's cart", () => {
  it("adds to a cart held by the event object, priced by the sale (a sent price is ignored), and shows it with its time left and the checkout", async () => {
    const { s, ticket, quota, url } = await liveShop();
    const res = await postForm(`${url}cart`, {
      [`item_${ticket.id}`]: "2",
      price: "0.01",
      [`price_${ticket.id}`]: "0.01",
    });
    const cartId = cartIdOf(res);
    expect(res.headers.get("Set-Cookie")).toContain("shop_cart=");
    const rows = await held(s);
    expect(rows).toHaveLength(2);
    expect(
      rows.every((r) => r.price === 3500 && r.cartId === cartId && r.salesChannel === "web" && r.addonTo === null),
    ).toBe(true);
    const avail = await s.client.get(`${s.path}/quotas/${quota.id}/availability/`);
    expect(avail.body).toMatchObject({ cart_positions: 2, available_number: 98 });

    const page = await getPage(res.location!);
    const t = textOf(page.text);
    expect(t).toMatch(
      /Your cart Day ticket EUR 35\.00 × Day ticket EUR 35\.00 × Total EUR 70\.00 Reserved for you until \d\d:\d\d \(30 minutes\)\. Checkout/,
    );
    expect(page.text).toContain(`href="http://ticketing.test${url}checkout?cart=${encodeURIComponent(cartId)}"`);
    expect(page.text).toContain('aria-label="Remove Day ticket"');

    // a second post adds to the same cart (its id from the query); removing one releases its hold
    cartIdOf(await postForm(`${url}cart?cart=${encodeURIComponent(cartId)}`, { [`item_${ticket.id}`]: "1" }));
    expect(await held(s)).toHaveLength(3);
    const gone = await postForm(`${url}cart/remove?cart=${encodeURIComponent(cartId)}`, {
      position: String(rows[0]!.id),
    });
    expect(gone.status).toBe(303);
    expect(await held(s)).toHaveLength(2);
    expect((await s.client.get(`${s.path}/quotas/${quota.id}/availability/`)).body).toMatchObject({
      cart_positions: 2,
    });
    // another visitor's cart cannot remove it
    await postForm(`${url}cart/remove`, { position: String(rows[1]!.id), cart: `${"x".repeat(20)}@shop` });
    expect(await held(s)).toHaveLength(2);
  });

  it("runs only its own script (/static/shop.js, the countdown's texts in the page) under a CSP of this origin's scripts", async () => {
    const { ticket, url } = await liveShop();
    const res = await postForm(`${url}cart`, { [`item_${ticket.id}`]: "1" });
    const page = await getPage(res.location!);
    expect(page.text).toContain('<script type="module" src="/static/shop.js"></script>');
    expect(page.text).toMatch(
      /id="cart-timer" data-expires="\d+" data-left="Reserved for you for another \{time\}\." data-expired="Your reservation has run out/,
    );
    const csp = page.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const checkout = await getPage(`${url}checkout?cart=${encodeURIComponent(cartIdOf(res))}`);
    expect(checkout.text).toContain('src="/static/shop.js"');
    expect(checkout.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    const script = await fetchPage("GET", "/static/shop.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("Content-Type")).toBe("text/javascript; charset=UTF-8");
    expect(script.text).toContain("cart-timer");
    const again = await fetchPage("GET", "/static/shop.js", {
      headers: { "If-None-Match": script.headers.get("ETag")! },
    });
    expect(again.status).toBe(304);
  });

  it("refuses more than a product's max per order (400) and a sold-out product (409) next to the product, holding nothing", async () => {
    const { s, ticket, url } = await liveShop({ size: 2, ticket: { max_per_order: 3 } });
    const over = await postForm(`${url}cart`, { [`item_${ticket.id}`]: "4" });
    expect(over.status).toBe(400);
    expect(over.text).toContain(
      `<p class="error" id="err-item_${ticket.id}">You can buy at most 3 of this product in one order.</p>`,
    );
    expect(over.text).toMatch(
      new RegExp(`name="item_${ticket.id}"[^>]*value="4" aria-describedby="err-item_${ticket.id} `),
    );
    expect(textOf(over.text)).toContain("Your cart was not changed.");
    const soldOut = await postForm(`${url}cart`, { [`item_${ticket.id}`]: "3" });
    expect(soldOut.status).toBe(409);
    expect(soldOut.text).toContain(
      `<p class="error" id="err-item_${ticket.id}">This could not be added: There is not enough quota available on quota &quot;Tickets&quot; to perform the operation.</p>`,
    );
    expect(await held(s)).toHaveLength(0);
    const nothing = await postForm(`${url}cart`, {});
    expect(nothing.status).toBe(400);
    expect(textOf(nothing.text)).toContain("Choose at least one product.");
  });

  it("a rush for the last tickets never holds more than the quota", async () => {
    const { s, ticket, url } = await liveShop({ size: 3 });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => postForm(`${url}cart`, { [`item_${ticket.id}`]: i % 3 === 0 ? "2" : "1" })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((st) => st === 303 || st === 409)).toBe(true);
    const rows = await held(s);
    expect(rows.length).toBeLessThanOrEqual(3);
    const won = answers.filter((a) => a.status === 303).map(cartIdOf);
    // each winner holds all it asked for, each loser nothing
    for (const id of won) expect(rows.some((r) => r.cartId === id)).toBe(true);
    expect(new Set(rows.map((r) => r.cartId)).size).toBe(won.length);
    expect(rows.length).toBeGreaterThanOrEqual(2);
  });
});

describe("vouchers, add-ons and bundles", () => {
  it("a voucher (field or ?voucher= link) unlocks a hidden product at its price; an unknown code is told next to the field", async () => {
    const { s, url } = await liveShop();
    const vip = await s.item({ name: { en: "VIP pass" }, default_price: "100.00", hide_without_voucher: true });
    await s.quota({ size: 5, items: [vip.id] });
    const v = await s.voucher({ item: vip.id, price_mode: "set", value: "80.00", max_usages: 1 });
    expect(textOf((await getPage(url)).text)).not.toContain("VIP pass");
    const unlocked = await getPage(`${url}?voucher=${v.code.toLowerCase()}`);
    expect(textOf(unlocked.text)).toContain("VIP pass EUR 80.00");
    expect(textOf(unlocked.text)).toContain(`Voucher ${v.code.toLowerCase()} applied`);
    const bought = await postForm(`${url}cart`, { voucher: v.code, [`item_${vip.id}`]: "1" });
    cartIdOf(bought);
    const [row] = await held(s);
    expect(row).toMatchObject({ itemId: vip.id, price: 8000, voucherId: v.id });
    // its one usage is held: a second visitor's cart is refused with nothing held
    const second = await postForm(`${url}cart`, { voucher: v.code, [`item_${vip.id}`]: "1" });
    expect(second.status).toBe(409);
    expect(await held(s)).toHaveLength(1);

    const unknown = await getPage(`${url}?voucher=NOPE`);
    expect(unknown.text).toContain('<p class="error" id="err-voucher">This voucher code is not known.</p>');
    expect(unknown.text).toMatch(/id="voucher" name="voucher" value="NOPE"[^>]*aria-describedby="err-voucher"/);
  });

  it("add-ons are chosen per product and held under it; more than the category allows is refused", async () => {
    const { s, ticket, url } = await liveShop();
    const extras = await s.post("/categories/", { name: { en: "Extras" }, is_addon: true });
    const parking = await s.item({ name: { en: "Parking" }, category: extras.id, default_price: "5.00" });
    await s.quota({ size: 10, items: [parking.id] });
    await s.post(`/items/${ticket.id}/addons/`, { addon_category: extras.id, min_count: 0, max_count: 1 });
    const page = await getPage(url);
    const t = textOf(page.text);
    expect(t).toContain(
      "Add-ons for each Day ticket Extras: choose 0 to 1 Parking EUR 5.00 Add Parking to each Day ticket",
    );
    expect(t).not.toContain("Quantity of Parking");
    const field = `addon_${ticket.id}_${parking.id}`;
    const over = await postForm(`${url}cart`, { [`item_${ticket.id}`]: "1", [field]: "2" });
    expect(over.status).toBe(400);
    expect(await held(s)).toHaveLength(0);
    cartIdOf(await postForm(`${url}cart`, { [`item_${ticket.id}`]: "2", [field]: "1" }));
    const rows = await held(s);
    expect(rows).toHaveLength(4);
    const bases = rows.filter((r) => r.addonTo === null);
    expect(bases.map((r) => r.itemId)).toEqual([ticket.id, ticket.id]);
    for (const b of bases)
      expect(rows.filter((r) => r.addonTo === b.id).map((r) => [r.itemId, r.price])).toEqual([[parking.id, 500]]);
    // on its own, an add-on cannot be bought
    expect((await postForm(`${url}cart`, { [`item_${parking.id}`]: "1" })).status).toBe(400);
  });

  it("a bundle is shown as included and held with its bundled product at the designated price, splitting the base price", async () => {
    const { s, ticket, url } = await liveShop();
    const program = await s.item({ name: { en: "Programme" }, default_price: "3.00" });
    await s.quota({ size: 10, items: [program.id] });
    await s.post(`/items/${ticket.id}/bundles/`, { bundled_item: program.id, count: 1, designated_price: "2.00" });
    expect(textOf((await getPage(url)).text)).toContain("Day ticket Includes: Programme EUR 35.00");
    cartIdOf(await postForm(`${url}cart`, { [`item_${ticket.id}`]: "1" }));
    const rows = await held(s);
    const base = rows.find((r) => r.addonTo === null)!;
    expect(base).toMatchObject({ itemId: ticket.id, price: 3300 });
    expect(rows.filter((r) => r.addonTo === base.id).map((r) => [r.itemId, r.price, r.isBundled])).toEqual([
      [program.id, 200, true],
    ]);
  });
});
