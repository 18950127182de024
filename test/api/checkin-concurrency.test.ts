/**
 * The event object's check-in invariants under load and failure: a ticket enters once per list
 * however many gates scan it at once; a retried scan (same nonce) makes one check-in; an
 * object that dies between decision and D1 write loses nothing and doubles nothing; a
 * restarted object still knows who is inside; a failed D1 write answers no `ok` and the next
 * scan decides afresh; `exit_all_at` fires once per firing.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkinLists, checkins } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { db } from "../harness";
import { breakObjectWrites } from "../helpers/faults";
import { venue } from "../helpers/checkin";

const successful = (positionId: number) =>
  db()
    .select()
    .from(checkins)
    .where(and(eq(checkins.positionId, positionId), eq(checkins.successful, true)));

const counts = (eventId: number) =>
  runInDurableObject(eventObject(env, eventId), (o: EventObject) => o.checkinCounts());

describe("one ticket, many gates", () => {
  it("20 parallel redeems of one ticket: exactly one ok, one check-in", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => v.redeem({ secret: pos.secret, lists: [list.id] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 400);
    expect(refused).toHaveLength(19);
    for (const r of refused) expect(r.body).toMatchObject({ status: "error", reason: "already_redeemed" });
    await v.settle();
    expect(await successful(pos.id)).toHaveLength(1);
  });

  it("20 parallel redeems of a ticket never seen by the object (read from D1 once): one ok", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    // a fresh object without the index: the ticket must come from D1
    await runInDurableObject(eventObject(env, v.eventId), (o: EventObject) => o.eventDeleted());
    await abortAllDurableObjects();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => v.redeem({ secret: pos.secret, lists: [list.id] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    await v.settle();
    expect(await successful(pos.id)).toHaveLength(1);
  });

  it("the same nonce sent twice (also in parallel): both ok, one check-in", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const body = { secret: pos.secret, lists: [list.id], nonce: "Pvrk50vUzQd0DhdpNRL4I4OcXsvg70uA" };
    const [a, b] = await Promise.all([v.redeem(body), v.redeem(body)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const again = await v.redeem(body);
    expect(again.status).toBe(201);
    expect(again.body.status).toBe("ok");
    await v.settle();
    expect(await successful(pos.id)).toHaveLength(1);
    // another nonce is another scan: refused
    expect((await v.redeem({ ...body, nonce: "another" })).body.reason).toBe("already_redeemed");
  });

  it("a ticket valid on two lists enters once on each, also under contention", async () => {
    const v = await venue();
    const a = await v.list({ name: "Hall A" });
    const b = await v.list({ name: "Hall B" });
    const pos = await v.sell();
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => v.redeem({ secret: pos.secret, lists: [a.id] })),
      ...Array.from({ length: 10 }, () => v.redeem({ secret: pos.secret, lists: [b.id] })),
    ]);
    const ok = results.filter((r) => r.status === 201);
    expect(ok.map((r) => r.body.list.id).sort()).toEqual([a.id, b.id].sort());
    await v.settle();
    const rows = await successful(pos.id);
    expect(rows.map((r) => r.listId).sort()).toEqual([a.id, b.id].sort());
  });
});

describe("an object that fails in the middle of a check-in", () => {
  it("aborted after deciding, before D1 has the check-in: the alarm writes it, once; the ticket stays admitted", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    await breakObjectWrites(v.eventId, "hang");
    const pending = v.redeem({ secret: pos.secret, lists: [list.id] });
    await new Promise((r) => setTimeout(r, 300));
    await abortAllDurableObjects();
    const lost = await pending;
    expect(lost.status).toBe(503);
    expect(await successful(pos.id)).toHaveLength(0);
    // the restarted object still knows the decision: no second entry
    const again = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(again.body.reason).toBe("already_redeemed");
    // its alarm replays the outbox: the check-in lands in D1, once
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await successful(pos.id)).toHaveLength(1);
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    expect(await successful(pos.id)).toHaveLength(1);
  });

  it("restarted: it still knows which tickets are inside and how often each entered", async () => {
    const v = await venue();
    const list = await v.list({ allow_multiple_entries: true });
    const strict = await v.list({ name: "Strict", allow_entry_after_exit: false });
    const p1 = await v.sell();
    const p2 = await v.sell();
    for (let i = 0; i < 3; i++) expect((await v.redeem({ secret: p1.secret, lists: [list.id] })).status).toBe(201);
    expect((await v.redeem({ secret: p2.secret, lists: [strict.id] })).status).toBe(201);
    expect((await v.redeem({ secret: p2.secret, lists: [strict.id], type: "exit" })).status).toBe(201);
    const before = await counts(v.eventId);
    await abortAllDurableObjects();
    // the restarted object has the same passages without reading any check-in from D1
    expect(await counts(v.eventId)).toEqual(before);
    expect(before.passages).toBe(5);
    await v.settle();
    // p2 left the strict list: no entry after exit there
    expect((await v.redeem({ secret: p2.secret, lists: [strict.id] })).body.reason).toBe("already_redeemed");
    const status = await v.client.get(`${v.path}/checkinlists/${list.id}/status/`);
    expect(status.body).toMatchObject({ checkin_count: 1, inside_count: 1 });
    const positions = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?order=${p1.order}`);
    expect(positions.body.results[0].checkins).toHaveLength(3);
  });

  it("a failed D1 write of a check-in: no ok, and the next scan decides afresh", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    await breakObjectWrites(v.eventId, "fail");
    const failed = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(failed.status).toBe(503);
    expect(failed.headers.get("retry-after")).toBe("1");
    expect(await successful(pos.id)).toHaveLength(0);
    // nothing was kept: the object does not think the ticket is inside
    expect((await counts(v.eventId)).passages).toBe(0);
    await abortAllDurableObjects(); // a fresh object with working D1
    const next = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(next.status).toBe(201);
    expect(await successful(pos.id)).toHaveLength(1);
  });
});

describe("automatic exit (exit_all_at)", () => {
  it("an alarm firing twice makes one automatic exit for everyone inside, and moves the time exactly one day", async () => {
    const v = await venue({ event: { timezone: "Europe/Berlin" } });
    const at = Date.now() - 3_600_000;
    const list = await v.list({ exit_all_at: new Date(at).toISOString() });
    const inside = await v.sell();
    const left = await v.sell();
    const never = await v.sell();
    await v.redeem({ secret: inside.secret, lists: [list.id], datetime: new Date(at - 7_200_000).toISOString() });
    await v.redeem({ secret: left.secret, lists: [list.id], datetime: new Date(at - 7_200_000).toISOString() });
    await v.redeem({
      secret: left.secret,
      lists: [list.id],
      type: "exit",
      datetime: new Date(at - 3_600_000).toISOString(),
    });
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    const autoExits = await db()
      .select()
      .from(checkins)
      .where(and(eq(checkins.listId, list.id), eq(checkins.autoCheckedIn, true), eq(checkins.type, "exit")));
    expect(autoExits.map((c) => c.positionId)).toEqual([inside.id]);
    expect(autoExits[0]!.datetime).toBe(at);
    expect((await successful(never.id)).length).toBe(0);
    const [row] = await db().select().from(checkinLists).where(eq(checkinLists.id, list.id));
    expect(row!.exitAllAt! - at).toBe(86_400_000);
    const shown = await v.client.get(`${v.path}/checkinlists/${list.id}/`);
    expect(shown.body.exit_all_at).toBe(new Date(at + 86_400_000).toISOString());
    // whoever was inside may enter again (allow_entry_after_exit is on by default)
    expect((await v.redeem({ secret: inside.secret, lists: [list.id] })).status).toBe(201);
  });

  it("a day that skips the hour fires an hour later, and the day after goes back to the configured local time (pretix's test_auto_check_out_dst)", async () => {
    const v = await venue({ event: { timezone: "Europe/Berlin" } });
    // 2021-03-27 02:30 in Berlin; 2021-03-28 has no 02:30
    const list = await v.list({ exit_all_at: "2021-03-27T02:30:00+01:00" });
    const moves: string[] = [];
    for (let i = 0; i < 3; i++) {
      await runDurableObjectAlarm(eventObject(env, v.eventId));
      moves.push((await v.client.get(`${v.path}/checkinlists/${list.id}/`)).body.exit_all_at);
    }
    expect(moves).toEqual([
      "2021-03-28T01:30:00Z", // 03:30 CEST
      "2021-03-29T00:30:00Z", // 02:30 CEST
      "2021-03-30T00:30:00Z",
    ]);
    // restarted, the object still knows which local time the list's exit stands for
    const again = await v.list({ name: "Restart", exit_all_at: "2021-03-27T02:30:00+01:00" });
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    await abortAllDurableObjects();
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    const shown = await v.client.get(`${v.path}/checkinlists/${again.id}/`);
    expect(shown.body.exit_all_at).toBe("2021-03-29T00:30:00Z");
  });

  it("an object that dies while writing the automatic exits: after restart the firing is not repeated, and the outbox writes it once", async () => {
    const v = await venue();
    const at = Date.now() - 60_000;
    const list = await v.list({ exit_all_at: new Date(at).toISOString() });
    const inside = await v.sell();
    await v.redeem({ secret: inside.secret, lists: [list.id], datetime: new Date(at - 60_000).toISOString() });
    await breakObjectWrites(v.eventId, "hang");
    const firing = runDurableObjectAlarm(eventObject(env, v.eventId)).catch(() => false);
    await new Promise((r) => setTimeout(r, 300));
    await abortAllDurableObjects();
    await firing;
    // D1 still has the old exit_all_at; the restarted object knows the firing happened
    const [before] = await db().select().from(checkinLists).where(eq(checkinLists.id, list.id));
    expect(before!.exitAllAt).toBe(at);
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    const exits = await db()
      .select()
      .from(checkins)
      .where(and(eq(checkins.listId, list.id), eq(checkins.type, "exit")));
    expect(exits).toHaveLength(1);
    const [after] = await db().select().from(checkinLists).where(eq(checkinLists.id, list.id));
    expect(after!.exitAllAt).toBe(at + 86_400_000);
  });
});
