/**
 * Automatic waiting-list vouchers: when capacity frees (a cancellation, an expiry, a quota
 * raised, a waiting-list voucher that expired), the next entries (priority, then the oldest)
 * get vouchers, exactly as many as fit; settings waiting_list_auto and _auto_disable; an entry
 * never gets two. Concurrency: frees racing sales, and assignments racing each other.
 */
import { env } from "cloudflare:workers";
import { and, eq, isNotNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events, mailOutbox, orders, vouchers, waitinglistEntries } from "../../src/db/schema";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { offerFreedCapacity } from "../../src/services/waitinglist/waitinglist-assign";
import { db, type Json } from "../harness";
import { injectD1Fault } from "../helpers/faults";
import { type Shop, shop } from "../helpers/sales";

const entries = async (s: Shop) =>
  db()
    .select()
    .from(waitinglistEntries)
    .where(eq(waitinglistEntries.eventId, s.eventId))
    .orderBy(waitinglistEntries.id);
const waitingVouchers = async (s: Shop) =>
  db()
    .select()
    .from(vouchers)
    .where(and(eq(vouchers.eventId, s.eventId), eq(vouchers.tag, "waiting-list")));
const availability = async (s: Shop, q: Json) => (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;

/** A sold-out product: `sold` pending orders fill a quota of `sold`; then `waiting` entries (w0@…, w1@…). */
async function soldOut(opts: { sold: number; waiting: number; priorities?: number[] }) {
  const s = await shop();
  const ticket = await s.item();
  const q = await s.quota({ size: opts.sold, items: [ticket.id] });
  const sold: Json[] = [];
  for (let i = 0; i < opts.sold; i++) {
    const r = await s.client.post(`${s.path}/orders/`, {
      email: `buyer${i}@example.org`,
      positions: [{ item: ticket.id }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    sold.push(r.body);
  }
  const waiting: Json[] = [];
  for (let i = 0; i < opts.waiting; i++) {
    const r = await s.client.post(`${s.path}/waitinglistentries/`, {
      email: `w${i}@example.org`,
      item: ticket.id,
      priority: opts.priorities?.[i] ?? 0,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    waiting.push(r.body);
  }
  return { s, ticket, q, sold, waiting };
}

const cancel = (s: Shop, code: string) =>
  s.client.post(`${s.path}/orders/${code}/mark_canceled/`, { send_email: false });

describe("vouchers when capacity frees", () => {
  it("a cancellation gives the first entry a voucher and its mail; the next keeps waiting", async () => {
    const w = await soldOut({ sold: 2, waiting: 2 });
    expect((await cancel(w.s, w.sold[0].code)).status).toBe(200);
    const [first, second] = await entries(w.s);
    expect(first!.voucherId).not.toBeNull();
    expect(second!.voucherId).toBeNull();
    const [v] = await waitingVouchers(w.s);
    expect(v).toMatchObject({ id: first!.voucherId, itemId: w.ticket.id, maxUsages: 1, blockQuota: true });
    expect(await availability(w.s, w.q)).toMatchObject({
      available_number: 0,
      blocking_vouchers: 1,
      pending_orders: 1,
    });
    const mails = await db()
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.eventId, w.s.eventId), eq(mailOutbox.toAddress, "w0@example.org")));
    expect(mails.map((m) => m.kind)).toEqual(["waiting_list_voucher"]);
    expect(mails[0]!.textBody).toContain(v!.code);
    // the voucher sells the unit it blocks
    const bought = await w.s.client.post(`${w.s.path}/orders/`, {
      email: "w0@example.org",
      positions: [{ item: w.ticket.id, voucher: v!.code }],
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    expect(await availability(w.s, w.q)).toMatchObject({
      available_number: 0,
      blocking_vouchers: 0,
      pending_orders: 2,
    });
  });

  it("a quota raised by 3 serves exactly 3, by priority and then the oldest; another product's entries keep waiting", async () => {
    const w = await soldOut({ sold: 1, waiting: 5, priorities: [0, 5, 0, 1, 0] });
    const other = await w.s.item({ name: { en: "Other" } });
    await w.s.quota({ name: "Other", size: 0, items: [other.id] });
    const otherEntry = await w.s.client.post(`${w.s.path}/waitinglistentries/`, {
      email: "o@example.org",
      item: other.id,
    });
    expect(otherEntry.status).toBe(201);
    expect((await w.s.client.patch(`${w.s.path}/quotas/${w.q.id}/`, { size: 4 })).status).toBe(200);
    const byId = new Map((await entries(w.s)).map((e) => [e.id, e.voucherId]));
    // priorities 5 and 1 first, then the oldest of priority 0
    const served = w.waiting.map((e) => byId.get(e.id) !== null);
    expect(served).toEqual([true, true, false, true, false]);
    expect(byId.get(otherEntry.body.id)).toBeNull();
    expect(await waitingVouchers(w.s)).toHaveLength(3);
    expect(await availability(w.s, w.q)).toMatchObject({ available_number: 0, blocking_vouchers: 3 });
  });

  it("an entry whose product is first in line but sold out does not stop another product's entries", async () => {
    const s = await shop();
    const a = await s.item({ name: { en: "A" } });
    const b = await s.item({ name: { en: "B" } });
    await s.quota({ name: "A", size: 0, items: [a.id] });
    const qb = await s.quota({ name: "B", size: 0, items: [b.id] });
    const ea = await s.client.post(`${s.path}/waitinglistentries/`, {
      email: "a@example.org",
      item: a.id,
      priority: 9,
    });
    const eb = await s.client.post(`${s.path}/waitinglistentries/`, { email: "b@example.org", item: b.id });
    await s.client.patch(`${s.path}/quotas/${qb.id}/`, { size: 1 });
    const byId = new Map((await entries(s)).map((e) => [e.id, e.voucherId]));
    expect(byId.get(ea.body.id)).toBeNull();
    expect(byId.get(eb.body.id)).not.toBeNull();
  });

  it("an entry with a voucher never gets a second: the next free unit goes to the next entry", async () => {
    const w = await soldOut({ sold: 3, waiting: 2 });
    await cancel(w.s, w.sold[0].code);
    const [first] = await entries(w.s);
    await cancel(w.s, w.sold[1].code);
    const after = await entries(w.s);
    expect(after[0]!.voucherId).toBe(first!.voucherId);
    expect(after[1]!.voucherId).not.toBeNull();
    expect(await waitingVouchers(w.s)).toHaveLength(2);
    // a third free unit, nobody waiting: it stays free
    await cancel(w.s, w.sold[2].code);
    expect(await waitingVouchers(w.s)).toHaveLength(2);
    expect(await availability(w.s, w.q)).toMatchObject({ available_number: 1, blocking_vouchers: 2 });
  });

  it("nothing automatic with waiting_list_auto off, or after waiting_list_auto_disable; send_voucher still works", async () => {
    const w = await soldOut({ sold: 2, waiting: 1 });
    expect((await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_auto: false })).status).toBe(200);
    await cancel(w.s, w.sold[0].code);
    expect(await waitingVouchers(w.s)).toHaveLength(0);
    await w.s.client.patch(`${w.s.path}/settings/`, {
      waiting_list_auto: true,
      waiting_list_auto_disable: "2020-01-01T00:00:00Z",
    });
    await cancel(w.s, w.sold[1].code);
    expect(await waitingVouchers(w.s)).toHaveLength(0);
    const sent = await w.s.client.post(`${w.s.path}/waitinglistentries/${w.waiting[0].id}/send_voucher/`, {});
    expect(sent.status).toBe(204);
    expect(await waitingVouchers(w.s)).toHaveLength(1);
  });

  it("entries of an inactive product get no automatic voucher", async () => {
    const w = await soldOut({ sold: 1, waiting: 1 });
    expect((await w.s.client.patch(`${w.s.path}/items/${w.ticket.id}/`, { active: false })).status).toBe(200);
    await cancel(w.s, w.sold[0].code);
    expect(await waitingVouchers(w.s)).toHaveLength(0);
    expect((await entries(w.s))[0]!.voucherId).toBeNull();
  });

  it("an expiry (mark_expired) frees for the waiting list too", async () => {
    const w = await soldOut({ sold: 1, waiting: 1 });
    expect((await w.s.client.post(`${w.s.path}/orders/${w.sold[0].code}/mark_expired/`)).status).toBe(200);
    expect((await entries(w.s))[0]!.voucherId).not.toBeNull();
  });

  it("a ticket canceled on its own (DELETE, cancel_positions, moved away, a cancellation fee) frees for the waiting list", async () => {
    const s = await shop();
    const ticket = await s.item();
    const other = await s.item();
    await s.quota({ size: 4, items: [ticket.id] });
    await s.quota({ size: 10, items: [other.id] });
    const o = await s.client.post(`${s.path}/orders/`, {
      email: "buyer@example.org",
      positions: [
        { item: ticket.id },
        { item: ticket.id },
        { item: ticket.id },
        { item: ticket.id },
        { item: other.id },
      ],
    });
    expect(o.status, JSON.stringify(o.body)).toBe(201);
    for (let i = 0; i < 5; i++) {
      const r = await s.client.post(`${s.path}/waitinglistentries/`, { email: `w${i}@example.org`, item: ticket.id });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const given = async () => (await entries(s)).filter((e) => e.voucherId !== null).length;
    const [p1, p2, p3] = o.body.positions;
    expect((await s.client.delete(`${s.path}/orderpositions/${p1.id}/`)).status).toBe(204);
    expect(await given()).toBe(1);
    const change = (body: unknown) => s.client.post(`${s.path}/orders/${o.body.code}/change/`, body);
    expect((await change({ cancel_positions: [{ position: p2.id }] })).status).toBe(200);
    expect(await given()).toBe(2);
    expect((await change({ patch_positions: [{ position: p3.id, body: { item: other.id } }] })).status).toBe(200);
    expect(await given()).toBe(3);
    const fee = await s.client.post(`${s.path}/orders/${o.body.code}/mark_canceled/`, {
      cancellation_fee: "1.00",
      send_email: false,
    });
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    expect(await given()).toBe(4);
    expect((await waitingVouchers(s)).length).toBe(4);
  });

  it("the cron passes the unit of a waiting-list voucher that expired unused to the next entry", async () => {
    const w = await soldOut({ sold: 1, waiting: 2 });
    await cancel(w.s, w.sold[0].code);
    const [v] = await waitingVouchers(w.s);
    const past = new Date(Date.now() - 60_000).toISOString();
    expect((await w.s.client.patch(`${w.s.path}/vouchers/${v!.id}/`, { valid_until: past })).status).toBe(200);
    await runHousekeeping(env, Date.now());
    const after = await entries(w.s);
    expect(after.map((e) => e.voucherId !== null)).toEqual([true, true]);
    expect(await availability(w.s, w.q)).toMatchObject({ available_number: 0, blocking_vouchers: 1 });
  });
});

describe("under contention", () => {
  it("frees racing sales: vouchers and orders together never exceed the quota, no entry gets two", async () => {
    const w = await soldOut({ sold: 10, waiting: 20 });
    const calls = [
      ...w.sold.slice(0, 6).map((o) => () => cancel(w.s, o.code)),
      ...Array.from(
        { length: 14 },
        (_, i) => () =>
          w.s.client.post(`${w.s.path}/orders/`, {
            email: `racer${i}@example.org`,
            positions: [{ item: w.ticket.id }],
          }),
      ),
    ];
    const results = await Promise.all(calls.map((call) => call()));
    expect(results.slice(0, 6).every((r) => r.status === 200)).toBe(true);
    const sales = results.slice(6).filter((r) => r.status === 201).length;
    await w.s.settle();
    const live = (await db().select().from(orders).where(eq(orders.eventId, w.s.eventId))).filter(
      (o) => o.status === "n" || o.status === "p",
    );
    const given = await waitingVouchers(w.s);
    expect(live).toHaveLength(4 + sales);
    expect(live.length + given.length).toBeLessThanOrEqual(10);
    expect(given.length).toBeLessThanOrEqual(6);
    const assigned = (await entries(w.s)).filter((e) => e.voucherId !== null);
    expect(assigned).toHaveLength(given.length);
    expect(new Set(assigned.map((e) => e.voucherId)).size).toBe(given.length);
    const a = await availability(w.s, w.q);
    expect(a.available_number).toBe(10 - live.length - given.length);
    // whatever is still free goes to the waiting list at the next free or cron: none is lost
    await offerFreedCapacity({
      env,
      db: db(),
      event: (await db().select().from(events).where(eq(events.id, w.s.eventId)))[0]!,
    });
    expect(live.length + (await waitingVouchers(w.s)).length).toBe(10);
  });

  it("parallel assignments (send_voucher and offers) give each entry one voucher, exactly as many as fit", async () => {
    const w = await soldOut({ sold: 0, waiting: 10 });
    await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_auto: false });
    await w.s.client.patch(`${w.s.path}/quotas/${w.q.id}/`, { size: 4 });
    await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_auto: true });
    const event = (await db().select().from(events).where(eq(events.id, w.s.eventId)))[0]!;
    const sends = w.waiting
      .slice(0, 6)
      .map((e) => w.s.client.post(`${w.s.path}/waitinglistentries/${e.id}/send_voucher/`, {}));
    const offers = Array.from({ length: 6 }, () => offerFreedCapacity({ env, db: db(), event }));
    const [sent, offered] = await Promise.all([Promise.all(sends), Promise.all(offers)]);
    expect(sent.every((r) => r.status === 204 || r.status === 400)).toBe(true);
    const given = await waitingVouchers(w.s);
    expect(given).toHaveLength(4);
    expect(sent.filter((r) => r.status === 204).length + offered.reduce((a, b) => a + b, 0)).toBe(4);
    const withVoucher = await db()
      .select()
      .from(waitinglistEntries)
      .where(and(eq(waitinglistEntries.eventId, w.s.eventId), isNotNull(waitinglistEntries.voucherId)));
    expect(new Set(withVoucher.map((e) => e.id)).size).toBe(4);
    expect(new Set(withVoucher.map((e) => e.voucherId)).size).toBe(4);
    expect(await availability(w.s, w.q)).toMatchObject({ available_number: 0, blocking_vouchers: 4 });
  });
});

