/**
 * Replaying an outbox entry (issue 36 point 6; docs/event-object.md): an order's entry that D1
 * already holds, replayed by the alarm, writes nothing twice (no second order, position, voucher
 * use, mail, webhook call or ledger row) and leaves the outbox empty.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { vouchers } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { db } from "../harness";
import { venue } from "../helpers/checkin";
import { breakObjectWrites, mendObjectWrites, outboxSize } from "../helpers/faults";

/** What D1 holds of the event's orders, counted per table. */
async function held(group: number, eventId: number) {
  const count = async (q: ReturnType<typeof sql>) => (await db(group).all<{ n: number }>(q))[0]!.n;
  const ofOrders = sql`(SELECT id FROM orders WHERE event_id = ${eventId})`;
  return {
    orders: await count(sql`SELECT count(*) AS n FROM orders WHERE event_id = ${eventId}`),
    positions: await count(sql`SELECT count(*) AS n FROM order_positions WHERE event_id = ${eventId}`),
    payments: await count(sql`SELECT count(*) AS n FROM order_payments WHERE order_id IN ${ofOrders}`),
    transactions: await count(sql`SELECT count(*) AS n FROM order_transactions WHERE event_id = ${eventId}`),
    mails: await count(sql`SELECT count(*) AS n FROM mail_outbox`),
    webhookCalls: await count(sql`SELECT count(*) AS n FROM webhook_calls`),
    tallies: await count(sql`SELECT coalesce(sum(n), 0) AS n FROM position_tallies WHERE event_id = ${eventId}`),
  };
}

describe("replaying an order's outbox entry", () => {
  it("that D1 already holds writes nothing twice and empties the outbox", async () => {
    const v = await venue();
    const voucher = await v.voucher({ max_usages: 5 });
    await v.order();
    // the order's entry, kept while the object's D1 writes fail
    await breakObjectWrites(v.eventId, "fail");
    const res = await v.client.post(`${v.path}/orders/`, {
      email: "replayed@example.org",
      send_email: true,
      payment_provider: "manual",
      positions: [{ item: v.ticket.id, voucher: voucher.code }, { item: v.ticket.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const entries = await runInDurableObject(
      eventObject(env, v.eventId),
      (_: EventObject, state: DurableObjectState) => [
        ...state.storage.sql.exec<{ payload: string }>("SELECT payload FROM outbox ORDER BY id"),
      ],
    );
    const entry = entries.map((e) => e.payload).find((p) => JSON.parse(p).kind === "order");
    expect(entry).toBeDefined();
    await mendObjectWrites(v.eventId);
    await v.settle();
    expect(await outboxSize(v.eventId)).toBe(0);
    const before = await held(v.org.group, v.eventId);
    expect(before.orders).toBe(2);
    const redeemed = async () =>
      (await db(v.org.group).select().from(vouchers).where(eq(vouchers.id, voucher.id)))[0]!.redeemed;
    expect(await redeemed()).toBe(1);

    // the same entry again, as an alarm after a lost answer would find it
    await runInDurableObject(eventObject(env, v.eventId), async (_: EventObject, state: DurableObjectState) => {
      state.storage.sql.exec("INSERT INTO outbox (payload, created) VALUES (?, ?)", entry!, Date.now());
      await state.storage.setAlarm(Date.now());
    });
    expect(await outboxSize(v.eventId)).toBe(1);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect(await held(v.org.group, v.eventId)).toEqual(before);
    expect(await redeemed()).toBe(1);
    const shown = await v.client.get(`${v.path}/orders/${res.body.code}/`);
    expect(shown.status).toBe(200);
    expect(shown.body.positions).toHaveLength(2);
  });
});
