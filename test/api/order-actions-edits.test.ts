/**
 * Order edits as pretix's tests do them (test_orders.py: `test_order_mark_canceled_pending_fee_*`,
 * `test_order_mark_paid_canceled_keep_fee`, `test_order_delete*`, `test_orderposition_detail`;
 * orders.rst "Updating order fields", `resend_link`): a cancellation that keeps the order with a
 * fee, PATCH, resend_link, deleting test mode orders, fees with their id, a position's downloads.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { eventObject } from "../../src/objects/client";
import { mailOutbox, orders, orderTransactions } from "../../src/db/schema";
import { db, type Json, unique } from "../harness";
import { venue } from "../helpers/checkin";
import { breakObjectWrites, mendObjectWrites, outboxSize } from "../helpers/faults";
import { type Shop, shop } from "../helpers/sales";

type World = { s: Shop; ticket: Json; q: Json };

async function world(size = 1): Promise<World> {
  const s = await shop();
  const ticket = await s.item({ default_price: "23.00" });
  const q = await s.quota({ size, items: [ticket.id] });
  return { s, ticket, q };
}

async function place(w: World, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await w.s.client.post(`${w.s.path}/orders/`, {
    email: `${unique("buyer")}@example.org`,
    payment_provider: "manual",
    positions: [{ item: w.ticket.id }],
    fees: [{ fee_type: "payment", value: "0.25" }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const act = (w: World, code: string, action: string, body: unknown = {}) =>
  w.s.client.post(`${w.s.path}/orders/${code}/${action}/`, body);
const read = (w: World, code: string, query = "") => w.s.client.get(`${w.s.path}/orders/${code}/${query}`);
const availability = async (w: World) => (await w.s.client.get(`${w.s.path}/quotas/${w.q.id}/availability/`)).body;
const mails = async (to: string) =>
  (await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to))).map((m) => m.kind);

/** What the order's transactions say it owes, in cents. */
async function owed(code: string) {
  const [o] = await db().select().from(orders).where(eq(orders.code, code));
  const rows = await db().select().from(orderTransactions).where(eq(orderTransactions.orderId, o!.id));
  return rows.reduce((s, t) => s + t.count * t.price, 0);
}

