/**
 * Faults on every write path, not only order creation (issue 12, item 3): D1 refusing a write
 * (`fail`), D1 committing and the answer getting lost (`lost`), the follow-up check failing too,
 * and the event object dying or being evicted in the middle — injected into carts, vouchers,
 * order status changes, gift card transactions, customers and check-in (test/helpers/d1-guard.ts). After
 * each: the client got a success or a retryable answer (503/409 with Retry-After, never a 500),
 * and the state read through the API is consistent — nothing half-written, nothing doubled, no
 * capacity lost. (EVENT_OBJECT_TIMEOUT_MS is 400 in this project; no test waits on a clock.)
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import {
  cartPositions,
  checkinLists,
  checkins,
  customers,
  giftCardTransactions,
  mailOutbox,
  orderPayments,
  orders,
  teams,
  uploadedFiles,
  vouchers,
} from "../../src/db/schema";
import { D1_DONE_UNREAD, D1_READ_FAILED, D1_UNAVAILABLE, D1_UNCONFIRMED } from "../../src/services/faults";
import { FILE_STORE_UNAVAILABLE } from "../../src/http/files";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { db, type Json, seedOrganizer, unique } from "../harness";
import { injectD1Fault, outboxEmptied as settled, outboxSize } from "../helpers/faults";
import { venue, type Venue } from "../helpers/checkin";
import { shop, type Shop } from "../helpers/sales";

const LOADED = { timeout: 30_000 };
const RETRY_OBJECT = "The event could not process the request. Retry in a moment.";

const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, s.eventSlug) }))!.id;
const availability = async (s: Shop, quotaId: number) => {
  const res = await s.client.get(`${s.path}/quotas/${quotaId}/availability/`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const cartsOf = async (eventId: number) => db().select().from(cartPositions).where(eq(cartPositions.eventId, eventId));

function expectRetryable(res: { status: number; headers: Headers; body: Json }, status: 503 | 409 = 503) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get("retry-after")).toBe("1");
}

/** A shop with one ticket on a quota of `size`, the object warmed up (its catalog loaded). */
async function ticketShop(size: number) {
  const s = await shop();
  const ticket = await s.item();
  const q = await s.quota({ size, items: [ticket.id] });
  const eventId = await eventIdOf(s);
  await availability(s, q.id);
  return { s, ticket, q, eventId };
}

