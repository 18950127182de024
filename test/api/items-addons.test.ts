import { beforeAll, describe, expect, it } from "vitest";
import { seedDevice, seedTeam } from "../harness";
import { createCategory, createItem, otherEvent, variation, type World, world } from "../helpers/items";

let w: World;
beforeAll(async () => {
  w = await world();
});

const addons = (itemId: number, id?: number) => `${w.ev}/items/${itemId}/addons/${id === undefined ? "" : `${id}/`}`;
const bundles = (itemId: number, id?: number) => `${w.ev}/items/${itemId}/bundles/${id === undefined ? "" : `${id}/`}`;

describe("add-ons", () => {
  it("creates (201), lists, shows, changes and deletes add-ons", async () => {
    const item = await createItem(w);
    const workshops = await createCategory(w, { is_addon: true });
    const merch = await createCategory(w, { is_addon: true });
    const created = await w.client.post(addons(item.id), {
      addon_category: workshops.id,
      min_count: 0,
      max_count: 10,
      position: 1,
      price_included: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      addon_category: workshops.id,
      min_count: 0,
      max_count: 10,
      position: 1,
      price_included: true,
      multi_allowed: false,
    });
    const second = await w.client.post(addons(item.id), { addon_category: merch.id, position: 0 });
    expect(second.body).toEqual({
      id: second.body.id,
      addon_category: merch.id,
      min_count: 0,
      max_count: 1,
      position: 0,
      price_included: false,
      multi_allowed: false,
    });
    const list = await w.client.get(addons(item.id));
    expect(list.body).toEqual({ count: 2, next: null, previous: null, results: [created.body, second.body] });
    expect((await w.client.get(`${addons(item.id)}?ordering=position`)).body.results).toEqual([
      second.body,
      created.body,
    ]);
    expect((await w.client.get(addons(item.id, created.body.id))).body).toEqual(created.body);
    // the item shows its add-ons (sorted by position) without their ids
    const { id: _a, ...inlineSecond } = second.body;
    const { id: _b, ...inlineCreated } = created.body;
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).body.addons).toEqual([inlineSecond, inlineCreated]);

    const patched = await w.client.patch(addons(item.id, created.body.id), { min_count: 2, multi_allowed: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, min_count: 2, multi_allowed: true });
    const put = await w.client.put(addons(item.id, created.body.id), { addon_category: workshops.id, max_count: 5 });
    expect(put.body).toEqual({
      id: created.body.id,
      addon_category: workshops.id,
      min_count: 0,
      max_count: 5,
      position: 0,
      price_included: false,
      multi_allowed: false,
    });
    expect((await w.client.delete(addons(item.id, created.body.id))).status).toBe(204);
    expect((await w.client.get(addons(item.id, created.body.id))).status).toBe(404);
    expect((await w.client.delete(addons(item.id, created.body.id))).status).toBe(404);
    expect((await w.client.get(addons(item.id))).body.count).toBe(1);
  });

  it("validates: category of the event, once per item, counts", async () => {
    const item = await createItem(w);
    const cat = await createCategory(w, { is_addon: true });
    const other = await otherEvent(w);
    const foreign = (await w.client.post(`${other.ev}/categories/`, { name: "X" })).body;
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{}, { addon_category: ["This field is required."] }],
      [
        { addon_category: foreign.id },
        { addon_category: ["The add-on's category must belong to the same event as the item."] },
      ],
      [
        { addon_category: 99999999 },
        { addon_category: ["The add-on's category must belong to the same event as the item."] },
      ],
      [
        { addon_category: cat.id, min_count: 2, max_count: 1 },
        { non_field_errors: ["The maximum count needs to be greater than the minimum count."] },
      ],
      [{ addon_category: cat.id, min_count: -1 }, { min_count: ["Ensure this value is greater than or equal to 0."] }],
      [
        { addon_category: cat.id, max_count: 1e10 },
        { max_count: ["Ensure this value is less than or equal to 2147483647."] },
      ],
      [{ addon_category: cat.id, price_included: "no" }, { price_included: ["Must be a valid boolean."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await w.client.post(addons(item.id), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect((await w.client.get(addons(item.id))).body.count).toBe(0);
    const first = await w.client.post(addons(item.id), { addon_category: cat.id });
    expect(first.status).toBe(201);
    const dup = await w.client.post(addons(item.id), { addon_category: cat.id });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ addon_category: ["The item already has an add-on of this category."] });
    // PATCH checks against the stored values; re-sending its own category is fine
    const bad = await w.client.patch(addons(item.id, first.body.id), { min_count: 5 });
    expect(bad.body).toEqual({ non_field_errors: ["The maximum count needs to be greater than the minimum count."] });
    expect(
      (await w.client.patch(addons(item.id, first.body.id), { addon_category: cat.id, max_count: 2 })).status,
    ).toBe(200);
    const cat2 = await createCategory(w);
    const second = await w.client.post(addons(item.id), { addon_category: cat2.id });
    const clash = await w.client.patch(addons(item.id, second.body.id), { addon_category: cat.id });
    expect(clash.body).toEqual({ addon_category: ["The item already has an add-on of this category."] });
  });

  it("accepts one of two simultaneous add-ons of the same category", async () => {
    const item = await createItem(w);
    const cat = await createCategory(w);
    const results = await Promise.all([1, 2].map(() => w.client.post(addons(item.id), { addon_category: cat.id })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(results.find((r) => r.status === 400)!.body).toEqual({
      addon_category: ["The item already has an add-on of this category."],
    });
    expect((await w.client.get(addons(item.id))).body.count).toBe(1);
  });

  it("keeps add-ons of one item apart from others", async () => {
    const one = await createItem(w);
    const two = await createItem(w);
    const cat = await createCategory(w);
    const addon = (await w.client.post(addons(one.id), { addon_category: cat.id })).body;
    expect((await w.client.get(addons(two.id, addon.id))).status).toBe(404);
    expect((await w.client.patch(addons(two.id, addon.id), { max_count: 3 })).status).toBe(404);
    expect((await w.client.delete(addons(two.id, addon.id))).status).toBe(404);
    expect((await w.client.get(addons(999999))).status).toBe(404);
    expect((await w.client.post(addons(999999), { addon_category: cat.id })).status).toBe(404);
  });
});

describe("bundles", () => {
  it("creates (201), lists, shows, changes and deletes bundles", async () => {
    const item = await createItem(w);
    const shirt = await createItem(w, { variations: [variation("S"), variation("M")] });
    const drink = await createItem(w);
    const created = await w.client.post(bundles(item.id), {
      bundled_item: shirt.id,
      bundled_variation: shirt.variations[1].id,
      count: 2,
      designated_price: "1.50",
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: created.body.id,
      bundled_item: shirt.id,
      bundled_variation: shirt.variations[1].id,
      count: 2,
      designated_price: "1.50",
    });
    const second = await w.client.post(bundles(item.id), { bundled_item: drink.id });
    expect(second.body).toEqual({
      id: second.body.id,
      bundled_item: drink.id,
      bundled_variation: null,
      count: 1,
      designated_price: "0.00",
    });
    expect((await w.client.get(bundles(item.id))).body).toEqual({
      count: 2,
      next: null,
      previous: null,
      results: [created.body, second.body],
    });
    expect((await w.client.get(bundles(item.id, second.body.id))).body).toEqual(second.body);
    const { id: _x, ...inline } = created.body;
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).body.bundles[0]).toEqual(inline);

    const patched = await w.client.patch(bundles(item.id, created.body.id), { count: 3 });
    expect(patched.body).toEqual({ ...created.body, count: 3 });
    const put = await w.client.put(bundles(item.id, created.body.id), { bundled_item: drink.id });
    expect(put.body).toEqual({
      id: created.body.id,
      bundled_item: drink.id,
      bundled_variation: null,
      count: 1,
      designated_price: "0.00",
    });
    expect((await w.client.delete(bundles(item.id, created.body.id))).status).toBe(204);
    expect((await w.client.get(bundles(item.id, created.body.id))).status).toBe(404);
    expect((await w.client.get(bundles(item.id))).body.count).toBe(1);
  });

  it("validates: item and variation of the event, no self bundling, no bundles of bundles", async () => {
    const item = await createItem(w);
    const shirt = await createItem(w, { variations: [variation("S")] });
    const drink = await createItem(w);
    const pack = await createItem(w, { bundles: [{ bundled_item: drink.id }] });
    const other = await otherEvent(w);
    const foreign = (await w.client.post(`${other.ev}/items/`, { name: "F", default_price: "1" })).body;
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{}, { bundled_item: ["This field is required."] }],
      [{ bundled_item: foreign.id }, { bundled_item: [`Invalid pk "${foreign.id}" - object does not exist.`] }],
      [
        { bundled_item: item.id },
        { non_field_errors: ["The bundled item must not be the same item as the bundling one."] },
      ],
      [{ bundled_item: pack.id }, { non_field_errors: ["The bundled item must not have bundles on its own."] }],
      [{ bundled_item: shirt.id }, { non_field_errors: ["A variation needs to be set for this item."] }],
      [
        { bundled_item: drink.id, bundled_variation: shirt.variations[0].id },
        { non_field_errors: ["The chosen variation does not belong to this item."] },
      ],
      [
        { bundled_item: shirt.id, bundled_variation: 99999999 },
        { bundled_variation: ['Invalid pk "99999999" - object does not exist.'] },
      ],
      [{ bundled_item: drink.id, count: -1 }, { count: ["Ensure this value is greater than or equal to 0."] }],
      [
        { bundled_item: drink.id, designated_price: "1.234" },
        { designated_price: ["Ensure that there are no more than 2 decimal places."] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await w.client.post(bundles(item.id), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect((await w.client.get(bundles(item.id))).body.count).toBe(0);
    // a variation of another event's item is unknown here
    const foreignShirt = (
      await w.client.post(`${other.ev}/items/`, { name: "F", default_price: "1", variations: [variation("X")] })
    ).body;
    const res = await w.client.post(bundles(item.id), {
      bundled_item: shirt.id,
      bundled_variation: foreignShirt.variations[0].id,
    });
    expect(res.body).toEqual({
      bundled_variation: [`Invalid pk "${foreignShirt.variations[0].id}" - object does not exist.`],
    });
    // PATCH is checked against the stored values
    const ok = await w.client.post(bundles(item.id), {
      bundled_item: shirt.id,
      bundled_variation: shirt.variations[0].id,
    });
    expect(ok.status).toBe(201);
    const moved = await w.client.patch(bundles(item.id, ok.body.id), { bundled_item: drink.id });
    expect(moved.body).toEqual({ non_field_errors: ["The chosen variation does not belong to this item."] });
    expect(
      (await w.client.patch(bundles(item.id, ok.body.id), { bundled_item: drink.id, bundled_variation: null })).status,
    ).toBe(200);
  });

  it("keeps bundles of one item apart from others", async () => {
    const one = await createItem(w);
    const two = await createItem(w);
    const drink = await createItem(w);
    const b = (await w.client.post(bundles(one.id), { bundled_item: drink.id })).body;
    expect((await w.client.get(bundles(two.id, b.id))).status).toBe(404);
    expect((await w.client.put(bundles(two.id, b.id), { bundled_item: drink.id })).status).toBe(404);
    expect((await w.client.delete(bundles(two.id, b.id))).status).toBe(404);
  });
});

describe("add-on and bundle permissions", () => {
  it("devices and teams without can_change_items read but do not write", async () => {
    const cat = await createCategory(w);
    const drink = await createItem(w);
    const item = await createItem(w, { addons: [{ addon_category: cat.id }], bundles: [{ bundled_item: drink.id }] });
    const addon = (await w.client.get(addons(item.id))).body.results[0];
    const bundle = (await w.client.get(bundles(item.id))).body.results[0];
    for (const client of [
      (await seedDevice(w.id)).client,
      (await seedTeam(w.id, { permissions: ["can_change_event_settings"] })).client,
    ]) {
      expect((await client.get(addons(item.id))).status).toBe(200);
      expect((await client.get(addons(item.id, addon.id))).body).toEqual(addon);
      expect((await client.get(bundles(item.id))).status).toBe(200);
      expect((await client.get(bundles(item.id, bundle.id))).body).toEqual(bundle);
      expect((await client.post(addons(item.id), { addon_category: cat.id })).status).toBe(403);
      expect((await client.patch(addons(item.id, addon.id), { max_count: 9 })).status).toBe(403);
      expect((await client.delete(addons(item.id, addon.id))).status).toBe(403);
      expect((await client.post(bundles(item.id), { bundled_item: drink.id })).status).toBe(403);
      expect((await client.put(bundles(item.id, bundle.id), { bundled_item: drink.id })).status).toBe(403);
      expect((await client.delete(bundles(item.id, bundle.id))).status).toBe(403);
    }
    expect((await w.client.get(addons(item.id))).body.results).toEqual([addon]);
    expect((await w.client.get(bundles(item.id))).body.results).toEqual([bundle]);
  });
});
