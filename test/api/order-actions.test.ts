/**
 * Order state operations as pretix's tests do them (test_orders.py: `test_order_pending_approve`,
 * `..._deny`, `test_order_extend_*`, `test_order_reactivate*`, `test_order_mark_paid_unpaid`,
 * `..._refunded`): statuses, pretix's refusals, capacity taken again or freed through the event
 * object, the transactions ledger, mails and webhooks.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, orders, orderTransactions, webhookCalls } from "../../src/db/schema";
import { db, type Json, unique } from "../harness";
import { receiver, useReceivers } from "../helpers/receivers";
import { type Shop, shop } from "../helpers/sales";

useReceivers();

type World = { s: Shop; ticket: Json; q: Json };

async function world(opts: { size?: number; approval?: boolean; price?: string } = {}): Promise<World> {
  const s = await shop({ event: { timezone: "Europe/Berlin" } });
  const ticket = await s.item({ require_approval: opts.approval ?? false, default_price: opts.price ?? "20.00" });
  const q = await s.quota({ size: opts.size ?? 1, items: [ticket.id] });
  return { s, ticket, q };
}

async function place(w: World, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await w.s.client.post(`${w.s.path}/orders/`, {
    email: `${unique("buyer")}@example.org`,
    payment_provider: "manual",
    send_email: true,
    positions: [{ item: w.ticket.id }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const act = (w: World, code: string, action: string, body: unknown = {}) =>
  w.s.client.post(`${w.s.path}/orders/${code}/${action}/`, body);
const read = async (w: World, code: string) => (await w.s.client.get(`${w.s.path}/orders/${code}/`)).body;
const availability = async (w: World) => (await w.s.client.get(`${w.s.path}/quotas/${w.q.id}/availability/`)).body;
const mails = async (to: string) =>
  (await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, to))).map((m) => m.kind);

/** What the order's transactions say it owes (cents), and how many rows they are. */
async function ledger(code: string, eventId: number) {
  const [o] = await db().select().from(orders).where(eq(orders.code, code));
  const rows = await db().select().from(orderTransactions).where(eq(orderTransactions.orderId, o!.id));
  expect(o!.eventId).toBe(eventId);
  return { owed: rows.reduce((s, t) => s + t.count * t.price, 0), rows: rows.length };
}

async function hook(w: World): Promise<number> {
  const res = await w.s.client.post(`/api/v1/organizers/${w.s.orgSlug}/webhooks/`, {
    target_url: receiver().url,
    action_types: [
      "pretix.event.order.placed",
      "pretix.event.order.placed.require_approval",
      "pretix.event.order.approved",
      "pretix.event.order.denied",
      "pretix.event.order.canceled",
      "pretix.event.order.reactivated",
      "pretix.event.order.expirychanged",
      "pretix.event.order.paid",
      "pretix.event.order.modified",
      "pretix.event.order.contact.changed",
      "pretix.event.order.deleted",
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}
const actions = async (webhookId: number, code: string) =>
  (await db().select().from(webhookCalls).where(eq(webhookCalls.webhookId, webhookId)))
    .filter((c) => c.code === code)
    .map((c) => c.actionType);

describe("approve and deny", () => {
  it("an item requiring approval places a pending order waiting for approval; approve lets it be paid", async () => {
    const w = await world({ approval: true });
    const h = await hook(w);
    const o = await place(w);
    expect(o).toMatchObject({ status: "n", require_approval: true });
    expect(await mails(o.email)).toEqual(["order_placed_require_approval"]);
    expect(await availability(w)).toMatchObject({ pending_orders: 1, available_number: 0 });

    const res = await act(w, o.code, "approve");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "n", require_approval: false });
    expect(await read(w, o.code)).toMatchObject({ status: "n", require_approval: false });
    expect(await mails(o.email)).toEqual(["order_placed_require_approval", "order_approved"]);
    expect(await actions(h, o.code)).toEqual([
      "pretix.event.order.placed",
      "pretix.event.order.placed.require_approval",
      "pretix.event.order.approved",
    ]);
    expect(await ledger(o.code, w.s.eventId)).toEqual({ owed: 2000, rows: 1 });
    // pretix test_order_invalid_state_approve: not pending approval any more
    const again = await act(w, o.code, "approve");
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "This order is not pending approval." });
    expect((await act(w, o.code, "deny")).body).toEqual({ detail: "This order is not pending approval." });
    expect((await act(w, o.code, "mark_paid", { send_email: false })).body.status).toBe("p");
  });

  it("a free order waiting for approval stays pending without a payment; approving it pays it", async () => {
    const w = await world({ approval: true, price: "0.00" });
    const o = await place(w, { payment_provider: undefined });
    expect(o).toMatchObject({ status: "n", require_approval: true, payments: [] });
    const res = await act(w, o.code, "approve", { send_email: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "p", require_approval: false });
    expect(res.body.payments.map((y: Json) => [y.provider, y.state])).toEqual([["free", "confirmed"]]);
    expect(await mails(o.email)).toEqual(["order_placed_require_approval"]);
  });

  it("require_approval of the input wins over the items'", async () => {
    const w = await world({ approval: true, size: 5 });
    expect((await place(w, { require_approval: false })).require_approval).toBe(false);
    const plain = await world({ size: 5 });
    expect((await place(plain, { require_approval: true })).require_approval).toBe(true);
    expect((await place(plain)).require_approval).toBe(false);
  });

  it("deny cancels (require_approval stays true), frees the capacity and sends the denial with its comment", async () => {
    const w = await world({ approval: true });
    const h = await hook(w);
    const o = await place(w);
    const res = await act(w, o.code, "deny", { comment: "Only for members." });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "c", require_approval: true });
    expect(res.body.payments.map((y: Json) => y.state)).toEqual(["canceled"]);
    expect(await availability(w)).toMatchObject({ pending_orders: 0, available_number: 1 });
    expect(await mails(o.email)).toEqual(["order_placed_require_approval", "order_denied"]);
    const [denial] = await db().select().from(mailOutbox).where(eq(mailOutbox.kind, "order_denied"));
    expect(JSON.stringify(denial)).toContain("Only for members.");
    expect(await actions(h, o.code)).toEqual([
      "pretix.event.order.placed",
      "pretix.event.order.placed.require_approval",
      "pretix.event.order.denied",
    ]);
    expect(await ledger(o.code, w.s.eventId)).toEqual({ owed: 0, rows: 2 });
    expect((await act(w, o.code, "deny")).status).toBe(400);
    expect((await act(w, o.code, "approve")).body).toEqual({ detail: "This order is not pending approval." });
    // an order that never needed approval cannot be denied
    const other = await world();
    const plain = await place(other);
    expect((await act(other, plain.code, "deny")).body).toEqual({ detail: "This order is not pending approval." });
    expect((await read(other, plain.code)).status).toBe("n");
  });
});