// the object's statements
const CART_INSERT = /^insert into "cart_positions"/;
const CART_CHECK =
  /^select .* from "cart_positions" where \("cart_positions"\."event_id" = \? and "cart_positions"\."hold_key" in/;
const CART_DELETE = /^delete from "cart_positions"/;
const ORDER_INSERT = /^insert into "orders"/;
const ORDER_EXISTS = /^select "id" from "orders" where/;
const STATUS_WRITE = /^update "orders" set "status"/;
const STATUS_READ =
  /^select "status", \(SELECT count\(\*\) FROM order_positions p WHERE p\.order_id = \? AND p\.canceled = 0\) from "orders" where "orders"\."id" = \?$/;

describe("carts", LOADED, () => {
  it("D1 refuses the write: 503, the unit is free, no row; the retry sells it", async () => {
    const { s, ticket, q, eventId } = await ticketShop(1);
    const fault = injectD1Fault(CART_INSERT, "fail");
    const res = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: RETRY_OBJECT });
    expect(fault.hits()).toBe(1);
    await settled(eventId);
    expect(await cartsOf(eventId)).toEqual([]);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 0 });
    expect((await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" })).status).toBe(201);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, cart_positions: 1 });
  });

  it("D1 commits and the answer is lost: the object asks D1 and answers the cart (no row holding nothing)", async () => {
    const { s, ticket, q, eventId } = await ticketShop(1);
    const fault = injectD1Fault(CART_INSERT, "lost");
    const res = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expect(fault.hits()).toBe(1);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const rows = await cartsOf(eventId);
    expect(rows.map((r) => r.id)).toEqual([res.body.id]);
    // the row holds its unit: availability counts it, the next buyer is refused
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, cart_positions: 1 });
    expect((await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" })).status).toBe(400);
    expect(await outboxSize(eventId)).toBe(0);
  });

  it("answer lost and D1's check failing too: 503; the alarm of the same object finishes the write once", async () => {
    const { s, ticket, q, eventId } = await ticketShop(2);
    injectD1Fault(CART_INSERT, "lost");
    injectD1Fault(CART_CHECK, "fail");
    const res = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expectRetryable(res);
    // committed, and the unit stays held for it
    expect(await cartsOf(eventId)).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 1 });
    expect(await outboxSize(eventId)).toBe(1);
    // the entry is no longer the (finished) request's: this instance's alarm replays it
    expect(await runDurableObjectAlarm(eventObject(env, eventId))).toBe(true);
    expect(await outboxSize(eventId)).toBe(0);
    expect(await cartsOf(eventId)).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 1 });
  });

  it("bulk_create with the answer lost: every accepted position is there once and holds its unit", async () => {
    const { s, ticket, q, eventId } = await ticketShop(5);
    injectD1Fault(CART_INSERT, "lost");
    const res = await s.client.post(
      `${s.path}/cartpositions/bulk_create/`,
      [1, 2, 3].map(() => ({ item: ticket.id, price: "1.00" })),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.map((r: { success: boolean }) => r.success)).toEqual([true, true, true]);
    expect(await cartsOf(eventId)).toHaveLength(3);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2, cart_positions: 3 });
  });

  it("the object dies after deciding, before D1 has the row: 503; a fresh object's alarm writes it once", async () => {
    const { s, ticket, q, eventId } = await ticketShop(2);
    const fault = injectD1Fault(CART_INSERT, "hang");
    const res = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    await fault.reached;
    expectRetryable(res);
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(eventObject(env, eventId))).toBe(true);
    expect(await outboxSize(eventId)).toBe(0);
    expect(await cartsOf(eventId)).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 1 });
    // replaying again writes nothing twice
    await runInDurableObject(eventObject(env, eventId), (_: EventObject, state: DurableObjectState) =>
      state.storage.setAlarm(Date.now()),
    );
    await runDurableObjectAlarm(eventObject(env, eventId));
    expect(await cartsOf(eventId)).toHaveLength(1);
  });

  it("deletion with the answer lost: 204, the row is gone and its unit free", async () => {
    const { s, ticket, q, eventId } = await ticketShop(1);
    const cart = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expect(cart.status).toBe(201);
    injectD1Fault(CART_DELETE, "lost");
    const res = await s.client.delete(`${s.path}/cartpositions/${cart.body.id}/`);
    expect(res.status).toBe(204);
    expect(await cartsOf(eventId)).toEqual([]);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 0 });
  });

  it("deletion refused by D1: 503, the cart and its hold stay; the retry deletes both", async () => {
    const { s, ticket, q, eventId } = await ticketShop(1);
    const cart = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    injectD1Fault(CART_DELETE, "fail");
    expectRetryable(await s.client.delete(`${s.path}/cartpositions/${cart.body.id}/`));
    expect(await cartsOf(eventId)).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, cart_positions: 1 });
    expect((await s.client.delete(`${s.path}/cartpositions/${cart.body.id}/`)).status).toBe(204);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, cart_positions: 0 });
  });

  it("a D1 fault in the Worker's own reads: 503 with Retry-After, nothing created", async () => {
    const { s, ticket, eventId } = await ticketShop(1);
    injectD1Fault(/from "items"/, "fail");
    const res = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_UNAVAILABLE });
    expect(await cartsOf(eventId)).toEqual([]);
  });
});

