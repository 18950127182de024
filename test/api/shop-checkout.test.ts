/**
 * The shop's checkout (`/{organizer}/{event}/checkout/`) as a buyer posts it: carts made by the
 * cart service with `@shop` ids (as the shop's cart page makes them), the order placed through
 * the API's order creation, read back through the API and D1.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { randomString } from "../../src/lib/crypto";
import type { Env } from "../../src/lib/env";
import { signAdmission } from "../../src/lib/waiting-room-tokens";
import { Failure } from "../../src/lib/failure";
import { type CartInput, createCartPositions } from "../../src/services/orders/carts";
import { BASE, db, groupTestEnv, type Json } from "../harness";
import { getPage, giftCard, postForm, readOrder, textOf } from "../helpers/pages";
import { cartsOf, ordersOf, type Shop, shop } from "../helpers/sales";

type CheckoutShop = Shop & { ticket: Json; ticketQuota: Json; checkout: string };

/** A live event with manual payment, a 20.00 EUR ticket on a quota of `size`. */
async function checkoutShop(opts: { size?: number; settings?: Record<string, unknown>; event?: Json } = {}) {
  const s = await shop({ event: opts.event });
  const ticket = await s.item({ name: { en: "Festival pass", de: "Festivalpass" }, default_price: "20.00" });
  const ticketQuota = await s.quota({ size: opts.size ?? 10, items: [ticket.id] });
  const live = await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] });
  expect(live.status, JSON.stringify(live.body)).toBe(200);
  if (opts.settings) {
    const st = await s.client.patch(`${s.path}/settings/`, opts.settings);
    expect(st.status, JSON.stringify(st.body)).toBe(200);
  }
  return { ...s, ticket, ticketQuota, checkout: `${BASE}/${s.orgSlug}/${s.eventSlug}/checkout/` } as CheckoutShop;
}

/** A shop cart (`…@shop`) made by the cart service, as the shop's cart page makes it; throws on a refusal. */
async function shopCart(
  s: Shop,
  positions: Omit<CartInput, "cart_id">[],
  cartId = `${randomString(32)}@shop`,
  admission: string | null = null,
) {
  const d = db(s.org.group);
  const organizer = (await d.query.organizers.findFirst({ where: (o, { eq }) => eq(o.id, s.org.id) }))!;
  const event = (await d.query.events.findFirst({ where: (e, { eq }) => eq(e.id, s.eventId) }))!;
  const ctx = { env: groupTestEnv(s.org.group), db: d, organizer, event, now: Date.now(), baseUrl: BASE };
  const results = await createCartPositions(
    ctx,
    positions.map((p) => ({ ...p, cart_id: cartId }) as CartInput),
    { kind: "token", teamId: null, admission },
  );
  for (const r of results) if (r instanceof Failure) throw r;
  return cartId;
}

const withCart = (url: string, cartId: string, extra: Record<string, string> = {}) => {
  const u = new URL(url);
  u.searchParams.set("cart", cartId);
  for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
  return u.toString();
};

/** The error shown next to a field: its element, and the field pointing to it. */
function fieldError(page: string, name: string): string | null {
  const m = new RegExp(`<p class="error" id="${name}-error">([^<]*)</p>`).exec(page);
  if (!m) return null;
  expect(page).toMatch(new RegExp(`name="${name}"[^>]*aria-describedby="[^"]*${name}-error`));
  return m[1]!;
}

const orderCode = (location: string) => /\/order\/([A-Z0-9]+)\//.exec(location)![1]!;

