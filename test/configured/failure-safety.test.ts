/**
 * The event object when D1 fails or hangs in the middle of a change, on every path (not only
 * order placement): a failed write gives back what it took (carts, status changes that take
 * capacity again), and a status change is durable before it is acknowledged — after the
 * object died in the middle, the alarm leaves the ledger's holds agreeing with the order's
 * status in D1. (This project answers for a hanging object after EVENT_OBJECT_TIMEOUT_MS =
 * 400 with 503, so no test waits on a clock.)
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cartPositions, orderPayments, orders } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { db } from "../harness";
import { breakObjectWrites, outboxEmptied as settled, outboxSize } from "../helpers/faults";
import { shop, type Shop } from "../helpers/sales";

type Mode = "fail" | "hang" | "commit-then-hang";

const availability = async (s: Shop, quotaId: number) => {
  const res = await s.client.get(`${s.path}/quotas/${quotaId}/availability/`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, s.eventSlug) }))!.id;
const orderRow = async (code: string) => (await db().select().from(orders).where(eq(orders.code, code)))[0]!;
const cartsOf = async (eventId: number) => db().select().from(cartPositions).where(eq(cartPositions.eventId, eventId));

/** The ledger's holds (pending/paid) agree with the status D1 has for the shop's only order of `units` positions. */
async function expectLedgerAgreesWithD1(s: Shop, quotaId: number, code: string, units: number) {
  const { status } = await orderRow(code);
  const a = await availability(s, quotaId);
  expect({ pending: a.pending_orders, paid: a.paid_orders }).toEqual({
    pending: status === "n" ? units : 0,
    paid: status === "p" ? units : 0,
  });
  return status;
}

async function pendingOrder(size: number) {
  const s = await shop();
  const ticket = await s.item();
  const q = await s.quota({ size, items: [ticket.id] });
  const res = await s.client.post(`${s.path}/orders/`, {
    email: "buyer@example.org",
    payment_provider: "manual",
    positions: [{ item: ticket.id }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { s, ticket, q, code: res.body.code as string, eventId: await eventIdOf(s) };
}

// this project keeps vitest's 5 s default; these tests share two cores with the whole suite
const LOADED = { timeout: 30_000 };

describe("a D1 write that fails releases what it took, on every path", LOADED, () => {
  it("a cart position: 503, the unit is free again, no cart row exists (also after a restart)", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const eventId = await eventIdOf(s);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 0 });
    const { reached } = await breakObjectWrites(eventId, "fail");
    const res = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    await reached;
    await settled(eventId);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.body).toEqual({ detail: "The event could not process the request. Retry in a moment." });
    expect(await availability(s, q.id)).toMatchObject({ available: true, available_number: 1, cart_positions: 0 });
    expect(await cartsOf(eventId)).toEqual([]);
    expect(await outboxSize(eventId)).toBe(0);
    // the object's own storage released it too: a fresh object (working D1) sells the unit
    await abortAllDurableObjects();
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 0 });
    const retry = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expect(retry.status).toBe(201);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, cart_positions: 1 });
  });

  it("bulk-created cart positions: 503, every unit free again, no cart rows", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 3, items: [ticket.id] });
    const eventId = await eventIdOf(s);
    await availability(s, q.id);
    const { reached } = await breakObjectWrites(eventId, "fail");
    const res = await s.client.post(
      `${s.path}/cartpositions/bulk_create/`,
      [1, 2].map(() => ({ item: ticket.id, price: "1.00" })),
    );
    await reached;
    await settled(eventId);
    expect(res.status).toBe(503);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 3, cart_positions: 0 });
    expect(await cartsOf(eventId)).toEqual([]);
  });

  it("mark_paid of an expired order (capacity taken again): 503, the quota stays free, the order stays expired", async () => {
    const { s, ticket, q, code, eventId } = await pendingOrder(1);
    const expired = await s.client.post(`${s.path}/orders/${code}/mark_expired/`, {});
    expect(expired.status).toBe(200);
    expect(expired.body.status).toBe("e");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0, paid_orders: 0 });
    const { reached } = await breakObjectWrites(eventId, "fail");
    const res = await s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false });
    await reached;
    await settled(eventId);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: "The event could not process the request. Retry in a moment." });
    expect(await availability(s, q.id)).toMatchObject({
      available: true,
      available_number: 1,
      pending_orders: 0,
      paid_orders: 0,
    });
    expect((await orderRow(code)).status).toBe("e");
    const read = await s.client.get(`${s.path}/orders/${code}/`);
    expect(read.body.status).toBe("e");
    expect(read.body.payments.map((p: { state: string }) => p.state)).not.toContain("confirmed");
    expect(await outboxSize(eventId)).toBe(0);
    // nothing is left behind for a restarted object either: the unit can be sold
    await abortAllDurableObjects();
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0, paid_orders: 0 });
    const other = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
  });

  it("a mark_paid refused by D1's answer leaves the ledger, the order and the outbox as they were, for a pending order too", async () => {
    const { s, q, code, eventId } = await pendingOrder(2);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 1 });
    const { reached } = await breakObjectWrites(eventId, "fail");
    const res = await s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false });
    await reached;
    await settled(eventId);
    expect(res.status).toBe(503);
    expect((await orderRow(code)).status).toBe("n");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 1, paid_orders: 0 });
    expect(await outboxSize(eventId)).toBe(0);
  });
});