describe("mark_pending and mark_refunded", () => {
  it("mark_pending: a paid order is pending again and keeps its capacity; only a paid one", async () => {
    const w = await world();
    const o = await place(w, { status: "p" });
    const res = await act(w, o.code, "mark_pending");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("n");
    expect(await availability(w)).toMatchObject({ pending_orders: 1, paid_orders: 0, available_number: 0 });
    expect((await act(w, o.code, "mark_pending")).body).toEqual({ detail: "The order is not paid." });
    expect((await act(w, o.code, "mark_canceled", { send_email: false })).status).toBe(200);
    expect((await act(w, o.code, "mark_pending")).status).toBe(400);
    expect((await read(w, o.code)).status).toBe("c");
  });

  it("mark_refunded: a paid order is canceled and frees its capacity, no mail; not a canceled one", async () => {
    const w = await world();
    const o = await place(w, { status: "p" });
    const res = await act(w, o.code, "mark_refunded");
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("c");
    expect(await availability(w)).toMatchObject({ paid_orders: 0, available_number: 1 });
    expect(await mails(o.email)).toEqual(["order_placed", "order_paid"]);
    expect(await ledger(o.code, w.s.eventId)).toEqual({ owed: 0, rows: 2 });
    const again = await act(w, o.code, "mark_refunded");
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "The order is not paid." });
  });
});