describe("the checkout page", () => {
  it("without a cart, or with an unknown one: a clear page leading back to the shop", async () => {
    const s = await checkoutShop();
    const none = await getPage(s.checkout);
    expect(none.status).toBe(200);
    expect(textOf(none.text)).toContain("Your cart is empty. Choose your tickets in the shop first.");
    expect(none.text).toContain(`href="${BASE}/${s.orgSlug}/${s.eventSlug}/"`);
    const unknown = await getPage(withCart(s.checkout, `${"x".repeat(32)}@shop`));
    expect(textOf(unknown.text)).toContain("Your cart is empty.");
    const hidden = await checkoutShop();
    await hidden.client.patch(`${hidden.path}/`, { live: false });
    expect((await getPage(hidden.checkout)).status).toBe(404);
  });

  it("shows the positions with add-ons nested, prices and total, time left, and the fields the event asks", async () => {
    const s = await checkoutShop({
      settings: { attendee_names_required: true, invoice_address_required: true },
    });
    const shirt = await s.item({ name: { en: "T-shirt" }, default_price: "15.00", admission: false });
    await s.quota({ size: 10, items: [shirt.id] });
    const q = await s.post("/questions/", {
      question: { en: "Your age" },
      type: "N",
      required: true,
      items: [s.ticket.id],
    });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000, addons: [{ item: shirt.id, price: 1500 }] }]);
    const page = await getPage(withCart(s.checkout, cartId));
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toBe("private, no-store");
    const t = textOf(page.text);
    expect(t).toContain("Festival pass EUR 20.00");
    expect(t).toContain("+ Add-on: T-shirt EUR 15.00");
    expect(t).toContain("Total EUR 35.00");
    expect(t).toMatch(/Your cart is reserved until .+ \((29|30) minutes left\)\./);
    expect(page.text).toContain('<label for="email">Email address</label>');
    expect(page.text).toContain(`<label for="p0-name">Attendee name</label>`);
    expect(page.text).not.toContain('name="p1-name"');
    expect(page.text).toContain(`<label for="p0-q${q.id}">Your age</label>`);
    expect(page.text).toContain(`type="number" id="p0-q${q.id}"`);
    expect(page.text).toContain('<label for="ia-street">Address</label>');
    expect(page.text).toContain('value="manual"');
    expect(page.text).toContain('value="giftcard"');
    expect(page.text).not.toContain('value="stripe"');
    expect(page.text).toContain(`action="${s.checkout}?cart=${encodeURIComponent(cartId)}"`);
  });
});