describe("vouchers", LOADED, () => {
  const VOUCHER_INSERT = /^insert into "vouchers"/;

  it("creation refused by D1: 409 to retry, nothing created, no quota blocked; the retry creates it", async () => {
    const { s, ticket, q, eventId } = await ticketShop(2);
    injectD1Fault(VOUCHER_INSERT, "fail");
    const res = await s.client.post(`${s.path}/vouchers/`, { code: "BLOCK1", item: ticket.id, block_quota: true });
    expectRetryable(res, 409);
    expect(await db().select().from(vouchers).where(eq(vouchers.eventId, eventId))).toEqual([]);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2, blocking_vouchers: 0 });
    expect(
      (await s.client.post(`${s.path}/vouchers/`, { code: "BLOCK1", item: ticket.id, block_quota: true })).status,
    ).toBe(201);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, blocking_vouchers: 1 });
  });

  it("creation with the answer lost: 201 with the voucher, once, blocking its unit", async () => {
    const { s, ticket, q, eventId } = await ticketShop(2);
    injectD1Fault(VOUCHER_INSERT, "lost");
    const res = await s.client.post(`${s.path}/vouchers/`, { code: "LOST1", item: ticket.id, block_quota: true });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ code: "LOST1", block_quota: true });
    const rows = await db().select().from(vouchers).where(eq(vouchers.eventId, eventId));
    expect(rows.map((v) => v.id)).toEqual([res.body.id]);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, blocking_vouchers: 1 });
  });

  it("parallel creations of one code in one millisecond, the first write failing late: one voucher, no other request answered with it", async () => {
    const { s, ticket, eventId } = await ticketShop(20);
    injectD1Fault(VOUCHER_INSERT, "fail", { delayMs: 300 });
    const clock = vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2030, 0, 1, 12));
    let results: { status: number; body: { id?: number } }[];
    try {
      results = await Promise.all(
        Array.from({ length: 8 }, () =>
          s.client.post(`${s.path}/vouchers/`, { code: "SAMEMS1", item: ticket.id, block_quota: true }),
        ),
      );
    } finally {
      clock.mockRestore();
    }
    const rows = await db().select().from(vouchers).where(eq(vouchers.eventId, eventId));
    expect(rows).toHaveLength(1);
    const created = results.filter((r) => r.status === 201);
    expect(created.map((r) => r.body.id)).toEqual([rows[0]!.id]);
    expect(results.filter((r) => r.status === 409)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(6);
  });

  it("batch_create with the answer lost: all vouchers, once each", async () => {
    const { s, ticket, q, eventId } = await ticketShop(5);
    injectD1Fault(VOUCHER_INSERT, "lost");
    const res = await s.client.post(
      `${s.path}/vouchers/batch_create/`,
      ["BATCH1", "BATCH2", "BATCH3"].map((code) => ({ code, item: ticket.id, block_quota: true })),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.map((v: { code: string }) => v.code)).toEqual(["BATCH1", "BATCH2", "BATCH3"]);
    expect(await db().select().from(vouchers).where(eq(vouchers.eventId, eventId))).toHaveLength(3);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2, blocking_vouchers: 3 });
  });

  it("created, and the Worker's read of the new vouchers failing: 503 saying they were made; a retry is refused by code, nothing doubled", async () => {
    const { s, ticket, q, eventId } = await ticketShop(2);
    injectD1Fault(/^select .* from "vouchers" where \("vouchers"\."event_id" = \? and "vouchers"\."id" in/, "fail");
    const res = await s.client.post(`${s.path}/vouchers/`, { code: "READ1", item: ticket.id, block_quota: true });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_DONE_UNREAD });
    expect(await db().select().from(vouchers).where(eq(vouchers.eventId, eventId))).toHaveLength(1);
    expect(
      (await s.client.post(`${s.path}/vouchers/`, { code: "READ1", item: ticket.id, block_quota: true })).status,
    ).toBe(400);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, blocking_vouchers: 1 });
  });

  it("the object dies before D1 has the vouchers: 409 to retry; after the restart nothing is blocked; the retry creates them once", async () => {
    const { s, ticket, q, eventId } = await ticketShop(2);
    const fault = injectD1Fault(VOUCHER_INSERT, "hang");
    const res = await s.client.post(`${s.path}/vouchers/`, { code: "DIES1", item: ticket.id, block_quota: true });
    await fault.reached;
    expectRetryable(res, 409);
    await abortAllDurableObjects();
    expect(await db().select().from(vouchers).where(eq(vouchers.eventId, eventId))).toEqual([]);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 2, blocking_vouchers: 0 });
    expect(
      (await s.client.post(`${s.path}/vouchers/`, { code: "DIES1", item: ticket.id, block_quota: true })).status,
    ).toBe(201);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, blocking_vouchers: 1 });
  });

  it("deletion with the answer lost: 204, gone, its unit free again", async () => {
    const { s, ticket, q } = await ticketShop(1);
    const v = await s.voucher({ item: ticket.id, block_quota: true });
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0 });
    injectD1Fault(/^delete from "vouchers"/, "lost");
    expect((await s.client.delete(`${s.path}/vouchers/${v.id}/`)).status).toBe(204);
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).status).toBe(404);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, blocking_vouchers: 0 });
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(201);
  });

  it("a change with the answer lost: 409 to retry; D1 has the change, the next call sees it, the retry answers it", async () => {
    const { s, ticket, q } = await ticketShop(3);
    const v = await s.voucher({ item: ticket.id, block_quota: true, max_usages: 1 });
    injectD1Fault(/^update "vouchers"/, "lost");
    expectRetryable(await s.client.patch(`${s.path}/vouchers/${v.id}/`, { max_usages: 2 }), 409);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, blocking_vouchers: 2 });
    const retry = await s.client.patch(`${s.path}/vouchers/${v.id}/`, { max_usages: 2 });
    expect(retry.status).toBe(200);
    expect(retry.body.max_usages).toBe(2);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, blocking_vouchers: 2 });
  });
});

