/** Orders: creation as the spec describes it, reading, payments and state changes. */
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, orderPositions } from "../../src/db/schema";
import { db, type Json, seedTeam } from "../harness";
import { shop } from "../helpers/sales";

describe("order creation", () => {
  it("creates a pending order with a payment in state created and a payment_url", async () => {
    const s = await shop();
    const ticket = await s.item({ default_price: "23.00" });
    await s.quota({ size: 10, items: [ticket.id] });
    const res = await s.client.post(`${s.path}/orders/`, {
      email: "buyer@example.org",
      locale: "en",
      sales_channel: "web",
      payment_provider: "manual",
      invoice_address: {
        is_business: false,
        company: "Sample company",
        name_parts: { full_name: "John Doe" },
        street: "Sesam Street 12",
        zipcode: "12345",
        city: "Sample City",
        country: "GB",
      },
      positions: [{ item: ticket.id, attendee_name_parts: { full_name: "Peter" } }],
    });
    expect(res.status).toBe(201);
    const o = res.body;
    expect(o.code).toMatch(/^[A-Z0-9]{6}$/);
    expect(o.status).toBe("n");
    expect(o.total).toBe("23.00");
    expect(o.event).toBe(s.eventSlug);
    expect(o.email).toBe("buyer@example.org");
    expect(o.url).toBe(`http://ticketing.test/${s.orgSlug}/${s.eventSlug}/order/${o.code}/${o.secret}/`);
    expect(o.payments).toEqual([
      {
        local_id: 1,
        state: "created",
        amount: "23.00",
        created: o.payments[0].created,
        payment_date: null,
        provider: "manual",
        payment_url: `${o.url}pay/1/`,
        details: {},
      },
    ]);
    expect(o.invoice_address).toMatchObject({
      company: "Sample company",
      name: "John Doe",
      name_parts: { full_name: "John Doe", _scheme: "full" },
      country: "GB",
    });
    expect(o.positions).toHaveLength(1);
    const p = o.positions[0];
    expect(p).toMatchObject({
      order: o.code,
      positionid: 1,
      item: ticket.id,
      variation: null,
      price: "23.00",
      attendee_name: "Peter",
      tax_rate: "0.00",
      tax_value: "0.00",
      tax_rule: null,
      addon_to: null,
      subevent: null,
      seat: null,
    });
    expect(p.secret).toMatch(/^[a-hj-km-np-z2-9]{32}$/);
    expect(p.pseudonymization_id).toMatch(/^[A-Z0-9]{10}$/);
    expect(Date.parse(o.expires)).toBeGreaterThan(Date.now() + 13 * 86400_000);
    expect((await s.client.get(`${s.path}/orders/${o.code}/`)).body).toEqual(o);
  });

  it("computes prices from variations, date overrides, vouchers and tax rules", async () => {
    const s = await shop({ series: true });
    const vat = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
    const net = await s.post("/taxrules/", { name: { en: "Net VAT" }, rate: "10.00", price_includes_tax: false });
    const ticket = await s.item({ default_price: "100.00", tax_rule: vat.id });
    const shirt = await s.item({
      default_price: "20.00",
      tax_rule: net.id,
      variations: [{ value: { en: "S" } }, { value: { en: "XL" }, default_price: "25.00" }],
    });
    const date = await s.subevent({ item_price_overrides: [{ item: ticket.id, price: "80.00" }] });
    await s.quota({
      size: 10,
      items: [ticket.id, shirt.id],
      variations: shirt.variations.map((v: { id: number }) => v.id),
      subevent: date.id,
    });
    await s.voucher({ code: "TENOFF", price_mode: "subtract", value: "10.00" });
    await s.voucher({ code: "HALFOFF", price_mode: "percent", value: "50.00" });
    await s.voucher({ code: "FIXED", price_mode: "set", value: "12.00" });
    const res = await s.client.post(`${s.path}/orders/`, {
      positions: [
        { item: ticket.id, subevent: date.id },
        { item: ticket.id, subevent: date.id, voucher: "TENOFF" },
        { item: ticket.id, subevent: date.id, voucher: "halfoff" },
        { item: ticket.id, subevent: date.id, voucher: "FIXED" },
        { item: shirt.id, variation: shirt.variations[0].id, subevent: date.id },
        { item: shirt.id, variation: shirt.variations[1].id, subevent: date.id },
        { item: ticket.id, subevent: date.id, price: "1.00" },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const prices = res.body.positions.map((p: { price: string; tax_value: string; tax_rate: string }) => [
      p.price,
      p.tax_value,
      p.tax_rate,
    ]);
    expect(prices).toEqual([
      ["80.00", "12.77", "19.00"], // override; 80 × 19/119
      ["70.00", "11.18", "19.00"], // minus 10
      ["40.00", "6.39", "19.00"], // 50 %
      ["12.00", "1.92", "19.00"], // set
      ["22.00", "2.00", "10.00"], // net 20 + 10 %
      ["27.50", "2.50", "10.00"], // net 25 + 10 %
      ["1.00", "0.16", "19.00"], // the client's price is believed
    ]);
    expect(res.body.total).toBe("252.50");
  });

  it("applies automatic discounts to computed prices", async () => {
    const s = await shop();
    const ticket = await s.item({ default_price: "10.00" });
    await s.quota({ size: 20, items: [ticket.id] });
    await s.post("/discounts/", {
      internal_name: "3 for 2",
      condition_min_count: 3,
      benefit_discount_matching_percent: "100.00",
      benefit_only_apply_to_cheapest_n_matches: 1,
    });
    const res = await s.client.post(`${s.path}/orders/`, {
      positions: [{ item: ticket.id }, { item: ticket.id }, { item: ticket.id }, { item: ticket.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.positions.map((p: { price: string }) => p.price).sort()).toEqual([
      "0.00",
      "10.00",
      "10.00",
      "10.00",
    ]);
    expect(res.body.total).toBe("30.00");
  });

  it("takes fees from the input and creates free orders as paid", async () => {
    const s = await shop();
    const vat = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
    const ticket = await s.item({ default_price: "0.00" });
    await s.quota({ size: 10, items: [ticket.id] });
    const free = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
    expect(free.body).toMatchObject({ status: "p", total: "0.00" });
    expect(free.body.payments).toEqual([
      expect.objectContaining({ state: "confirmed", provider: "free", amount: "0.00", payment_url: null }),
    ]);
    const withFee = await s.client.post(`${s.path}/orders/`, {
      positions: [{ item: ticket.id }],
      fees: [{ fee_type: "payment", value: "0.25", description: "Card", internal_type: "stripe", tax_rule: vat.id }],
      payment_provider: "manual",
    });
    expect(withFee.body).toMatchObject({ status: "n", total: "0.25" });
    expect(withFee.body.fees).toEqual([
      {
        id: expect.any(Number),
        fee_type: "payment",
        value: "0.25",
        description: "Card",
        internal_type: "stripe",
        tax_rate: "19.00",
        tax_value: "0.04",
        tax_rule: vat.id,
      },
    ]);
  });

  it("creates paid orders with a confirmed payment", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const res = await s.client.post(`${s.path}/orders/`, {
      status: "p",
      payment_provider: "manual",
      positions: [{ item: ticket.id }],
    });
    expect(res.body.status).toBe("p");
    expect(res.body.payments[0]).toMatchObject({ state: "confirmed", provider: "manual", payment_url: null });
    expect(res.body.payments[0].payment_date).not.toBeNull();
  });

  it("is atomic: an order that does not fit changes nothing", async () => {
    const s = await shop();
    const ticket = await s.item();
    const extra = await s.item({ name: { en: "Extra" } });
    const q = await s.quota({ size: 3, items: [ticket.id] });
    await s.quota({ size: 1, items: [extra.id] });
    const res = await s.client.post(`${s.path}/orders/`, {
      positions: [{ item: ticket.id }, { item: extra.id }, { item: extra.id }],
    });
    expect(res.status).toBe(400);
    // pretix's answer: on the position that does not fit, naming the quota
    expect(res.body).toEqual({
      positions: [
        {},
        {},
        { item: ['There is not enough quota available on quota "Tickets" to perform the operation.'] },
      ],
    });
    expect((await s.client.get(`${s.path}/orders/`)).body.count).toBe(0);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 3,
      pending_orders: 0,
    });
  });

  it("validates input with field errors per position and changes nothing", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const res = await s.client.post(`${s.path}/orders/`, {
      locale: "xx",
      payment_provider: "paypal",
      sales_channel: "moon",
      positions: [{ item: ticket.id }, { item: 999999 }, { item: ticket.id, subevent: 4 }],
      fees: [{ fee_type: "payment", value: "1.00", tax_rule: 999999 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.locale).toEqual(['"xx" is not a valid choice.']);
    expect(res.body.payment_provider).toEqual(["The given payment provider is not known."]);
    expect(res.body.sales_channel).toEqual(["Object with identifier=moon does not exist."]);
    expect(res.body.positions).toEqual([
      {},
      { item: ['Invalid pk "999999" - object does not exist.'] },
      { subevent: ["You cannot set a subevent for this event."] },
    ]);
    expect(res.body.fees).toEqual([{ tax_rule: ['Invalid pk "999999" - object does not exist.'] }]);
    expect((await s.client.post(`${s.path}/orders/`, { positions: [] })).body).toEqual({
      positions: ["An order cannot be empty."],
    });
    expect((await s.client.get(`${s.path}/orders/`)).body.count).toBe(0);
  });

  it("takes an order code, refusing one in use", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    expect(
      (await s.client.post(`${s.path}/orders/`, { code: "ABC12", positions: [{ item: ticket.id }] })).body.code,
    ).toBe("ABC12");
    const dup = await s.client.post(`${s.path}/orders/`, { code: "ABC12", positions: [{ item: ticket.id }] });
    expect(dup.body).toEqual({ code: ["This order code is already in use."] });
    expect((await s.client.post(`${s.path}/orders/`, { code: "ab", positions: [{ item: ticket.id }] })).status).toBe(
      400,
    );
  });

  it("links add-ons through positionid and addon_to", async () => {
    const s = await shop();
    const ticket = await s.item();
    const cat = await s.post("/categories/", { name: { en: "Extras" }, is_addon: true });
    const parking = await s.item({ name: { en: "Parking" }, category: cat.id, default_price: "5.00" });
    await s.quota({ size: 10, items: [ticket.id, parking.id] });
    const res = await s.client.post(`${s.path}/orders/`, {
      positions: [
        { positionid: 1, item: ticket.id },
        { positionid: 2, item: parking.id, addon_to: 1 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.positions[1].addon_to).toBe(res.body.positions[0].id);
    const bad = await s.client.post(`${s.path}/orders/`, {
      positions: [
        { positionid: 1, item: ticket.id, addon_to: 2 },
        { positionid: 2, item: parking.id },
      ],
    });
    expect(bad.body).toEqual({
      positions: [
        {
          addon_to: [
            "If you set addon_to, you need to make sure that the referenced position ID exists and is transmitted directly before its add-ons.",
          ],
        },
        {},
      ],
    });
  });

  it("consume_carts credits the carts' quota to the order and destroys them only on success", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 2, items: [ticket.id] });
    const cart = await s.client.post(`${s.path}/cartpositions/`, {
      item: ticket.id,
      price: "20.00",
      cart_id: "buyer1@api",
    });
    await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "20.00", cart_id: "buyer1@api" });
    expect(cart.status).toBe(201);
    // without consuming, nothing is left
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(400);
    // a failing order consuming the carts leaves them in place
    const failing = await s.client.post(`${s.path}/orders/`, {
      consume_carts: ["buyer1@api"],
      positions: [{ item: ticket.id }, { item: ticket.id }, { item: ticket.id }],
    });
    expect(failing.status).toBe(400);
    expect((await s.client.get(`${s.path}/cartpositions/`)).body.count).toBe(2);
    // a fitting one takes the carts' places and removes them
    const ok = await s.client.post(`${s.path}/orders/`, {
      consume_carts: ["buyer1@api"],
      positions: [{ item: ticket.id }, { item: ticket.id }],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect((await s.client.get(`${s.path}/cartpositions/`)).body.count).toBe(0);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 0,
      pending_orders: 2,
      cart_positions: 0,
    });
  });

  it("queues the confirmation mail with send_mail", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const res = await s.client.post(`${s.path}/orders/`, {
      email: "mail@example.org",
      send_mail: true,
      payment_provider: "manual",
      positions: [{ item: ticket.id }],
    });
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, "mail@example.org"));
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: "order_placed", subject: `Your order: ${res.body.code}` });
    expect(mails[0]!.textBody).toContain(res.body.url);
    await s.client.post(`${s.path}/orders/`, { email: "quiet@example.org", positions: [{ item: ticket.id }] });
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, "quiet@example.org"))).toHaveLength(0);
  });

  it("the placed, paid and canceled mails name each product with its variation, in the order's language", async () => {
    const s = await shop();
    expect((await s.client.patch(`${s.path}/settings/`, { locales: ["en", "de"] })).status).toBe(200);
    const ticket = await s.item({ name: { en: "Day ticket", de: "Tageskarte" }, default_price: "30.00" });
    const shirt = await s.item({
      name: { en: "T-Shirt" },
      default_price: "15.00",
      admission: false,
      variations: [{ value: { en: "S" } }, { value: { en: "Large", de: "Groß" } }],
    });
    await s.quota({ size: 10, items: [ticket.id, shirt.id], variations: shirt.variations.map((v: Json) => v.id) });
    const mailsTo = async (to: string) => {
      await s.settle();
      return db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to));
    };

    const placed = await s.client.post(`${s.path}/orders/`, {
      email: "variation@example.org",
      locale: "de",
      send_mail: true,
      payment_provider: "manual",
      positions: [{ item: ticket.id }, { item: shirt.id, variation: shirt.variations[1].id }],
    });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const code = placed.body.code;
    expect((await s.client.post(`${s.path}/orders/${code}/mark_paid/`, {})).status).toBe(200);
    expect((await s.client.post(`${s.path}/orders/${code}/mark_canceled/`, {})).status).toBe(200);
    const mails = await mailsTo("variation@example.org");
    expect(mails.map((m) => m.kind)).toEqual(["order_placed", "order_paid", "order_canceled"]);
    for (const m of mails) {
      expect(m.textBody, m.kind).toContain("\n  Tageskarte  30.00 EUR\n  T-Shirt – Groß  15.00 EUR\n");
    }

    // a paid order created through the API: its order mail, then its paid mail naming the variation in English
    const paid = await s.client.post(`${s.path}/orders/`, {
      email: "paid-variation@example.org",
      status: "p",
      payment_provider: "manual",
      send_mail: true,
      positions: [{ item: shirt.id, variation: shirt.variations[0].id }],
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    const [placedMail, paidMail] = await mailsTo("paid-variation@example.org");
    expect(placedMail).toMatchObject({ kind: "order_placed" });
    expect(paidMail).toMatchObject({ kind: "order_paid" });
    expect(paidMail!.textBody).toContain("\n  T-Shirt – S  15.00 EUR\n");
  });

  it("gives every ticket its own unguessable secret", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 100, items: [ticket.id] });
    const res = await s.client.post(`${s.path}/orders/`, {
      positions: Array.from({ length: 40 }, () => ({ item: ticket.id })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const secrets = res.body.positions.map((p: { secret: string }) => p.secret);
    expect(new Set(secrets).size).toBe(40);
    // no other ticket of the database has one of them (other test files' tickets included,
    // some with secrets their clients chose)
    const rows = await db()
      .select({ secret: orderPositions.secret })
      .from(orderPositions)
      .where(inArray(orderPositions.secret, secrets));
    expect(rows).toHaveLength(40);
  });
});