describe("extend", () => {
  const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

  it("a pending order gets the end of the day in the event's time zone; paid, past or bad dates are refused", async () => {
    const w = await world();
    const h = await hook(w);
    const o = await place(w);
    const day = inDays(20);
    const res = await act(w, o.code, "extend", { expires: day });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("n");
    // 23:59:59 in Berlin (summer or winter time)
    expect([`${day}T21:59:59Z`, `${day}T22:59:59Z`]).toContain(res.body.expires);
    expect(await actions(h, o.code)).toEqual(["pretix.event.order.placed", "pretix.event.order.expirychanged"]);
    // the same term again changes nothing
    expect((await act(w, o.code, "extend", { expires: day })).body.expires).toBe(res.body.expires);
    expect(await actions(h, o.code)).toHaveLength(2);
    expect((await act(w, o.code, "extend", { expires: "soon" })).body).toEqual({ detail: "New date is invalid." });
    expect((await act(w, o.code, "extend", { expires: inDays(-2) })).body).toEqual({
      detail: "The new expiry date needs to be in the future.",
    });
    expect((await act(w, o.code, "extend", {})).status).toBe(400);
    expect((await act(w, o.code, "mark_paid", { send_email: false })).body.status).toBe("p");
    const paid = await act(w, o.code, "extend", { expires: inDays(30) });
    expect(paid.status).toBe(400);
    expect((await read(w, o.code)).status).toBe("p");
  });

  it("an expired order is pending again only while its capacity is free (or with force)", async () => {
    const w = await world();
    const o = await place(w);
    expect((await act(w, o.code, "mark_expired")).status).toBe(200);
    const other = await place(w);
    const full = await act(w, o.code, "extend", { expires: inDays(20) });
    expect(full.status).toBe(400);
    expect((await read(w, o.code)).status).toBe("e");
    const forced = await act(w, o.code, "extend", { expires: inDays(20), force: true });
    expect(forced.status, JSON.stringify(forced.body)).toBe(200);
    expect(forced.body.status).toBe("n");
    expect(await availability(w)).toMatchObject({ pending_orders: 2 });
    // with room again: quota left, as pretix's test_order_extend_expired_quota_left, the ledger books it again
    expect((await act(w, other.code, "mark_canceled", { send_email: false })).status).toBe(200);
    expect((await act(w, o.code, "mark_expired")).status).toBe(200);
    expect(await ledger(o.code, w.s.eventId)).toMatchObject({ owed: 0 });
    const back = await act(w, o.code, "extend", { expires: inDays(10) });
    expect(back.body.status).toBe("n");
    expect(await ledger(o.code, w.s.eventId)).toMatchObject({ owed: 2000 });
  });

  it("an entry waiting for the product does not keep an expired order from coming back (pretix test_order_extend_expired_quota_waiting_list)", async () => {
    const w = await world();
    expect((await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_auto: false })).status).toBe(200);
    const o = await place(w);
    const entry = await w.s.client.post(`${w.s.path}/waitinglistentries/`, {
      email: "foo@example.org",
      item: w.ticket.id,
    });
    expect(entry.status, JSON.stringify(entry.body)).toBe(201);
    expect((await act(w, o.code, "mark_expired")).status).toBe(200);
    const back = await act(w, o.code, "extend", { expires: inDays(20) });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.status).toBe("n");
  });
});

describe("reactivate", () => {
  it("a canceled order is pending again when its capacity is free; a pending one is refused", async () => {
    const w = await world();
    const h = await hook(w);
    const o = await place(w);
    expect((await act(w, o.code, "reactivate")).status).toBe(400);
    expect((await act(w, o.code, "mark_canceled", { send_email: false })).status).toBe(200);
    const res = await act(w, o.code, "reactivate");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: "n", cancellation_date: null });
    expect(await availability(w)).toMatchObject({ pending_orders: 1, available_number: 0 });
    expect(await ledger(o.code, w.s.eventId)).toEqual({ owed: 2000, rows: 3 });
    expect(await actions(h, o.code)).toEqual([
      "pretix.event.order.placed",
      "pretix.event.order.canceled",
      "pretix.event.order.reactivated",
    ]);
  });

  it("a canceled paid order comes back paid; taken capacity refuses it (400, still canceled)", async () => {
    const w = await world();
    const o = await place(w, { status: "p" });
    expect((await act(w, o.code, "mark_canceled", { send_email: false })).status).toBe(200);
    const rival = await place(w);
    const refused = await act(w, o.code, "reactivate");
    expect(refused.status).toBe(400);
    expect((await read(w, o.code)).status).toBe("c");
    expect((await act(w, rival.code, "mark_canceled", { send_email: false })).status).toBe(200);
    const res = await act(w, o.code, "reactivate");
    expect(res.body.status).toBe("p");
    expect(await availability(w)).toMatchObject({ paid_orders: 1, available_number: 0 });
  });
});

describe("capacity taken back or freed races sales for the last unit", () => {
  it("reactivate racing sales: never oversold", async () => {
    const w = await world({ size: 1 });
    const o = await place(w);
    expect((await act(w, o.code, "mark_canceled", { send_email: false })).status).toBe(200);
    const results = await Promise.all([
      act(w, o.code, "reactivate"),
      ...Array.from({ length: 5 }, () =>
        w.s.client.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] }),
      ),
    ]);
    const won = results.filter((r) => r.status === 200 || r.status === 201);
    expect(won).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200 && x.status !== 201)) expect(r.status).toBe(400);
    await w.s.settle();
    expect(await availability(w)).toMatchObject({ available_number: 0, pending_orders: 1 });
  });

  it("extend of an expired order racing sales: never oversold", async () => {
    const w = await world({ size: 1 });
    const o = await place(w);
    expect((await act(w, o.code, "mark_expired")).status).toBe(200);
    const expires = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const results = await Promise.all([
      act(w, o.code, "extend", { expires }),
      ...Array.from({ length: 5 }, () =>
        w.s.client.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] }),
      ),
    ]);
    expect(results.filter((r) => r.status === 200 || r.status === 201)).toHaveLength(1);
    await w.s.settle();
    expect(await availability(w)).toMatchObject({ available_number: 0, pending_orders: 1 });
  });

  it("deny racing sales: the freed unit is sold at most once", async () => {
    const w = await world({ size: 1, approval: true });
    const o = await place(w);
    const results = await Promise.all([
      act(w, o.code, "deny", { send_email: false }),
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
