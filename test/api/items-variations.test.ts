import { beforeAll, describe, expect, it } from "vitest";
import { seedDevice, seedOrganizer, seedTeam } from "../harness";
import {
  createItem,
  createMembershipType,
  otherEvent,
  seedOrderPosition,
  setEventSalesChannels,
  setItemMetaProperties,
  variation,
  type World,
  world,
} from "../helpers/items";

let w: World;
beforeAll(async () => {
  w = await world();
});

const url = (itemId: number, id?: number) => `${w.ev}/items/${itemId}/variations/${id === undefined ? "" : `${id}/`}`;

describe("variation list and detail", () => {
  it("lists the item's variations with the active filter, ordered by id by default", async () => {
    const item = await createItem(w, {
      variations: [
        variation("B", { position: 2 }),
        variation("A", { position: 1, active: false }),
        variation("C", { position: 0 }),
      ],
    });
    const [b, a, c] = item.variations.sort((x: { id: number }, y: { id: number }) => x.id - y.id);
    const all = await w.client.get(url(item.id));
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(3);
    expect(all.body.results.map((v: { id: number }) => v.id)).toEqual([b.id, a.id, c.id]);
    expect(
      (await w.client.get(`${url(item.id)}?ordering=position`)).body.results.map((v: { id: number }) => v.id),
    ).toEqual([c.id, a.id, b.id]);
    expect((await w.client.get(`${url(item.id)}?active=false`)).body.results.map((v: { id: number }) => v.id)).toEqual([
      a.id,
    ]);
    expect((await w.client.get(`${url(item.id)}?active=true`)).body.count).toBe(2);
    expect((await w.client.get(`${url(item.id)}?active=perhaps`)).status).toBe(400);
    // the list shows the same objects as the item and the detail
    for (const v of all.body.results) {
      expect(item.variations).toContainEqual(v);
      expect((await w.client.get(url(item.id, v.id))).body).toEqual(v);
    }
  });

  it("answers 404 for an unknown item or variation, and for a variation of another item", async () => {
    const one = await createItem(w, { variations: [variation("A")] });
    const two = await createItem(w, { variations: [variation("B")] });
    expect((await w.client.get(url(999999))).status).toBe(404);
    expect((await w.client.get(url(one.id, 999999))).status).toBe(404);
    expect((await w.client.get(url(two.id, one.variations[0].id))).status).toBe(404);
    expect((await w.client.patch(url(two.id, one.variations[0].id), { active: false })).status).toBe(404);
    expect((await w.client.delete(url(two.id, one.variations[0].id))).status).toBe(404);
    const other = await otherEvent(w);
    expect((await w.client.get(`${other.ev}/items/${one.id}/variations/${one.variations[0].id}/`)).status).toBe(404);
  });
});

