/**
 * D1 round trips of the catalog routes (items, variations, add-ons, bundles, categories), with
 * the debugging aid on: everything an item's input refers to is looked up in one batch, and a
 * list (count, page, children, Last-Modified stamp) is one batch.
 */
import { describe, expect, it } from "vitest";
import {
  createCategory,
  createItem,
  createMembershipType,
  seedQuota,
  seedTaxRule,
  variation,
  world,
} from "../helpers/items";

function trips(headers: Headers): number {
  return Number(headers.get("X-D1-Round-Trips-Worker"));
}

describe("D1 round trips of the catalog", () => {
  it("item creation: credential, the references in one batch, the write, the read-back", async () => {
    const w = await world();
    const [tax, quota, cat, addonCat, pass, shirt] = [
      await seedTaxRule(w.event.id, 0),
      await seedQuota(w.event.id),
      await createCategory(w),
      await createCategory(w, { is_addon: true }),
      await createMembershipType(w),
      await createItem(w, { variations: [variation("S")] }),
    ];
    const res = await w.client.post(`${w.ev}/items/`, {
      name: "Full",
      default_price: "10.00",
      category: cat.id,
      tax_rule: tax.id,
      hidden_if_available: quota.id,
      require_membership_types: [pass.id],
      grant_membership_type: pass.id,
      variations: [variation("A", { require_membership_types: [pass.id] })],
      addons: [{ addon_category: addonCat.id }],
      bundles: [{ bundled_item: shirt.id, bundled_variation: shirt.variations[0].id }],
    });
    expect(res.status, res.text).toBe(201);
    expect(trips(res.headers)).toBe(4);

    const invalid = await w.client.post(`${w.ev}/items/`, {
      name: "Bad",
      default_price: "1",
      category: 99999999,
      tax_rule: 99999999,
    });
    expect(invalid.status).toBe(400);
    expect(trips(invalid.headers)).toBe(2);

    const plain = await w.client.post(`${w.ev}/items/`, { name: "Plain", default_price: "1" });
    expect(plain.status).toBe(201);
    expect(trips(plain.headers)).toBe(3);

    const patched = await w.client.patch(`${w.ev}/items/${res.body.id}/`, { category: cat.id, position: 2 });
    expect(patched.status).toBe(200);
    expect(trips(patched.headers)).toBe(5);
  });

  it("lists: credential and one batch", async () => {
    const w = await world();
    const cat = await createCategory(w, { is_addon: true });
    const drink = await createItem(w);
    const item = await createItem(w, {
      variations: [variation("A")],
      addons: [{ addon_category: cat.id }],
      bundles: [{ bundled_item: drink.id }],
    });
    for (const path of ["items/", `items/${item.id}/`, "categories/"]) {
      const res = await w.client.get(`${w.ev}/${path}`);
      expect(res.status, path).toBe(200);
      expect(trips(res.headers), path).toBe(2);
    }
    for (const path of [`items/${item.id}/variations/`, `items/${item.id}/addons/`, `items/${item.id}/bundles/`]) {
      const res = await w.client.get(`${w.ev}/${path}`);
      expect(res.status, path).toBe(200);
      expect(res.body.count, path).toBe(1);
      expect(trips(res.headers), path).toBe(3);
    }
  });

  it("add-on and bundle checks: one batch", async () => {
    const w = await world();
    const item = await createItem(w);
    const cat = await createCategory(w);
    const drink = await createItem(w);
    const addon = await w.client.post(`${w.ev}/items/${item.id}/addons/`, { addon_category: cat.id });
    expect(addon.status).toBe(201);
    expect(trips(addon.headers)).toBe(4);
    const bundle = await w.client.post(`${w.ev}/items/${item.id}/bundles/`, { bundled_item: drink.id });
    expect(bundle.status).toBe(201);
    expect(trips(bundle.headers)).toBe(4);
  });
});