describe("mark_canceled with a cancellation_fee", () => {
  it("a pending order stays pending with the fee as its only component, and frees its capacity", async () => {
    const w = await world();
    const o = await place(w, { send_email: true });
    expect(o.total).toBe("23.25");
    const res = await act(w, o.code, "mark_canceled", { cancellation_fee: "7.00" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "n", total: "7.00", positions: [] });
    expect(res.body.fees).toEqual([
      {
        id: expect.any(Number),
        fee_type: "cancellation",
        value: "7.00",
        description: "",
        internal_type: "",
        tax_rate: "0.00",
        tax_value: "0.00",
        tax_rule: null,
      },
    ]);
    expect(await mails(o.email)).toEqual(["order_placed", "order_canceled"]);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.kind, "order_canceled"));
    expect(mail!.textBody).not.toContain("undefined");
    expect(await availability(w)).toMatchObject({ pending_orders: 0, available_number: 1 });
    expect(await owed(o.code)).toBe(700);
    // the canceled ones are still there, marked
    const all = (await read(w, o.code, "?include_canceled_positions=true&include_canceled_fees=true")).body;
    expect(all.positions.map((p: Json) => p.canceled)).toEqual([true]);
    expect(all.fees.map((f: Json) => f.fee_type)).toEqual(["payment", "cancellation"]);
    // the capacity is sold again
    expect((await w.s.client.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] })).status).toBe(201);
    // nothing left to cancel with a fee; the order itself can still be canceled
    expect((await act(w, o.code, "mark_canceled", { cancellation_fee: "1.00" })).status).toBe(400);
    const done = await act(w, o.code, "mark_canceled", { send_email: false });
    expect(done.body.status).toBe("c");
    expect(await owed(o.code)).toBe(0);
  });

  it("a paid order stays paid with the fee as its total (pretix test_order_mark_paid_canceled_keep_fee)", async () => {
    const w = await world();
    const o = await place(w, { status: "p" });
    const res = await act(w, o.code, "mark_canceled", { cancellation_fee: "6.00", send_email: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "p", total: "6.00", positions: [] });
    expect(await availability(w)).toMatchObject({ paid_orders: 0, available_number: 1 });
    expect(await owed(o.code)).toBe(600);
    const above = await act(w, o.code, "mark_canceled", { cancellation_fee: "700.00" });
    expect(above.body).toEqual({
      detail: "The cancellation fee cannot be higher than the total amount of this order.",
    });
  });

  it("a write D1 took but the object did not hear is replayed once: one fee, the capacity freed", async () => {
    const w = await world();
    const o = await place(w);
    await breakObjectWrites(w.s.eventId, "lost");
    const res = await act(w, o.code, "mark_canceled", { cancellation_fee: "5.00", send_email: false });
    expect(res.status).toBe(503);
    await mendObjectWrites(w.s.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, w.s.eventId))).toBe(true);
    expect(await outboxSize(w.s.eventId)).toBe(0);
    const after = (await read(w, o.code, "?include_canceled_fees=true")).body;
    expect(after).toMatchObject({ status: "n", total: "5.00", positions: [] });
    expect(after.fees.map((f: Json) => f.fee_type)).toEqual(["payment", "cancellation"]);
    expect(await owed(o.code)).toBe(500);
    expect(await availability(w)).toMatchObject({ pending_orders: 0, available_number: 1 });
    expect((await w.s.client.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] })).status).toBe(201);
  });

  it("racing sales for the last unit: the freed unit is sold at most once", async () => {
    const w = await world();
    const o = await place(w);
    const results = await Promise.all([
      act(w, o.code, "mark_canceled", { cancellation_fee: "5.00", send_email: false }),
      ...Array.from({ length: 5 }, () =>
        w.s.client.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] }),
      ),
    ]);
    expect(results[0]!.status).toBe(200);
    expect(results.slice(1).filter((r) => r.status === 201).length).toBeLessThanOrEqual(1);
    await w.s.settle();
    const a = await availability(w);
    expect(a.pending_orders + a.paid_orders).toBeLessThanOrEqual(1);
    expect(a.available_number).toBe(1 - a.pending_orders - a.paid_orders);
  });
});

describe("an order kept with a cancellation fee afterwards", () => {
  it("takes an order change (a new ticket, the capacity taken again), is paid and canceled; a second fee is 400", async () => {
    const w = await world(1);
    const o = await place(w);
    expect((await act(w, o.code, "mark_canceled", { cancellation_fee: "3.00", send_email: false })).status).toBe(200);
    const again = await act(w, o.code, "mark_canceled", { cancellation_fee: "2.00" });
    expect(again.status).toBe(400);
    expect(again.body.detail).toContain("no ticket left to cancel");
    expect((await read(w, o.code)).body.total).toBe("3.00");
    // the order holds nothing: an order change gives it a ticket again, and takes the unit
    const changed = await act(w, o.code, "change", { create_positions: [{ item: w.ticket.id }] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ status: "n", total: "26.00" });
    expect(await availability(w)).toMatchObject({ available_number: 0, pending_orders: 1 });
    expect((await w.s.client.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] })).status).toBe(400);
    expect((await act(w, o.code, "mark_paid")).body.status).toBe("p");
    expect((await act(w, o.code, "mark_canceled", { send_email: false })).body.status).toBe("c");
    expect(await availability(w)).toMatchObject({ available_number: 1, paid_orders: 0 });
    expect(await owed(o.code)).toBe(0);
  });
});