describe("placing the order", () => {
  it("field errors come back next to their fields with the values kept, and nothing is created", async () => {
    const s = await checkoutShop({ settings: { attendee_names_required: true, invoice_address_asked: true } });
    const age = await s.post("/questions/", { question: { en: "Age" }, type: "N", items: [s.ticket.id] });
    const size = await s.post("/questions/", {
      question: { en: "Size" },
      type: "C",
      required: true,
      items: [s.ticket.id],
      options: [{ answer: { en: "S" } }, { answer: { en: "M" } }],
    });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const url = withCart(s.checkout, cartId);
    const res = await postForm(url, {
      email: "",
      [`p0-q${age.id}`]: "old",
      "p0-name": "",
      "ia-city": "Berlin",
      "ia-country": "XX",
      payment: "manual",
    });
    expect(res.status).toBe(400);
    expect(textOf(res.text)).toContain("Please check the fields marked below.");
    expect(fieldError(res.text, "email")).toBe("This field is required.");
    expect(fieldError(res.text, "p0-name")).toBe("This field is required.");
    // no choice made: a fieldset of radio buttons carries the error
    expect(res.text).toMatch(new RegExp(`<p class="error" id="p0-q${size.id}-error">This field is required.</p>`));
    expect(res.text).toContain('value="Berlin"');
    expect(res.text).toContain(`value="old"`);

    // the shop's own checks pass: what order creation finds is shown the same way
    const again = await postForm(url, {
      email: "buyer@example.org",
      [`p0-q${age.id}`]: "old",
      [`p0-q${size.id}`]: String(size.options[1].id),
      "p0-name": "Ada Lovelace",
      "ia-name": "Ada Lovelace",
      "ia-country": "XX",
      payment: "manual",
    });
    expect(again.status).toBe(400);
    expect(fieldError(again.text, `p0-q${age.id}`)).toBe("A valid number is required.");
    expect(fieldError(again.text, "ia-country")).toBe("Enter a valid country code.");
    expect(again.text).toMatch(new RegExp(`value="${size.options[1].id}" checked`));
    expect(again.text).toContain('value="buyer@example.org"');
    expect(await ordersOf(s.eventId)).toEqual([]);
    expect(await cartsOf(s.eventId)).toHaveLength(1);
  });

  it("places the order with answers, attendee, invoice address and manual payment; the cart is consumed", async () => {
    const s = await checkoutShop({ settings: { attendee_emails_asked: true } });
    await s.client.patch(`${s.path}/settings/`, {
      payment_manual_pending_description: { en: "Transfer {total} {currency} to IBAN DE00 1234, reference {order}." },
    });
    const age = await s.post("/questions/", { question: { en: "Age" }, type: "N", items: [s.ticket.id] });
    const diet = await s.post("/questions/", {
      question: { en: "Diet" },
      type: "M",
      items: [s.ticket.id],
      options: [{ answer: { en: "Vegan" } }, { answer: { en: "Halal" } }, { answer: { en: "None" } }],
    });
    const news = await s.post("/questions/", { question: { en: "Newsletter" }, type: "B", items: [s.ticket.id] });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const body = new URLSearchParams({
      email: "ada@example.org",
      "p0-name": "Ada Lovelace",
      "p0-email": "ada.attendee@example.org",
      [`p0-q${age.id}`]: "36",
      [`p0-q${news.id}`]: "true",
      "ia-company": "Analytical Engines Ltd",
      "ia-street": "1 Main St",
      "ia-zipcode": "12345",
      "ia-city": "London",
      "ia-country": "GB",
      payment: "manual",
    });
    body.append(`p0-q${diet.id}`, String(diet.options[0].id));
    body.append(`p0-q${diet.id}`, String(diet.options[1].id));
    const res = await postRaw(withCart(s.checkout, cartId, { iframe: "1" }), body);
    expect(res.status, res.text).toBe(303);
    const code = orderCode(res.location!);
    const order = await readOrder(s, code);
    expect(res.location).toBe(`${order.url}pay/1/?iframe=1`);
    expect(order).toMatchObject({
      status: "n",
      email: "ada@example.org",
      sales_channel: "web",
      total: "20.00",
      invoice_address: { company: "Analytical Engines Ltd", street: "1 Main St", city: "London", country: "GB" },
      payments: [expect.objectContaining({ provider: "manual", state: "created", amount: "20.00" })],
    });
    expect(order.invoice_address.is_business).toBe(true);
    expect(order.positions).toHaveLength(1);
    expect(order.positions[0]).toMatchObject({
      item: s.ticket.id,
      attendee_name: "Ada Lovelace",
      attendee_email: "ada.attendee@example.org",
    });
    const answers = Object.fromEntries(order.positions[0].answers.map((a: Json) => [a.question, a.answer]));
    expect(answers).toEqual({ [age.id]: "36", [diet.id]: "Vegan, Halal", [news.id]: "True" });
    expect(await cartsOf(s.eventId)).toEqual([]);

    const payment = await getPage(res.location!);
    expect(payment.status).toBe(200);
    expect(textOf(payment.text)).toContain(`Transfer 20.00 EUR to IBAN DE00 1234, reference ${code}.`);
    const quota = await s.client.get(`${s.path}/quotas/${s.ticketQuota.id}/availability/`);
    expect(quota.body).toMatchObject({ available_number: 9, pending_orders: 1, cart_positions: 0 });
  });

  it("a bundle keeps the cart's prices: the product less its bundled one's designated price, the bundled one at it", async () => {
    const s = await checkoutShop();
    const drink = await s.item({ name: { en: "Welcome drink" }, default_price: "8.00", admission: false });
    await s.quota({ size: 10, items: [drink.id] });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 1500, bundled: [{ item: drink.id, price: 500 }] }]);
    const page = await getPage(withCart(s.checkout, cartId));
    expect(textOf(page.text)).toContain("Festival pass EUR 15.00 + Add-on: Welcome drink EUR 5.00 Total EUR 20.00");
    const res = await postForm(withCart(s.checkout, cartId), { email: "b@example.org", payment: "manual" });
    expect(res.status, res.text).toBe(303);
    const order = await readOrder(s, orderCode(res.location!));
    expect(order.total).toBe("20.00");
    expect(order.positions.map((p: Json) => [p.item, p.price])).toEqual([
      [s.ticket.id, "15.00"],
      [drink.id, "5.00"],
    ]);
  });

  it("a free order goes straight to paid and to the order page", async () => {
    const s = await checkoutShop();
    const entry = await s.item({ name: { en: "Free entry" }, default_price: "0.00" });
    await s.quota({ size: 5, items: [entry.id] });
    const cartId = await shopCart(s, [{ item: entry.id, price: 0 }]);
    const page = await getPage(withCart(s.checkout, cartId));
    expect(textOf(page.text)).toContain("Nothing to pay: your order is confirmed right away.");
    expect(page.text).toContain('<input type="hidden" name="payment" value="free">');
    const res = await postForm(withCart(s.checkout, cartId), { email: "free@example.org", payment: "free" });
    expect(res.status, res.text).toBe(303);
    const order = await readOrder(s, orderCode(res.location!));
    expect(res.location).toBe(order.url);
    expect(order.status).toBe("p");
    expect(order.payments).toEqual([expect.objectContaining({ provider: "free", state: "confirmed" })]);
  });

  it("a gift card: the order waits on its payment page for the card's code, which pays it", async () => {
    const s = await checkoutShop();
    const card = await giftCard(s, "50.00");
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const res = await postForm(withCart(s.checkout, cartId), { email: "gift@example.org", payment: "giftcard" });
    expect(res.status).toBe(303);
    const order = await readOrder(s, orderCode(res.location!));
    expect(res.location).toBe(`${order.url}pay/1/`);
    const form = await getPage(res.location!);
    expect(textOf(form.text)).toContain("Pay EUR 20.00 with a gift card.");
    const paid = await postForm(res.location!, { giftcard: card.secret });
    expect(paid.status).toBe(303);
    expect((await readOrder(s, order.code)).status).toBe("p");
  });

  it("a payment method the event does not offer is refused next to the choice", async () => {
    const s = await checkoutShop();
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const res = await postForm(withCart(s.checkout, cartId), { email: "a@example.org", payment: "stripe" });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<p class="error" id="payment-error">Please choose a payment method.</p>');
    expect(await ordersOf(s.eventId)).toEqual([]);
  });
});