describe("order status changes", LOADED, () => {
  async function pending(size: number, body: Record<string, unknown> = { payment_provider: "manual" }) {
    const t = await ticketShop(size);
    const res = await t.s.client.post(`${t.s.path}/orders/`, {
      email: "buyer@example.org",
      positions: [{ item: t.ticket.id }],
      ...body,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await availability(t.s, t.q.id);
    return { ...t, code: res.body.code as string };
  }
  const order = (s: Shop, code: string) => s.client.get(`${s.path}/orders/${code}/`).then((r) => r.body);

  it("mark_paid of an order without payment, the manual payment's write refused: 503; nothing recorded; the retry pays once", async () => {
    const { s, q, code } = await pending(2, {});
    expect((await order(s, code)).payments).toEqual([]);
    injectD1Fault(/^insert into "order_payments"/, "fail");
    const res = await s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_UNAVAILABLE });
    expect(await order(s, code)).toMatchObject({ status: "n", payments: [] });
    expect((await s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false })).status).toBe(200);
    expect((await order(s, code)).payments.map((p: { state: string }) => p.state)).toEqual(["confirmed"]);
    expect(await availability(s, q.id)).toMatchObject({ paid_orders: 1, pending_orders: 0 });
  });

  it("mark_paid with the payment's answer lost: 503; the retry confirms that payment, no second one", async () => {
    const { s, code } = await pending(2, {});
    injectD1Fault(/^insert into "order_payments"/, "lost");
    expectRetryable(await s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false }));
    expect((await order(s, code)).payments.map((p: { state: string }) => p.state)).toEqual(["created"]);
    expect((await s.client.post(`${s.path}/orders/${code}/mark_paid/`, { send_email: false })).status).toBe(200);
    expect(await order(s, code)).toMatchObject({ status: "p", payments: [{ local_id: 1, state: "confirmed" }] });
  });

  it("mark_canceled with the object's answer from D1 lost: the object asks D1 and answers 200; the unit is free", async () => {
    const { s, q, code } = await pending(1);
    injectD1Fault(STATUS_WRITE, "lost");
    const res = await s.client.post(`${s.path}/orders/${code}/mark_canceled/`, { send_email: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("c");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0 });
  });

  it("mark_canceled whose write and follow-up read both fail: 503; the alarm of the same instance settles it", async () => {
    const { s, q, code, eventId } = await pending(1);
    injectD1Fault(STATUS_WRITE, "fail");
    injectD1Fault(STATUS_READ, "fail");
    expectRetryable(await s.client.post(`${s.path}/orders/${code}/mark_canceled/`, { send_email: false }));
    expect(await outboxSize(eventId)).toBe(1);
    expect((await order(s, code)).status).toBe("n");
    // no restart: the entry is replayed by this instance's alarm (it used to wait for a restart)
    expect(await runDurableObjectAlarm(eventObject(env, eventId))).toBe(true);
    expect(await outboxSize(eventId)).toBe(0);
    expect((await order(s, code)).status).toBe("c");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0 });
  });

  it("mark_canceled while the object dies before D1 has the change: 503; a fresh object's alarm cancels it once", async () => {
    const { s, q, code, eventId } = await pending(1);
    const fault = injectD1Fault(STATUS_WRITE, "hang");
    const res = await s.client.post(`${s.path}/orders/${code}/mark_canceled/`, { send_email: false });
    await fault.reached;
    expectRetryable(res);
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(eventObject(env, eventId))).toBe(true);
    expect(await outboxSize(eventId)).toBe(0);
    expect((await order(s, code)).status).toBe("c");
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 0 });
    // the retry finds it canceled: nothing happens twice
    expect((await s.client.post(`${s.path}/orders/${code}/mark_canceled/`, { send_email: false })).status).toBe(400);
  });

  it("an order whose write and follow-up check both fail: 503; the alarm of the same instance writes it, once", async () => {
    const { s, ticket, q, eventId } = await ticketShop(1);
    injectD1Fault(ORDER_INSERT, "fail");
    injectD1Fault(ORDER_EXISTS, "fail");
    expectRetryable(
      await s.client.post(`${s.path}/orders/`, { email: "x@example.org", positions: [{ item: ticket.id }] }),
    );
    // the unit is held for the undecided order
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, pending_orders: 1 });
    expect(await runDurableObjectAlarm(eventObject(env, eventId))).toBe(true);
    expect(await outboxSize(eventId)).toBe(0);
    const list = await s.client.get(`${s.path}/orders/`);
    expect(list.body.count).toBe(1);
    expect(list.body.results[0].positions).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, pending_orders: 1 });
  });
});

