/**
 * Refunds recorded directly and moved on by hand (pretix docs orders.rst "Order refund
 * endpoints"; pretix's `test_refund_create*`, `test_refund_optional_fields`,
 * `test_refund_create_invalid_payment`, `test_refund_done`, `test_refund_process_*`,
 * `test_refund_cancel`): pretix's body, states and refusals, the order following `mark_canceled`
 * and `mark_pending`, webhooks, the payment's refundable amount, the ledger booking only what the
 * order owes; a done racing a cancel, and two refunds of one payment at once.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookCalls } from "../../src/db/schema";
import { db, type Json } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const ACTIONS = [
  "pretix.event.order.refund.created",
  "pretix.event.order.refund.done",
  "pretix.event.order.refund.canceled",
  "pretix.event.order.refund.failed",
  "pretix.event.order.canceled",
];

/** pretix's REFUND_CREATE_PAYLOAD. */
const PAYLOAD = {
  state: "created",
  provider: "manual",
  amount: "20.00",
  source: "admin",
  payment: 1,
  info: { foo: "bar" },
};

/** A shop with a webhook on the refund actions and an order of one ticket (20.00), paid by hand unless `pending`. */
async function orderOf(opts: { pending?: boolean } = {}) {
  const s = await shop();
  const hook = await s.client.post(`/api/v1/organizers/${s.orgSlug}/webhooks/`, {
    target_url: "https://hooks.example.org/refunds",
    action_types: ACTIONS,
  });
  expect(hook.status).toBe(201);
  const ticket = await s.item();
  const q = await s.quota({ size: 1, items: [ticket.id] });
  const res = await s.client.post(`${s.path}/orders/`, {
    payment_provider: "manual",
    positions: [{ item: ticket.id }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const o = res.body as Json;
  if (!opts.pending)
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, { send_email: false })).status).toBe(200);
  return { s, q, o };
}

const create = (s: Shop, code: string, body: Json) => s.client.post(`${s.path}/orders/${code}/refunds/`, body);
const act = (s: Shop, code: string, local: number, action: string, body?: Json) =>
  s.client.post(`${s.path}/orders/${code}/refunds/${local}/${action}/`, body);
const order = async (s: Shop, code: string) => (await s.client.get(`${s.path}/orders/${code}/`)).body;
const calls = async (code: string) =>
  (await db().select().from(webhookCalls).where(eq(webhookCalls.code, code)).orderBy(webhookCalls.id))
    .map((r) => r.actionType)
    .filter((a) => a.includes("refund") || a.endsWith("canceled"));
const ledgerSum = async (s: Shop, code: string) =>
  (await s.client.get(`${s.path}/transactions/?order=${code}`)).body.results.reduce(
    (sum: number, t: Json) => sum + t.count * Number(t.price),
    0,
  );

describe("recording a refund (POST .../refunds/)", () => {
  it("pretix test_refund_create: 201 with the refund, the order as it was, refund.created, nothing booked", async () => {
    const { s, o } = await orderOf();
    const res = await create(s, o.code, PAYLOAD);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      local_id: 1,
      state: "created",
      source: "admin",
      amount: "20.00",
      payment: 1,
      created: expect.any(String),
      execution_date: null,
      comment: null,
      provider: "manual",
      details: {},
    });
    const after = await order(s, o.code);
    expect(after.status).toBe("p");
    expect(after.refunds).toEqual([res.body]);
    expect(await calls(o.code)).toEqual(["pretix.event.order.refund.created"]);
    expect(await ledgerSum(s, o.code)).toBe(20);
  });

  it("pretix test_refund_create_mark_refunded: mark_canceled cancels the order, frees its quota, the ledger books it", async () => {
    const { s, q, o } = await orderOf({ pending: true });
    const res = await create(s, o.code, { ...PAYLOAD, mark_canceled: true });
    expect(res.status).toBe(201);
    expect(res.body.state).toBe("created");
    expect((await order(s, o.code)).status).toBe("c");
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body.available_number).toBe(1);
    expect(await calls(o.code)).toEqual(["pretix.event.order.refund.created", "pretix.event.order.canceled"]);
    expect(await ledgerSum(s, o.code)).toBe(0);
    // mark_refunded is the older name; a canceled order cannot be canceled again: 400, nothing recorded
    const again = await create(s, o.code, { ...PAYLOAD, amount: "0.00", mark_refunded: true });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "You cannot cancel this order." });
    expect((await order(s, o.code)).refunds).toHaveLength(1);
  });

  it("pretix test_refund_create_webhook_sent: created done, executed now, refund.done, the payment refunded", async () => {
    const { s, o } = await orderOf();
    const res = await create(s, o.code, { ...PAYLOAD, state: "done", comment: "Cash back" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ state: "done", comment: "Cash back" });
    expect(res.body.execution_date).not.toBeNull();
    expect(await calls(o.code)).toEqual(["pretix.event.order.refund.created", "pretix.event.order.refund.done"]);
    const after = await order(s, o.code);
    expect(after.payments[0].state).toBe("refunded");
    expect(after.status).toBe("p");
  });

  it("mark_pending: a paid order that owes money again is pending again; without it, it stays paid", async () => {
    const { s, o } = await orderOf();
    expect((await create(s, o.code, { ...PAYLOAD, amount: "5.00" })).status).toBe(201);
    expect((await order(s, o.code)).status).toBe("p");
    const res = await create(s, o.code, { ...PAYLOAD, amount: "5.00", mark_pending: true });
    expect(res.status).toBe(201);
    const after = await order(s, o.code);
    expect(after.status).toBe("n");
    expect(Date.parse(after.expires)).toBeGreaterThan(Date.now());
    expect(await ledgerSum(s, o.code)).toBe(20);
  });

  it("pretix test_refund_optional_fields and test_refund_create_invalid_payment; the payment's refundable amount", async () => {
    const { s, o } = await orderOf();
    const { info: _info, payment: _payment, ...bare } = PAYLOAD;
    const res = await create(s, o.code, bare);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ payment: null, state: "created", provider: "manual" });
    const { state: _state, ...stateless } = bare;
    const missing = await create(s, o.code, stateless);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ state: ["This field is required."] });
    const unknown = await create(s, o.code, { ...PAYLOAD, payment: 7 });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ payment: ["Unknown payment ID."] });
    expect((await create(s, o.code, { ...PAYLOAD, amount: "15.00" })).status).toBe(201);
    const tooMuch = await create(s, o.code, { ...PAYLOAD, amount: "6.00" });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toEqual({ amount: ["Invalid refund amount, only 5.00 are available to refund."] });
    // a refund that does not count against the payment (failed) is not limited by it
    expect((await create(s, o.code, { ...PAYLOAD, amount: "6.00", state: "failed" })).status).toBe(201);
    const bad = await create(s, o.code, { ...PAYLOAD, state: "sent", source: "shop", provider: "" });
    expect(Object.keys(bad.body).sort()).toEqual(["provider", "source", "state"]);
    expect((await order(s, o.code)).refunds.map((x: Json) => x.amount)).toEqual(["20.00", "15.00", "6.00"]);
  });
});

