/**
 * Scans answered at the event's object (issue 26, part 2; docs/scaling.md "Scans answered at the
 * event's object"): the object's storage holds what a scan's answer needs and decides; D1
 * follows through the outbox, in order, each check-in once. Shown by breaking the object's D1:
 * scans keep being answered while D1 is down and are all there, once, when it is back.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { checkins, orders } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { RETRY_MS } from "../../src/objects/event/schedule";
import { db } from "../harness";
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

/** A venue with a list and `n` paid tickets, the object warmed by a first scan (it has leased check-in ids). */
async function door(n: number) {
  const v = await venue();
  const list = await v.list();
  const tickets = [];
  for (let i = 0; i < n; i++) tickets.push(await v.sell());
  const warm = await v.sell();
  expect((await v.redeem({ secret: warm.secret, lists: [list.id] })).status).toBe(201);
  await v.settle();
  const stored = async (positionId?: number) =>
    (await db(v.org.group).select().from(checkins).where(eq(checkins.eventId, v.eventId))).filter(
      (c) => c.successful && c.positionId !== warm.id && (positionId === undefined || c.positionId === positionId),
    );
  return { v, list, tickets, stored };
}

describe("a scan is answered from the event object's storage", LOADED, () => {
  it("while the object's D1 writes hang, scans are still answered; a fresh instance writes each check-in once", async () => {
    const { v, list, tickets, stored } = await door(3);
    await breakObjectWrites(v.eventId, "hang");
    for (const t of tickets) {
      const res = await v.redeem({ secret: t.secret, lists: [list.id], nonce: `n-${t.id}` });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ status: "ok", position: { id: t.id, order: expect.any(String) } });
      expect(res.body.position.checkins).toEqual([
        expect.objectContaining({ id: expect.any(Number), list: list.id, type: "entry", auto_checked_in: false }),
      ]);
    }
    // decided at the object: a second scan is refused though D1 has nothing yet
    const again = await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "again" });
    expect(again.status).toBe(400);
    expect(again.body.reason).toBe("already_redeemed");
    expect(await stored()).toEqual([]);
    // the instance ends with its write unanswered; the next one's alarm writes what it had answered
    await endInstance(v.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    await v.settle();
    const rows = await stored();
    expect(rows.map((r) => r.positionId).sort()).toEqual(tickets.map((t) => t.id).sort());
  });

  it("the answer is the ticket as D1 shows it once the check-in is written, with the check-in's own id", async () => {
    const { v, list, tickets } = await door(1);
    const res = await v.redeem({ secret: tickets[0].secret, lists: [list.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await v.settle();
    const shown = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${tickets[0].id}/`);
    expect(shown.status).toBe(200);
    expect(res.body.position).toEqual(shown.body);
    const [row] = await db(v.org.group).select().from(checkins).where(eq(checkins.positionId, tickets[0].id));
    expect(res.body.position.checkins[0].id).toBe(row!.id);
  });

  it("D1 down for a while: every scan answered, nothing doubled; afterwards D1 holds each check-in once, in scan order", async () => {
    const { v, list, tickets, stored } = await door(12);
    await breakObjectWrites(v.eventId, "fail");
    const answers = [];
    for (const t of tickets) answers.push(await v.redeem({ secret: t.secret, lists: [list.id], nonce: `d-${t.id}` }));
    // a refused scan and a repeat are answered too
    const unpaid = await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "repeat" });
    expect(unpaid.body.reason).toBe("already_redeemed");
    expect(answers.map((a) => a.status)).toEqual(tickets.map(() => 201));
    // the writes keep failing: the alarm tries again, no later than RETRY_MS from now
    const before = Date.now();
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    const next = await alarmAt(v.eventId);
    expect(next).not.toBeNull();
    expect(next!).toBeLessThanOrEqual(Date.now() + RETRY_MS);
    expect(next!).toBeGreaterThanOrEqual(before);
    expect(await stored()).toEqual([]);
    expect(await outboxSize(v.eventId)).toBe(tickets.length + 1);
    // D1 is back
    await mendObjectWrites(v.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    const rows = await stored();
    expect(rows).toHaveLength(tickets.length);
    // in the order the scans were answered, with the ids the answers gave
    const byTicket = new Map(rows.map((r) => [r.positionId, r.id]));
    expect(tickets.map((t) => byTicket.get(t.id))).toEqual(answers.map((a) => a.body.position.checkins[0].id));
    expect([...byTicket.values()]).toEqual([...byTicket.values()].sort((a, b) => a - b));
    // the refused scan is kept for statistics, once
    const refused = (
      await db(v.org.group).select().from(checkins).where(eq(checkins.positionId, tickets[0].id))
    ).filter((c) => !c.successful);
    expect(refused.map((c) => c.errorReason)).toEqual(["already_redeemed"]);
    // nothing is left to write, nothing was written twice
    await v.settle();
    expect(await stored()).toHaveLength(tickets.length);
  });

  it("a question asked at check-in, added between two scans answered from storage: the second scan asks it", async () => {
    const { v, list, tickets } = await door(2);
    expect((await v.redeem({ secret: tickets[0].secret, lists: [list.id] })).body.status).toBe("ok");
    const q = await v.client.post(`${v.path}/questions/`, {
      question: { en: "Your shoe size?" },
      type: "N",
      required: true,
      items: [v.ticket.id],
      ask_during_checkin: true,
    });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    const asked = await v.redeem({ secret: tickets[1].secret, lists: [list.id] });
    expect(asked.status, JSON.stringify(asked.body)).toBe(400);
    expect(asked.body).toMatchObject({ status: "incomplete", questions: [expect.objectContaining({ id: q.body.id })] });
    const answered = await v.redeem({ secret: tickets[1].secret, lists: [list.id], answers: { [q.body.id]: "42" } });
    expect(answered.status, JSON.stringify(answered.body)).toBe(201);
    expect(answered.body.position.answers).toEqual([expect.objectContaining({ question: q.body.id, answer: "42" })]);
  });

  it("a check-in reaches the lists without any alarm while D1 answers", async () => {
    const { v, list, tickets } = await door(1);
    const res = await v.redeem({ secret: tickets[0].secret, lists: [list.id] });
    expect(res.status).toBe(201);
    // the object sent the write with the answer: no alarm, no further request needed
    await vi.waitFor(
      async () => {
        const shown = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${tickets[0].id}/`);
        expect(shown.body.checkins).toHaveLength(1);
      },
      { timeout: RETRY_MS, interval: 25 },
    );
  });

  it("an incremental sync that read before D1 had the check-in finds the order in its next run", async () => {
    const { v, list, tickets } = await door(1);
    await breakObjectWrites(v.eventId, "fail");
    const res = await v.redeem({ secret: tickets[0].secret, lists: [list.id] });
    expect(res.status).toBe(201);
    // a scanner syncs now: the check-in is not in D1 yet
    await new Promise((r) => setTimeout(r, 5));
    const syncedAt = new Date().toISOString();
    const first = await v.client.get(`${v.path}/orders/?modified_since=${encodeURIComponent(syncedAt)}`);
    expect(first.body.results).toEqual([]);
    await mendObjectWrites(v.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    // its next run asks for changes since its last one: the check-in's order is among them
    const next = await v.client.get(`${v.path}/orders/?modified_since=${encodeURIComponent(syncedAt)}`);
    const code = (await db(v.org.group).select().from(orders).where(eq(orders.eventId, v.eventId))).find((o) =>
      next.body.results.some((r: { code: string }) => r.code === o.code),
    )?.code;
    expect(code).toBe(res.body.position.order);
    expect(next.body.results[0].positions[0].checkins).toHaveLength(1);
  });

  it("many gates scan the same tickets at once: each ticket enters once, each answered check-in is stored once", async () => {
    const { v, list, tickets, stored } = await door(6);
    const scans = tickets.flatMap((t) =>
      Array.from({ length: 5 }, (_, i) => v.redeem({ secret: t.secret, lists: [list.id], nonce: `g-${t.id}-${i}` })),
    );
    const results = await Promise.all(scans);
    for (const [i, t] of tickets.entries()) {
      const mine = results.slice(i * 5, i * 5 + 5);
      expect(mine.filter((r) => r.status === 201)).toHaveLength(1);
      expect(mine.filter((r) => r.body.reason === "already_redeemed")).toHaveLength(4);
      void t;
    }
    await v.settle();
    const rows = await stored();
    expect(rows).toHaveLength(tickets.length);
    const ids = results.filter((r) => r.status === 201).map((r) => r.body.position.checkins[0].id);
    expect(new Set(ids).size).toBe(tickets.length);
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
  });
});