describe("variation creation", () => {
  it("creates a variation (201) whose price is its own or the item's", async () => {
    const item = await createItem(w, { default_price: "23.00", variations: [variation("Regular")] });
    const res = await w.client.post(url(item.id), { value: { en: "Student" }, default_price: "10.00", position: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      value: { en: "Student" },
      default_price: "10.00",
      price: "10.00",
      original_price: null,
      active: true,
      description: null,
      position: 1,
      checkin_attention: false,
      checkin_text: null,
      require_approval: false,
      require_membership: false,
      require_membership_hidden: false,
      require_membership_types: [],
      sales_channels: ["web"],
      available_from: null,
      available_until: null,
      hide_without_voucher: false,
      meta_data: {},
    });
    const plain = await w.client.post(url(item.id), { value: "Senior" });
    expect(plain.body).toMatchObject({ default_price: null, price: "23.00" });
    const updated = await w.client.get(`${w.ev}/items/${item.id}/`);
    expect(updated.body.variations.map((v: { id: number }) => v.id)).toContain(res.body.id);
  });

  it("refuses new variations on an item created without variations (403)", async () => {
    const item = await createItem(w);
    const res = await w.client.post(url(item.id), { value: "X" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail:
        "This variation cannot be created because the item does not have variations. Changing a product without variations to a product with variations is not allowed.",
    });
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).body.has_variations).toBe(false);
  });

  it("validates the input", async () => {
    const item = await createItem(w, { variations: [variation("A")] });
    const missing = await w.client.post(url(item.id), { default_price: "1" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ value: ["This field is required."] });
    const bad = await w.client.post(url(item.id), {
      value: "X",
      default_price: "1.001",
      position: -1,
      available_from: "x",
    });
    expect(bad.body).toEqual({
      default_price: ["Ensure that there are no more than 2 decimal places."],
      position: ["Ensure this value is greater than or equal to 0."],
      available_from: [expect.stringContaining("Datetime has wrong format")],
    });
    const order = await w.client.post(url(item.id), {
      value: "X",
      available_from: "2026-05-01T00:00:00Z",
      available_until: "2026-04-01T00:00:00Z",
    });
    expect(order.body).toEqual({ non_field_errors: ["The variation's availability cannot end before it starts."] });
    expect((await w.client.get(url(item.id))).body.count).toBe(1);
  });

  it("accepts membership types of the organizer only", async () => {
    const item = await createItem(w, { variations: [variation("A")] });
    const own = await createMembershipType(w);
    const foreign = await createMembershipType(await seedOrganizer());
    const bad = await w.client.post(url(item.id), { value: "X", require_membership_types: [foreign.id] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ require_membership_types: [`Invalid pk "${foreign.id}" - object does not exist.`] });
    const ok = await w.client.post(url(item.id), {
      value: "X",
      require_membership: true,
      require_membership_types: [own.id],
    });
    expect(ok.body.require_membership_types).toEqual([own.id]);
  });

  it("defaults sales_channels to every channel of the event and the item", async () => {
    const ev = await otherEvent(w);
    await setEventSalesChannels(ev.event.id, ["web", "pretixpos"]);
    const local = { ...w, ev: ev.ev, event: ev.event };
    const item = await createItem(local, { sales_channels: ["resellers"], variations: [variation("A")] });
    expect(item.variations[0].sales_channels).toEqual(["web", "pretixpos", "resellers"]);
    const res = await w.client.post(`${ev.ev}/items/${item.id}/variations/`, { value: "B" });
    expect(res.body.sales_channels).toEqual(["web", "pretixpos", "resellers"]);
  });

  it("shows meta data: event defaults, then the item's values, then the variation's", async () => {
    const ev = await otherEvent(w);
    await setItemMetaProperties(ev.event.id, { color: "black", size: "M", fabric: "" });
    const local = { ...w, ev: ev.ev, event: ev.event };
    const item = await createItem(local, {
      meta_data: { color: "red" },
      variations: [variation("A", { meta_data: { size: "XL" } })],
    });
    expect(item.meta_data).toEqual({ color: "red", fabric: "", size: "M" });
    expect(item.variations[0].meta_data).toEqual({ color: "red", fabric: "", size: "XL" });
    const bad = await w.client.post(`${ev.ev}/items/${item.id}/variations/`, {
      value: "B",
      meta_data: { weight: "1" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ meta_data: ["Item meta data property 'weight' does not exist."] });
  });
});

