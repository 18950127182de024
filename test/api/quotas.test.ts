/** Quotas (pretix docs quotas.rst) with availability computed by the event object. */
import { describe, expect, it } from "vitest";
import { seedTeam } from "../harness";
import { shop } from "../helpers/sales";

describe("quotas", () => {
  it("creates, reads, lists and filters quotas with exactly the resource's fields", async () => {
    const s = await shop();
    const ticket = await s.item();
    const shirt = await s.item({ name: { en: "Shirt" }, variations: [{ value: { en: "S" } }, { value: { en: "M" } }] });
    const q = await s.quota({
      name: "Main",
      size: 200,
      items: [ticket.id, shirt.id],
      variations: [shirt.variations[0].id],
    });
    expect(q).toEqual({
      id: q.id,
      name: "Main",
      size: 200,
      items: [ticket.id, shirt.id].sort((a, b) => a - b),
      variations: [shirt.variations[0].id],
      subevent: null,
      close_when_sold_out: false,
      closed: false,
      release_after_exit: false,
      ignore_for_event_availability: false,
    });
    expect((await s.client.get(`${s.path}/quotas/${q.id}/`)).body).toEqual(q);
    const list = await s.client.get(`${s.path}/quotas/`);
    expect(list.body.results).toEqual([q]);
    const withAvail = await s.client.get(`${s.path}/quotas/?with_availability=true`);
    expect(withAvail.body.results[0]).toEqual({ ...q, available: true, available_number: 200 });
  });

  it("validates items, variations and the sub-event and changes nothing on error", async () => {
    const s = await shop();
    const other = await shop();
    const foreign = await other.item();
    const shirt = await s.item({ variations: [{ value: { en: "S" } }] });
    const ticket = await s.item();
    const bad = await s.client.post(`${s.path}/quotas/`, {
      name: "Q",
      size: 5,
      items: [foreign.id, shirt.id],
      variations: [],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      items: [`Invalid pk "${foreign.id}" - object does not exist.`],
      variations: [`Item ${shirt.id} has variations, but none of them is in the variations list.`],
    });
    const strayVariation = await s.client.post(`${s.path}/quotas/`, {
      name: "Q",
      items: [ticket.id],
      variations: [shirt.variations[0].id],
    });
    expect(strayVariation.body).toEqual({
      variations: [`Variation ${shirt.variations[0].id} does not belong to one of the items of this quota.`],
    });
    expect((await s.client.post(`${s.path}/quotas/`, { name: "Q", size: -1 })).body).toEqual({
      size: ["Ensure this value is greater than or equal to 0."],
    });
    expect((await s.client.post(`${s.path}/quotas/`, { size: 5 })).body).toEqual({ name: ["This field is required."] });
    const sub = await s.client.post(`${s.path}/quotas/`, { name: "Q", subevent: 1 });
    expect(sub.body).toEqual({ subevent: ["You cannot set a subevent if the event is not an event series."] });
    expect((await s.client.get(`${s.path}/quotas/`)).body.count).toBe(0);
  });

  it("requires a date in a series and filters by it", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const d1 = await s.subevent();
    const d2 = await s.subevent({ date_from: "2030-08-01T19:00:00Z" });
    const missing = await s.client.post(`${s.path}/quotas/`, { name: "Q", items: [ticket.id] });
    expect(missing.body).toEqual({ subevent: ["Subevent cannot be null for event series."] });
    const q1 = await s.quota({ size: 10, items: [ticket.id], subevent: d1.id });
    await s.quota({ size: 10, items: [ticket.id], subevent: d2.id });
    const filtered = await s.client.get(`${s.path}/quotas/?subevent=${d1.id}`);
    expect(filtered.body.results.map((q: { id: number }) => q.id)).toEqual([q1.id]);
  });

  it("PATCH changes only sent fields, PUT resets the others; DELETE removes (also by the singular path)", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id], close_when_sold_out: true });
    const patched = await s.client.patch(`${s.path}/quotas/${q.id}/`, { size: 20 });
    expect(patched.body).toMatchObject({ size: 20, items: [ticket.id], close_when_sold_out: true });
    const put = await s.client.put(`${s.path}/quotas/${q.id}/`, { name: "New" });
    expect(put.body).toMatchObject({ name: "New", size: null, items: [], close_when_sold_out: false });
    expect((await s.client.delete(`${s.path}/quota/${q.id}/`)).status).toBe(204);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/`)).status).toBe(404);
  });

  it("answers the availability endpoint with real numbers and null for unlimited quotas", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 50, items: [ticket.id] });
    const unlimited = await s.quota({ size: null, items: [ticket.id] });
    const a = await s.client.get(`${s.path}/quotas/${q.id}/availability/`);
    expect(a.body).toEqual({
      available: true,
      available_number: 50,
      total_size: 50,
      pending_orders: 0,
      paid_orders: 0,
      exited_orders: 0,
      cart_positions: 0,
      blocking_vouchers: 0,
      waiting_list: 0,
    });
    const u = await s.client.get(`${s.path}/quotas/${unlimited.id}/availability/`);
    expect(u.body).toMatchObject({ available: true, available_number: null, total_size: null });
    await s.voucher({ item: ticket.id, block_quota: true, max_usages: 5 });
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 45,
      blocking_vouchers: 5,
    });
    await s.client.patch(`${s.path}/quotas/${q.id}/`, { size: 5 });
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available: false,
      available_number: 0,
    });
    await s.client.patch(`${s.path}/quotas/${q.id}/`, { size: 10, closed: true });
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available: false,
      available_number: 5,
    });
  });

  it("answers 304 when the list did not change since Last-Modified", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 1, items: [ticket.id] });
    const first = await s.client.get(`${s.path}/quotas/`);
    const since = first.headers.get("last-modified")!;
    expect(since).toBeTruthy();
    expect((await s.client.get(`${s.path}/quotas/`, { headers: { "If-Modified-Since": since } })).status).toBe(304);
    await new Promise((r) => setTimeout(r, 1100));
    await s.quota({ size: 2, items: [ticket.id] });
    const changed = await s.client.get(`${s.path}/quotas/`, { headers: { "If-Modified-Since": since } });
    expect(changed.status).toBe(200);
    expect(changed.body.count).toBe(2);
  });

  it("keeps quotas of other events unreachable and needs can_change_items to write", async () => {
    const s = await shop();
    const other = await shop();
    const ticket = await other.item();
    const q = await other.quota({ size: 1, items: [ticket.id] });
    expect((await s.client.get(`${s.path}/quotas/${q.id}/`)).status).toBe(404);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).status).toBe(404);
    expect((await s.client.delete(`${s.path}/quotas/${q.id}/`)).status).toBe(404);
    const weak = await seedTeam(s.org.id, { permissions: ["can_view_orders"] });
    expect((await weak.client.get(`${s.path}/quotas/`)).status).toBe(200);
    expect((await weak.client.post(`${s.path}/quotas/`, { name: "Q" })).status).toBe(403);
  });
});
