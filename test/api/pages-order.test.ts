/**
 * The customer's order page (order `url`) and `pay/change`: content for every order status,
 * 404 for unknown codes and wrong secrets, the payment method choice creating a payment in
 * state `created`, and `return_url` / `iframe=1` kept through links and forms.
 */
import { describe, expect, it } from "vitest";
import {
  allowReturnUrls,
  getPage,
  giftCard,
  placeOrder,
  postForm,
  readOrder,
  textOf,
  ticketShop,
  withQuery,
} from "../helpers/pages";

const RETURN = "https://shop.example.org/checkout/return?tx=7";

function formAction(page: string): URL {
  return new URL(page.match(/<form method="post" action="([^"]+)"/)![1]!.replace(/&amp;/g, "&"));
}

describe("order page", () => {
  it("shows the event, the order code and status, positions with names and prices, the total, payments and the payment link", async () => {
    const s = await ticketShop({
      event: { location: { en: "Town Hall" }, timezone: "Europe/Berlin", date_from: "2030-06-01T17:00:00Z" },
    });
    const shirt = await s.item({
      name: { en: "Shirt" },
      default_price: "15.00",
      variations: [{ value: { en: "Large" } }],
    });
    await s.quota({ size: 5, items: [shirt.id], variations: [shirt.variations[0].id] });
    const o = await placeOrder(s, {
      payment_provider: "manual",
      positions: [
        { item: s.ticket.id, attendee_name_parts: { full_name: "Ada Lovelace" } },
        { item: shirt.id, variation: shirt.variations[0].id },
      ],
      fees: [{ fee_type: "service", value: "1.50", description: "Service fee" }],
    });
    // no credentials: the secret in the URL is the credential
    const res = await getPage(o.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    expect(res.headers.get("Referrer-Policy")).toBe("same-origin");
    const t = textOf(res.text);
    expect(t).toContain(`Order ${o.code} pending`);
    expect(t).toContain("Concert");
    expect(t).toContain("1 June 2030 at 19:00 CEST");
    expect(t).toContain("Town Hall");
    expect(t).toContain("Festival pass Ada Lovelace EUR 20.00");
    expect(t).toContain("Shirt – Large EUR 15.00");
    expect(t).toContain("Service fee EUR 1.50");
    expect(t).toContain("Total EUR 36.50");
    expect(t).toContain("This order is pending. Please pay by");
    expect(t).toContain("Manual payment open EUR 36.50 Pay now");
    expect(res.text).toContain(`href="${o.url}pay/1/"`);
    expect(res.text).toContain(`href="${o.url}pay/change"`);
  });

  it("names every status in words; paid, expired and canceled orders show no payment link", async () => {
    const s = await ticketShop();
    const paid = await placeOrder(s, { status: "p", payment_provider: "manual" });
    const expired = await placeOrder(s, { payment_provider: "giftcard" });
    await s.client.post(`${s.path}/orders/${expired.code}/mark_expired/`, {});
    const canceled = await placeOrder(s, { payment_provider: "giftcard" });
    await s.client.post(`${s.path}/orders/${canceled.code}/mark_canceled/`, {});

    const p = await getPage(paid.url);
    expect(textOf(p.text)).toContain(`Order ${paid.code} paid`);
    expect(textOf(p.text)).toContain("This order has been paid.");
    expect(p.text).not.toContain("pay/change");
    expect(textOf(p.text)).toContain("Manual payment confirmed EUR 20.00");

    const e = await getPage(expired.url);
    expect(textOf(e.text)).toContain(`Order ${expired.code} expired`);
    expect(textOf(e.text)).toContain(
      "This order has expired because it was not paid in time. You can still pay it while its products are available.",
    );
    expect(e.text).toContain(`href="${expired.url}pay/1/"`);

    const c = await getPage(canceled.url);
    expect(textOf(c.text)).toContain(`Order ${canceled.code} canceled`);
    expect(textOf(c.text)).toContain("This order has been canceled.");
    expect(textOf(c.text)).toContain("Gift card canceled EUR 20.00");
    expect(c.text).not.toContain("pay/");

    expect((await s.client.patch(`${s.path}/settings/`, { payment_term_accept_late: false })).status).toBe(200);
    const late = await getPage(expired.url);
    expect(textOf(late.text)).toContain("late payments are not accepted");
    expect(late.text).not.toContain("pay/1/");
  });

  it("unknown codes, wrong secrets, other events and organizers: 404 pages", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s);
    const other = await ticketShop();
    const urls = [
      o.url.replace(o.secret, "a".repeat(16)),
      o.url.replace(o.code, "ZZZZZZ"),
      o.url.replace(`/${s.eventSlug}/`, `/${other.eventSlug}/`),
      o.url.replace(`/${s.orgSlug}/`, `/${other.orgSlug}/`),
      o.url.replace(`/${s.orgSlug}/`, "/no-such-org/"),
      `${o.url}pay/change`.replace(o.secret, "b".repeat(16)),
    ];
    for (const url of urls) {
      const res = await getPage(url);
      expect(res.status, url).toBe(404);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(textOf(res.text)).toContain("This order does not exist.");
      expect(res.text).not.toContain(o.code);
    }
  });

  it("return_url: allowed ones are kept in the links and offered as the way back; foreign ones answer 400", async () => {
    const s = await ticketShop();
    await allowReturnUrls(s, "https://shop.example.org/checkout/");
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const res = await getPage(withQuery(o.url, { return_url: RETURN }));
    expect(res.status).toBe(200);
    const payLink = new URL(res.text.match(/href="([^"]*pay\/1\/[^"]*)"/)![1]!.replace(/&amp;/g, "&"));
    expect(payLink.searchParams.get("return_url")).toBe(RETURN);
    expect(res.text).toContain('href="https://shop.example.org/checkout/return?tx=7"');

    const bad = await getPage(withQuery(o.url, { return_url: "https://evil.example.net/" }));
    expect(bad.status).toBe(400);
    expect(bad.location).toBeNull();
    expect(textOf(bad.text)).toContain("does not lie below a base URL configured for this event");
    expect(bad.text).not.toContain("evil.example.net");
  });

  it("frames only with iframe=1, which its links keep; links out of the frame open a new window", async () => {
    const s = await ticketShop();
    expect(
      (
        await s.client.patch(`/api/v1/organizers/${s.orgSlug}/settings/`, {
          imprint_url: "https://org.example.org/imprint",
        })
      ).status,
    ).toBe(200);
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const plain = await getPage(o.url);
    expect(plain.headers.get("X-Frame-Options")).toBe("DENY");
    expect(plain.headers.get("Content-Security-Policy")).toBe("frame-ancestors 'none'");
    expect(plain.text).toContain('<a href="https://org.example.org/imprint">Imprint</a>');

    const framed = await getPage(withQuery(o.url, { iframe: "1" }));
    expect(framed.status).toBe(200);
    expect(framed.headers.get("X-Frame-Options")).toBeNull();
    expect(framed.headers.get("Content-Security-Policy")).toBeNull();
    expect(framed.text).toContain(`href="${o.url}pay/1/?iframe=1"`);
    expect(framed.text).toContain(`href="${o.url}pay/change?iframe=1"`);
    expect(framed.text).toContain(
      '<a href="https://org.example.org/imprint" target="_blank" rel="noopener">Imprint</a>',
    );
  });
});