/** A form post of `body` as it is (fields may repeat). */
const postRaw = (url: string, body: URLSearchParams) =>
  import("../helpers/pages").then(({ fetchPage }) =>
    fetchPage("POST", url, {
      body: body.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }),
  );

describe("languages", () => {
  it("German from the event's locales: the browser's language, or locale=de", async () => {
    const s = await checkoutShop({ settings: { locales: ["en", "de"] } });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const page = await import("../helpers/pages").then(({ fetchPage }) =>
      fetchPage("GET", withCart(s.checkout, cartId), { headers: { "Accept-Language": "de-DE,de;q=0.9" } }),
    );
    expect(page.text).toContain('<html lang="de">');
    const t = textOf(page.text);
    expect(t).toContain("Festivalpass EUR 20.00");
    expect(t).toContain("Ihr Warenkorb ist bis");
    expect(t).toContain("Zahlungspflichtig bestellen");
    expect(page.text).toContain(">English</a>");
    const res = await postForm(withCart(s.checkout, cartId), { locale: "de", payment: "manual" });
    expect(res.status).toBe(400);
    expect(fieldError(res.text, "email")).toBe("Dieses Feld ist erforderlich.");
    const ok = await postForm(withCart(s.checkout, cartId), {
      locale: "de",
      email: "a@example.org",
      payment: "manual",
    });
    expect(ok.status).toBe(303);
    expect((await readOrder(s, orderCode(ok.location!))).locale).toBe("de");
    // an event in English only stays English
    const en = await checkoutShop();
    const other = await shopCart(en, [{ item: en.ticket.id, price: 2000 }]);
    expect((await getPage(withCart(en.checkout, other, { locale: "de" }))).text).toContain('<html lang="en">');
  });
});

