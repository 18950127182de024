/**
 * Order state changes as pretix's tests do them (test_orders.py: `test_order_mark_*`,
 * `test_payment_confirm*`): an expired order can be canceled, the mails each change sends by
 * default and not with `send_email: false`, a `cancellation_fee` above the total refused.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox } from "../../src/db/schema";
import { db, type Json, unique } from "../harness";
import { type Shop, shop } from "../helpers/sales";

async function pendingOrder(opts: { size?: number; voucher?: boolean } = {}) {
  const s = await shop();
  const ticket = await s.item();
  const q = await s.quota({ size: opts.size ?? 1, items: [ticket.id] });
  const v = opts.voucher ? await s.voucher({ max_usages: 3 }) : null;
  const email = `${unique("buyer")}@example.org`;
  const res = await s.client.post(`${s.path}/orders/`, {
    email,
    payment_provider: "manual",
    positions: [{ item: ticket.id, ...(v ? { voucher: v.code } : {}) }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { s, ticket, q, v, o: res.body as Json, email };
}

const mails = async (to: string) =>
  (await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to))).map((m) => m.kind);
const availability = async (s: Shop, q: { id: number }) =>
  (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;
const order = async (s: Shop, code: string) => (await s.client.get(`${s.path}/orders/${code}/`)).body;

describe("mark_canceled", () => {
  it("cancels an expired order (200, status c) without giving its quota or voucher use back twice", async () => {
    const { s, q, v, o, email } = await pendingOrder({ voucher: true });
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`)).body.status).toBe("e");
    expect(await availability(s, q)).toMatchObject({ available_number: 1, pending_orders: 0 });
    expect((await s.client.get(`${s.path}/vouchers/${v!.id}/`)).body.redeemed).toBe(0);

    const res = await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("c");
    expect(res.body.cancellation_date).not.toBeNull();
    expect(res.body.payments.map((y: Json) => y.state)).toEqual(["canceled"]);
    expect((await order(s, o.code)).status).toBe("c");
    expect(await availability(s, q)).toMatchObject({ available_number: 1, pending_orders: 0, paid_orders: 0 });
    expect((await s.client.get(`${s.path}/vouchers/${v!.id}/`)).body.redeemed).toBe(0);
    expect(await mails(email)).toEqual(["order_canceled"]);
    // canceled is final
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, {})).body).toEqual({
      detail: "The order cannot be marked as canceled in its current status (c).",
    });
  });

  it("sends the cancellation mail by default and none with send_email false", async () => {
    const a = await pendingOrder();
    const canceled = await a.s.client.post(`${a.s.path}/orders/${a.o.code}/mark_canceled/`, {
      comment: "The event was canceled.",
    });
    expect(canceled.body.status).toBe("c");
    expect(await mails(a.email)).toEqual(["order_canceled"]);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, a.email));
    // pretix's `comment` reaches the customer in the mail
    expect(mail!.textBody).toContain("has been canceled.\n\nThe event was canceled.\n\nYou can see it here:");
    const b = await pendingOrder();
    const quiet = await b.s.client.post(`${b.s.path}/orders/${b.o.code}/mark_canceled/`, { send_email: false });
    expect(quiet.body.status).toBe("c");
    expect(await mails(b.email)).toEqual([]);
  });

  it("a cancellation_fee above the total or not a number is refused (nothing changed, no mail); none or zero cancels completely", async () => {
    const { s, q, o, email } = await pendingOrder();
    const above = await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, { cancellation_fee: "700.00" });
    expect(above.status).toBe(400);
    expect(above.body).toEqual({
      detail: "The cancellation fee cannot be higher than the total amount of this order.",
    });
    const bad = await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, { cancellation_fee: "seven" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ cancellation_fee: ["A valid number is required."] });
    expect(await order(s, o.code)).toMatchObject({ status: "n", total: o.total, cancellation_date: null });
    expect(await availability(s, q)).toMatchObject({ pending_orders: 1 });
    expect(await mails(email)).toEqual([]);

    const zero = await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, { cancellation_fee: "0.00" });
    expect(zero.status).toBe(200);
    expect(zero.body.status).toBe("c");
    const other = await pendingOrder();
    const none = await other.s.client.post(`${other.s.path}/orders/${other.o.code}/mark_canceled/`, {
      cancellation_fee: null,
      send_email: false,
    });
    expect(none.body.status).toBe("c");
  });
});

describe("mark_paid and mark_expired", () => {
  it("mark_paid sends the paid mail by default; an expired order paid with send_email false sends none", async () => {
    const a = await pendingOrder();
    const paid = await a.s.client.post(`${a.s.path}/orders/${a.o.code}/mark_paid/`);
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("p");
    expect(await mails(a.email)).toEqual(["order_paid"]);

    const b = await pendingOrder();
    expect((await b.s.client.post(`${b.s.path}/orders/${b.o.code}/mark_expired/`)).body.status).toBe("e");
    const late = await b.s.client.post(`${b.s.path}/orders/${b.o.code}/mark_paid/`, { send_email: false });
    expect(late.status).toBe(200);
    expect(late.body.status).toBe("p");
    expect(await mails(b.email)).toEqual([]);
  });

  it("mark_expired of a paid order is refused and it stays paid", async () => {
    const { s, q, o } = await pendingOrder();
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, { send_email: false })).status).toBe(200);
    const res = await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "The order cannot be marked as expired in its current status (p)." });
    expect((await order(s, o.code)).status).toBe("p");
    expect(await availability(s, q)).toMatchObject({ paid_orders: 1, available_number: 0 });
  });
});

describe("payment confirm", () => {
  it("sends the paid mail by default; again is 400", async () => {
    const { s, o, email } = await pendingOrder();
    const res = await s.client.post(`${s.path}/orders/${o.code}/payments/1/confirm/`, { force: true });
    expect(res.status).toBe(200);
    expect(res.body.state).toBe("confirmed");
    expect(await mails(email)).toEqual(["order_paid"]);
    const [mail] = await db()
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.toAddress, email), eq(mailOutbox.kind, "order_paid")));
    expect(mail!.textBody).toContain(o.code);
    expect((await s.client.post(`${s.path}/orders/${o.code}/payments/1/confirm/`, { force: true })).status).toBe(400);
    expect(await mails(email)).toEqual(["order_paid"]);
  });

  it("sends no mail with send_email false", async () => {
    const { s, o, email } = await pendingOrder();
    const res = await s.client.post(`${s.path}/orders/${o.code}/payments/1/confirm/`, {
      force: true,
      send_email: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.state).toBe("confirmed");
    expect((await order(s, o.code)).status).toBe("p");
    expect(await mails(email)).toEqual([]);
  });
});