describe("pay/change", () => {
  it("an order created without a provider: choose one, which creates a payment in state created and leads to its page", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s);
    expect(o.payments).toEqual([]);
    const order = await getPage(o.url);
    expect(textOf(order.text)).toContain("No payment has been started yet.");
    expect(textOf(order.text)).toContain("Choose a payment method");

    const page = await getPage(`${o.url}pay/change`);
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("EUR 20.00 to pay");
    expect(page.text).toContain('value="giftcard"');
    expect(page.text).not.toContain('value="manual"');
    expect(page.text).not.toContain('value="free"');

    const res = await postForm(`${o.url}pay/change`, { provider: "giftcard" });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${o.url}pay/1/`);
    const after = await readOrder(s, o.code);
    expect(after.payments).toEqual([
      expect.objectContaining({
        local_id: 1,
        state: "created",
        provider: "giftcard",
        amount: "20.00",
        payment_url: `${o.url}pay/1/`,
      }),
    ]);
    expect(Date.parse(after.last_modified)).toBeGreaterThanOrEqual(Date.parse(o.last_modified));

    const card = await giftCard(s, "20.00");
    expect((await postForm(res.location!, { giftcard: card.secret })).status).toBe(303);
    expect((await readOrder(s, o.code)).status).toBe("p");
  });

  it("offers manual payment when the event enabled the manual payment plugin; replacing the open payment cancels it", async () => {
    const s = await ticketShop();
    expect((await s.client.patch(`${s.path}/`, { plugins: ["pretix.plugins.manualpayment"] })).status).toBe(200);
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const page = await getPage(`${o.url}pay/change`);
    expect(page.text).toContain('value="manual"');
    expect(textOf(page.text)).toContain("Current payment method: Gift card. Choosing a method here replaces it.");
    const res = await postForm(`${o.url}pay/change`, { provider: "manual" });
    expect(res.location).toBe(`${o.url}pay/2/`);
    const after = await readOrder(s, o.code);
    expect(
      after.payments.map((y: { local_id: number; state: string; provider: string }) => [
        y.local_id,
        y.state,
        y.provider,
      ]),
    ).toEqual([
      [1, "canceled", "giftcard"],
      [2, "created", "manual"],
    ]);
    expect(textOf((await getPage(`${o.url}pay/1/`)).text)).toContain("This payment is canceled.");
  });

  it("an unknown or unavailable provider re-shows the form with 400 and creates nothing", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s);
    for (const provider of ["stripe", "manual", "free", ""]) {
      const res = await postForm(`${o.url}pay/change`, { provider });
      expect(res.status, provider).toBe(400);
      expect(textOf(res.text)).toContain("Please choose one of the payment methods.");
    }
    expect((await readOrder(s, o.code)).payments).toEqual([]);
  });

  it("paid and canceled orders cannot change their payment; with return_url the customer is sent back with the error", async () => {
    const s = await ticketShop();
    await allowReturnUrls(s, "https://shop.example.org/checkout/");
    const paid = await placeOrder(s, { status: "p", payment_provider: "manual" });
    const canceled = await placeOrder(s);
    await s.client.post(`${s.path}/orders/${canceled.code}/mark_canceled/`, {});

    const get = await getPage(`${paid.url}pay/change`);
    expect(get.status).toBe(200);
    expect(textOf(get.text)).toContain("This order has already been paid.");
    expect(get.text).not.toContain("<form");
    expect((await postForm(`${paid.url}pay/change`, { provider: "giftcard" })).status).toBe(400);
    const back = await postForm(withQuery(`${paid.url}pay/change`, { return_url: RETURN }), { provider: "giftcard" });
    expect(back.status).toBe(303);
    expect(back.location).toBe("https://shop.example.org/checkout/return?tx=7&error=order_paid");
    const c = await postForm(withQuery(`${canceled.url}pay/change`, { return_url: RETURN }), { provider: "giftcard" });
    expect(c.location).toBe("https://shop.example.org/checkout/return?tx=7&error=order_canceled");
    expect((await readOrder(s, paid.code)).payments).toHaveLength(1);
    expect((await readOrder(s, canceled.code)).payments).toEqual([]);
  });

  it("keeps return_url and iframe=1 through the form and the redirect; refuses foreign return URLs", async () => {
    const s = await ticketShop();
    await allowReturnUrls(s, "https://shop.example.org/checkout/");
    const o = await placeOrder(s);
    const page = await getPage(withQuery(`${o.url}pay/change`, { return_url: RETURN, iframe: "1" }));
    expect(page.status).toBe(200);
    expect(page.headers.get("X-Frame-Options")).toBeNull();
    const action = formAction(page.text);
    expect(action.searchParams.get("return_url")).toBe(RETURN);
    expect(action.searchParams.get("iframe")).toBe("1");
    const res = await postForm(action.toString(), { provider: "giftcard" });
    expect(res.status).toBe(303);
    const next = new URL(res.location!);
    expect(next.pathname).toBe(new URL(`${o.url}pay/1/`).pathname);
    expect(next.searchParams.get("return_url")).toBe(RETURN);
    expect(next.searchParams.get("iframe")).toBe("1");

    const bad = await postForm(withQuery(`${o.url}pay/change`, { return_url: "https://evil.example.net/x" }), {
      provider: "giftcard",
    });
    expect(bad.status).toBe(400);
    expect(bad.location).toBeNull();
    expect(bad.headers.get("X-Frame-Options")).toBe("DENY");
    expect((await readOrder(s, o.code)).payments).toHaveLength(1);
  });
});