describe("reading orders", () => {
  it("lists orders with X-Page-Generated and returns only changed ones for modified_since", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const a = await s.client.post(`${s.path}/orders/`, { email: "a@example.org", positions: [{ item: ticket.id }] });
    // D1 has an order one write after its answer (docs/scaling.md): a list after that shows it
    await s.settle();
    const first = await s.client.get(`${s.path}/orders/`);
    const generated = first.headers.get("x-page-generated")!;
    expect(generated).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(first.body.count).toBe(1);
    await new Promise((r) => setTimeout(r, 5));
    const b = await s.client.post(`${s.path}/orders/`, { email: "b@example.org", positions: [{ item: ticket.id }] });
    await s.settle();
    const since = await s.client.get(`${s.path}/orders/?modified_since=${encodeURIComponent(generated)}`);
    expect(since.body.results.map((o: { code: string }) => o.code)).toEqual([b.body.code]);
    expect(
      (await s.client.get(`${s.path}/orders/?email=A@example.org`)).body.results.map((o: { code: string }) => o.code),
    ).toEqual([a.body.code]);
    expect((await s.client.get(`${s.path}/orders/?status=p`)).body.count).toBe(0);
    expect((await s.client.get(`${s.path}/orders/?ordering=-datetime`)).body.results[0].code).toBe(b.body.code);
    expect((await s.client.get(`${s.path}/orders/?status=x`)).status).toBe(400);
  });

  it("reads payments and answers 404 for unknown orders and payments", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const o = (
      await s.client.post(`${s.path}/orders/`, { payment_provider: "manual", positions: [{ item: ticket.id }] })
    ).body;
    const list = await s.client.get(`${s.path}/orders/${o.code}/payments/`);
    expect(list.body.results).toEqual(o.payments);
    expect((await s.client.get(`${s.path}/orders/${o.code}/payments/1/`)).body).toEqual(o.payments[0]);
    expect((await s.client.get(`${s.path}/orders/${o.code}/payments/9/`)).status).toBe(404);
    expect((await s.client.get(`${s.path}/orders/NOPE1/`)).status).toBe(404);
    const other = await shop();
    expect((await other.client.get(`${other.path}/orders/${o.code}/`)).status).toBe(404);
  });

  it("needs can_view_orders to read and can_change_orders to create", async () => {
    const s = await shop();
    const viewer = await seedTeam(s.org.id, { permissions: ["can_view_orders"] });
    expect((await viewer.client.get(`${s.path}/orders/`)).status).toBe(200);
    expect((await viewer.client.post(`${s.path}/orders/`, { positions: [] })).status).toBe(403);
    const none = await seedTeam(s.org.id, { permissions: [] });
    expect((await none.client.get(`${s.path}/orders/`)).status).toBe(403);
  });
});