describe("gift card transactions", LOADED, () => {
  async function card(value = "10.00") {
    const s = await shop();
    const res = await s.client.post(`/api/v1/organizers/${s.orgSlug}/giftcards/`, {
      secret: unique("GC").toUpperCase(),
      currency: "EUR",
      value,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const url = `/api/v1/organizers/${s.orgSlug}/giftcards/${res.body.id}`;
    const state = async () => {
      const read = await s.client.get(`${url}/`);
      const tx = await db().select().from(giftCardTransactions).where(eq(giftCardTransactions.cardId, res.body.id));
      return { value: read.body.value as string, transactions: tx.map((t) => t.value) };
    };
    return { s, url, id: res.body.id as number, state };
  }
  const TX_INSERT = /^insert into "gift_card_transactions"/;

  it("refused by D1: 503 with Retry-After; balance and transactions unchanged; the retry applies it once", async () => {
    const c = await card();
    injectD1Fault(TX_INSERT, "fail");
    const res = await c.s.client.post(`${c.url}/transact/`, { value: "-2.50" });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_UNAVAILABLE });
    expect(await c.state()).toEqual({ value: "10.00", transactions: [1000] });
    expect((await c.s.client.post(`${c.url}/transact/`, { value: "-2.50" })).body.value).toBe("7.50");
    expect(await c.state()).toEqual({ value: "7.50", transactions: [1000, -250] });
  });

  it("the answer lost: 200 with the new balance; applied once", async () => {
    const c = await card();
    injectD1Fault(TX_INSERT, "lost");
    const res = await c.s.client.post(`${c.url}/transact/`, { value: "-2.50", text: "Coffee" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value).toBe("7.50");
    expect(await c.state()).toEqual({ value: "7.50", transactions: [1000, -250] });
  });

  it("the answer lost and the check failing: 503 saying the change is unconfirmed; applied once", async () => {
    const c = await card();
    injectD1Fault(TX_INSERT, "lost");
    injectD1Fault(/EXISTS \(SELECT 1 FROM "gift_card_transactions" t WHERE t\.card_id/, "fail");
    const res = await c.s.client.post(`${c.url}/transact/`, { value: "-2.50" });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_UNCONFIRMED });
    expect(await c.state()).toEqual({ value: "7.50", transactions: [1000, -250] });
  });

  it("issuing a card with the answer lost: 201, one card, one transaction", async () => {
    const s = await shop();
    const secret = unique("GC").toUpperCase();
    injectD1Fault(/^insert into "gift_cards"/, "lost");
    const res = await s.client.post(`/api/v1/organizers/${s.orgSlug}/giftcards/`, {
      secret,
      currency: "EUR",
      value: "5.00",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ secret, value: "5.00" });
    const list = await s.client.get(`/api/v1/organizers/${s.orgSlug}/giftcards/?secret=${secret}`);
    expect(list.body.count).toBe(1);
    expect(
      (await db().select().from(giftCardTransactions).where(eq(giftCardTransactions.cardId, res.body.id))).map(
        (t) => t.value,
      ),
    ).toEqual([500]);
  });

  it("a new balance (PATCH value) with the answer lost: 503; the retry sets the same balance without a second transaction", async () => {
    const c = await card();
    injectD1Fault(TX_INSERT, "lost");
    expectRetryable(await c.s.client.patch(`${c.url}/`, { value: "4.00" }));
    expect(await c.state()).toEqual({ value: "4.00", transactions: [1000, -600] });
    expect((await c.s.client.patch(`${c.url}/`, { value: "4.00" })).status).toBe(200);
    expect(await c.state()).toEqual({ value: "4.00", transactions: [1000, -600] });
  });
});