describe("carts that cannot become orders", () => {
  it("an expired cart: a clear page, 409 on posting; its ticket sold elsewhere meanwhile", async () => {
    const s = await checkoutShop({ size: 1 });
    const stale = await shopCart(s, [{ item: s.ticket.id, price: 2000, expires: Date.now() + 1500 }]);
    await new Promise((r) => setTimeout(r, 1600));
    const fresh = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const page = await getPage(withCart(s.checkout, stale));
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("Your cart has expired");
    const res = await postForm(withCart(s.checkout, stale), { email: "late@example.org", payment: "manual" });
    expect(res.status).toBe(409);
    expect(textOf(res.text)).toContain("Your cart has expired");
    const won = await postForm(withCart(s.checkout, fresh), { email: "early@example.org", payment: "manual" });
    expect(won.status).toBe(303);
    const orders = await ordersOf(s.eventId);
    expect(orders.map((o) => o.email)).toEqual(["early@example.org"]);
  });

  it("a position whose reservation ran out is left out; the rest of the cart is ordered", async () => {
    const s = await checkoutShop();
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000, expires: Date.now() + 1500 }]);
    await new Promise((r) => setTimeout(r, 1600));
    await shopCart(s, [{ item: s.ticket.id, price: 2000 }], cartId);
    const page = await getPage(withCart(s.checkout, cartId));
    expect(textOf(page.text)).toContain("Total EUR 20.00");
    const res = await postForm(withCart(s.checkout, cartId), { email: "rest@example.org", payment: "manual" });
    expect(res.status, res.text).toBe(303);
    expect((await readOrder(s, orderCode(res.location!))).positions).toHaveLength(1);
  });

  it("a quota gone meanwhile: 409 naming the product, nothing created", async () => {
    const s = await checkoutShop({ size: 1 });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    expect((await s.client.patch(`${s.path}/quotas/${s.ticketQuota.id}/`, { size: 0 })).status).toBe(200);
    const res = await postForm(withCart(s.checkout, cartId), { email: "a@example.org", payment: "manual" });
    expect(res.status).toBe(409);
    expect(textOf(res.text)).toContain(
      'Your order could not be placed as it is: Festival pass : There is not enough quota available on quota "Tickets" to perform the operation.',
    );
    expect(textOf(res.text)).toContain("Nothing was ordered or charged.");
    expect(await ordersOf(s.eventId)).toEqual([]);
  });

  it("a checkout posted twice (at once, and again later) places one order even with tickets left", async () => {
    const s = await checkoutShop({ size: 10 });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const form = { email: "twice@example.org", payment: "manual" };
    const both = await Promise.all([0, 1].map(() => postForm(withCart(s.checkout, cartId), form)));
    expect(both.map((r) => r.status).sort()).toEqual([303, 409]);
    const again = await postForm(withCart(s.checkout, cartId), form);
    expect(again.status).toBe(409);
    expect(await ordersOf(s.eventId)).toHaveLength(1);
    const quota = await s.client.get(`${s.path}/quotas/${s.ticketQuota.id}/availability/`);
    expect(quota.body).toMatchObject({ available_number: 9, pending_orders: 1, cart_positions: 0 });
  });

  it("a rush on the last tickets: each cart holds its own, buyers without one and second submits never oversell", async () => {
    const s = await checkoutShop({ size: 4 });
    const carts = await Promise.all(Array.from({ length: 4 }, () => shopCart(s, [{ item: s.ticket.id, price: 2000 }])));
    // the quota is held by the carts: another cart is refused
    await expect(shopCart(s, [{ item: s.ticket.id, price: 2000 }])).rejects.toBeInstanceOf(Failure);
    const others = await Promise.all(
      Array.from({ length: 4 }, () => shopCart(s, [{ item: s.ticket.id, price: 2000 }]).catch(() => null)),
    );
    expect(others.every((c) => c === null)).toBe(true);
    const posts = [...carts, ...carts].map((cartId, i) =>
      postForm(withCart(s.checkout, cartId), { email: `buyer${i}@example.org`, payment: "manual" }),
    );
    const api = Array.from({ length: 4 }, () =>
      s.client.post(`${s.path}/orders/`, { email: "api@example.org", positions: [{ item: s.ticket.id }] }),
    );
    const [pages, direct] = await Promise.all([Promise.all(posts), Promise.all(api)]);
    expect(direct.every((r) => r.status === 400)).toBe(true);
    const placed = pages.filter((p) => p.status === 303);
    expect(placed).toHaveLength(4);
    const orders = await ordersOf(s.eventId);
    expect(orders).toHaveLength(4);
    for (const p of pages.filter((x) => x.status !== 303)) expect([409]).toContain(p.status);
    const quota = await s.client.get(`${s.path}/quotas/${s.ticketQuota.id}/availability/`);
    expect(quota.body).toMatchObject({ available_number: 0, pending_orders: 4, cart_positions: 0 });
  });
});

