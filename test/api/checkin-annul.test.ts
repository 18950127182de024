/**
 * Annulling a check-in (pretix checkin.rst "Annulment of a check-in", `checkinrpc/annul`;
 * test_checkinrpc.py test_annul_simple, test_annul_failures): the device that made a check-in
 * takes it back within 15 minutes; the check-in then shows as failed, `annulled`, the ticket is no
 * longer inside (it may enter again, an exit's freed quota is held again), and every refusal is
 * pretix's answer. Also under contention (annulments raced with re-entries) and when the event
 * object's D1 write fails or the object dies before it.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";
import { type Client, db, seedDevice, seedTeam } from "../harness";
import { venue } from "../helpers/checkin";
import { breakObjectWrites } from "../helpers/faults";

type Venue = Awaited<ReturnType<typeof venue>>;

const annulUrl = (v: Venue) => `/api/v1/organizers/${v.orgSlug}/checkinrpc/annul/`;
const annul = (v: Venue, body: Record<string, unknown>, client: Client = v.scanner) => client.post(annulUrl(v), body);
const rowsOf = (positionId: number) => db().select().from(checkins).where(eq(checkins.positionId, positionId));

describe("checkinrpc/annul", () => {
  it("the device's check-in becomes a failed one, annulled, with the explanation (test_annul_simple)", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const scan = await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "nooooonce" });
    expect(scan.status).toBe(201);
    const res = await annul(v, { lists: [list.id], nonce: "nooooonce", error_explanation: "Turnstile did not turn" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    const [row, ...others] = await rowsOf(pos.id);
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      successful: false,
      errorReason: "annulled",
      errorExplanation: "Turnstile did not turn",
      nonce: "nooooonce",
      deviceId: v.device.id,
    });
    // the history shows the annulment, also filtered by its reason; the ticket shows no check-in
    const history = await v.client.get(`${v.path}/checkins/?error_reason=annulled`);
    expect(history.body.results).toEqual([
      expect.objectContaining({
        id: row!.id,
        successful: false,
        error_reason: "annulled",
        error_explanation: "Turnstile did not turn",
        position: pos.id,
        list: list.id,
        type: "entry",
      }),
    ]);
    expect((await v.client.get(`${v.path}/orderpositions/${pos.id}/`)).body.checkins).toEqual([]);
    const status = await v.client.get(`${v.path}/checkinlists/${list.id}/status/`);
    expect(status.body).toMatchObject({ checkin_count: 0, inside_count: 0 });
    // not inside any more: the single-entry list admits the ticket again, and the same nonce is a new scan
    const again = await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "nooooonce" });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect((await rowsOf(pos.id)).filter((r) => r.successful)).toHaveLength(1);
  });

  it("refusals as pretix answers them; a refused annulment changes nothing (test_annul_failures)", async () => {
    const v = await venue();
    const list = await v.list();
    const other = await venue();
    const otherList = await other.list();
    const pos = await v.sell();
    const scan = await v.redeem({
      secret: pos.secret,
      lists: [list.id],
      nonce: "nooooonce",
      datetime: "2025-04-01T12:23:45Z",
    });
    expect(scan.status).toBe(201);

    const missing = await annul(v, { lists: [list.id] });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ nonce: ["This field is required."] });
    // another event's list of the organizer (pretix's clist_event2), and another list of this event: no
    // check-in with that nonce there
    const event2 = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/`, {
      name: { en: "Event 2" },
      slug: "event-2",
      currency: "EUR",
      date_from: "2030-06-02T19:00:00Z",
    });
    expect(event2.status).toBe(201);
    const list2 = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/event-2/checkinlists/`, {
      name: "Event 2",
      all_products: true,
    });
    const elsewhere = await v.list({ name: "Elsewhere" });
    for (const lists of [[list2.body.id], [elsewhere.id]]) {
      const wrongList = await annul(v, { lists, nonce: "nooooonce", error_explanation: "Turnstile did not turn" });
      expect(wrongList.status).toBe(404);
      expect(wrongList.body).toEqual({ detail: "No check-in found based on nonce" });
    }
    const unknown = await annul(v, { lists: [list.id], nonce: "notfound", error_explanation: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "No check-in found based on nonce" });
    const foreign = await annul(v, { lists: [otherList.id], nonce: "nooooonce" });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ lists: [`Invalid pk "${otherList.id}" - object does not exist.`] });

    // more than 15 minutes after the check-in's time (now, without a datetime)
    const late = await annul(v, { lists: [list.id], nonce: "nooooonce", error_explanation: "Turnstile did not turn" });
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ non_field_errors: ["Annulment is not allowed more than 15 minutes after check-in"] });
    // a team's key sees the device's check-in but may not annul it
    const wrongCaller = await annul(
      v,
      { lists: [list.id], nonce: "nooooonce", datetime: "2025-04-01T12:24:45Z" },
      v.client,
    );
    expect(wrongCaller.status).toBe(400);
    expect(wrongCaller.body).toEqual({ non_field_errors: ["Annulment is only allowed from the same device"] });
    // another device does not even see it
    const otherDevice = (await seedDevice(v.org.id)).client;
    const unseen = await annul(
      v,
      { lists: [list.id], nonce: "nooooonce", datetime: "2025-04-01T12:24:45Z" },
      otherDevice,
    );
    expect(unseen.status).toBe(404);
    const [row] = await rowsOf(pos.id);
    expect(row).toMatchObject({ successful: true, errorReason: null });

    // within the window, measured to the datetime the device sends: annulled; then no longer annullable
    const inTime = { lists: [list.id], nonce: "nooooonce", datetime: "2025-04-01T12:38:45Z" };
    expect((await annul(v, inTime)).status).toBe(200);
    const twice = await annul(v, inTime);
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual(["Cannot annul an unsuccessful checkin"]);
  });

  it("a failed scan is no check-in to annul; a nonce that names two check-ins is ambiguous", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    await v.redeem({ secret: pos.secret, lists: [list.id] });
    const refused = await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "refused" });
    expect(refused.body.reason).toBe("already_redeemed");
    const failed = await annul(v, { lists: [list.id], nonce: "refused" });
    expect(failed.status).toBe(400);
    expect(failed.body).toEqual(["Cannot annul an unsuccessful checkin"]);
    // the failed scan and an exit with the same nonce
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "refused", type: "exit" })).status).toBe(201);
    const both = await annul(v, { lists: [list.id], nonce: "refused" });
    expect(both.status).toBe(400);
    expect(both.body).toEqual(["Multiple check-ins found based on nonce"]);
  });

  it("a check-in made with a team's key is annulled with one; a device in kiosk mode annuls its own", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const team = (await seedTeam(v.org.id, { permissions: ["can_change_orders"] })).client;
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "by-team" }, v.client)).status).toBe(201);
    expect((await annul(v, { lists: [list.id], nonce: "by-team" }, team)).status).toBe(200);
    // a device does not see a check-in another credential made
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "by-team-2" }, v.client)).status).toBe(201);
    expect((await annul(v, { lists: [list.id], nonce: "by-team-2" })).status).toBe(404);

    const kiosk = (await seedDevice(v.org.id, { securityProfile: "pretixscan_online_kiosk" })).client;
    const other = await v.sell();
    expect((await v.redeem({ secret: other.secret, lists: [list.id], nonce: "kiosk" }, kiosk)).status).toBe(201);
    expect((await annul(v, { lists: [list.id], nonce: "kiosk" }, kiosk)).status).toBe(200);
  });

  it("an annulled exit: the ticket is inside again, and the quota its exit freed is held again", async () => {
    const v = await venue({ quota: { size: 1, release_after_exit: true } });
    const list = await v.list();
    const quota = (await v.client.get(`${v.path}/quotas/`)).body.results[0];
    const available = async () =>
      (await v.client.get(`${v.path}/quotas/${quota.id}/availability/`)).body.available_number;
    const pos = await v.sell();
    expect(await available()).toBe(0);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], type: "exit", nonce: "out" })).status).toBe(201);
    expect(await available()).toBe(1);
    expect((await annul(v, { lists: [list.id], nonce: "out" })).status).toBe(200);
    expect(await available()).toBe(0);
    // inside again: a second entry is refused
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body.reason).toBe("already_redeemed");
    const status = await v.client.get(`${v.path}/checkinlists/${list.id}/status/`);
    expect(status.body).toMatchObject({ inside_count: 1 });
    const exits = await db()
      .select()
      .from(checkins)
      .where(and(eq(checkins.positionId, pos.id), eq(checkins.type, "exit")));
    expect(exits.map((e) => [e.successful, e.errorReason])).toEqual([[false, "annulled"]]);
  });
});

describe("checkinrpc/annul under contention", () => {
  it("parallel annulments of one check-in raced with re-entries: one annulment, at most one new entry, D1 and the object agree", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "turnstile" })).status).toBe(201);
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => annul(v, { lists: [list.id], nonce: "turnstile" })),
      ...Array.from({ length: 10 }, (_, i) => v.redeem({ secret: pos.secret, lists: [list.id], nonce: `again-${i}` })),
    ]);
    const annuls = results.slice(0, 5);
    const entries = results.slice(5);
    // exactly one annulment; the others find no successful check-in any more
    expect(annuls.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of annuls.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual(["Cannot annul an unsuccessful checkin"]);
    }
    // entries decided before the annulment are refused, the first after it enters: never two inside
    const admitted = entries.filter((r) => r.status === 201);
    expect(admitted.length).toBeLessThanOrEqual(1);
    for (const r of entries.filter((r) => r.status !== 201)) expect(r.body.reason).toBe("already_redeemed");
    const rows = await rowsOf(pos.id);
    const inside = rows.filter((r) => r.successful);
    expect(inside).toHaveLength(admitted.length);
    expect(rows.filter((r) => r.errorReason === "annulled").map((r) => r.nonce)).toEqual(["turnstile"]);
    // after the race the ticket is inside exactly once: one more entry is refused, or (none got in) admitted
    const last = await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "last" });
    expect(last.status).toBe(admitted.length === 1 ? 400 : 201);
    expect((await rowsOf(pos.id)).filter((r) => r.successful)).toHaveLength(1);
    const status = await v.client.get(`${v.path}/checkinlists/${list.id}/status/`);
    expect(status.body).toMatchObject({ checkin_count: 1, inside_count: 1 });
  });
});

describe("an object that fails in the middle of an annulment", () => {
  it("a failed D1 write: 503, the check-in stays successful and the ticket inside; the next annulment takes it back", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "turnstile" })).status).toBe(201);
    await breakObjectWrites(v.eventId, "fail");
    const failed = await annul(v, { lists: [list.id], nonce: "turnstile" });
    expect(failed.status).toBe(503);
    expect(await rowsOf(pos.id)).toMatchObject([{ successful: true, errorReason: null }]);
    // the object put the passage back: the ticket is still inside
    expect(await runInDurableObject(eventObject(env, v.eventId), (o: EventObject) => o.checkinCounts())).toMatchObject({
      passages: 1,
    });
    await abortAllDurableObjects(); // a fresh object with working D1
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "again" })).body.reason).toBe(
      "already_redeemed",
    );
    expect((await annul(v, { lists: [list.id], nonce: "turnstile" })).status).toBe(200);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "after" })).status).toBe(201);
  });

  it("aborted before D1 has the annulment: the restarted object has taken the ticket out, and its alarm writes the annulment once", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "turnstile" })).status).toBe(201);
    await breakObjectWrites(v.eventId, "hang");
    const pending = annul(v, { lists: [list.id], nonce: "turnstile", error_explanation: "did not turn" });
    await new Promise((r) => setTimeout(r, 300));
    await abortAllDurableObjects();
    expect((await pending).status).toBe(503);
    expect(await rowsOf(pos.id)).toMatchObject([{ successful: true }]);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    expect(await rowsOf(pos.id)).toMatchObject([
      { successful: false, errorReason: "annulled", errorExplanation: "did not turn" },
    ]);
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    // no longer inside: it enters again, once
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "after" })).status).toBe(201);
    expect((await rowsOf(pos.id)).filter((r) => r.successful)).toHaveLength(1);
  });
});
