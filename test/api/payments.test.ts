/**
 * Payments as a resource (pretix docs orders.rst "Order payment endpoints"; pretix's
 * `test_payment_*`): a payment recorded by hand, pending or confirmed at once; `confirm` making
 * the order paid only when the payments cover its total; `cancel`; the refusals, webhooks and
 * mails; the ledger untouched (payments are not what the order owes). Concurrency: confirms of
 * different payments, a confirm and a cancel, a late confirm and a sale of the last unit.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, orderPayments, orders, webhookCalls } from "../../src/db/schema";
import { db, type Json, unique } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const ACTIONS = [
  "pretix.event.order.payment.confirmed",
  "pretix.event.order.paid",
  "pretix.event.order.canceled",
  "pretix.event.order.expired",
];

/** A shop with a webhook on the order actions, and a pending order of one ticket (20.00) with its open manual payment. */
async function pendingOrder(opts: { size?: number } = {}) {
  const s = await shop();
  const hook = await s.client.post(`/api/v1/organizers/${s.orgSlug}/webhooks/`, {
    target_url: "https://hooks.example.org/payments",
    action_types: ACTIONS,
  });
  expect(hook.status).toBe(201);
  const ticket = await s.item();
  const q = await s.quota({ size: opts.size ?? 5, items: [ticket.id] });
  const email = `${unique("buyer")}@example.org`;
  const res = await s.client.post(`${s.path}/orders/`, {
    email,
    payment_provider: "manual",
    positions: [{ item: ticket.id }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { s, ticket, q, o: res.body as Json, email };
}

const pay = (s: Shop, code: string, body: Json) => s.client.post(`${s.path}/orders/${code}/payments/`, body);
const confirm = (s: Shop, code: string, local: number, body: Json = {}) =>
  s.client.post(`${s.path}/orders/${code}/payments/${local}/confirm/`, body);
const order = async (s: Shop, code: string) => (await s.client.get(`${s.path}/orders/${code}/`)).body;
const calls = async (code: string) =>
  (await db().select().from(webhookCalls).where(eq(webhookCalls.code, code)).orderBy(webhookCalls.id)).map(
    (r) => r.actionType,
  );
const mails = async (to: string) =>
  (await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to))).map((m) => m.kind);
const ledger = async (s: Shop, code: string) =>
  (await s.client.get(`${s.path}/transactions/?order=${code}`)).body.results.map((t: Json) => [t.count, t.price]);
const states = (o: Json) => o.payments.map((y: Json) => y.state);

describe("recording a payment (POST .../payments/)", () => {
  it("pending (pretix test_payment_create_pending): 201, the order stays pending, the info kept", async () => {
    const { s, o } = await pendingOrder();
    const res = await pay(s, o.code, {
      provider: "banktransfer",
      state: "pending",
      amount: "20.00",
      info: { foo: "bar" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      local_id: 2,
      state: "pending",
      amount: "20.00",
      created: expect.any(String),
      payment_date: null,
      provider: "banktransfer",
      payment_url: expect.stringContaining("/pay/2/"),
      details: {},
    });
    const after = await order(s, o.code);
    expect(after.status).toBe("n");
    expect(states(after)).toEqual(["created", "pending"]);
    const [row] = await db()
      .select()
      .from(orderPayments)
      .where(eq(orderPayments.id, await paymentId(o.code, 2)));
    expect(row!.info).toEqual({ foo: "bar" });
    expect(await calls(o.code)).toEqual([]);
  });

  it("confirmed with send_email false (pretix test_payment_create_confirmed): the order paid, no mail, no ledger row", async () => {
    const { s, o, email } = await pendingOrder();
    const before = await ledger(s, o.code);
    const res = await pay(s, o.code, {
      provider: "banktransfer",
      state: "confirmed",
      amount: "20.00",
      send_email: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ local_id: 2, state: "confirmed", payment_url: null, amount: "20.00" });
    expect(res.body.payment_date).not.toBeNull();
    const after = await order(s, o.code);
    expect(after.status).toBe("p");
    expect(states(after)).toEqual(["created", "confirmed"]);
    expect(await mails(email)).not.toContain("order_paid");
    expect(await calls(o.code)).toEqual(["pretix.event.order.payment.confirmed", "pretix.event.order.paid"]);
    expect(await ledger(s, o.code)).toEqual(before);
  });

  it("a part of the total: confirmed, the order pending; the part that completes it makes it paid (one paid mail)", async () => {
    const { s, o, email } = await pendingOrder();
    const first = await pay(s, o.code, { provider: "cash", state: "confirmed", amount: "12.00" });
    expect(first.body.state).toBe("confirmed");
    expect((await order(s, o.code)).status).toBe("n");
    expect(await calls(o.code)).toEqual(["pretix.event.order.payment.confirmed"]);
    const second = await pay(s, o.code, { provider: "cash", state: "confirmed", amount: "8.00" });
    expect(second.body.state).toBe("confirmed");
    expect((await order(s, o.code)).status).toBe("p");
    expect(await calls(o.code)).toEqual([
      "pretix.event.order.payment.confirmed",
      "pretix.event.order.payment.confirmed",
      "pretix.event.order.paid",
    ]);
    expect((await mails(email)).filter((k) => k === "order_paid")).toHaveLength(1);
  });

  it("of a paid or canceled order: recorded and confirmed, the order stays as it is", async () => {
    const { s, o } = await pendingOrder();
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, { send_email: false })).status).toBe(200);
    const more = await pay(s, o.code, { provider: "cash", state: "confirmed", amount: "5.00" });
    expect(more.status).toBe(201);
    expect(more.body.state).toBe("confirmed");
    expect((await order(s, o.code)).status).toBe("p");
    expect((await calls(o.code)).filter((a) => a === "pretix.event.order.paid")).toHaveLength(1);

    const b = await pendingOrder();
    expect((await b.s.client.post(`${b.s.path}/orders/${b.o.code}/mark_canceled/`, {})).status).toBe(200);
    const late = await pay(b.s, b.o.code, { provider: "cash", state: "confirmed", amount: "20.00" });
    expect(late.body.state).toBe("confirmed");
    expect((await order(b.s, b.o.code)).status).toBe("c");
  });

  it("an expired order without capacity: 201 pending, the order expired; with force it is paid", async () => {
    const { s, ticket, o } = await pendingOrder({ size: 1 });
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`)).status).toBe(200);
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(201);
    const res = await pay(s, o.code, { provider: "cash", state: "confirmed", amount: "20.00" });
    expect(res.status).toBe(201);
    expect(res.body.state).toBe("pending");
    expect((await order(s, o.code)).status).toBe("e");
    const forced = await pay(s, o.code, { provider: "cash", state: "confirmed", amount: "20.00", force: true });
    expect(forced.body.state).toBe("confirmed");
    expect((await order(s, o.code)).status).toBe("p");
  });

  it("pretix's fields: state, amount and provider required, a state of pretix's, nothing recorded on a 400", async () => {
    const { s, o } = await pendingOrder();
    const missing = await pay(s, o.code, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      state: ["This field is required."],
      amount: ["This field is required."],
      provider: ["This field is required."],
    });
    const wrong = await pay(s, o.code, { state: "paid", amount: "-1.00", provider: "" });
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.body).sort()).toEqual(["amount", "provider", "state"]);
    expect(wrong.body.amount).toEqual(["Ensure this value is greater than or equal to 0.00."]);
    expect(
      (await s.client.post(`${s.path}/orders/NOSUCH/payments/`, { state: "pending", amount: "1", provider: "x" }))
        .status,
    ).toBe(404);
    expect(states(await order(s, o.code))).toEqual(["created"]);
  });
});

async function paymentId(code: string, local: number): Promise<number> {
  const [o] = await db().select().from(orders).where(eq(orders.code, code));
  const ys = await db().select().from(orderPayments).where(eq(orderPayments.orderId, o!.id));
  return ys.find((y) => y.localId === local)!.id;
}

describe("confirm and cancel", () => {
  it("confirm of a part leaves the order pending; pretix's refusal of a closed payment", async () => {
    const { s, o } = await pendingOrder();
    expect((await pay(s, o.code, { provider: "cash", state: "pending", amount: "10.00" })).status).toBe(201);
    const res = await confirm(s, o.code, 2);
    expect(res.status).toBe(200);
    expect(res.body.state).toBe("confirmed");
    expect((await order(s, o.code)).status).toBe("n");
    const again = await confirm(s, o.code, 2);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "Invalid state of payment" });
    expect((await confirm(s, o.code, 9)).status).toBe(404);
  });

  it("an order awaiting approval is not paid by a confirm (400, nothing changed) unless forced", async () => {
    const { s, o } = await pendingOrder();
    await db().update(orders).set({ requireApproval: true }).where(eq(orders.code, o.code));
    const res = await confirm(s, o.code, 1);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "This order is not yet approved by the event organizer." });
    expect(states(await order(s, o.code))).toEqual(["created"]);
    const forced = await confirm(s, o.code, 1, { force: true, send_email: false });
    expect(forced.body.state).toBe("confirmed");
    expect((await order(s, o.code)).status).toBe("p");
  });

  it("cancel (pretix test_payment_cancel): 200 canceled, again 400; the order as it was", async () => {
    const { s, o } = await pendingOrder();
    const res = await s.client.post(`${s.path}/orders/${o.code}/payments/1/cancel/`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ local_id: 1, state: "canceled", payment_url: null });
    const again = await s.client.post(`${s.path}/orders/${o.code}/payments/1/cancel/`);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "Invalid state of payment" });
    expect((await order(s, o.code)).status).toBe("n");
    expect((await confirm(s, o.code, 1)).status).toBe(400);
  });
});

describe("at the same moment", () => {
  it("two parts confirmed at once: both confirmed, the order paid exactly once", async () => {
    for (let round = 0; round < 3; round++) {
      const { s, o, email } = await pendingOrder();
      await pay(s, o.code, { provider: "cash", state: "pending", amount: "10.00" });
      await pay(s, o.code, { provider: "cash", state: "pending", amount: "10.00" });
      const results = await Promise.all([confirm(s, o.code, 2), confirm(s, o.code, 3)]);
      expect(results.map((r) => r.status)).toEqual([200, 200]);
      const after = await order(s, o.code);
      expect(after.status).toBe("p");
      expect(states(after)).toEqual(["created", "confirmed", "confirmed"]);
      const actions = await calls(o.code);
      expect(actions.filter((a) => a === "pretix.event.order.paid")).toHaveLength(1);
      expect(actions.filter((a) => a === "pretix.event.order.payment.confirmed")).toHaveLength(2);
      expect((await mails(email)).filter((k) => k === "order_paid")).toHaveLength(1);
    }
  });

  it("two whole payments confirmed at once: both confirmed, one paid", async () => {
    const { s, o } = await pendingOrder();
    await pay(s, o.code, { provider: "cash", state: "pending", amount: "20.00" });
    const results = await Promise.all([confirm(s, o.code, 1), confirm(s, o.code, 2)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(states(await order(s, o.code))).toEqual(["confirmed", "confirmed"]);
    expect((await calls(o.code)).filter((a) => a === "pretix.event.order.paid")).toHaveLength(1);
  });

  it("a confirm racing a cancel of the same payment: one of them, never a paid order with a canceled payment", async () => {
    for (let round = 0; round < 4; round++) {
      const { s, o } = await pendingOrder();
      const [c, x] = await Promise.all([
        confirm(s, o.code, 1, { send_email: false }),
        s.client.post(`${s.path}/orders/${o.code}/payments/1/cancel/`),
      ]);
      expect([c.status, x.status].sort()).toEqual([200, 400]);
      const after = await order(s, o.code);
      if (c.status === 200) {
        expect([after.status, states(after)]).toEqual(["p", ["confirmed"]]);
      } else {
        expect([after.status, states(after)]).toEqual(["n", ["canceled"]]);
      }
    }
  });

  it("a confirm racing the order's cancellation: never a paid order with a canceled payment, paid at most once", async () => {
    for (let round = 0; round < 3; round++) {
      const { s, o } = await pendingOrder();
      const [c, x] = await Promise.all([
        confirm(s, o.code, 1, { send_email: false }),
        s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, { send_email: false }),
      ]);
      expect(x.status).toBe(200);
      const after = await order(s, o.code);
      expect(after.status).toBe("c");
      // confirmed first (then the paid order canceled), or canceled first (the open payment with it)
      expect(states(after)).toEqual([c.status === 200 ? "confirmed" : "canceled"]);
      if (c.status !== 200) expect(c.body).toEqual({ detail: "Invalid state of payment" });
      const paid = (await calls(o.code)).filter((a) => a === "pretix.event.order.paid");
      expect(paid).toHaveLength(c.status === 200 ? 1 : 0);
    }
  });

  it("a late confirm of an expired order racing a sale of the last unit never oversells", async () => {
    for (let round = 0; round < 3; round++) {
      const { s, ticket, q, o } = await pendingOrder({ size: 1 });
      expect((await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`)).status).toBe(200);
      const [paid, sale] = await Promise.all([
        confirm(s, o.code, 1, { send_email: false }),
        s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] }),
      ]);
      expect([paid.status, sale.status].filter((x) => x === 200 || x === 201)).toHaveLength(1);
      const availability = (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;
      expect(availability.available_number).toBe(0);
      expect(availability.paid_orders + availability.pending_orders).toBe(1);
      const after = await order(s, o.code);
      expect(after.status).toBe(paid.status === 200 ? "p" : "e");
      expect(states(after)).toEqual([paid.status === 200 ? "confirmed" : "created"]);
    }
  });
});
