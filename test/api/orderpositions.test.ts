/**
 * Order positions (pretix docs orders.rst "Fetching individual positions", "Manipulating
 * individual positions"; api/orderpositions.ts): one ticket by its id, as its order shows it,
 * and its blocks, which scans and the blocked list obey. The re-issue of a ticket's secret is
 * tested with the secrets it revokes, in signed-secrets.test.ts.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { positionResponse } from "../../src/api/orderpositions";
import { blockedSecrets, checkins, orderPositions } from "../../src/db/schema";
import { db, type Json, seedOrganizer } from "../harness";
import { signedVenue } from "../helpers/checkin";
import { shop } from "../helpers/sales";

describe("an order position", () => {
  it("is the ticket as its order shows it; canceled, only with include_canceled_positions; 404 for other events' tickets", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const made = await s.client.post(`${s.path}/orders/`, {
      email: "buyer@example.org",
      positions: [
        { item: ticket.id, attendee_name: "Ada Lovelace", attendee_email: "ada@example.org" },
        { item: ticket.id, attendee_name: "Charles Babbage" },
      ],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const order = made.body;
    const [first, second] = order.positions;
    const detail = await s.client.get(`${s.path}/orderpositions/${first.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual(first);
    expect(detail.body).toMatchObject({
      id: first.id,
      order: order.code,
      positionid: 1,
      item: ticket.id,
      price: "20.00",
      attendee_name: "Ada Lovelace",
      attendee_email: "ada@example.org",
      blocked: null,
      checkins: [],
    });
    // the response schema describes the wire exactly (no field more, none less)
    expect(positionResponse.strict().parse(detail.body)).toEqual(detail.body);
    expect((await s.client.get(`${s.path}/orderpositions/${second.id}/`)).body.attendee_name).toBe("Charles Babbage");

    // a canceled position is not found, unless asked for
    await db().update(orderPositions).set({ canceled: true }).where(eq(orderPositions.id, second.id));
    expect((await s.client.get(`${s.path}/orderpositions/${second.id}/`)).status).toBe(404);
    const canceled = await s.client.get(`${s.path}/orderpositions/${second.id}/?include_canceled_positions=true`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: second.id, order: order.code, secret: second.secret });
    const bad = await s.client.get(`${s.path}/orderpositions/${first.id}/?include_canceled_positions=perhaps`);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(["include_canceled_positions"]);

    // another event's ticket, an unknown or malformed id: 404; another organizer: 403
    const other = await shop();
    expect((await other.client.get(`${other.path}/orderpositions/${first.id}/`)).status).toBe(404);
    for (const id of ["999999", "abc"])
      expect((await s.client.get(`${s.path}/orderpositions/${id}/`)).status, id).toBe(404);
    const stranger = await seedOrganizer();
    expect((await stranger.client.get(`${s.path}/orderpositions/${first.id}/`)).status).toBe(403);
  });
});

describe("blocks (add_block, remove_block) and the blocked list", () => {
  it("a blocked ticket is refused (blocked), listed as blocked; unblocked, it admits again and the list says so", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    const blocked = await v.client.post(`${v.path}/orderpositions/${pos.id}/add_block/`, { name: "admin" });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ id: pos.id, secret: pos.secret, blocked: ["admin"] });
    expect(
      (await v.client.post(`${v.path}/orderpositions/${pos.id}/add_block/`, { name: "api:door_7" })).body.blocked,
    ).toEqual(["admin", "api:door_7"]);
    const refused = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      status: "error",
      reason: "blocked",
      position: { id: pos.id, blocked: ["admin", "api:door_7"] },
    });
    const listed = (await v.client.get(`${v.path}/blockedsecrets/`)).body;
    expect(listed).toMatchObject({
      count: 1,
      results: [{ id: expect.any(Number), secret: pos.secret, blocked: true, updated: expect.any(String) }],
    });
    // one of two blocks lifted: still blocked
    expect(
      (await v.client.post(`${v.path}/orderpositions/${pos.id}/remove_block/`, { name: "admin" })).body.blocked,
    ).toEqual(["api:door_7"]);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body.reason).toBe("blocked");
    await db()
      .update(blockedSecrets)
      .set({ updated: Date.parse(listed.results[0].updated) - 1000 })
      .where(eq(blockedSecrets.secret, pos.secret));
    const freed = await v.client.post(`${v.path}/orderpositions/${pos.id}/remove_block/`, { name: "api:door_7" });
    expect(freed.body.blocked).toBeNull();
    const after = (await v.client.get(`${v.path}/blockedsecrets/`)).body.results;
    expect(after).toEqual([
      { id: listed.results[0].id, secret: pos.secret, blocked: false, updated: expect.any(String) },
    ]);
    expect(Date.parse(after[0].updated)).toBeGreaterThan(Date.parse(listed.results[0].updated) - 1000);
    expect((await v.client.get(`${v.path}/blockedsecrets/?blocked=true`)).body.count).toBe(0);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
  });

  it("a forced scan of a blocked ticket passes, marked forced; a re-issued blocked ticket's new secret is blocked too", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    await v.client.post(`${v.path}/orderpositions/${pos.id}/add_block/`, { name: "admin" });
    const forced = await v.redeem({ secret: pos.secret, lists: [list.id], force: true });
    expect(forced.status).toBe(201);
    const [row] = await db().select().from(checkins).where(eq(checkins.positionId, pos.id));
    expect(row).toMatchObject({ successful: true, forced: true, forceSent: true });
    const fresh = (await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`)).body;
    expect(fresh.blocked).toEqual(["admin"]);
    const listed = (await v.client.get(`${v.path}/blockedsecrets/?blocked=true`)).body.results.map(
      (r: Json) => r.secret,
    );
    expect(listed.sort()).toEqual([pos.secret, fresh.secret].sort());
    expect((await v.redeem({ secret: fresh.secret, lists: [list.id], type: "exit" })).body.reason).toBe("blocked");
  });

  it("block names: admin or api:…; anything else is a 400 field error and changes nothing", async () => {
    const v = await signedVenue();
    const pos = await v.sell();
    for (const name of ["plugin:x", "api:", "api:no spaces", "", "ADMIN"]) {
      const res = await v.client.post(`${v.path}/orderpositions/${pos.id}/add_block/`, { name });
      expect(res.status, name).toBe(400);
      expect(Object.keys(res.body)).toEqual(["name"]);
    }
    expect((await v.client.post(`${v.path}/orderpositions/${pos.id}/add_block/`, {})).status).toBe(400);
    expect((await v.client.get(`${v.path}/orderpositions/${pos.id}/`)).body.blocked).toBeNull();
    expect((await v.client.get(`${v.path}/blockedsecrets/`)).body.count).toBe(0);
  });
});
