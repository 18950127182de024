/**
 * `patch_positions` as pretix's test_order_change.py and its position tests check it: product and
 * variation, date, seat, price and tax rule; each validated by order creation's rules, the
 * capacity of a new product, date or seat decided by the event object.
 */
import { describe, expect, it } from "vitest";
import type { Json } from "../harness";
import { type Shop, seatedShop, shop } from "../helpers/sales";

const patch = (s: Shop, o: Json, body: Record<string, unknown>, query = "") =>
  s.client.post(`${s.path}/orders/${o.code}/change/${query}`, {
    patch_positions: [{ position: o.positions[0].id, body }],
  });
const availability = async (s: Shop, q: { id: number }) =>
  (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;

describe("patch_positions", () => {
  it("changes the product to one with variations: the variation is required and must be the product's", async () => {
    const s = await shop();
    const ticket = await s.item();
    const shirt = await s.item({ variations: [{ value: { en: "S" } }, { value: { en: "XL" } }] });
    const other = await s.item({ variations: [{ value: { en: "M" } }] });
    await s.quota({
      size: 10,
      items: [ticket.id, shirt.id, other.id],
      variations: [...shirt.variations, ...other.variations].map((v: Json) => v.id),
    });
    const o = await s.post("/orders/", { positions: [{ item: ticket.id }] });
    const missing = await patch(s, o, { item: shirt.id });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      patch_positions: [{ body: { variation: ["You should specify a variation for this item."] } }],
    });
    const mismatch = await patch(s, o, { item: shirt.id, variation: other.variations[0].id });
    expect(mismatch.body).toEqual({
      patch_positions: [{ body: { variation: ["The specified variation does not belong to the specified item."] } }],
    });
    const ok = await patch(s, o, { item: shirt.id, variation: shirt.variations[1].id });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.positions[0]).toMatchObject({ item: shirt.id, variation: shirt.variations[1].id, price: "20.00" });
  });

  it("refuses another event's product as unknown (pretix: object does not exist)", async () => {
    const s = await shop();
    const elsewhere = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const foreign = await elsewhere.item();
    const o = await s.post("/orders/", { positions: [{ item: ticket.id }] });
    const res = await patch(s, o, { item: foreign.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      patch_positions: [{ body: { item: [`Invalid pk "${foreign.id}" - object does not exist.`] } }],
    });
  });

  it("moves a ticket to another date; a date whose quota is full is refused, unless check_quotas=false", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const d1 = await s.subevent();
    const d2 = await s.subevent({ date_from: "2030-08-01T19:00:00Z" });
    const q1 = await s.quota({ size: 5, items: [ticket.id], subevent: d1.id });
    const q2 = await s.quota({ size: 0, items: [ticket.id], subevent: d2.id });
    const o = await s.post("/orders/", { positions: [{ item: ticket.id, subevent: d1.id }] });
    const full = await patch(s, o, { subevent: d2.id });
    expect(full.status).toBe(400);
    expect(JSON.stringify(full.body)).toContain("quota");
    expect(await availability(s, q1)).toMatchObject({ pending_orders: 1 });
    const forced = await patch(s, o, { subevent: d2.id }, "?check_quotas=false");
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body.positions[0].subevent).toBe(d2.id);
    expect(await availability(s, q1)).toMatchObject({ pending_orders: 0, available_number: 5 });
    expect(await availability(s, q2)).toMatchObject({ pending_orders: 1 });
  });

  it("changes the seat; a seat another order holds is refused, and the freed seat can be sold again", async () => {
    const { s, ticket } = await seatedShop();
    const a = await s.post("/orders/", { positions: [{ item: ticket.id, seat: "s1" }] });
    await s.post("/orders/", { positions: [{ item: ticket.id, seat: "s2" }] });
    const taken = await patch(s, a, { seat: "s2" });
    expect(taken.status).toBe(400);
    expect(JSON.stringify(taken.body)).toContain("seat");
    const moved = await patch(s, a, { seat: "s3" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.positions[0]).toMatchObject({ seat: expect.objectContaining({ seat_guid: "s3" }) });
    const resold = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "s1" }] });
    expect(resold.status, JSON.stringify(resold.body)).toBe(201);
    const unknown = await patch(s, a, { seat: "nope" });
    expect(unknown.body).toEqual({ patch_positions: [{ body: { seat: ["The specified seat does not exist."] } }] });
  });

  it("sets the price (tax by the position's rule) and the price with a tax rule (pretix test_position_update_change_price*)", async () => {
    const s = await shop();
    const ticket = await s.item({ default_price: "23.00" });
    await s.quota({ size: 5, items: [ticket.id] });
    const rule = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
    const o = await s.post("/orders/", { positions: [{ item: ticket.id }] });
    const plain = await patch(s, o, { price: "119.00" });
    expect(plain.body.positions[0]).toMatchObject({ price: "119.00", tax_rate: "0.00", tax_value: "0.00" });
    const taxed = await patch(s, o, { price: "119.00", tax_rule: rule.id });
    expect(taxed.body.positions[0]).toMatchObject({
      price: "119.00",
      tax_rate: "19.00",
      tax_value: "19.00",
      tax_rule: rule.id,
    });
    expect(taxed.body.total).toBe("119.00");
  });

  it("changes the attendee's name and email without touching capacity", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const o = await s.post("/orders/", { positions: [{ item: ticket.id, attendee_name: "Peter" }] });
    const res = await patch(s, o, { attendee_name: "Max Mustermann", attendee_email: "max@example.org" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.positions[0]).toMatchObject({ attendee_name: "Max Mustermann", attendee_email: "max@example.org" });
    expect(await availability(s, q)).toMatchObject({ pending_orders: 1, available_number: 0 });
    const both = await patch(s, o, { attendee_name: "A", attendee_name_parts: { full_name: "B" } });
    expect(both.body).toEqual({
      patch_positions: [
        { body: { attendee_name: ["Do not specify attendee_name if you specified attendee_name_parts."] } },
      ],
    });
  });
});

