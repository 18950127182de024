/**
 * Redeeming scans (pretix docs checkin.rst): the answers and reasons of `checkinrpc/redeem` and
 * the per-list redeem, what the event object admits and refuses, and the check-ins that land
 * in D1 and in the order's positions.
 */
import { describe, expect, it } from "vitest";
import { venue } from "../helpers/checkin";

describe("checkinrpc/redeem", () => {
  it("admits a paid ticket once, then answers already_redeemed", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const first = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ status: "ok", require_attention: false, checkin_texts: [], list: { id: list.id, name: "Entrance", event: v.eventSlug, subevent: null, include_pending: false } });
    expect(first.body.position).toMatchObject({ id: pos.id, secret: pos.secret, order__status: "p" });
    expect(first.body.position.checkins).toHaveLength(1);
    const second = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({ status: "error", reason: "already_redeemed", reason_explanation: null });
  });

  it("answers 404 invalid for an unknown code", async () => {
    const v = await venue();
    const list = await v.list();
    const r = await v.redeem({ secret: "nosuchsecret", lists: [list.id] });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: "Not found.", status: "error", reason: "invalid", reason_explanation: null, require_attention: false, checkin_texts: [], list: { id: list.id, name: "Entrance", event: v.eventSlug, subevent: null, include_pending: false } });
  });
});