describe("done, process, cancel", () => {
  it("pretix test_refund_done: transit → done, again 400", async () => {
    const { s, o } = await orderOf();
    expect((await create(s, o.code, { ...PAYLOAD, state: "transit" })).status).toBe(201);
    const res = await act(s, o.code, 1, "done");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ local_id: 1, state: "done" });
    expect(res.body.execution_date).not.toBeNull();
    const again = await act(s, o.code, 1, "done");
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "Invalid state of refund" });
    expect((await act(s, o.code, 2, "done")).status).toBe(404);
    expect((await order(s, o.code)).payments[0].state).toBe("refunded");
  });

  it("pretix test_refund_cancel: transit → canceled, again 400; done cannot be canceled", async () => {
    const { s, o } = await orderOf();
    await create(s, o.code, { ...PAYLOAD, state: "transit", amount: "5.00" });
    const res = await act(s, o.code, 1, "cancel");
    expect(res.status).toBe(200);
    expect(res.body.state).toBe("canceled");
    expect((await act(s, o.code, 1, "cancel")).body).toEqual({ detail: "Invalid state of refund" });
    await create(s, o.code, { ...PAYLOAD, state: "done", amount: "5.00" });
    expect((await act(s, o.code, 2, "cancel")).status).toBe(400);
    expect(await calls(o.code)).toEqual([
      "pretix.event.order.refund.created",
      "pretix.event.order.refund.canceled",
      "pretix.event.order.refund.created",
      "pretix.event.order.refund.done",
    ]);
  });

  it("pretix test_refund_process_mark_refunded: an external refund done, the order canceled; again 400", async () => {
    const { s, o } = await orderOf();
    await create(s, o.code, { ...PAYLOAD, state: "external", source: "external" });
    expect((await act(s, o.code, 1, "done")).status).toBe(400);
    const res = await act(s, o.code, 1, "process", { mark_canceled: true });
    expect(res.status).toBe(200);
    expect(res.body.state).toBe("done");
    expect((await order(s, o.code)).status).toBe("c");
    expect((await act(s, o.code, 1, "process", { mark_canceled: true })).status).toBe(400);
    expect(await ledgerSum(s, o.code)).toBe(0);
  });

  it("pretix test_refund_process_mark_pending: without mark_canceled a paid order owing money is pending", async () => {
    const { s, o } = await orderOf();
    await create(s, o.code, { ...PAYLOAD, state: "external", source: "external", amount: "20.00" });
    const res = await act(s, o.code, 1, "process", { mark_canceled: false });
    expect(res.status).toBe(200);
    expect((await order(s, o.code)).status).toBe("n");
    const p = await orderOf({ pending: true });
    await create(p.s, p.o.code, { ...PAYLOAD, state: "external", source: "external" });
    expect((await act(p.s, p.o.code, 1, "process", {})).status).toBe(200);
    expect((await order(p.s, p.o.code)).status).toBe("n");
  });
});

describe("at the same moment", () => {
  it("done racing cancel of one refund: exactly one applies, with its one webhook", async () => {
    for (let round = 0; round < 3; round++) {
      const { s, o } = await orderOf();
      await create(s, o.code, { ...PAYLOAD, state: "transit" });
      const [done, canceled] = await Promise.all([act(s, o.code, 1, "done"), act(s, o.code, 1, "cancel")]);
      expect([done.status, canceled.status].sort()).toEqual([200, 400]);
      const state = (await order(s, o.code)).refunds[0].state;
      expect(state).toBe(done.status === 200 ? "done" : "canceled");
      expect((await calls(o.code)).filter((a) => a !== "pretix.event.order.refund.created")).toHaveLength(1);
    }
  });

  it("refunds of one payment that do not all fit: as many as fit are recorded", async () => {
    const { s, o } = await orderOf();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => create(s, o.code, { ...PAYLOAD, amount: "8.00" })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    for (const r of results.filter((x) => x.status !== 201))
      expect(r.body).toEqual({ amount: ["Invalid refund amount, only 4.00 are available to refund."] });
    expect((await order(s, o.code)).refunds).toHaveLength(2);
  });
});