describe("order state changes", () => {
  async function pendingOrder(size = 1) {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size, items: [ticket.id] });
    const o = (
      await s.client.post(`${s.path}/orders/`, {
        email: "x@example.org",
        payment_provider: "manual",
        positions: [{ item: ticket.id }],
      })
    ).body;
    return { s, ticket, q, o };
  }
  const avail = async (s: Awaited<ReturnType<typeof shop>>, q: { id: number }) =>
    (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;

  it("mark_paid confirms the open payment; paid orders still hold their quota", async () => {
    const { s, q, o } = await pendingOrder();
    const res = await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {});
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("p");
    expect(res.body.payments[0]).toMatchObject({ local_id: 1, state: "confirmed" });
    expect(await avail(s, q)).toMatchObject({ available_number: 0, paid_orders: 1, pending_orders: 0 });
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {})).status).toBe(400);
  });

  it("mark_paid refused for a paid or canceled order adds no payment", async () => {
    const { s, o } = await pendingOrder();
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {})).status).toBe(200);
    const again = await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {});
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "The order cannot be marked as paid in its current status (p)." });
    expect((await s.client.get(`${s.path}/orders/${o.code}/`)).body.payments).toHaveLength(1);

    const { s: s2, o: other } = await pendingOrder();
    expect((await s2.client.post(`${s2.path}/orders/${other.code}/mark_canceled/`, { send_email: false })).status).toBe(
      200,
    );
    expect((await s2.client.post(`${s2.path}/orders/${other.code}/mark_paid/`, {})).status).toBe(400);
    const canceled = (await s2.client.get(`${s2.path}/orders/${other.code}/`)).body;
    expect(canceled.payments.map((y: { state: string }) => y.state)).toEqual(["canceled"]);
  });

  it("mark_paid refused for lack of quota leaves no payment behind, also under parallel calls", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 1, items: [ticket.id] });
    const o = (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).body;
    expect(o.payments).toEqual([]);
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`)).status).toBe(200);
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(201);
    const refused = await Promise.all(
      Array.from({ length: 5 }, () => s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {})),
    );
    for (const r of refused) expect(r.status).toBe(400);
    const after = (await s.client.get(`${s.path}/orders/${o.code}/`)).body;
    expect(after.status).toBe("e");
    expect(after.payments).toEqual([]);
  });

  it("parallel mark_paid of an order without payment: one manual payment, confirmed", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    const o = (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).body;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, { send_email: false })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.status).toBe(400);
    const after = (await s.client.get(`${s.path}/orders/${o.code}/`)).body;
    expect(after.status).toBe("p");
    expect(after.payments.map((y: { state: string; provider: string }) => [y.state, y.provider])).toEqual([
      ["confirmed", "manual"],
    ]);
  });

  it("mark_canceled releases the quota and cancels open payments", async () => {
    const { s, ticket, q, o } = await pendingOrder();
    const res = await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, { send_email: false });
    expect(res.body.status).toBe("c");
    expect(res.body.payments[0].state).toBe("canceled");
    expect(res.body.cancellation_date).not.toBeNull();
    expect(await avail(s, q)).toMatchObject({ available_number: 1, pending_orders: 0 });
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(201);
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, {})).status).toBe(400);
  });

  it("mark_expired releases the quota; paying an expired order needs quota again", async () => {
    const { s, ticket, q, o } = await pendingOrder();
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`)).body.status).toBe("e");
    expect(await avail(s, q)).toMatchObject({ available_number: 1 });
    const other = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
    expect(other.status).toBe(201);
    const late = await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {});
    expect(late.status).toBe(400);
    expect(late.body.non_field_errors[0]).toMatch(/not enough quota/);
    expect((await s.client.get(`${s.path}/orders/${o.code}/`)).body.status).toBe("e");
    await s.client.post(`${s.path}/orders/${other.body.code}/mark_canceled/`, {});
    const paid = await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {});
    expect(paid.body.status).toBe("p");
    expect(await avail(s, q)).toMatchObject({ available_number: 0, paid_orders: 1 });
  });

  it("confirms a payment by its local id, which marks the order paid", async () => {
    const { s, o } = await pendingOrder();
    const res = await s.client.post(`${s.path}/orders/${o.code}/payments/1/confirm/`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ local_id: 1, state: "confirmed", payment_url: null });
    expect((await s.client.get(`${s.path}/orders/${o.code}/`)).body.status).toBe("p");
    expect((await s.client.post(`${s.path}/orders/${o.code}/payments/1/confirm/`, {})).status).toBe(400);
  });

  it("paying a pending order does not redeem its voucher again; expiring and paying late does", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const v = await s.voucher({ code: "TWICE", max_usages: 2 });
    const redeemed = async () => (await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.redeemed;
    const a = (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "TWICE" }] })).body;
    expect(await redeemed()).toBe(1);
    expect((await s.client.post(`${s.path}/orders/${a.code}/mark_paid/`, {})).status).toBe(200);
    expect(await redeemed()).toBe(1);
    const b = (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "TWICE" }] })).body;
    expect(await redeemed()).toBe(2);
    expect((await s.client.post(`${s.path}/orders/${b.code}/mark_expired/`, {})).status).toBe(200);
    expect(await redeemed()).toBe(1);
    expect((await s.client.post(`${s.path}/orders/${b.code}/mark_paid/`, {})).status).toBe(200);
    expect(await redeemed()).toBe(2);
  });

  it("a canceled order gives its voucher use back", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const v = await s.voucher({ code: "ONCEONLY", max_usages: 1 });
    const o = (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "ONCEONLY" }] }))
      .body;
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(1);
    expect((await s.client.delete(`${s.path}/vouchers/${v.id}/`)).status).toBe(403);
    expect(
      (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "ONCEONLY" }] })).status,
    ).toBe(400);
    await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, {});
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(0);
    expect(
      (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: "ONCEONLY" }] })).status,
    ).toBe(201);
  });
});