describe("customers", LOADED, () => {
  const CUSTOMER_INSERT = /^insert into "customers"/;
  const customersOf = async (s: Shop) => (await s.client.get(`/api/v1/organizers/${s.orgSlug}/customers/`)).body;

  it("creation refused by D1: 503, no customer, no mail; the retry creates one", async () => {
    const s = await shop();
    injectD1Fault(CUSTOMER_INSERT, "fail");
    const res = await s.client.post(`/api/v1/organizers/${s.orgSlug}/customers/`, {
      email: "c@example.org",
      send_email: true,
    });
    expectRetryable(res);
    expect((await customersOf(s)).count).toBe(0);
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.organizerId, s.org.id))).toEqual([]);
    expect(
      (await s.client.post(`/api/v1/organizers/${s.orgSlug}/customers/`, { email: "c@example.org", send_email: true }))
        .status,
    ).toBe(201);
    expect((await customersOf(s)).count).toBe(1);
  });

  it("creation with the answer lost: 201 with the customer; one customer, one activation mail", async () => {
    const s = await shop();
    injectD1Fault(CUSTOMER_INSERT, "lost");
    const res = await s.client.post(`/api/v1/organizers/${s.orgSlug}/customers/`, {
      email: "lost@example.org",
      send_email: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const list = await customersOf(s);
    expect(list.results.map((c: { identifier: string }) => c.identifier)).toEqual([res.body.identifier]);
    expect(await db().select().from(customers).where(eq(customers.organizerId, s.org.id))).toHaveLength(1);
    expect(
      (await db().select().from(mailOutbox).where(eq(mailOutbox.organizerId, s.org.id))).map((m) => m.toAddress),
    ).toEqual(["lost@example.org"]);
  });

  it("a change refused or with the answer lost: 503; the retry answers the change", async () => {
    const s = await shop();
    const created = await s.client.post(`/api/v1/organizers/${s.orgSlug}/customers/`, { email: "d@example.org" });
    const url = `/api/v1/organizers/${s.orgSlug}/customers/${created.body.identifier}/`;
    for (const mode of ["fail", "lost"] as const) {
      injectD1Fault(/^update "customers"/, mode);
      expectRetryable(await s.client.patch(url, { notes: `note ${mode}` }));
      const retry = await s.client.patch(url, { notes: `note ${mode}` });
      expect(retry.status).toBe(200);
      expect(retry.body.notes).toBe(`note ${mode}`);
    }
  });
});

describe("faults in order placement after the D1 write", LOADED, () => {
  it("the answer lost and the Worker's read-back failing: 503 saying the order was made; one order, its unit held", async () => {
    const { s, ticket, q, eventId } = await ticketShop(2);
    injectD1Fault(ORDER_INSERT, "lost");
    // the Worker's read of the order (the object's read-back was lost with the answer)
    injectD1Fault(
      (sql) => sql.startsWith("select") && sql.includes("json_group_array") && sql.includes(`from "orders"`),
      "fail",
    );
    const res = await s.client.post(`${s.path}/orders/`, { email: "x@example.org", positions: [{ item: ticket.id }] });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_DONE_UNREAD });
    const list = await s.client.get(`${s.path}/orders/`);
    expect(list.body.count).toBe(1);
    expect(await db().select().from(orders).where(eq(orders.eventId, eventId))).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 1, pending_orders: 1 });
  });

  it("an order whose answer is lost is a success; its payments are there once", async () => {
    const { s, ticket, q, eventId } = await ticketShop(1);
    injectD1Fault(ORDER_INSERT, "lost");
    const res = await s.client.post(`${s.path}/orders/`, {
      payment_provider: "manual",
      positions: [{ item: ticket.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [row] = await db().select().from(orders).where(eq(orders.eventId, eventId));
    expect(row!.code).toBe(res.body.code);
    expect(await db().select().from(orderPayments).where(eq(orderPayments.orderId, row!.id))).toHaveLength(1);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 0, pending_orders: 1 });
  });
});