describe("variation update", () => {
  it("PATCH changes sent fields; id and price are read-only and ignored", async () => {
    const item = await createItem(w, {
      default_price: "20",
      variations: [variation("A", { default_price: "15", position: 3 })],
    });
    const v = item.variations[0];
    const res = await w.client.patch(url(item.id, v.id), { id: 777777, price: "1.00", active: false, position: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...v, active: false, position: 1 });
    const priced = await w.client.patch(url(item.id, v.id), { default_price: null });
    expect(priced.body).toMatchObject({ default_price: null, price: "20.00" });
  });

  it("PUT requires value and resets omitted fields", async () => {
    const pass = await createMembershipType(w);
    const item = await createItem(w, {
      variations: [
        variation("A", {
          default_price: "15",
          position: 3,
          require_membership_types: [pass.id],
          checkin_attention: true,
          checkin_text: "Check the ID",
        }),
      ],
    });
    const v = item.variations[0];
    const missing = await w.client.put(url(item.id, v.id), { active: false });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ value: ["This field is required."] });
    const res = await w.client.put(url(item.id, v.id), { value: "Renamed" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      value: { en: "Renamed" },
      default_price: null,
      price: "10.00",
      position: 0,
      checkin_attention: false,
      checkin_text: null,
      require_membership_types: [],
    });
  });

  it("replaces require_membership_types only when sent", async () => {
    const [p1, p2] = [await createMembershipType(w), await createMembershipType(w)];
    const item = await createItem(w, { variations: [variation("A", { require_membership_types: [p1.id] })] });
    const v = item.variations[0];
    expect((await w.client.patch(url(item.id, v.id), { active: false })).body.require_membership_types).toEqual([
      p1.id,
    ]);
    expect(
      (await w.client.patch(url(item.id, v.id), { require_membership_types: [p2.id] })).body.require_membership_types,
    ).toEqual([p2.id]);
  });
});

describe("variation deletion", () => {
  it("deletes a variation (204)", async () => {
    const item = await createItem(w, { variations: [variation("A"), variation("B")] });
    const res = await w.client.delete(url(item.id, item.variations[0].id));
    expect(res.status).toBe(204);
    expect((await w.client.get(url(item.id, item.variations[0].id))).status).toBe(404);
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).body.variations.map((v: { id: number }) => v.id)).toEqual([
      item.variations[1].id,
    ]);
  });

  it("refuses to delete the last variation (403)", async () => {
    const item = await createItem(w, { variations: [variation("Only")] });
    const res = await w.client.delete(url(item.id, item.variations[0].id));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail:
        "This variation cannot be deleted because it is the only variation. Changing a product with variations to a product without variations is not allowed.",
    });
    expect((await w.client.get(url(item.id))).body.count).toBe(1);
  });

  it("keeps one variation when the last two are deleted at the same time", async () => {
    const item = await createItem(w, { variations: [variation("A"), variation("B")] });
    const results = await Promise.all(item.variations.map((v: { id: number }) => w.client.delete(url(item.id, v.id))));
    expect(results.map((r) => r.status).sort()).toEqual([204, 403]);
    expect((await w.client.get(url(item.id))).body.count).toBe(1);
  });

  it("refuses to delete a variation that was ordered (403)", async () => {
    const item = await createItem(w, { variations: [variation("A"), variation("B")] });
    await seedOrderPosition(w.event.id, item.id, item.variations[0].id);
    const res = await w.client.delete(url(item.id, item.variations[0].id));
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/^This variation cannot be deleted because it has already been ordered/);
    expect((await w.client.get(url(item.id))).body.count).toBe(2);
    expect((await w.client.delete(url(item.id, item.variations[1].id))).status).toBe(204);
  });
});

describe("variation permissions", () => {
  it("devices and teams without can_change_items read but do not write", async () => {
    const item = await createItem(w, { variations: [variation("A"), variation("B")] });
    const v = item.variations[0];
    for (const client of [
      (await seedDevice(w.id)).client,
      (await seedTeam(w.id, { permissions: ["can_view_orders"] })).client,
    ]) {
      expect((await client.get(url(item.id))).status).toBe(200);
      expect((await client.get(url(item.id, v.id))).status).toBe(200);
      expect((await client.post(url(item.id), { value: "X" })).status).toBe(403);
      expect((await client.patch(url(item.id, v.id), { active: false })).status).toBe(403);
      expect((await client.put(url(item.id, v.id), { value: "X" })).status).toBe(403);
      expect((await client.delete(url(item.id, v.id))).status).toBe(403);
    }
    expect((await w.client.get(url(item.id, v.id))).body).toEqual(v);
  });
});