describe("PATCH of an order", () => {
  it("changes pretix's editable fields and answers the order; bad values are 400 and change nothing", async () => {
    const w = await world();
    const o = await place(w);
    const res = await w.s.client.patch(`${w.s.path}/orders/${o.code}/`, {
      email: "other@example.org",
      phone: "+49301234567",
      comment: "Foo",
      checkin_attention: true,
      invoice_address: { company: "Sample company", name_parts: { full_name: "John Doe" }, country: "DE" },
      expires: "2031-01-01T12:00:00Z",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      code: o.code,
      status: "n",
      email: "other@example.org",
      phone: "+49301234567",
      comment: "Foo",
      checkin_attention: true,
      expires: "2031-01-01T12:00:00Z",
      invoice_address: { company: "Sample company", name: "John Doe", country: "DE" },
    });
    expect((await read(w, o.code)).body).toMatchObject({ email: "other@example.org", checkin_attention: true });
    // the address goes with null
    expect((await w.s.client.patch(`${w.s.path}/orders/${o.code}/`, { invoice_address: null })).body).toMatchObject({
      invoice_address: null,
    });
    const bad = await w.s.client.patch(`${w.s.path}/orders/${o.code}/`, { locale: "xx", comment: "Bar" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ locale: ['"xx" is not a supported locale for this event.'] });
    expect((await w.s.client.patch(`${w.s.path}/orders/${o.code}/`, { email: "nope" })).status).toBe(400);
    expect((await read(w, o.code)).body).toMatchObject({ comment: "Foo", locale: "en" });
    // the capacity stays as it was
    expect(await availability(w)).toMatchObject({ pending_orders: 1 });
    expect((await w.s.client.patch(`${w.s.path}/orders/NOPE1/`, { comment: "x" })).status).toBe(404);
  });

  it("email to null, a locale the event does not offer (pretix test_order_update_email_to_none, _locale_to_invalid)", async () => {
    const w = await world();
    const o = await place(w);
    const none = await w.s.client.patch(`${w.s.path}/orders/${o.code}/`, { email: null });
    expect(none.status, JSON.stringify(none.body)).toBe(200);
    expect((await read(w, o.code)).body.email).toBeNull();
    const de = await w.s.client.patch(`${w.s.path}/orders/${o.code}/`, { locale: "de" });
    expect(de.status).toBe(400);
    expect(de.body).toEqual({ locale: ['"de" is not a supported locale for this event.'] });
  });

  it("a canceled order's fields change without touching its cancellation or its capacity", async () => {
    const w = await world();
    const o = await place(w);
    const canceled = (await act(w, o.code, "mark_canceled", { send_email: false })).body;
    const res = await w.s.client.patch(`${w.s.path}/orders/${o.code}/`, { comment: "Refunded by hand." });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: "c",
      comment: "Refunded by hand.",
      cancellation_date: canceled.cancellation_date,
    });
    expect(await availability(w)).toMatchObject({ pending_orders: 0, available_number: 1 });
    expect(await owed(o.code)).toBe(0);
  });
});

describe("resend_link", () => {
  it("queues the mail with the order's link (204); an order without email is 400", async () => {
    const w = await world(2);
    const o = await place(w);
    const res = await act(w, o.code, "resend_link");
    expect(res.status).toBe(204);
    expect(await mails(o.email)).toEqual(["order_resend"]);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, o.email));
    expect(mail!.textBody).toContain(o.url);
    const silent = await place(w, { email: null });
    const refused = await act(w, silent.code, "resend_link");
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ detail: "There is no email address associated with this order." });
  });
});