describe("check-in", LOADED, () => {
  const CHECKIN_WRITE = /^INSERT INTO checkins /;
  const CHECKIN_CHECK = /^select "id" from "checkins" where "checkins"\."uid" = \?$/;

  /**
   * A venue with a list and one paid ticket. The object has leased no check-in ids yet, so its
   * first scan is answered after D1 (`writeScan`); the scans it answers from its own storage
   * meet the same faults in test/api/checkin-at-object.test.ts.
   */
  async function door() {
    const v = await venue();
    const list = await v.list();
    const ticket = await v.sell();
    const scan = (nonce: string | null = "n-1") => v.redeem({ secret: ticket.secret, lists: [list.id], nonce });
    const stored = async () =>
      (await db().select().from(checkins).where(eq(checkins.positionId, ticket.id))).filter((c) => c.successful);
    return { v, list, ticket, scan, stored };
  }
  const positionCheckins = async (v: Venue, listId: number, positionId: number) => {
    const res = await v.client.get(`${v.path}/checkinlists/${listId}/positions/${positionId}/`);
    expect(res.status).toBe(200);
    return res.body.checkins as unknown[];
  };

  it("D1 refuses the check-in: 503 to retry, nothing stored, the ticket not inside; the retry admits it once", async () => {
    const { v, list, ticket, scan, stored } = await door();
    injectD1Fault(CHECKIN_WRITE, "fail");
    const res = await scan();
    expectRetryable(res);
    expect(res.body).toEqual({ detail: RETRY_OBJECT });
    await settled(v.eventId);
    expect(await stored()).toEqual([]);
    expect(await positionCheckins(v, list.id, ticket.id)).toEqual([]);
    const retry = await scan();
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.body.status).toBe("ok");
    expect(await stored()).toHaveLength(1);
  });

  it("the answer lost: the object asks D1 and admits (201); one check-in; a second scan is already redeemed", async () => {
    const { list, ticket, scan, stored, v } = await door();
    const fault = injectD1Fault(CHECKIN_WRITE, "lost");
    const res = await scan();
    expect(fault.hits()).toBe(1);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: "ok", position: { id: ticket.id } });
    expect(await stored()).toHaveLength(1);
    expect(await outboxSize(v.eventId)).toBe(0);
    // the scanner's retry (same nonce) is the same check-in; another scan is refused
    expect((await scan()).status).toBe(201);
    const again = await scan("n-2");
    expect(again.status).toBe(400);
    expect(again.body.reason).toBe("already_redeemed");
    expect(await stored()).toHaveLength(1);
    expect(await positionCheckins(v, list.id, ticket.id)).toHaveLength(1);
  });

  it("the answer lost and D1's check failing too: 503; the alarm of the same instance settles it; one check-in", async () => {
    const { v, scan, stored } = await door();
    injectD1Fault(CHECKIN_WRITE, "lost");
    injectD1Fault(CHECKIN_CHECK, "fail");
    expectRetryable(await scan());
    expect(await stored()).toHaveLength(1);
    expect(await outboxSize(v.eventId)).toBe(1);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect(await stored()).toHaveLength(1);
    // the scanner retries with its nonce: admitted, nothing doubled
    const retry = await scan();
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(await stored()).toHaveLength(1);
  });

  it("refused and D1's check failing too: 503; the passage is held and the alarm writes it once; the retry is that check-in", async () => {
    const { v, scan, stored } = await door();
    injectD1Fault(CHECKIN_WRITE, "fail");
    injectD1Fault(CHECKIN_CHECK, "fail");
    expectRetryable(await scan());
    expect(await stored()).toEqual([]);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect(await stored()).toHaveLength(1);
    expect((await scan()).status).toBe(201);
    expect((await scan("n-2")).body.reason).toBe("already_redeemed");
    expect(await stored()).toHaveLength(1);
  });

  it("the object dies before D1 has the check-in: 503; a fresh object's alarm writes it once and still knows the ticket is inside", async () => {
    const { v, scan, stored } = await door();
    const fault = injectD1Fault(CHECKIN_WRITE, "hang");
    const res = await scan();
    await fault.reached;
    expectRetryable(res);
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect(await stored()).toHaveLength(1);
    expect((await scan()).status).toBe(201);
    expect((await scan("n-2")).body.reason).toBe("already_redeemed");
    expect(await stored()).toHaveLength(1);
  });

  it("the per-list redeem answers the same way: lost answer admitted once", async () => {
    const { v, list, ticket, stored } = await door();
    injectD1Fault(CHECKIN_WRITE, "lost");
    const res = await v.scanner.post(
      `${v.path}/checkinlists/${list.id}/positions/${ticket.secret}/redeem/?untrusted_input=true`,
      { nonce: "p-1" },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await stored()).toHaveLength(1);
  });

  it("a D1 fault in the Worker's reads before the object: 503 with Retry-After, nothing stored", async () => {
    const v = await venue();
    const list = await v.list();
    const ticket = await v.sell();
    // a list the isolate has not resolved yet: the Worker reads which event it belongs to
    injectD1Fault(/from "checkin_lists" inner join "events"/, "fail");
    const res = await v.redeem({ secret: ticket.secret, lists: [list.id] });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_UNAVAILABLE });
    expect(await db().select().from(checkins).where(eq(checkins.positionId, ticket.id))).toEqual([]);
    expect((await v.redeem({ secret: ticket.secret, lists: [list.id] })).status).toBe(201);
  });

  it("failed scans of offline scanners: refused → 503 and nothing; lost → 201 and stored once", async () => {
    const { v, list, ticket } = await door();
    const url = `${v.path}/checkinlists/${list.id}/failed_checkins/`;
    const failed = async () =>
      (await db().select().from(checkins).where(eq(checkins.positionId, ticket.id))).filter((c) => !c.successful);
    injectD1Fault(/^insert into "checkins"/, "fail");
    expectRetryable(await v.scanner.post(url, { error_reason: "canceled", raw_barcode: ticket.secret }));
    expect(await failed()).toEqual([]);
    injectD1Fault(/^insert into "checkins"/, "lost");
    const lost = await v.scanner.post(url, { error_reason: "canceled", raw_barcode: ticket.secret });
    expect(lost.status, JSON.stringify(lost.body)).toBe(201);
    expect(await failed()).toHaveLength(1);
  });

  it("lists: a creation whose answer is lost is answered with the list, once; a lost deletion is a 204; a refused change a 503", async () => {
    const v = await venue();
    const listsOf = async () => db().select().from(checkinLists).where(eq(checkinLists.eventId, v.eventId));
    injectD1Fault(/^insert into "checkin_lists"/, "lost");
    const created = await v.client.post(`${v.path}/checkinlists/`, { name: "Door", all_products: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: "Door", all_products: true });
    expect((await listsOf()).map((l) => l.id)).toEqual([created.body.id]);

    injectD1Fault(/^insert into "checkin_lists"/, "fail");
    expectRetryable(await v.client.post(`${v.path}/checkinlists/`, { name: "Other door", all_products: true }));
    expect(await listsOf()).toHaveLength(1);

    const url = `${v.path}/checkinlists/${created.body.id}/`;
    injectD1Fault(/^update "checkin_lists"/, "fail");
    expectRetryable(await v.client.patch(url, { name: "Main door" }));
    expect((await v.client.get(url)).body.name).toBe("Door");
    expect((await v.client.patch(url, { name: "Main door" })).body.name).toBe("Main door");

    // the object saw the list: a scan on it is decided
    const ticket = await v.sell();
    expect((await v.redeem({ secret: ticket.secret, lists: [created.body.id] })).status).toBe(201);
    injectD1Fault(/^delete from "checkin_lists"/, "lost");
    expect((await v.client.delete(url)).status).toBe(204);
    expect(await listsOf()).toEqual([]);
    const gone = await v.redeem({ secret: ticket.secret, lists: [created.body.id] });
    expect(gone.status, JSON.stringify(gone.body)).toBe(400);
    expect(gone.body).toEqual({ lists: [`Invalid pk "${created.body.id}" - object does not exist.`] });
  });
});

