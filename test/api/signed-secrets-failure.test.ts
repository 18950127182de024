/**
 * Re-issuing a signed ticket when the event object or D1 fails midway: the change is recorded in
 * the object (no gate admits the old secret from then on) before D1 is written; a D1 write that
 * fails undoes it; an object that dies before D1 has it finishes the write from its outbox.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions, revokedSecrets } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { db } from "../harness";
import { venue } from "../helpers/checkin";
import { breakObjectWrites } from "../helpers/faults";

async function signedVenue() {
  const v = await venue();
  expect((await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig1" })).status).toBe(200);
  return v;
}

const secretInD1 = async (id: number) =>
  (await db().select({ secret: orderPositions.secret }).from(orderPositions).where(eq(orderPositions.id, id)))[0]!
    .secret;
const revokedInD1 = async (eventId: number) =>
  (await db().select().from(revokedSecrets).where(eq(revokedSecrets.eventId, eventId))).map((r) => r.secret);

describe("a re-issue when something fails", () => {
  it("D1 refuses the write: 503, nothing revoked, and the old secret still admits", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    await breakObjectWrites(v.eventId, "fail");
    const res = await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    expect(res.status).toBe(503);
    expect(await secretInD1(pos.id)).toBe(pos.secret);
    expect(await revokedInD1(v.eventId)).toEqual([]);
    await abortAllDurableObjects(); // a fresh object with working D1 (its storage kept)
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
  });

  it("the object dies after recording, before D1 has it: the old secret is refused at once; the alarm writes the change, once", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    await breakObjectWrites(v.eventId, "hang");
    const pending = v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    await new Promise((r) => setTimeout(r, 300));
    await abortAllDurableObjects();
    expect((await pending).status).toBe(503);
    expect(await secretInD1(pos.id)).toBe(pos.secret);
    // the restarted object remembers the decision: the old secret is revoked
    const scan = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(scan.status).toBe(400);
    expect(scan.body.reason).toBe("revoked");
    // its alarm makes D1 hold the new secret and the revocation, once
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    const fresh = await secretInD1(pos.id);
    expect(fresh).not.toBe(pos.secret);
    expect(await revokedInD1(v.eventId)).toEqual([pos.secret]);
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    expect(await revokedInD1(v.eventId)).toEqual([pos.secret]);
    expect((await v.redeem({ secret: fresh, lists: [list.id] })).status).toBe(201);
  });

  it("a cancellation whose object dies before D1 has it: the alarm cancels the order and revokes the secrets together", async () => {
    const v = await signedVenue();
    const order = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    await breakObjectWrites(v.eventId, "hang");
    const pending = v.client.post(`${v.path}/orders/${order.code}/mark_canceled/`, { send_email: false });
    await new Promise((r) => setTimeout(r, 300));
    await abortAllDurableObjects();
    expect((await pending).status).toBe(503);
    expect(await runDurableObjectAlarm(eventObject(env, v.eventId))).toBe(true);
    const after = (await v.client.get(`${v.path}/orders/${order.code}/`)).body;
    expect(after.status).toBe("c");
    const old = order.positions.map((p: { secret: string }) => p.secret).sort();
    expect((await revokedInD1(v.eventId)).sort()).toEqual(old);
    expect(after.positions.map((p: { secret: string }) => p.secret).filter((s: string) => old.includes(s))).toEqual([]);
  });
});
