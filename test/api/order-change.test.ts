/**
 * Changing an order's contents (pretix docs orders.rst "Changing order contents"; pretix's
 * test_order_change.py): patches, cancellations, creations (add-ons), fees, taxes, the order's
 * total, the transactions ledger, invoices, mails and the webhook; refusals change nothing.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, orderFees, orderTransactions, webhookCalls } from "../../src/db/schema";
import { db, type Json, unique } from "../harness";
import { signedVenue, venue } from "../helpers/checkin";
import { receiver } from "../helpers/receivers";
import { type Shop, shop } from "../helpers/sales";

async function pendingOrder(opts: { size?: number; positions?: number } = {}) {
  const s = await shop();
  const ticket = await s.item({ default_price: "23.00" });
  const q = await s.quota({ size: opts.size ?? 10, items: [ticket.id] });
  const email = `${unique("buyer")}@example.org`;
  const res = await s.client.post(`${s.path}/orders/`, {
    email,
    positions: Array.from({ length: opts.positions ?? 1 }, () => ({ item: ticket.id, attendee_name: "Peter" })),
    fees: [{ fee_type: "payment", value: "0.25" }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await s.settle();
  const o = res.body as Json;
  // the fees' ids as D1 has them (the order's answer may not carry them)
  const feeRows = await db()
    .select()
    .from(orderFees)
    .where(eq(orderFees.orderId, await orderIdOf(s, o.code)));
  o.fees = (o.fees as Json[]).map((f, i) => ({ ...f, id: feeRows[i]!.id }));
  return { s, ticket, q, o, email };
}

const change = (s: Shop, code: string, body: unknown, query = "") =>
  s.client.post(`${s.path}/orders/${code}/change/${query}`, body);
const availability = async (s: Shop, q: { id: number }) =>
  (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;
const read = async (s: Shop, code: string) => (await s.client.get(`${s.path}/orders/${code}/`)).body;
const ledgerSum = async (orderId: number) =>
  (await db().select().from(orderTransactions).where(eq(orderTransactions.orderId, orderId))).reduce(
    (sum, t) => sum + t.count * t.price,
    0,
  );
const orderIdOf = async (s: Shop, code: string) =>
  (await db().query.orders.findFirst({ where: (o, { eq: is }) => and(is(o.eventId, s.eventId), is(o.code, code)) }))!
    .id;

describe("POST orders/{code}/change/", () => {
  it("patches a position's item and price and a fee's value; the total and the ledger follow (pretix test_order_change_patch)", async () => {
    const { s, ticket, q, o } = await pendingOrder();
    const other = await s.item({ default_price: "30.00" });
    await s.client.patch(`${s.path}/quotas/${q.id}/`, { items: [ticket.id, other.id] });
    const p = o.positions[0];
    const f = o.fees[0];
    const res = await change(s, o.code, {
      patch_positions: [{ position: p.id, body: { item: other.id, price: "99.44" } }],
      patch_fees: [{ fee: f.id, body: { value: "10.00" } }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.total).toBe("109.44");
    expect(res.body.positions[0]).toMatchObject({ id: p.id, item: other.id, price: "99.44" });
    expect(res.body.fees[0]).toMatchObject({ value: "10.00" });
    expect(await read(s, o.code)).toMatchObject({ total: "109.44" });
    expect(await ledgerSum(await orderIdOf(s, o.code))).toBe(10944);
  });

  it("keeps the price when only the product changes; refuses a product without quota (400, nothing changed)", async () => {
    const { s, ticket, q, o } = await pendingOrder();
    const free = await s.item({ default_price: "5.00" });
    const p = o.positions[0];
    const refused = await change(s, o.code, { patch_positions: [{ position: p.id, body: { item: free.id } }] });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("quota");
    expect((await read(s, o.code)).positions[0].item).toBe(ticket.id);
    // check_quotas=false: pretix lets the change exceed quotas
    const forced = await change(
      s,
      o.code,
      { patch_positions: [{ position: p.id, body: { item: free.id } }] },
      "?check_quotas=false",
    );
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body.positions[0]).toMatchObject({ item: free.id, price: "23.00" });
    expect(await availability(s, q)).toMatchObject({ pending_orders: 0, available_number: 10 });
  });

  it("cancels a position and creates one, creates and cancels fees (pretix test_order_change_cancel_and_create)", async () => {
    const { s, ticket, q, o } = await pendingOrder({ positions: 2 });
    const [p1] = o.positions;
    // as pretix's test: the quota is full (size 0 now); a change that gives back what it takes passes
    expect((await s.client.patch(`${s.path}/quotas/${q.id}/`, { size: 0 })).status).toBe(200);
    const grows = await change(s, o.code, { create_positions: [{ item: ticket.id }] });
    expect(grows.status).toBe(400);
    expect(JSON.stringify(grows.body)).toContain("quota");
    const res = await change(s, o.code, {
      cancel_positions: [{ position: p1.id }],
      create_positions: [{ item: ticket.id, price: "99.99" }],
      create_fees: [{ value: "5.99", fee_type: "service", description: "Service fee" }],
      cancel_fees: [{ fee: o.fees[0].id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const positions = res.body.positions as Json[];
    expect(positions.map((p) => p.positionid)).toEqual([2, 3]);
    expect(positions[1]).toMatchObject({ item: ticket.id, price: "99.99", addon_to: null });
    expect(res.body.fees).toEqual([
      expect.objectContaining({ fee_type: "service", value: "5.99", description: "Service fee", internal_type: "" }),
    ]);
    expect(res.body.total).toBe("128.98");
    expect(await availability(s, q)).toMatchObject({ pending_orders: 2, available_number: 0 });
    expect(await ledgerSum(await orderIdOf(s, o.code))).toBe(12898);
    const canceled = await s.client.get(`${s.path}/orderpositions/${p1.id}/?include_canceled_positions=true`);
    expect(canceled.status).toBe(200);
    expect((await read(s, o.code)).positions.map((p: Json) => p.id)).not.toContain(p1.id);
  });

  it("creates an add-on to a position whose product allows it; refuses one it does not allow or an unknown base", async () => {
    const { s, ticket, q, o } = await pendingOrder();
    const cat = await s.post("/categories/", { name: { en: "Workshops" } });
    const ws = await s.item({ name: { en: "WS1" }, default_price: "23.00", category: cat.id });
    await s.client.patch(`${s.path}/quotas/${q.id}/`, { items: [ticket.id, ws.id] });
    const wrong = await change(s, o.code, { create_positions: [{ item: ticket.id, addon_to: 1 }] });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain(
      "The selected base position does not allow you to add this product as an add-on.",
    );
    const unknown = await change(s, o.code, { create_positions: [{ item: ws.id, addon_to: 7 }] });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain("unknown position");
    expect((await s.client.post(`${s.path}/items/${ticket.id}/addons/`, { addon_category: cat.id })).status).toBe(201);
    const res = await change(s, o.code, { create_positions: [{ item: ws.id, addon_to: 1 }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.positions[1]).toMatchObject({ positionid: 2, item: ws.id, addon_to: o.positions[0].id });
    expect(res.body.total).toBe("46.25");
  });

  it("refuses unknown or canceled positions and fees, the same position twice, and an empty order (400, nothing changed)", async () => {
    const { s, o } = await pendingOrder();
    const p = o.positions[0];
    const cases: [unknown, string][] = [
      [{ cancel_fees: [{ fee: 999999 }] }, "does not exist"],
      [{ patch_positions: [{ position: 999999, body: { price: "99.00" } }] }, "does not exist"],
      [{ cancel_positions: [{ position: p.id }] }, "empty"],
      [
        {
          patch_positions: [
            { position: p.id, body: {} },
            { position: p.id, body: {} },
          ],
        },
        "twice",
      ],
      [{ split_positions: [{ position: p.id }] }, "split"],
    ];
    for (const [body, text] of cases) {
      const res = await change(s, o.code, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body)).toContain(text);
    }
    expect(await change(s, o.code, { cancel_positions: [{ position: p.id }] }).then((r) => r.body)).toEqual([
      "An order cannot be empty.",
    ]);
    expect(await read(s, o.code)).toMatchObject({ total: o.total, last_modified: o.last_modified });
  });

  it("recalculates taxes keeping the gross, then keeping the net (pretix test_order_change_recalculate_taxes)", async () => {
    const { s, o } = await pendingOrder();
    const rule = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "7.00" });
    const p = o.positions[0];
    expect(
      (await change(s, o.code, { patch_positions: [{ position: p.id, body: { tax_rule: rule.id } }] })).status,
    ).toBe(200);
    const gross = await change(s, o.code, { recalculate_taxes: "keep_gross" });
    expect(gross.body.positions[0]).toMatchObject({
      tax_rule: rule.id,
      tax_rate: "7.00",
      price: "23.00",
      tax_value: "1.50",
    });
    await s.client.patch(`${s.path}/taxrules/${rule.id}/`, { rate: "10.00" });
    const net = await change(s, o.code, { recalculate_taxes: "keep_net" });
    expect(net.body.positions[0]).toMatchObject({ tax_rate: "10.00", price: "23.65", tax_value: "2.15" });
    expect(net.body.total).toBe("23.90");
  });

  it("send_email sends the change mail; reissue_invoice cancels the invoice and issues a new one (pretix test_order_change_send_email_reissue_invoice)", async () => {
    const { s, ticket, o, email } = await pendingOrder();
    await s.client.patch(`${s.path}/settings/`, { invoice_generate: "admin" });
    expect((await s.client.post(`${s.path}/orders/${o.code}/create_invoice/`, {})).status).toBe(200);
    const quiet = await change(s, o.code, {
      send_email: false,
      reissue_invoice: true,
      create_positions: [{ item: ticket.id, price: "99.99" }],
    });
    expect(quiet.status, JSON.stringify(quiet.body)).toBe(200);
    const invoices = async () => (await s.client.get(`${s.path}/invoices/?order=${o.code}`)).body.results as Json[];
    expect((await invoices()).map((i) => i.is_cancellation)).toEqual([false, true, false]);
    const mails = async () =>
      (await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, email))).map((m) => m.kind);
    expect(await mails()).not.toContain("order_changed");
    const loud = await change(s, o.code, {
      send_email: true,
      reissue_invoice: false,
      cancel_fees: [{ fee: o.fees[0].id }],
    });
    expect(loud.status).toBe(200);
    expect((await mails()).filter((k) => k === "order_changed")).toHaveLength(1);
    expect(await invoices()).toHaveLength(3);
    // the attendee is not on what the invoice charges: no new invoice; a new price is
    const p = o.positions[0].id;
    expect(
      (await change(s, o.code, { patch_positions: [{ position: p, body: { attendee_name: "Max" } }] })).status,
    ).toBe(200);
    expect(await invoices()).toHaveLength(3);
    expect((await change(s, o.code, { patch_positions: [{ position: p, body: { price: "10.00" } }] })).status).toBe(
      200,
    );
    expect((await invoices()).map((i) => i.is_cancellation)).toEqual([false, true, false, true, false]);
  });

  it("writes the webhook call pretix.event.order.changed with the change, and none for a refused change", async () => {
    const { s, o } = await pendingOrder();
    const hook = await s.client.post(`/api/v1/organizers/${s.orgSlug}/webhooks/`, {
      enabled: true,
      target_url: receiver().url,
      all_events: true,
      limit_events: [],
      action_types: ["pretix.event.order.changed"],
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const calls = async () =>
      db()
        .select()
        .from(webhookCalls)
        .where(eq(webhookCalls.webhookId, hook.body.id as number));
    expect((await change(s, o.code, { cancel_positions: [{ position: o.positions[0].id }] })).status).toBe(400);
    expect(await calls()).toHaveLength(0);
    const ok = await change(s, o.code, { patch_positions: [{ position: o.positions[0].id, body: { price: "1.00" } }] });
    expect(ok.status).toBe(200);
    expect((await calls()).map((c) => [c.actionType, c.code])).toEqual([["pretix.event.order.changed", o.code]]);
  });

  it("a paid order whose total grows beyond what was paid is pending again (pretix); one that shrinks stays paid", async () => {
    const { s, ticket, q, o } = await pendingOrder({ positions: 2 });
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, { send_email: false })).status).toBe(200);
    expect(await availability(s, q)).toMatchObject({ paid_orders: 2, pending_orders: 0 });
    const cheaper = await change(s, o.code, { cancel_positions: [{ position: o.positions[1].id }] });
    expect(cheaper.body).toMatchObject({ status: "p", total: "23.25" });
    expect(await availability(s, q)).toMatchObject({ paid_orders: 1, pending_orders: 0 });
    // 46.25 was paid: back to that is still paid, beyond it is pending
    const same = await change(s, o.code, { create_positions: [{ item: ticket.id }] });
    expect(same.body).toMatchObject({ status: "p", total: "46.25" });
    const more = await change(s, o.code, { create_positions: [{ item: ticket.id }] });
    expect(more.status, JSON.stringify(more.body)).toBe(200);
    expect(more.body).toMatchObject({ status: "n", total: "69.25" });
    expect(more.body.expires).not.toBeNull();
    expect(await availability(s, q)).toMatchObject({ paid_orders: 0, pending_orders: 3 });
  });

  it("refuses a change of a canceled order (400)", async () => {
    const { s, o } = await pendingOrder();
    await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, { send_email: false });
    const res = await change(s, o.code, {
      patch_positions: [{ position: o.positions[0].id, body: { price: "1.00" } }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(["Only pending or paid orders can be changed."]);
  });
});

describe("DELETE orderpositions/{id}/", () => {
  it("cancels one ticket and frees its unit; the order's last ticket is refused (400)", async () => {
    const { s, q, o } = await pendingOrder({ positions: 2 });
    const [p1, p2] = o.positions;
    expect(await availability(s, q)).toMatchObject({ pending_orders: 2 });
    const res = await s.client.delete(`${s.path}/orderpositions/${p1.id}/`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(await availability(s, q)).toMatchObject({ pending_orders: 1, available_number: 9 });
    const after = await read(s, o.code);
    expect(after.positions.map((p: Json) => p.id)).toEqual([p2.id]);
    expect(after.total).toBe("23.25");
    expect(await ledgerSum(await orderIdOf(s, o.code))).toBe(2325);
    const last = await s.client.delete(`${s.path}/orderpositions/${p2.id}/`);
    expect(last.status).toBe(400);
    expect(JSON.stringify(last.body)).toContain("empty");
    expect((await s.client.delete(`${s.path}/orderpositions/${p1.id}/`)).status).toBe(404);
  });
  it("a canceled ticket gives its voucher use back, in D1 and to the next sale", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const v = await s.voucher({ max_usages: 1 });
    const o = await s.post("/orders/", { positions: [{ item: ticket.id, voucher: v.code }, { item: ticket.id }] });
    const refused = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: v.code }] });
    expect(refused.status).toBe(400);
    expect((await s.client.delete(`${s.path}/orderpositions/${o.positions[0].id}/`)).status).toBe(204);
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(0);
    const sold = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, voucher: v.code }] });
    expect(sold.status, JSON.stringify(sold.body)).toBe(201);
  });
});

describe("the scanner follows a change", () => {
  it("the scanner follows: a canceled ticket is refused, a created one admitted, a ticket moved off the list's product refused", async () => {
    const v = await venue();
    const other = await v.item();
    await v.quota({ size: 10, items: [other.id] });
    const list = await v.list({ all_products: false, limit_products: [v.ticket.id] });
    const o = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }, { item: v.ticket.id }] });
    const [a, b, c] = o.positions as Json[];
    expect((await v.redeem({ secret: a!.secret, lists: [list.id] })).status).toBe(201);
    expect((await v.client.delete(`${v.path}/orderpositions/${b!.id}/`)).status).toBe(204);
    const canceled = await v.redeem({ secret: b!.secret, lists: [list.id] });
    expect(canceled.body).toMatchObject({ status: "error", reason: "canceled" });
    const changed = await change(v, o.code, {
      patch_positions: [{ position: c!.id, body: { item: other.id } }],
      create_positions: [{ item: v.ticket.id }],
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const moved = await v.redeem({ secret: c!.secret, lists: [list.id] });
    expect(moved.body).toMatchObject({ status: "error", reason: "product" });
    const created = (changed.body.positions as Json[]).find((p) => p.positionid === 4)!;
    const admitted = await v.redeem({ secret: created.secret, lists: [list.id] });
    expect(admitted.status, JSON.stringify(admitted.body)).toBe(201);
    expect(admitted.body.status).toBe("ok");
  });

  it("with signed secrets a ticket moved to another product gets a new secret; the old one is revoked", async () => {
    const v = await signedVenue();
    const other = await v.item();
    await v.quota({ size: 10, items: [other.id] });
    const list = await v.list();
    const o = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    const [a, b] = o.positions as Json[];
    const res = await change(v, o.code, {
      patch_positions: [
        { position: a!.id, body: { item: other.id } },
        { position: b!.id, body: { attendee_name: "Max" } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [a2, b2] = res.body.positions as Json[];
    expect(a2!.secret).not.toBe(a!.secret);
    expect(b2!.secret).toBe(b!.secret);
    const old = await v.redeem({ secret: a!.secret, lists: [list.id] });
    expect(old.body).toMatchObject({ status: "error", reason: "revoked" });
    const revoked = await v.client.get(`${v.path}/revokedsecrets/`);
    expect((revoked.body.results as Json[]).map((r) => r.secret)).toContain(a!.secret);
    const fresh = await v.redeem({ secret: a2!.secret, lists: [list.id] });
    expect(fresh.body).toMatchObject({ status: "ok", position: { id: a!.id, item: other.id } });
  });
});