describe("faults no service answers itself", LOADED, () => {
  it("a D1 fault in a read: 503 with Retry-After, never a 500", async () => {
    const org = await seedOrganizer();
    injectD1Fault(/from "events"/, "fail");
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/events/`);
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_READ_FAILED });
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/events/`)).status).toBe(200);
  });

  it("a D1 fault in a write no service checks: 503 saying the change is unconfirmed", async () => {
    const org = await seedOrganizer();
    injectD1Fault(/^insert into "teams"/, "fail");
    const res = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, { name: "Door staff" });
    expectRetryable(res);
    expect(res.body).toEqual({ detail: D1_UNCONFIRMED });
    expect(
      (await db().select().from(teams).where(eq(teams.organizerId, org.id))).filter((t) => t.name === "Door staff"),
    ).toEqual([]);
  });

  it("R2 failing on an upload: 503 to retry, no upload recorded", async () => {
    const org = await seedOrganizer();
    const before = (await db().select().from(uploadedFiles)).length;
    const proto = Object.getPrototypeOf(env.FILES) as { put: (...a: unknown[]) => Promise<unknown> };
    const put = proto.put;
    proto.put = () => Promise.reject(new Error("R2 put: internal error"));
    let res: Awaited<ReturnType<typeof org.client.post>>;
    try {
      res = await org.client.post("/api/v1/upload", undefined, {
        raw: new Uint8Array([137, 80, 78, 71]),
        headers: { "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="a.png"' },
      });
    } finally {
      proto.put = put;
    }
    expectRetryable(res);
    expect(res.body).toEqual({ detail: FILE_STORE_UNAVAILABLE });
    expect(await db().select().from(uploadedFiles)).toHaveLength(before);
  });
});
