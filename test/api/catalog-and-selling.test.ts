/** Where catalog edits meet selling: the event object hears of them ("one door"). */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventObject } from "../../src/objects/client";
import { db, HARNESS_GROUP } from "../harness";
import { shop, type Shop } from "../helpers/sales";

const availability = async (s: Shop, quotaId: number) =>
  (await s.client.get(`${s.path}/quotas/${quotaId}/availability/`)).body;
const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq }) => eq(e.slug, s.eventSlug) }))!.id;

describe("catalog edits and the event object", () => {
  it("deleting an item takes its vouchers' blocks with it", async () => {
    const s = await shop();
    const a = await s.item();
    const b = await s.item({ name: { en: "B" } });
    const q = await s.quota({ size: 10, items: [a.id, b.id] });
    await s.voucher({ item: a.id, block_quota: true, max_usages: 4 });
    expect(await availability(s, q.id)).toMatchObject({ available_number: 6, blocking_vouchers: 4 });
    expect((await s.client.delete(`${s.path}/items/${a.id}/`)).status).toBe(204);
    expect(await availability(s, q.id)).toMatchObject({ available_number: 10, blocking_vouchers: 0 });
  });

  it("a variation reserved in a cart cannot be deleted", async () => {
    const s = await shop();
    const shirt = await s.item({ variations: [{ value: { en: "S" } }, { value: { en: "M" } }] });
    await s.quota({ size: 10, items: [shirt.id], variations: shirt.variations.map((v: { id: number }) => v.id) });
    const cart = await s.client.post(`${s.path}/cartpositions/`, {
      item: shirt.id,
      variation: shirt.variations[0].id,
      price: "1.00",
    });
    const refused = await s.client.delete(`${s.path}/items/${shirt.id}/variations/${shirt.variations[0].id}/`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: "This variation cannot be deleted while it is reserved in a cart." });
    await s.client.delete(`${s.path}/cartpositions/${cart.body.id}/`);
    expect((await s.client.delete(`${s.path}/items/${shirt.id}/variations/${shirt.variations[0].id}/`)).status).toBe(
      204,
    );
  });

  it("a tax rule used by an order's fee cannot be deleted", async () => {
    const s = await shop();
    const vat = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    await s.client.post(`${s.path}/orders/`, {
      positions: [{ item: ticket.id }],
      fees: [{ fee_type: "service", value: "1.00", tax_rule: vat.id }],
    });
    expect((await s.client.delete(`${s.path}/taxrules/${vat.id}/`)).status).toBe(403);
  });

  it("deleting a quota marks the item list changed (hidden_if_available refers to quotas)", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const first = await s.client.get(`${s.path}/items/`);
    const since = first.headers.get("last-modified")!;
    await new Promise((r) => setTimeout(r, 1100));
    await s.client.delete(`${s.path}/quotas/${q.id}/`);
    expect((await s.client.get(`${s.path}/items/`, { headers: { "If-Modified-Since": since } })).status).toBe(200);
  });

  it("deleting an event clears its event object", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expect(await availability(s, q.id)).toMatchObject({ cart_positions: 1 });
    const id = await eventIdOf(s);
    expect((await s.client.delete(`${s.path}/`)).status).toBe(204);
    const holds = await runInDurableObject(
      eventObject(env, id),
      (_instance, state) => [...state.storage.sql.exec("SELECT count(*) AS n FROM holds")][0],
    );
    expect(holds).toEqual({ n: 0 });
    const quota = await runInDurableObject(eventObject(env, id), (instance) =>
      instance.quotaAvailability({ group: HARNESS_GROUP }, 0, [q.id]),
    );
    expect(quota.value).toEqual({});
  });
});