describe("behind the waiting room, and framed", () => {
  it("without an admission the checkout leads to the waiting room; with the session's admission the order is placed", async () => {
    const s = await checkoutShop();
    const queue = await s.post("/onsale_queues/", { opens_at: "2020-01-01T00:00:00Z", admissions_per_minute: 60 });
    const admission = await signAdmission((env as unknown as Env).TICKET_SIGNING_KEY_SECRET!, {
      q: queue.id,
      e: s.eventId,
      s: null,
      a: randomString(16),
      o: 1,
      x: Date.now() + 3_600_000,
    });
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }], undefined, admission);
    const refused = await postForm(withCart(s.checkout, cartId), { email: "a@example.org", payment: "manual" });
    expect(refused.status).toBe(403);
    expect(textOf(refused.text)).toContain("Sales of this event are behind a waiting room");
    expect(refused.text).toContain(`href="${BASE}/${s.orgSlug}/${s.eventSlug}/queue/"`);
    expect(await ordersOf(s.eventId)).toEqual([]);
    const placed = await postForm(withCart(s.checkout, cartId, { admission }), {
      email: "a@example.org",
      payment: "manual",
    });
    expect(placed.status, placed.text).toBe(303);
    expect(await ordersOf(s.eventId)).toHaveLength(1);
  });

  it("framed with iframe=1 it may be embedded, bare; standalone it refuses framing", async () => {
    const s = await checkoutShop();
    const cartId = await shopCart(s, [{ item: s.ticket.id, price: 2000 }]);
    const framed = await getPage(withCart(s.checkout, cartId, { iframe: "1" }));
    expect(framed.headers.get("X-Frame-Options")).toBeNull();
    expect(framed.text).toContain('<main class="bare">');
    expect(framed.text).toContain(`action="${s.checkout}?iframe=1&amp;cart=`);
    const alone = await getPage(withCart(s.checkout, cartId));
    expect(alone.headers.get("X-Frame-Options")).toBe("DENY");
    expect(alone.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    // only the shop's own script (the countdown; Escape in a frame), under a policy of this origin's scripts
    expect(alone.text.match(/<script[^>]*>/g)).toEqual(['<script type="module" src="/static/shop.js">']);
    expect(alone.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
  });
});
