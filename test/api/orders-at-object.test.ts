/**
 * Orders answered at the event's object (issue 26, part 2; docs/scaling.md "Orders answered at
 * the event's object"): the object decides, gives the order its D1 ids from its leased blocks
 * and answers; D1 gets the order afterwards through the outbox, once. Shown by breaking the
 * object's D1: orders keep being answered while D1 is down and are all there, once, with the ids
 * the answers gave, when it is back; an order is readable by code as soon as it was answered.
 */
import { createExecutionContext, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { checkins, mailOutbox, orderPositions, orders, vouchers } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { AHEAD_LIMIT } from "../../src/objects/event/outbox";
import { RETRY_MS } from "../../src/objects/event/schedule";
import { BASE, db, HARNESS_GROUP, type Json } from "../harness";
import { ordersOf, shop } from "../helpers/sales";
import { createApp } from "../../src/app";
import { venue } from "../helpers/checkin";
import {
  alarmAt,
  breakObjectWrites,
  endInstance,
  injectD1Fault,
  mendObjectWrites,
  outboxSize,
} from "../helpers/faults";

const LOADED = { timeout: 60_000 };

/**
 * A venue with a list and a voucher (3 uses) whose object has placed an order and admitted its
 * ticket already (it holds the catalog and leased ids); what D1 holds of its other orders.
 */
async function boxOffice(quota: Record<string, unknown> = {}) {
  const v = await venue({ quota });
  const list = await v.list();
  const voucher = await v.voucher({ max_usages: 3 });
  const warm = await v.order();
  // and a scan (it holds leased check-in ids)
  expect((await v.redeem({ secret: warm.positions[0].secret, lists: [list.id] })).status).toBe(201);
  await v.settle();
  const stored = async () =>
    (await db(v.org.group).select().from(orders).where(eq(orders.eventId, v.eventId))).filter(
      (o) => o.code !== warm.code,
    );
  const pending = (body: Record<string, unknown> = {}) =>
    v.client.post(`${v.path}/orders/`, { email: "b@example.org", positions: [{ item: v.ticket.id }], ...body });
  return { v, list, voucher, warm, stored, pending };
}

/** An order as the API shows it, but for `last_modified` (the time D1 got it). */
const shown = ({ last_modified: _, ...rest }: Json) => rest;

describe("an order is answered at the event's object", LOADED, () => {
  it("while the object's D1 writes hang, orders are answered with their ids; D1 then holds each as answered", async () => {
    const { v, stored, pending } = await boxOffice();
    await breakObjectWrites(v.eventId, "hang");
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const res = await pending({
        payment_provider: "manual",
        fees: [{ fee_type: "service", value: "1.50" }],
        invoice_address: { name_parts: { given_name: "Ada", family_name: "Byron" }, city: "London", country: "GB" },
        positions: [
          { item: v.ticket.id, attendee_name_parts: { given_name: "Ada" }, attendee_email: "ada@example.org" },
          { item: v.ticket.id },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      answers.push(res.body);
    }
    expect(await stored()).toEqual([]);
    // the instance ends with its write unanswered; the next one's alarm writes what it had answered
    await endInstance(v.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect((await stored()).map((o) => o.code).sort()).toEqual(answers.map((a) => a.code).sort());
    for (const a of answers) {
      const read = await v.client.get(`${v.path}/orders/${a.code}/`);
      expect(read.status).toBe(200);
      expect(shown(read.body)).toEqual(shown(a));
      expect(Date.parse(read.body.last_modified)).toBeGreaterThanOrEqual(Date.parse(a.last_modified));
    }
  });

  it("a ticket sold a moment ago enters from the object's storage; the scan's answer is the ticket as D1 shows it after", async () => {
    const { v, list, pending } = await boxOffice();
    const auto = await v.list({ name: "Box office", auto_checkin_sales_channels: ["web"] });
    await breakObjectWrites(v.eventId, "fail");
    const res = await pending({
      status: "p",
      payment_provider: "manual",
      positions: [{ item: v.ticket.id, attendee_name_parts: { given_name: "Grace", family_name: "Hopper" } }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // checked in on the box office's list with the order (pretix auto_checkin_sales_channels), its id in the answer
    expect(res.body.positions[0].checkins).toEqual([expect.objectContaining({ list: auto.id, auto_checked_in: true })]);
    const scan = await v.redeem({ secret: res.body.positions[0].secret, lists: [list.id] });
    expect(scan.status, JSON.stringify(scan.body)).toBe(201);
    await mendObjectWrites(v.eventId);
    await v.settle();
    const after = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${res.body.positions[0].id}/`);
    expect(after.status).toBe(200);
    expect(scan.body.position).toEqual(after.body);
    const read = await v.client.get(`${v.path}/orders/${res.body.code}/`);
    expect(read.body.positions[0].checkins.map((c: Json) => c.id)).toContain(res.body.positions[0].checkins[0].id);
  });

  it("an order is readable by code, and can be paid, right after its answer", async () => {
    const { v, pending } = await boxOffice();
    const res = await pending({ payment_provider: "manual" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = await v.client.get(`${v.path}/orders/${res.body.code}/`);
    expect(read.status).toBe(200);
    expect(shown(read.body)).toEqual(shown(res.body));
    const paid = await v.client.post(`${v.path}/orders/${(await pending()).body.code}/mark_paid/`, {});
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.status).toBe("p");
    expect((await v.client.get(`${v.path}/orders/NOPE1/`)).status).toBe(404);
  });

  it("while D1 cannot take an answered order, a read by its code says retry (503), never 404; once D1 is back it is there", async () => {
    const { v, pending } = await boxOffice();
    await breakObjectWrites(v.eventId, "fail");
    const res = await pending();
    expect(res.status).toBe(201);
    const during = await v.client.get(`${v.path}/orders/${res.body.code}/`);
    expect(during.status).toBe(503);
    expect(during.headers.get("retry-after")).toBe("1");
    await mendObjectWrites(v.eventId);
    // no alarm needed: the read asks the object to write what it holds
    const after = await v.client.get(`${v.path}/orders/${res.body.code}/`);
    expect(after.status).toBe(200);
    expect(shown(after.body)).toEqual(shown(res.body));
  });

  it("D1 down for a while: orders and scans go on; afterwards D1 holds each order, voucher use, mail and check-in once", async () => {
    const { v, list, voucher, stored, pending } = await boxOffice();
    await breakObjectWrites(v.eventId, "fail");
    const answers: Json[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await pending({
        status: "p",
        payment_provider: "manual",
        email: `${v.eventSlug}-${i}@example.org`,
        send_email: true,
        positions: [{ item: v.ticket.id, ...(i < 3 ? { voucher: voucher.code } : {}) }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      answers.push(res.body);
    }
    // the voucher's uses are the object's to count: a fourth is refused though D1 has none yet
    const fourth = await pending({ positions: [{ item: v.ticket.id, voucher: voucher.code }] });
    expect(fourth.status).toBe(400);
    // a ticket sold while D1 was down enters, once
    const secret = answers[0].positions[0].secret;
    expect((await v.redeem({ secret, lists: [list.id] })).status).toBe(201);
    expect((await v.redeem({ secret, lists: [list.id] })).body.reason).toBe("already_redeemed");
    // the writes keep failing: the alarm tries again, no later than RETRY_MS from now
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect((await alarmAt(v.eventId))!).toBeLessThanOrEqual(Date.now() + RETRY_MS);
    expect(await stored()).toEqual([]);
    // D1 is back
    await mendObjectWrites(v.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    const rows = await stored();
    expect(rows.map((o) => o.code).sort()).toEqual(answers.map((a) => a.code).sort());
    const positions = await db(v.org.group).select().from(orderPositions).where(eq(orderPositions.eventId, v.eventId));
    // each with the ids its answer gave
    for (const a of answers)
      expect(positions.filter((p) => p.id === a.positions[0].id).map((p) => p.secret)).toEqual([a.positions[0].secret]);
    const [used] = await db(v.org.group).select().from(vouchers).where(eq(vouchers.id, voucher.id));
    expect(used!.redeemed).toBe(3);
    const mails = await db(v.org.group).select().from(mailOutbox);
    for (const a of answers)
      expect(mails.filter((m) => m.toAddress === a.email).map((m) => m.kind)).toEqual(["order_placed", "order_paid"]);
    const entered = await db(v.org.group)
      .select()
      .from(checkins)
      .where(eq(checkins.positionId, answers[0].positions[0].id));
    expect(entered.filter((c) => c.successful)).toHaveLength(1);
    // nothing is left to write, nothing was written twice
    await v.settle();
    expect(await stored()).toHaveLength(answers.length);
  });

  it("D1 commits an answered order and its answer is lost: the retry finds it there and writes nothing twice", async () => {
    const { v, stored, pending } = await boxOffice();
    const fault = injectD1Fault(/^insert into "orders"/, "lost");
    const email = `${v.eventSlug}-lost@example.org`;
    const res = await pending({ email, send_email: true, payment_provider: "manual" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await fault.reached;
    await vi.waitFor(async () => expect(await alarmAt(v.eventId)).not.toBeNull());
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect((await stored()).map((o) => o.code)).toEqual([res.body.code]);
    const mails = await db(v.org.group).select().from(mailOutbox).where(eq(mailOutbox.toAddress, email));
    expect(mails).toHaveLength(1);
  });

  it("with D1 AHEAD_LIMIT decisions behind, an order waits for D1 again (D1 never falls further behind)", async () => {
    const { v, stored, pending } = await boxOffice();
    await breakObjectWrites(v.eventId, "fail");
    // decisions D1 does not have yet, up to the limit (carts with nothing to write: they clear once D1 answers)
    await runInDurableObject(eventObject(env, v.eventId), (_: EventObject, state: DurableObjectState) => {
      for (let i = 0; i < AHEAD_LIMIT; i++)
        state.storage.sql.exec(
          "INSERT INTO outbox (payload, created) VALUES (?, ?)",
          JSON.stringify({ kind: "carts", rows: [] }),
          Date.now(),
        );
    });
    expect((await pending()).status).toBe(503);
    await mendObjectWrites(v.eventId);
    const waited = await pending();
    expect(waited.status).toBe(201);
    // written before its answer: D1 has it without the object being asked
    expect((await stored()).map((o) => o.code)).toEqual([waited.body.code]);
    await v.settle();
    expect(await outboxSize(v.eventId)).toBe(0);
  });

  it("an incremental sync that read before D1 had the order finds it in its next run", async () => {
    const { v, pending } = await boxOffice();
    await breakObjectWrites(v.eventId, "fail");
    const res = await pending();
    expect(res.status).toBe(201);
    const first = await v.client.get(`${v.path}/orders/`);
    expect(first.body.results.map((o: Json) => o.code)).not.toContain(res.body.code);
    const since = first.headers.get("x-page-generated")!;
    await mendObjectWrites(v.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    const next = await v.client.get(`${v.path}/orders/?modified_since=${encodeURIComponent(since)}`);
    expect(next.body.results.map((o: Json) => o.code)).toEqual([res.body.code]);
  });

  it("many buyers at once for the last tickets: never oversold; D1 holds each sold order once, with distinct ids", async () => {
    const { v, stored, pending } = await boxOffice({ size: 11 });
    const results = await Promise.all(Array.from({ length: 30 }, () => pending()));
    const sold = results.filter((r) => r.status === 201);
    expect(sold).toHaveLength(10);
    expect(results.filter((r) => r.status === 400)).toHaveLength(20);
    await v.settle();
    const rows = await stored();
    expect(rows.map((o) => o.code).sort()).toEqual(sold.map((r) => r.body.code).sort());
    expect(new Set(sold.map((r) => r.body.positions[0].id)).size).toBe(10);
  });

  it("an order whose code or secret the client chose is written before its answer (D1 decides on them)", async () => {
    const { v, stored, pending } = await boxOffice();
    await breakObjectWrites(v.eventId, "fail");
    expect((await pending({ code: "CHOSEN1" })).status).toBe(503);
    expect((await pending({ positions: [{ item: v.ticket.id, secret: "chosen-secret-1" }] })).status).toBe(503);
    await mendObjectWrites(v.eventId);
    expect((await pending({ code: "CHOSEN1" })).status).toBe(201);
    expect((await stored()).map((o) => o.code)).toEqual(["CHOSEN1"]);
  });
});

describe("an order's reads start at the nearest copy", LOADED, () => {
  it("a copy that lags behind entirely: the credential and the catalog are read again at the primary, and the order is taken", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    // the organizer's "copy" is group 1's database, which has none of its rows
    const lagging = {
      withSession: (c?: string) => (c === "first-unconstrained" ? env.DB : env.DB_2).withSession(c),
    } as unknown as D1Database;
    const post = (authorization: string) =>
      createApp().fetch(
        new Request(`${BASE}${s.path}/orders/`, {
          method: "POST",
          headers: { Authorization: authorization, "Content-Type": "application/json" },
          body: JSON.stringify({ email: "copy@example.org", positions: [{ item: ticket.id }] }),
        }),
        { ...env, DB_2: lagging },
        createExecutionContext(),
      );
    const placed = await post(s.client.authorization!);
    expect(placed.status, await placed.clone().text()).toBe(201);
    expect(((await placed.json()) as Json).positions[0].item).toBe(ticket.id);
    expect((await post("Token not-a-token")).status).toBe(401);
    expect(await ordersOf(s.eventId)).toHaveLength(1);
  });

  it("a catalog older than the one the event's object holds is refused as stale (the service reads it again at the primary)", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    expect((await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).status).toBe(201);
    const request = { code: "STALE1", demands: [], paid: false, consumeCartIds: [], ignoreQuota: false };
    const object = eventObject(env, s.eventId);
    const { value: stale } = await object.placeOrder({ group: HARNESS_GROUP }, 0, {
      ...request,
      write: {} as never,
      catalogFromReplica: true,
    });
    expect(stale).toEqual({ ok: false, refusals: [], staleCatalog: true });
    expect(await ordersOf(s.eventId)).toHaveLength(1);
  });
});
