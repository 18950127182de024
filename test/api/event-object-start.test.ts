/**
 * A restarted event object does not read its orders (issue "Production hardening", item 4):
 * the orders' holds stay in its storage (objects/event/order-book.ts), with totals that triggers keep
 * in the same statement, so the start reads the same few rows for 10 positions held as for
 * 100,000 and keeps nothing per order in memory. The totals must always equal the rows, and
 * what a restarted object decides must equal what D1 says was sold.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { db } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq }) => eq(e.slug, s.eventSlug) }))!.id;

const availability = async (s: Shop, quotaId: number) => {
  const res = await s.client.get(`${s.path}/quotas/${quotaId}/availability/`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

/** The object's storage: the totals, and the same counted from the rows. */
function storage(eventId: number) {
  return runInDurableObject(eventObject(env, eventId), (_: EventObject, state: DurableObjectState) => {
    const q = <T extends Record<string, SqlStorageValue>>(s: string) => [...state.storage.sql.exec<T>(s)];
    return {
      totals: q<{ key: string; paid: number; n: number }>(
        "SELECT key, paid, n FROM order_totals WHERE n <> 0 ORDER BY key, paid",
      ),
      counted: q<{ key: string; paid: number; n: number }>(
        "SELECT key, paid, count(*) AS n FROM holds WHERE kind = 'order' GROUP BY key, paid ORDER BY key, paid",
      ),
      voucherTotals: q<{ voucher_id: number; n: number }>(
        "SELECT voucher_id, n FROM voucher_totals WHERE n <> 0 ORDER BY voucher_id",
      ),
      voucherCounted: q<{ voucher_id: number; n: number }>(
        "SELECT voucher_id, count(*) AS n FROM holds WHERE kind = 'order' AND voucher_id IS NOT NULL GROUP BY voucher_id ORDER BY voucher_id",
      ),
    };
  });
}

const startOf = (eventId: number) => runInDurableObject(eventObject(env, eventId), (o: EventObject) => o.startReport());

/** Sells `n` orders of two positions each (one in four with the voucher), pays every second, cancels every fifth. */
async function sell(s: Shop, ticket: number, voucher: string, n: number, offset: number) {
  const codes: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = offset + i;
    const res = await s.client.post(`${s.path}/orders/`, {
      email: `buyer${k}@example.org`,
      positions: [{ item: ticket }, { item: ticket, ...(k % 4 === 0 ? { voucher } : {}) }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    codes.push(res.body.code);
  }
  for (const [i, code] of codes.entries()) {
    const k = offset + i;
    if (k % 2 === 0) expect((await s.client.post(`${s.path}/orders/${code}/mark_paid/`, {})).status).toBe(200);
    if (k % 5 === 0) expect((await s.client.post(`${s.path}/orders/${code}/mark_canceled/`, {})).status).toBe(200);
  }
}

/** What D1 says is held: positions of pending and paid orders. */
async function heldInD1(s: Shop) {
  let pending = 0;
  let paid = 0;
  for (let page = 1; ; page++) {
    const res = await s.client.get(`${s.path}/orders/?page=${page}`);
    expect(res.status).toBe(200);
    for (const o of res.body.results as { status: string; positions: unknown[] }[]) {
      if (o.status === "n") pending += o.positions.length;
      if (o.status === "p") paid += o.positions.length;
    }
    if (!res.body.next) return { pending, paid };
  }
}

describe("a restarted event object", { timeout: 120_000 }, () => {
  it("reads the same rows at its start however many positions it holds, and counts exactly what D1 sold", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1000, items: [ticket.id] });
    const voucher = await s.voucher({ item: ticket.id, max_usages: 100 });
    const eventId = await eventIdOf(s);

    await sell(s, ticket.id, voucher.code, 6, 0);
    const held6 = await heldInD1(s);
    await abortAllDurableObjects();
    const after6 = await availability(s, q.id);
    const start6 = await startOf(eventId);
    expect({ pending: after6.pending_orders, paid: after6.paid_orders }).toEqual(held6);
    expect(start6.heldPositions).toBe(held6.pending + held6.paid);

    await sell(s, ticket.id, voucher.code, 30, 6);
    const held36 = await heldInD1(s);
    expect(held36.pending + held36.paid).toBeGreaterThan(4 * (held6.pending + held6.paid));
    await abortAllDurableObjects();
    const after36 = await availability(s, q.id);
    const start36 = await startOf(eventId);
    expect({ pending: after36.pending_orders, paid: after36.paid_orders }).toEqual(held36);
    expect(after36.available_number).toBe(1000 - held36.pending - held36.paid);
    expect(start36.heldPositions).toBe(held36.pending + held36.paid);
    // six times the positions, the same reads: no order is read back at the start
    expect(start36.rowsRead).toBe(start6.rowsRead);
    expect(start36.rowsRead).toBeLessThanOrEqual(20);

    // the totals are the rows, for capacity and for the voucher (pretix: redeemed by pending and paid orders)
    const st = await storage(eventId);
    expect(st.totals).toEqual(st.counted);
    expect(st.voucherTotals).toEqual(st.voucherCounted);
    const used = (await s.client.get(`${s.path}/vouchers/${voucher.id}/`)).body.redeemed;
    expect(st.voucherTotals).toEqual(used > 0 ? [{ voucher_id: voucher.id, n: used }] : []);
  });

  it("decides on the totals after the restart: sells exactly what is left, no more", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 12, items: [ticket.id] });
    const eventId = await eventIdOf(s);
    for (let i = 0; i < 5; i++)
      expect(
        (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }, { item: ticket.id }] })).status,
      ).toBe(201);
    await abortAllDurableObjects();
    // 2 left: 6 parallel buyers of one ticket each, after the restart
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 400, 400, 400, 400]);
    expect(await availability(s, q.id)).toMatchObject({ available: false, available_number: 0, pending_orders: 12 });
    expect((await startOf(eventId)).heldPositions).toBe(10);
  });
});