describe("the faults of a check-in's D1 write, after its answer", LOADED, () => {
  const CHECKIN_WRITE = /^INSERT INTO checkins /;

  it("D1 commits and the answer is lost: the retry writes nothing twice", async () => {
    const { v, list, tickets, stored } = await door(1);
    const fault = injectD1Fault(CHECKIN_WRITE, "lost");
    const res = await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "l-1" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await fault.reached;
    await vi.waitFor(async () => expect(await stored()).toHaveLength(1));
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect(await stored()).toHaveLength(1);
    // the scanner's retry with its nonce is the same check-in; another scan is refused
    expect((await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "l-1" })).status).toBe(201);
    expect((await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "l-2" })).body.reason).toBe(
      "already_redeemed",
    );
    await v.settle();
    expect(await stored()).toHaveLength(1);
  });

  it("D1 refuses the write: the ticket is inside all the same, and the alarm writes it once", async () => {
    const { v, list, tickets, stored } = await door(1);
    injectD1Fault(CHECKIN_WRITE, "fail");
    const res = await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "f-1" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "f-2" })).body.reason).toBe(
      "already_redeemed",
    );
    await vi.waitFor(async () => expect(await alarmAt(v.eventId)).not.toBeNull());
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    await v.settle();
    expect(await stored()).toHaveLength(1);
  });

  it("the object dies before D1 has the check-in: a fresh object's alarm writes it once and knows the ticket is inside", async () => {
    const { v, list, tickets, stored } = await door(1);
    const fault = injectD1Fault(CHECKIN_WRITE, "hang");
    const res = await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "d-1" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await fault.reached;
    await endInstance(v.eventId);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await outboxSize(v.eventId)).toBe(0);
    expect(await stored()).toHaveLength(1);
    expect((await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "d-2" })).body.reason).toBe(
      "already_redeemed",
    );
    await v.settle();
    expect(await stored()).toHaveLength(1);
  });

  it("an annulment right after the scan, its check-in not in D1 yet: the object writes it first, then it is annulled", async () => {
    const { v, list, tickets, stored } = await door(1);
    injectD1Fault(CHECKIN_WRITE, "fail");
    const res = await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "a-1" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const annul = await v.scanner.post(`/api/v1/organizers/${v.orgSlug}/checkinrpc/annul/`, {
      lists: [list.id],
      nonce: "a-1",
    });
    expect(annul.status, JSON.stringify(annul.body)).toBe(200);
    expect(annul.body).toEqual({ status: "ok" });
    expect(await stored()).toEqual([]);
    // the ticket is outside again: a new scan admits it
    expect((await v.redeem({ secret: tickets[0].secret, lists: [list.id], nonce: "a-2" })).status).toBe(201);
  });
});