describe("when D1 fails the assignment's batch", () => {
  const ASSIGNMENT = /UPDATE waitinglist_entries SET voucher_id/;

  async function roomForOne() {
    const w = await soldOut({ sold: 0, waiting: 1 });
    await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_auto: false });
    await w.s.client.patch(`${w.s.path}/quotas/${w.q.id}/`, { size: 1 });
    const send = () => w.s.client.post(`${w.s.path}/waitinglistentries/${w.waiting[0].id}/send_voucher/`, {});
    return { ...w, send };
  }

  it("refused: nothing written, the unit is free again, a retry sends the voucher", async () => {
    const w = await roomForOne();
    injectD1Fault(ASSIGNMENT, "fail");
    const res = await w.send();
    expect([409, 503]).toContain(res.status);
    expect(await waitingVouchers(w.s)).toHaveLength(0);
    expect((await entries(w.s))[0]!.voucherId).toBeNull();
    expect(await availability(w.s, w.q)).toMatchObject({ available_number: 1, blocking_vouchers: 0 });
    expect((await w.send()).status).toBe(204);
    expect(await waitingVouchers(w.s)).toHaveLength(1);
  });

  it("answer lost after the commit: the voucher blocks its unit, no sale takes it, a retry sends no second", async () => {
    const w = await roomForOne();
    injectD1Fault(ASSIGNMENT, "lost");
    const res = await w.send();
    expect([409, 503]).toContain(res.status);
    expect(await waitingVouchers(w.s)).toHaveLength(1);
    expect(await availability(w.s, w.q)).toMatchObject({ available_number: 0, blocking_vouchers: 1 });
    const sale = await w.s.client.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] });
    expect(sale.status).toBe(400);
    const again = await w.send();
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "A voucher has already been sent to this person." });
    expect(await waitingVouchers(w.s)).toHaveLength(1);
  });
});