describe("DELETE of an order", () => {
  it("403 for an order not in test mode (pretix test_order_delete)", async () => {
    const w = await world();
    const o = await place(w);
    const res = await w.s.client.delete(`${w.s.path}/orders/${o.code}/`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: "Only orders created in test mode can be deleted." });
    expect((await read(w, o.code)).status).toBe(200);
  });

  it("a pending test mode order goes with its capacity and voucher use given back (test_order_delete_test_mode_voucher)", async () => {
    const w = await world();
    const v = await w.s.voucher({ max_usages: 5 });
    const o = await place(w, { testmode: true, positions: [{ item: w.ticket.id, voucher: v.code }] });
    expect((await w.s.client.get(`${w.s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(1);
    const res = await w.s.client.delete(`${w.s.path}/orders/${o.code}/`);
    expect(res.status).toBe(204);
    expect((await read(w, o.code)).status).toBe(404);
    expect(await db().select().from(orders).where(eq(orders.code, o.code))).toEqual([]);
    expect((await w.s.client.get(`${w.s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(0);
    expect(await availability(w)).toMatchObject({ pending_orders: 0, available_number: 1 });
    expect((await w.s.client.delete(`${w.s.path}/orders/${o.code}/`)).status).toBe(404);
  });

  it("a canceled test mode order goes without giving a voucher use back twice (..._voucher_cancelled_order)", async () => {
    const w = await world();
    const v = await w.s.voucher({ max_usages: 5 });
    const o = await place(w, { testmode: true, positions: [{ item: w.ticket.id, voucher: v.code }] });
    expect((await act(w, o.code, "mark_canceled", { send_email: false })).status).toBe(200);
    const other = await place(w, { positions: [{ item: w.ticket.id, voucher: v.code }] });
    expect((await w.s.client.get(`${w.s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(1);
    expect((await w.s.client.delete(`${w.s.path}/orders/${o.code}/`)).status).toBe(204);
    expect((await w.s.client.get(`${w.s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(1);
    expect((await read(w, other.code)).body.status).toBe("n");
  });

  it("a test mode order kept with a fee (its positions canceled) goes without giving a voucher use back twice", async () => {
    const w = await world();
    const v = await w.s.voucher({ max_usages: 5 });
    const o = await place(w, { testmode: true, positions: [{ item: w.ticket.id, voucher: v.code }] });
    const kept = await act(w, o.code, "mark_canceled", { cancellation_fee: "1.00", send_email: false });
    expect(kept.body).toMatchObject({ status: "n", total: "1.00" });
    expect((await w.s.client.get(`${w.s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(0);
    await place(w, { positions: [{ item: w.ticket.id, voucher: v.code }] });
    expect((await w.s.client.delete(`${w.s.path}/orders/${o.code}/`)).status).toBe(204);
    expect((await w.s.client.get(`${w.s.path}/vouchers/${v.id}/`)).body.redeemed).toBe(1);
    expect(await availability(w)).toMatchObject({ pending_orders: 1, available_number: 0 });
  });
});

describe("fees and positions as pretix reads them", () => {
  it("fees carry their id; a position's own downloads equal its order's once paid (test_orderposition_detail)", async () => {
    const w = await world(3);
    const o = await place(w, { status: "p" });
    expect(o.fees).toEqual([expect.objectContaining({ id: expect.any(Number), fee_type: "payment", value: "0.25" })]);
    const order = (await read(w, o.code)).body;
    const position = order.positions[0];
    expect(position.downloads).toHaveLength(1);
    const own = await w.s.client.get(`${w.s.path}/orderpositions/${position.id}/`);
    expect(own.status).toBe(200);
    expect(own.body.downloads).toEqual(position.downloads);
    // pending: none, as in the order
    const pending = await place(w, { status: undefined });
    const p = (await read(w, pending.code)).body.positions[0];
    expect((await w.s.client.get(`${w.s.path}/orderpositions/${p.id}/`)).body.downloads).toEqual([]);
  });
});

describe("what scans read follows the order at once (the event object's index)", () => {
  it("PATCH checkin_attention: the next scan asks for attention", async () => {
    const v = await venue();
    const list = await v.list({ allow_multiple_entries: true });
    const order = await v.order();
    const secret = order.positions[0].secret;
    expect((await v.redeem({ secret, lists: [list.id] })).body.require_attention).toBe(false);
    const res = await v.client.patch(`${v.path}/orders/${order.code}/`, { checkin_attention: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const scan = await v.redeem({ secret, lists: [list.id] });
    expect(scan.status).toBe(201);
    expect(scan.body.require_attention).toBe(true);
  });

  it("approve: a ticket refused as unapproved enters once its order is approved and paid", async () => {
    const v = await venue();
    const list = await v.list();
    const order = await v.order({ status: "n", require_approval: true });
    const secret = order.positions[0].secret;
    expect((await v.redeem({ secret, lists: [list.id] })).body.reason).toBe("unapproved");
    expect((await v.client.post(`${v.path}/orders/${order.code}/approve/`, { send_email: false })).status).toBe(200);
    expect((await v.client.post(`${v.path}/orders/${order.code}/mark_paid/`, { send_email: false })).status).toBe(200);
    const scan = await v.redeem({ secret, lists: [list.id] });
    expect(scan.status, JSON.stringify(scan.body)).toBe(201);
  });
});