describe("PATCH orderpositions/{id}/", () => {
  it("changes the product (quota checked unless check_quotas=false) and answers the position", async () => {
    const s = await shop();
    const ticket = await s.item();
    const other = await s.item({ default_price: "30.00" });
    await s.quota({ size: 5, items: [ticket.id] });
    const o = await s.post("/orders/", { positions: [{ item: ticket.id }] });
    const url = `${s.path}/orderpositions/${o.positions[0].id}/`;
    const refused = await s.client.patch(url, { item: other.id });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("quota");
    const res = await s.client.patch(`${url}?check_quotas=false`, { item: other.id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: o.positions[0].id, order: o.code, item: other.id, price: "20.00" });
    // fields it does not change are ignored (pretix test_position_update_ignore_fields)
    const ignored = await s.client.patch(url, { tax_rate: "99.99" });
    expect(ignored.status).toBe(200);
    expect(ignored.body.tax_rate).toBe("0.00");
    // only partial updates (pretix test_position_update_only_partial)
    expect((await s.client.put(url, { price: "99.99" })).status).toBe(405);
    // the validity window (pretix test_position_update_validity)
    const valid = await s.client.patch(url, {
      valid_from: "2022-12-12T12:12:12+00:00",
      valid_until: "2022-12-12T13:12:12+00:00",
    });
    expect(valid.status, JSON.stringify(valid.body)).toBe(200);
    expect(valid.body).toMatchObject({ valid_from: "2022-12-12T12:12:12Z", valid_until: "2022-12-12T13:12:12Z" });
  });

  it("replaces the answers (each question once), and keeps them when none are given", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    const question = await s.post("/questions/", { question: { en: "T-Shirt size" }, type: "S", items: [ticket.id] });
    const o = await s.post("/orders/", {
      positions: [{ item: ticket.id, answers: [{ question: question.id, answer: "S" }] }],
    });
    const url = `${s.path}/orderpositions/${o.positions[0].id}/`;
    const twice = await s.client.patch(url, {
      answers: [
        { question: question.id, answer: "M" },
        { question: question.id, answer: "L" },
      ],
    });
    expect(twice.status).toBe(400);
    const one = await s.client.patch(url, { answers: [{ question: question.id, answer: "FOOBAR" }] });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.answers).toMatchObject([{ question: question.id, answer: "FOOBAR" }]);
    const named = await s.client.patch(url, { attendee_name: "Max Mustermann" });
    expect(named.body).toMatchObject({ attendee_name: "Max Mustermann", answers: [{ answer: "FOOBAR" }] });
    const none = await s.client.patch(url, { answers: [] });
    expect(none.body.answers).toEqual([]);
  });
});

describe("create_positions", () => {
  it("in a series a new ticket needs its date; with one it takes that date's quota", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const d1 = await s.subevent();
    const q = await s.quota({ size: 5, items: [ticket.id], subevent: d1.id });
    const o = await s.post("/orders/", { positions: [{ item: ticket.id, subevent: d1.id }] });
    const url = `${s.path}/orders/${o.code}/change/`;
    const missing = await s.client.post(url, { create_positions: [{ item: ticket.id }] });
    expect(missing.body).toEqual({ create_positions: [{ subevent: ["You need to set a subevent."] }] });
    const ok = await s.client.post(url, { create_positions: [{ item: ticket.id, subevent: d1.id }] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.positions[1]).toMatchObject({ positionid: 2, subevent: d1.id, price: "20.00" });
    expect(await availability(s, q)).toMatchObject({ pending_orders: 2 });
  });

  it("a product with seats needs a free seat", async () => {
    const { s, ticket } = await seatedShop();
    const o = await s.post("/orders/", { positions: [{ item: ticket.id, seat: "s1" }] });
    const url = `${s.path}/orders/${o.code}/change/`;
    const missing = await s.client.post(url, { create_positions: [{ item: ticket.id }] });
    expect(missing.body).toEqual({
      create_positions: [{ seat: ["The specified product requires to choose a seat."] }],
    });
    const taken = await s.client.post(url, { create_positions: [{ item: ticket.id, seat: "s1" }] });
    expect(taken.status).toBe(400);
    expect(JSON.stringify(taken.body)).toContain("s1");
    const ok = await s.client.post(url, { create_positions: [{ item: ticket.id, seat: "s2" }] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.positions[1].seat).toMatchObject({ seat_guid: "s2" });
  });
});