describe("a status change is durable before it is acknowledged", LOADED, () => {
  /**
   * Runs `change` with the object's D1 batches in `mode`; the client gets 503 (no answer in
   * time), the object is aborted, and the alarm of a fresh object settles what was decided.
   */
  async function interrupted(_s: Shop, eventId: number, mode: Mode, change: () => Promise<{ status: number }>) {
    const { reached } = await breakObjectWrites(eventId, mode);
    const res = await change();
    await reached;
    expect(res.status).toBe(503);
    // the decision was recorded before D1 was written
    expect(await outboxSize(eventId)).toBe(1);
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(eventObject(env, eventId))).toBe(true);
    expect(await outboxSize(eventId)).toBe(0);
  }

  it("mark_canceled, D1 never written before the abort: the alarm cancels it and releases its hold", async () => {
    const { s, q, code, eventId } = await pendingOrder(2);
    await interrupted(s, eventId, "hang", () =>
      s.client.post(`${s.path}/orders/${code}/mark_canceled/`, { send_email: false }),
    );
    expect(await expectLedgerAgreesWithD1(s, q.id, code, 1)).toBe("c");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2 });
    const payments = await db()
      .select()
      .from(orderPayments)
      .where(eq(orderPayments.orderId, (await orderRow(code)).id));
    expect(payments.map((p) => p.state)).toEqual(["canceled"]);
  });

  it("mark_canceled, D1 written but the answer lost: the restarted object releases the hold", async () => {
    const { s, q, code, eventId } = await pendingOrder(2);
    await interrupted(s, eventId, "commit-then-hang", () =>
      s.client.post(`${s.path}/orders/${code}/mark_canceled/`, { send_email: false }),
    );
    expect(await expectLedgerAgreesWithD1(s, q.id, code, 1)).toBe("c");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2 });
  });

  it("mark_paid of an expired order, D1 never written before the abort: the alarm makes it paid and keeps its hold", async () => {
    const { s, q, code, eventId } = await pendingOrder(1);
    expect((await s.client.post(`${s.path}/orders/${code}/mark_expired/`, {})).status).toBe(200);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0 });
    await interrupted(s, eventId, "hang", () =>
      s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false }),
    );
    expect(await expectLedgerAgreesWithD1(s, q.id, code, 1)).toBe("p");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, paid_orders: 1 });
    // the unit is the order's: nobody else gets it
    const order = await s.client.get(`${s.path}/orders/${code}/`);
    expect(order.body.payments.map((p: { state: string }) => p.state)).toEqual(["confirmed"]);
  });

  it("mark_paid of an expired order, D1 written but the answer lost: the restarted object holds it as paid", async () => {
    const { s, q, code, eventId } = await pendingOrder(1);
    expect((await s.client.post(`${s.path}/orders/${code}/mark_expired/`, {})).status).toBe(200);
    await interrupted(s, eventId, "commit-then-hang", () =>
      s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false }),
    );
    expect(await expectLedgerAgreesWithD1(s, q.id, code, 1)).toBe("p");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, paid_orders: 1 });
  });

  it("mark_paid of a pending order, D1 written but the answer lost: pending becomes paid in the ledger too", async () => {
    const { s, q, code, eventId } = await pendingOrder(2);
    await interrupted(s, eventId, "commit-then-hang", () =>
      s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false }),
    );
    expect(await expectLedgerAgreesWithD1(s, q.id, code, 1)).toBe("p");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0, paid_orders: 1 });
  });
});
