import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  addonResponse,
  bundleResponse,
  inlineAddonResponse,
  inlineBundleResponse,
  itemResponse,
  variationResponse,
} from "../../src/api/items";
import { itemAddons, itemBundles, items, itemVariations } from "../../src/db/schema";
import { db, seedDevice, seedOrganizer, seedTeam } from "../harness";
import {
  ageStamp,
  createCategory,
  createItem,
  createMembershipType,
  otherEvent,
  PNG,
  seedOrderPosition,
  seedQuota,
  seedTaxRule,
  setItemMetaProperties,
  stamp,
  upload,
  variation,
  type World,
  world,
} from "../helpers/items";

const DEFAULTS = {
  internal_name: null,
  sales_channels: ["web"],
  original_price: null,
  category: null,
  active: true,
  description: null,
  free_price: false,
  tax_rate: "0.00",
  tax_rule: null,
  admission: false,
  personalized: false,
  issue_giftcard: false,
  meta_data: {},
  position: 0,
  picture: null,
  available_from: null,
  available_until: null,
  hidden_if_available: null,
  require_voucher: false,
  hide_without_voucher: false,
  allow_cancel: true,
  generate_tickets: null,
  allow_waitinglist: true,
  show_quota_left: null,
  min_per_order: null,
  max_per_order: null,
  checkin_attention: false,
  checkin_text: null,
  has_variations: false,
  require_approval: false,
  require_bundling: false,
  require_membership: false,
  require_membership_hidden: false,
  require_membership_types: [],
  grant_membership_type: null,
  grant_membership_duration_like_event: true,
  grant_membership_duration_days: 0,
  grant_membership_duration_months: 0,
  validity_mode: null,
  validity_fixed_from: null,
  validity_fixed_until: null,
  validity_dynamic_duration_minutes: null,
  validity_dynamic_duration_hours: null,
  validity_dynamic_duration_days: null,
  validity_dynamic_duration_months: null,
  validity_dynamic_start_choice: false,
  validity_dynamic_start_choice_day_limit: null,
  variations: [],
  addons: [],
  bundles: [],
};

async function itemCount(eventId: number): Promise<number> {
  const [row] = await db().select({ n: count() }).from(items).where(eq(items.eventId, eventId));
  return row!.n;
}

let w: World;
beforeAll(async () => {
  w = await world();
});

describe("item creation", () => {
  it("creates a minimal item with every field of the spec at its default", async () => {
    const res = await w.client.post(`${w.ev}/items/`, { name: { en: "Standard ticket" }, default_price: "23.00" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: res.body.id, name: { en: "Standard ticket" }, default_price: "23.00", ...DEFAULTS });
    const read = await w.client.get(`${w.ev}/items/${res.body.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("stores and returns every field", async () => {
    const ev = await otherEvent(w);
    const client = w.client;
    await setItemMetaProperties(ev.event.id, { color: "blue", size: "" });
    const tax = await seedTaxRule(ev.event.id, 1900);
    const quota = await seedQuota(ev.event.id);
    const pass = await createMembershipType(w);
    const pass2 = await createMembershipType(w);
    const catRes = await client.post(`${ev.ev}/categories/`, { name: "Tickets" });
    const body = {
      name: { en: "Day pass", de: "Tageskarte" },
      internal_name: "day-pass",
      default_price: "49.90",
      original_price: "59.00",
      category: catRes.body.id,
      active: false,
      description: { en: "Valid **all day**" },
      free_price: true,
      tax_rule: tax.id,
      tax_rate: "7.00",
      admission: true,
      personalized: true,
      issue_giftcard: false,
      checkin_attention: true,
      checkin_text: "Give a wristband",
      require_approval: true,
      require_bundling: true,
      generate_tickets: false,
      allow_waitinglist: false,
      show_quota_left: true,
      allow_cancel: false,
      require_voucher: true,
      hide_without_voucher: true,
      position: 7,
      sales_channels: ["web", "resellers", "web"],
      available_from: "2026-01-01T10:00:00+01:00",
      available_until: "2026-02-01T00:00:00.500Z",
      hidden_if_available: quota.id,
      min_per_order: 1,
      max_per_order: 4,
      require_membership: true,
      require_membership_hidden: true,
      require_membership_types: [pass2.id, pass.id],
      grant_membership_type: pass.id,
      grant_membership_duration_like_event: false,
      grant_membership_duration_days: 3,
      grant_membership_duration_months: 1,
      validity_mode: "dynamic",
      validity_fixed_from: null,
      validity_fixed_until: null,
      validity_dynamic_duration_minutes: 30,
      validity_dynamic_duration_hours: 2,
      validity_dynamic_duration_days: 1,
      validity_dynamic_duration_months: 0,
      validity_dynamic_start_choice: true,
      validity_dynamic_start_choice_day_limit: 14,
      meta_data: { size: "XL" },
    };
    const res = await client.post(`${ev.ev}/items/`, body);
    expect(res.status, res.text).toBe(201);
    const expected = {
      ...body,
      id: res.body.id,
      tax_rate: "19.00",
      sales_channels: ["web", "resellers"],
      available_from: "2026-01-01T09:00:00Z",
      available_until: "2026-02-01T00:00:00.500Z",
      require_membership_types: [pass.id, pass2.id].sort((a, b) => a - b),
      meta_data: { color: "blue", size: "XL" },
      picture: null,
      has_variations: false,
      variations: [],
      addons: [],
      bundles: [],
    };
    expect(res.body).toEqual(expected);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys({ id: 1, name: 1, default_price: 1, ...DEFAULTS }).sort());
    expect((await client.get(`${ev.ev}/items/${res.body.id}/`)).body).toEqual(expected);
  });

  it("accepts validity_mode fixed with its time frame, and null", async () => {
    const res = await w.client.post(`${w.ev}/items/`, {
      name: "Season",
      default_price: "100",
      validity_mode: "fixed",
      validity_fixed_from: "2026-03-01T00:00:00Z",
      validity_fixed_until: "2026-09-30T23:59:59Z",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      default_price: "100.00",
      validity_mode: "fixed",
      validity_fixed_from: "2026-03-01T00:00:00Z",
      validity_fixed_until: "2026-09-30T23:59:59Z",
    });
    const patched = await w.client.patch(`${w.ev}/items/${res.body.id}/`, { validity_mode: null });
    expect(patched.body.validity_mode).toBeNull();
  });

  it("personalized follows admission at creation unless sent", async () => {
    expect((await createItem(w, { admission: true })).personalized).toBe(true);
    expect((await createItem(w, { admission: true, personalized: false })).personalized).toBe(false);
    expect((await createItem(w, { admission: false })).personalized).toBe(false);
  });

  it("creates an item with variations, add-ons and bundles in one request", async () => {
    const addonCat = await createCategory(w, { is_addon: true });
    const shirt = await createItem(w, { variations: [variation("S"), variation("M")] });
    const pass = await createMembershipType(w);
    const res = await w.client.post(`${w.ev}/items/`, {
      name: "Conference",
      default_price: "100.00",
      variations: [
        variation("Regular", { position: 1 }),
        variation("Student", {
          default_price: "50.00",
          original_price: "60.00",
          position: 0,
          active: false,
          description: { en: "with ID" },
          checkin_attention: true,
          checkin_text: "Check the student ID",
          require_approval: true,
          require_membership: true,
          require_membership_hidden: true,
          require_membership_types: [pass.id],
          hide_without_voucher: true,
          sales_channels: ["resellers"],
          available_from: "2026-01-01T00:00:00Z",
          available_until: null,
        }),
      ],
      addons: [
        {
          addon_category: addonCat.id,
          min_count: 1,
          max_count: 3,
          position: 2,
          price_included: true,
          multi_allowed: true,
        },
      ],
      bundles: [
        { bundled_item: shirt.id, bundled_variation: shirt.variations[1].id, count: 2, designated_price: "5.50" },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.has_variations).toBe(true);
    const [student, regular] = res.body.variations;
    expect(regular).toEqual({
      id: regular.id,
      value: { en: "Regular" },
      default_price: null,
      price: "100.00",
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
    expect(student).toEqual({
      id: student.id,
      value: { en: "Student" },
      default_price: "50.00",
      price: "50.00",
      original_price: "60.00",
      active: false,
      description: { en: "with ID" },
      position: 0,
      checkin_attention: true,
      checkin_text: "Check the student ID",
      require_approval: true,
      require_membership: true,
      require_membership_hidden: true,
      require_membership_types: [pass.id],
      sales_channels: ["resellers"],
      available_from: "2026-01-01T00:00:00Z",
      available_until: null,
      hide_without_voucher: true,
      meta_data: {},
    });
    expect(res.body.addons).toEqual([
      {
        addon_category: addonCat.id,
        min_count: 1,
        max_count: 3,
        position: 2,
        price_included: true,
        multi_allowed: true,
      },
    ]);
    expect(res.body.bundles).toEqual([
      { bundled_item: shirt.id, bundled_variation: shirt.variations[1].id, count: 2, designated_price: "5.50" },
    ]);
    expect((await w.client.get(`${w.ev}/items/${res.body.id}/`)).body).toEqual(res.body);
  });

  it("rule 1: an item declared with variations needs at least one; nothing is created otherwise", async () => {
    const before = await itemCount(w.event.id);
    for (const body of [{ has_variations: true }, { has_variations: true, variations: [] }]) {
      const res = await w.client.post(`${w.ev}/items/`, { name: "T", default_price: "1.00", ...body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ variations: ["An item with variations needs at least one variation."] });
    }
    const contradicting = await w.client.post(`${w.ev}/items/`, {
      name: "T",
      default_price: "1",
      has_variations: false,
      variations: [variation("A")],
    });
    expect(contradicting.status).toBe(400);
    expect(contradicting.body).toEqual({
      has_variations: ["An item created without variations cannot have variations."],
    });
    expect(await itemCount(w.event.id)).toBe(before);
    const without = await w.client.post(`${w.ev}/items/`, {
      name: "T",
      default_price: "1",
      has_variations: false,
      variations: [],
    });
    expect(without.status).toBe(201);
    expect(without.body.has_variations).toBe(false);
  });

  it("ignores the read-only id and tax_rate", async () => {
    const res = await w.client.post(`${w.ev}/items/`, { id: 424242, name: "T", default_price: "1", tax_rate: "19.00" });
    expect(res.status).toBe(201);
    expect(res.body.id).not.toBe(424242);
    expect(res.body.tax_rate).toBe("0.00");
  });

  it("derives tax_rate from the tax rule", async () => {
    const tax = await seedTaxRule(w.event.id, 750);
    const item = await createItem(w, { tax_rule: tax.id });
    expect(item).toMatchObject({ tax_rule: tax.id, tax_rate: "7.50" });
    const cleared = await w.client.patch(`${w.ev}/items/${item.id}/`, { tax_rule: null });
    expect(cleared.body).toMatchObject({ tax_rule: null, tax_rate: "0.00" });
  });
});

describe("item validation", () => {
  const post = (body: Record<string, unknown>) =>
    w.client.post(`${w.ev}/items/`, { name: "T", default_price: "10.00", ...body });

  it("requires name and default_price", async () => {
    const res = await w.client.post(`${w.ev}/items/`, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ name: ["This field is required."], default_price: ["This field is required."] });
    const nulls = await w.client.post(`${w.ev}/items/`, { name: { en: "  " }, default_price: null });
    expect(nulls.body).toEqual({
      name: ["This field may not be blank."],
      default_price: ["This field may not be null."],
    });
  });

  it.each([
    [{ default_price: "12.345" }, { default_price: ["Ensure that there are no more than 2 decimal places."] }],
    [{ default_price: "-1.00" }, { default_price: ["Ensure this value is greater than or equal to 0.00."] }],
    [
      { default_price: "100000000000.00" },
      { default_price: ["Ensure this value is less than or equal to 99999999999.99."] },
    ],
    [{ default_price: "abc" }, { default_price: ["A valid number is required."] }],
    [{ original_price: "x" }, { original_price: ["A valid number is required."] }],
    [{ active: "yes" }, { active: ["Must be a valid boolean."] }],
    [{ position: 1e12 }, { position: ["Ensure this value is less than or equal to 2147483647."] }],
    [{ position: 1.5 }, { position: ["A valid integer is required."] }],
    [{ min_per_order: -1 }, { min_per_order: ["Ensure this value is greater than or equal to 0."] }],
    [{ available_from: "tomorrow" }, { available_from: [expect.stringContaining("Datetime has wrong format")] }],
    [{ validity_mode: "forever" }, { validity_mode: ['"forever" is not a valid choice.'] }],
    [
      { validity_dynamic_duration_days: -2 },
      { validity_dynamic_duration_days: ["Ensure this value is greater than or equal to 0."] },
    ],
    [
      { validity_dynamic_start_choice_day_limit: true },
      { validity_dynamic_start_choice_day_limit: ["A valid integer is required."] },
    ],
    [
      { grant_membership_duration_days: -1 },
      { grant_membership_duration_days: ["Ensure this value is greater than or equal to 0."] },
    ],
    [{ sales_channels: "web" }, { sales_channels: ['Expected a list of items but got type "str".'] }],
    [{ sales_channels: ["we b"] }, { sales_channels: { 0: ["Enter a valid sales channel identifier."] } }],
    [{ meta_data: ["a"] }, { meta_data: ['Expected a dictionary of items but got type "list".'] }],
    [{ category: "1" }, { category: ["A valid integer is required."] }],
    [{ category: 99999999 }, { category: ['Invalid pk "99999999" - object does not exist.'] }],
    [{ tax_rule: 99999999 }, { tax_rule: ['Invalid pk "99999999" - object does not exist.'] }],
    [{ hidden_if_available: 99999999 }, { hidden_if_available: ['Invalid pk "99999999" - object does not exist.'] }],
    [
      { grant_membership_type: 99999999 },
      { grant_membership_type: ['Invalid pk "99999999" - object does not exist.'] },
    ],
    [
      { require_membership_types: [99999999] },
      { require_membership_types: ['Invalid pk "99999999" - object does not exist.'] },
    ],
    [{ picture: "http://elsewhere/x.png" }, { picture: ["Expected a file ID from the upload endpoint (file:<id>)."] }],
    [{ picture: "file:00000000-0000-4000-8000-000000000000" }, { picture: ["The submitted file ID was not found."] }],
  ])("rejects %j", async (body, errors) => {
    const before = await itemCount(w.event.id);
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(errors);
    expect(await itemCount(w.event.id)).toBe(before);
  });

  it.each([
    [
      { min_per_order: 5, max_per_order: 2 },
      "The maximum number per order can not be lower than the minimum number per order.",
    ],
    [
      { available_from: "2026-02-01T00:00:00Z", available_until: "2026-01-01T00:00:00Z" },
      "The item's availability cannot end before it starts.",
    ],
    [
      {
        validity_mode: "fixed",
        validity_fixed_from: "2026-02-01T00:00:00Z",
        validity_fixed_until: "2026-01-01T00:00:00Z",
      },
      "The validity of the item's tickets cannot end before it starts.",
    ],
    [{ personalized: true, admission: false }, "Only admission products can currently be personalized."],
    [
      { issue_giftcard: true, admission: true },
      "Gift card products should not be admission products at the same time.",
    ],
  ])("rejects the combination %j", async (body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: [message] });
  });

  it("rejects a gift card with a non-zero tax rate, accepts it with a zero rate", async () => {
    const taxed = await seedTaxRule(w.event.id, 1900);
    const free = await seedTaxRule(w.event.id, 0);
    const res = await post({ issue_giftcard: true, tax_rule: taxed.id });
    expect(res.status).toBe(400);
    expect(res.body.non_field_errors[0]).toMatch(/Gift card products should not be associated with non-zero tax rates/);
    expect((await post({ issue_giftcard: true, tax_rule: free.id })).status).toBe(201);
    // also when the gift card flag comes later through PATCH
    const item = await createItem(w, { tax_rule: taxed.id });
    expect((await w.client.patch(`${w.ev}/items/${item.id}/`, { issue_giftcard: true })).status).toBe(400);
  });

  it("accepts only categories, tax rules and quotas of the same event", async () => {
    const other = await otherEvent(w);
    const foreignCat = await w.client.post(`${other.ev}/categories/`, { name: "Elsewhere" });
    const foreignTax = await seedTaxRule(other.event.id, 1000);
    const foreignQuota = await seedQuota(other.event.id);
    const res = await post({
      category: foreignCat.body.id,
      tax_rule: foreignTax.id,
      hidden_if_available: foreignQuota.id,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      category: [`Invalid pk "${foreignCat.body.id}" - object does not exist.`],
      tax_rule: [`Invalid pk "${foreignTax.id}" - object does not exist.`],
      hidden_if_available: [`Invalid pk "${foreignQuota.id}" - object does not exist.`],
    });
  });

  it("accepts only membership types of the same organizer", async () => {
    const foreign = await seedOrganizer();
    const foreignType = await createMembershipType(foreign);
    const own = await createMembershipType(w);
    const res = await post({
      require_membership_types: [own.id, foreignType.id],
      grant_membership_type: foreignType.id,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      grant_membership_type: [`Invalid pk "${foreignType.id}" - object does not exist.`],
      require_membership_types: [`Invalid pk "${foreignType.id}" - object does not exist.`],
    });
    const variationRes = await post({ variations: [variation("A", { require_membership_types: [foreignType.id] })] });
    expect(variationRes.body).toEqual({
      variations: [{ require_membership_types: [`Invalid pk "${foreignType.id}" - object does not exist.`] }],
    });
  });

  it("accepts only meta data keys the event defines; unset keys show their defaults", async () => {
    const ev = await otherEvent(w);
    await setItemMetaProperties(ev.event.id, { room: "Hall A", level: "" });
    const bad = await w.client.post(`${ev.ev}/items/`, { name: "T", default_price: "1", meta_data: { floor: "2" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ meta_data: ["Item meta data property 'floor' does not exist."] });
    const ok = await w.client.post(`${ev.ev}/items/`, {
      name: "T",
      default_price: "1",
      meta_data: { level: "expert" },
    });
    expect(ok.body.meta_data).toEqual({ level: "expert", room: "Hall A" });
    expect(Object.keys(ok.body.meta_data)).toEqual(["level", "room"]);
    // PATCH replaces the set values; keys left out fall back to their defaults
    const patched = await w.client.patch(`${ev.ev}/items/${ok.body.id}/`, { meta_data: { room: "Hall B" } });
    expect(patched.body.meta_data).toEqual({ level: "", room: "Hall B" });
  });

  it("reports errors of nested objects per element and creates nothing", async () => {
    const before = await itemCount(w.event.id);
    const res = await post({ variations: [variation("OK"), { value: "" }, { default_price: "x" }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      variations: [
        {},
        { value: ["This field may not be blank."] },
        { value: ["This field is required."], default_price: ["A valid number is required."] },
      ],
    });
    const ev = await otherEvent(w);
    await setItemMetaProperties(ev.event.id, { room: "A" });
    const meta = await w.client.post(`${ev.ev}/items/`, {
      name: "T",
      default_price: "1",
      variations: [
        variation("A"),
        variation("B", {
          meta_data: { nope: "1" },
          available_from: "2026-02-01T00:00:00Z",
          available_until: "2026-01-01T00:00:00Z",
        }),
      ],
    });
    expect(meta.body).toEqual({
      variations: [
        {},
        {
          meta_data: ["Item meta data property 'nope' does not exist."],
          non_field_errors: ["The variation's availability cannot end before it starts."],
        },
      ],
    });
    expect(await itemCount(w.event.id)).toBe(before);
  });

  it("validates nested add-ons: category of the event, once per item, counts", async () => {
    const other = await otherEvent(w);
    const foreignCat = await w.client.post(`${other.ev}/categories/`, { name: "Elsewhere" });
    const cat = await createCategory(w, { is_addon: true });
    const res = await post({
      addons: [
        { addon_category: cat.id },
        { addon_category: cat.id },
        { addon_category: foreignCat.body.id },
        { addon_category: (await createCategory(w)).id, min_count: 3, max_count: 2 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      addons: [
        {},
        { addon_category: ["The item already has an add-on of this category."] },
        { addon_category: ["The add-on's category must belong to the same event as the item."] },
        { non_field_errors: ["The maximum count needs to be greater than the minimum count."] },
      ],
    });
    const counts = await post({ addons: [{ addon_category: cat.id, min_count: -1, max_count: "2" }] });
    expect(counts.body).toEqual({
      addons: [
        {
          min_count: ["Ensure this value is greater than or equal to 0."],
          max_count: ["A valid integer is required."],
        },
      ],
    });
  });

  it("validates nested bundles: item and variation of the event, no nested bundles", async () => {
    const other = await otherEvent(w);
    const foreignItem = (await w.client.post(`${other.ev}/items/`, { name: "F", default_price: "1" })).body;
    const shirt = await createItem(w, { variations: [variation("S")] });
    const plain = await createItem(w);
    const packageItem = await createItem(w, { bundles: [{ bundled_item: plain.id }] });
    const res = await post({
      bundles: [
        { bundled_item: foreignItem.id },
        { bundled_item: shirt.id },
        { bundled_item: plain.id, bundled_variation: shirt.variations[0].id },
        { bundled_item: packageItem.id },
        { bundled_item: shirt.id, bundled_variation: 99999999 },
        { bundled_item: plain.id, count: -1, designated_price: "-3" },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      bundles: [
        {},
        {},
        {},
        {},
        {},
        {
          count: ["Ensure this value is greater than or equal to 0."],
          designated_price: ["Ensure this value is greater than or equal to 0.00."],
        },
      ],
    });
    const dbErrors = await post({
      bundles: [
        { bundled_item: foreignItem.id },
        { bundled_item: shirt.id },
        { bundled_item: plain.id, bundled_variation: shirt.variations[0].id },
        { bundled_item: packageItem.id },
        { bundled_item: shirt.id, bundled_variation: 99999999 },
        { bundled_item: shirt.id, bundled_variation: shirt.variations[0].id, count: 0, designated_price: null },
      ],
    });
    expect(dbErrors.status).toBe(400);
    expect(dbErrors.body).toEqual({
      bundles: [
        { bundled_item: [`Invalid pk "${foreignItem.id}" - object does not exist.`] },
        { non_field_errors: ["A variation needs to be set for this item."] },
        { non_field_errors: ["The chosen variation does not belong to this item."] },
        { non_field_errors: ["The bundled item must not have bundles on its own."] },
        { bundled_variation: ['Invalid pk "99999999" - object does not exist.'] },
        {},
      ],
    });
  });
});

describe("item list", () => {
  let ev: string;
  let ids: Record<string, number>;
  let tax: { id: number };
  let cat: { id: number };

  beforeAll(async () => {
    const other = await otherEvent(w);
    ev = other.ev;
    const local: World = { ...w, ev, event: other.event };
    tax = await seedTaxRule(other.event.id, 1900);
    const zero = await seedTaxRule(other.event.id, 0);
    cat = await createCategory(local);
    ids = {
      a: (await createItem(local, { position: 3, admission: true, tax_rule: tax.id })).id,
      b: (await createItem(local, { position: 1, active: false, category: cat.id })).id,
      c: (await createItem(local, { position: 2, free_price: true, tax_rule: zero.id })).id,
      d: (await createItem(local, { position: 1, category: cat.id, tax_rule: tax.id })).id,
    };
  });

  const list = async (query = "") => {
    const res = await w.client.get(`${ev}/items/${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.results.map((r: { id: number }) => r.id);
  };

  it("orders by position (then id) by default, or by id", async () => {
    expect(await list()).toEqual([ids.b, ids.d, ids.c, ids.a]);
    expect(await list("?ordering=id")).toEqual([ids.a, ids.b, ids.c, ids.d]);
    expect(await list("?ordering=-id")).toEqual([ids.d, ids.c, ids.b, ids.a]);
    expect(await list("?ordering=-position")).toEqual([ids.a, ids.c, ids.b, ids.d]);
    expect(await list("?ordering=name")).toEqual([ids.b, ids.d, ids.c, ids.a]);
  });

  it("filters by active, category, admission, free_price and tax_rate", async () => {
    expect(await list("?active=false")).toEqual([ids.b]);
    expect(await list("?active=true&ordering=id")).toEqual([ids.a, ids.c, ids.d]);
    expect(await list(`?category=${cat.id}`)).toEqual([ids.b, ids.d]);
    expect(await list("?admission=true")).toEqual([ids.a]);
    expect(await list("?free_price=true")).toEqual([ids.c]);
    expect(await list("?tax_rate=19.00&ordering=id")).toEqual([ids.a, ids.d]);
    expect(await list("?tax_rate=19")).toEqual([ids.d, ids.a]);
    // 0 matches items without a tax rule too
    expect(await list("?tax_rate=0&ordering=id")).toEqual([ids.b, ids.c]);
    expect(await list("?tax_rate=7")).toEqual([]);
  });

  it("rejects malformed filters", async () => {
    for (const [query, field] of [
      ["?active=maybe", "active"],
      ["?category=abc", "category"],
      ["?tax_rate=nineteen", "tax_rate"],
      ["?free_price=2", "free_price"],
    ]) {
      const res = await w.client.get(`${ev}/items/${query}`);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual([field]);
    }
  });

  it("paginates", async () => {
    const res = await w.client.get(`${ev}/items/?page_size=3&ordering=id`);
    expect(res.body.count).toBe(4);
    expect(res.body.results).toHaveLength(3);
    expect(res.body.next).toMatch(/page=2/);
    const second = await w.client.get(res.body.next);
    expect(second.body.results.map((r: { id: number }) => r.id)).toEqual([ids.d]);
    expect((await w.client.get(`${ev}/items/?page=9`)).status).toBe(404);
  });

  it("shows each item exactly as the detail does", async () => {
    const res = await w.client.get(`${ev}/items/?ordering=id`);
    for (const item of res.body.results) expect((await w.client.get(`${ev}/items/${item.id}/`)).body).toEqual(item);
  });
});

describe("item update", () => {
  it("PATCH changes only the sent fields", async () => {
    const item = await createItem(w, { internal_name: "keep", position: 5, admission: true });
    const res = await w.client.patch(`${w.ev}/items/${item.id}/`, { name: { en: "Ticket" }, default_price: "25.00" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...item, name: { en: "Ticket" }, default_price: "25.00" });
  });

  it("PUT requires name and default_price and resets omitted fields to defaults", async () => {
    const pass = await createMembershipType(w);
    const item = await createItem(w, {
      internal_name: "x",
      position: 5,
      admission: true,
      require_membership_types: [pass.id],
      sales_channels: ["resellers"],
      min_per_order: 2,
    });
    const missing = await w.client.put(`${w.ev}/items/${item.id}/`, { name: "Only name" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ default_price: ["This field is required."] });
    const res = await w.client.put(`${w.ev}/items/${item.id}/`, { name: "Renamed", default_price: "3" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: item.id, name: { en: "Renamed" }, default_price: "3.00", ...DEFAULTS });
  });

  it("rule 2: nested lists are refused on PATCH and PUT, even empty ones, and nothing changes", async () => {
    const item = await createItem(w, { variations: [variation("A")] });
    for (const nested of [
      { variations: [] },
      { addons: [] },
      { bundles: [{ bundled_item: 1 }] },
      { variations: null },
    ]) {
      for (const method of ["patch", "put"] as const) {
        const res = await w.client[method](`${w.ev}/items/${item.id}/`, {
          name: "Changed",
          default_price: "99",
          ...nested,
        });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          non_field_errors: [
            "Updating add-ons, bundles, or variations via PATCH/PUT is not supported. Please use the dedicated nested endpoint.",
          ],
        });
      }
    }
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).body).toEqual(item);
  });

  it("rule 1: has_variations never changes", async () => {
    const withVariations = await createItem(w, { variations: [variation("A")] });
    const without = await createItem(w);
    const message = {
      has_variations: [
        "An item either always has variations or never has: an item created with variations never becomes one without, and the reverse.",
      ],
    };
    const a = await w.client.patch(`${w.ev}/items/${withVariations.id}/`, { has_variations: false });
    expect(a.status).toBe(400);
    expect(a.body).toEqual(message);
    const b = await w.client.put(`${w.ev}/items/${without.id}/`, {
      name: "x",
      default_price: "1",
      has_variations: true,
    });
    expect(b.body).toEqual(message);
    const same = await w.client.patch(`${w.ev}/items/${withVariations.id}/`, { has_variations: true, position: 9 });
    expect(same.status).toBe(200);
    expect(same.body.position).toBe(9);
    // PUT keeps variations
    const put = await w.client.put(`${w.ev}/items/${withVariations.id}/`, { name: "x", default_price: "1" });
    expect(put.body.has_variations).toBe(true);
    expect(put.body.variations).toHaveLength(1);
  });

  it("PATCH admission false also clears personalized; personalized needs admission", async () => {
    const item = await createItem(w, { admission: true });
    expect(item.personalized).toBe(true);
    const res = await w.client.patch(`${w.ev}/items/${item.id}/`, { admission: false });
    expect(res.body).toMatchObject({ admission: false, personalized: false });
    const bad = await w.client.patch(`${w.ev}/items/${item.id}/`, { personalized: true });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ non_field_errors: ["Only admission products can currently be personalized."] });
  });

  it("checks cross-field rules against the stored values", async () => {
    const item = await createItem(w, { min_per_order: 3 });
    const res = await w.client.patch(`${w.ev}/items/${item.id}/`, { max_per_order: 2 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      non_field_errors: ["The maximum number per order can not be lower than the minimum number per order."],
    });
  });

  it("replaces require_membership_types when sent and keeps them otherwise", async () => {
    const [p1, p2, p3] = [await createMembershipType(w), await createMembershipType(w), await createMembershipType(w)];
    const item = await createItem(w, { require_membership_types: [p1.id, p2.id] });
    expect(item.require_membership_types).toEqual([p1.id, p2.id]);
    const kept = await w.client.patch(`${w.ev}/items/${item.id}/`, { position: 1 });
    expect(kept.body.require_membership_types).toEqual([p1.id, p2.id]);
    const replaced = await w.client.patch(`${w.ev}/items/${item.id}/`, { require_membership_types: [p3.id, p3.id] });
    expect(replaced.body.require_membership_types).toEqual([p3.id]);
    const emptied = await w.client.patch(`${w.ev}/items/${item.id}/`, { require_membership_types: [] });
    expect(emptied.body.require_membership_types).toEqual([]);
  });

  it("changing the default price changes the effective price of variations without their own", async () => {
    const item = await createItem(w, {
      default_price: "10",
      variations: [variation("A"), variation("B", { default_price: "5" })],
    });
    const res = await w.client.patch(`${w.ev}/items/${item.id}/`, { default_price: "12.00" });
    expect(res.body.variations.map((v: { price: string }) => v.price)).toEqual(["12.00", "5.00"]);
  });
});

describe("item picture", () => {
  it("takes an uploaded image through file:<id> and returns its URL", async () => {
    const file = await upload(w.client, "image/png", "logo.png");
    const item = await createItem(w, { picture: file });
    expect(item.picture).toMatch(
      new RegExp(`^http://ticketing\\.test/media/events/${w.event.id}/items/.+/logo\\.png$`),
    );
    const media = await w.client.get(item.picture);
    expect(media.status).toBe(200);
    expect(media.headers.get("content-type")).toBe("image/png");
    // the returned URL sent back unchanged keeps the picture
    const put = await w.client.put(`${w.ev}/items/${item.id}/`, {
      name: "x",
      default_price: "1",
      picture: item.picture,
    });
    expect(put.status).toBe(200);
    expect(put.body.picture).toBe(item.picture);
    // PATCH without picture keeps it, null removes it
    expect((await w.client.patch(`${w.ev}/items/${item.id}/`, { position: 2 })).body.picture).toBe(item.picture);
    expect((await w.client.patch(`${w.ev}/items/${item.id}/`, { picture: null })).body.picture).toBeNull();
  });

  it("refuses files that are not images, and ids of another credential", async () => {
    const pdf = await upload(w.client, "application/pdf", "doc.pdf", PNG);
    const res = await w.client.post(`${w.ev}/items/`, { name: "x", default_price: "1", picture: pdf });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      picture: ['Files of type "application/pdf" are not accepted here (image/png, image/jpeg, image/gif).'],
    });
    const stranger = await seedTeam(w.id, { permissions: ["can_change_items"] });
    const theirs = await upload(stranger.client, "image/png", "a.png");
    const mine = await w.client.post(`${w.ev}/items/`, { name: "x", default_price: "1", picture: theirs });
    expect(mine.body).toEqual({ picture: ["The submitted file ID was not found."] });
  });
});

describe("item deletion", () => {
  it("deletes an item with its variations, add-ons, bundles and bundles that include it", async () => {
    const cat = await createCategory(w, { is_addon: true });
    const plain = await createItem(w);
    const item = await createItem(w, {
      variations: [variation("A"), variation("B")],
      addons: [{ addon_category: cat.id }],
      bundles: [{ bundled_item: plain.id }],
    });
    const inner = await createItem(w, { variations: [variation("A")] });
    const pack = await createItem(w, {
      bundles: [{ bundled_item: inner.id, bundled_variation: inner.variations[0].id }],
    });
    const res = await w.client.delete(`${w.ev}/items/${item.id}/`);
    expect(res.status).toBe(204);
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).status).toBe(404);
    expect((await w.client.get(`${w.ev}/items/${item.id}/variations/`)).status).toBe(404);
    expect(await db().select().from(itemVariations).where(eq(itemVariations.itemId, item.id))).toEqual([]);
    expect(await db().select().from(itemAddons).where(eq(itemAddons.itemId, item.id))).toEqual([]);
    expect(await db().select().from(itemBundles).where(eq(itemBundles.itemId, item.id))).toEqual([]);
    expect((await w.client.get(`${w.ev}/items/${plain.id}/`)).status).toBe(200);
    // bundles of other items that include a deleted item go with it
    expect((await w.client.get(`${w.ev}/items/${pack.id}/`)).body.bundles).toHaveLength(1);
    expect((await w.client.delete(`${w.ev}/items/${inner.id}/`)).status).toBe(204);
    expect((await w.client.get(`${w.ev}/items/${pack.id}/`)).body.bundles).toEqual([]);
    expect((await w.client.delete(`${w.ev}/items/${item.id}/`)).status).toBe(404);
  });

  it("refuses to delete an item that was ordered", async () => {
    const item = await createItem(w);
    await seedOrderPosition(w.event.id, item.id);
    const res = await w.client.delete(`${w.ev}/items/${item.id}/`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail:
        'This item cannot be deleted because it has already been ordered by a user or currently is in a users\'s cart. Please set the item as "inactive" instead.',
    });
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).status).toBe(200);
  });
});

describe("item permissions and tenancy", () => {
  it("lets devices and any team of the event read items, but not change them", async () => {
    const item = await createItem(w);
    const device = await seedDevice(w.id);
    const reader = await seedTeam(w.id, { permissions: [] });
    for (const client of [device.client, reader.client]) {
      expect((await client.get(`${w.ev}/items/`)).status).toBe(200);
      expect((await client.get(`${w.ev}/items/${item.id}/`)).status).toBe(200);
      for (const res of [
        await client.post(`${w.ev}/items/`, { name: "x", default_price: "1" }),
        await client.patch(`${w.ev}/items/${item.id}/`, { position: 4 }),
        await client.put(`${w.ev}/items/${item.id}/`, { name: "x", default_price: "1" }),
        await client.delete(`${w.ev}/items/${item.id}/`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ detail: "You do not have permission to perform this action." });
      }
    }
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).body).toEqual(item);
    const writer = await seedTeam(w.id, { permissions: ["can_change_items"] });
    expect((await writer.client.post(`${w.ev}/items/`, { name: "x", default_price: "1" })).status).toBe(201);
  });

  it("never reaches an item of another event or organizer by id", async () => {
    const item = await createItem(w, { variations: [variation("A")] });
    const other = await otherEvent(w);
    for (const res of [
      await w.client.get(`${other.ev}/items/${item.id}/`),
      await w.client.patch(`${other.ev}/items/${item.id}/`, { position: 1 }),
      await w.client.put(`${other.ev}/items/${item.id}/`, { name: "x", default_price: "1" }),
      await w.client.delete(`${other.ev}/items/${item.id}/`),
      await w.client.get(`${other.ev}/items/${item.id}/variations/`),
      await w.client.get(`${other.ev}/items/${item.id}/variations/${item.variations[0].id}/`),
      await w.client.get(`${other.ev}/items/${item.id}/addons/`),
      await w.client.get(`${other.ev}/items/${item.id}/bundles/`),
      await w.client.get(`${w.ev}/items/abc/`),
    ]) {
      expect(res.status).toBe(404);
    }
    const otherList = await w.client.get(`${other.ev}/items/`);
    expect(otherList.body.results.map((r: { id: number }) => r.id)).not.toContain(item.id);
    // bundling an item of another event is refused
    const res = await w.client.post(`${other.ev}/items/`, {
      name: "x",
      default_price: "1",
      bundles: [{ bundled_item: item.id }],
    });
    expect(res.status).toBe(400);
    const foreign = await seedOrganizer();
    expect((await foreign.client.get(`${w.ev}/items/${item.id}/`)).status).toBe(403);
    expect((await w.client.get(`${w.ev}/items/${item.id}/`)).body).toEqual(item);
  });
});

describe("item list conditional fetching", () => {
  const EPOCH_PLUS_1S = "Thu, 01 Jan 1970 00:00:01 GMT";

  it("answers 304 to If-Modified-Since not older than Last-Modified", async () => {
    const ev = await otherEvent(w);
    const fresh = await w.client.get(`${ev.ev}/items/`);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("Last-Modified")).toBeNull();
    await w.client.post(`${ev.ev}/items/`, { name: "T", default_price: "1" });
    const res = await w.client.get(`${ev.ev}/items/`);
    const lm = res.headers.get("Last-Modified");
    expect(lm).toMatch(/GMT$/);
    const same = await w.client.get(`${ev.ev}/items/`, { headers: { "If-Modified-Since": lm! } });
    expect(same.status).toBe(304);
    expect(same.text).toBe("");
    const older = new Date(Date.parse(lm!) - 1000).toUTCString();
    const changed = await w.client.get(`${ev.ev}/items/`, { headers: { "If-Modified-Since": older } });
    expect(changed.status).toBe(200);
    expect(changed.body.count).toBe(1);
  });

  it("moves on every write to items, variations, add-ons, bundles and on category deletion", async () => {
    const ev = await otherEvent(w);
    const local: World = { ...w, ev: ev.ev, event: ev.event };
    const cat = await createCategory(local, { is_addon: true });
    const cat2 = await createCategory(local);
    const plain = await createItem(local);
    const item = await createItem(local, { variations: [variation("A"), variation("B")] });
    const state: Record<string, number> = {};
    const writes: [string, () => Promise<{ status: number; text: string }>][] = [
      ["create item", () => w.client.post(`${ev.ev}/items/`, { name: "T", default_price: "1" })],
      ["patch item", () => w.client.patch(`${ev.ev}/items/${item.id}/`, { position: 3 })],
      [
        "put item",
        () => w.client.put(`${ev.ev}/items/${plain.id}/`, { name: "P", default_price: "2", category: cat2.id }),
      ],
      [
        "create variation",
        async () => {
          const res = await w.client.post(`${ev.ev}/items/${item.id}/variations/`, { value: "C" });
          state.variation = res.body.id;
          return res;
        },
      ],
      [
        "patch variation",
        () => w.client.patch(`${ev.ev}/items/${item.id}/variations/${state.variation}/`, { active: false }),
      ],
      [
        "put variation",
        () => w.client.put(`${ev.ev}/items/${item.id}/variations/${state.variation}/`, { value: "C2" }),
      ],
      ["delete variation", () => w.client.delete(`${ev.ev}/items/${item.id}/variations/${state.variation}/`)],
      [
        "create add-on",
        async () => {
          const res = await w.client.post(`${ev.ev}/items/${item.id}/addons/`, { addon_category: cat.id });
          state.addon = res.body.id;
          return res;
        },
      ],
      ["patch add-on", () => w.client.patch(`${ev.ev}/items/${item.id}/addons/${state.addon}/`, { max_count: 4 })],
      [
        "put add-on",
        () => w.client.put(`${ev.ev}/items/${item.id}/addons/${state.addon}/`, { addon_category: cat.id }),
      ],
      ["delete add-on", () => w.client.delete(`${ev.ev}/items/${item.id}/addons/${state.addon}/`)],
      [
        "create bundle",
        async () => {
          const res = await w.client.post(`${ev.ev}/items/${item.id}/bundles/`, { bundled_item: plain.id });
          state.bundle = res.body.id;
          return res;
        },
      ],
      ["patch bundle", () => w.client.patch(`${ev.ev}/items/${item.id}/bundles/${state.bundle}/`, { count: 2 })],
      [
        "put bundle",
        () => w.client.put(`${ev.ev}/items/${item.id}/bundles/${state.bundle}/`, { bundled_item: plain.id }),
      ],
      ["delete bundle", () => w.client.delete(`${ev.ev}/items/${item.id}/bundles/${state.bundle}/`)],
      ["delete category", () => w.client.delete(`${ev.ev}/categories/${cat2.id}/`)],
      ["delete item", () => w.client.delete(`${ev.ev}/items/${plain.id}/`)],
    ];
    for (const [name, write] of writes) {
      await ageStamp(ev.event.id, "items", 1000);
      const before = await w.client.get(`${ev.ev}/items/`, { headers: { "If-Modified-Since": EPOCH_PLUS_1S } });
      expect(before.status, name).toBe(304);
      const res = await write();
      expect(res.status, `${name}: ${res.text}`).toBeLessThan(300);
      const after = await w.client.get(`${ev.ev}/items/`, { headers: { "If-Modified-Since": EPOCH_PLUS_1S } });
      expect(after.status, name).toBe(200);
    }
  });

  it("does not move on refused writes", async () => {
    const item = await createItem(w);
    await ageStamp(w.event.id, "items", 1000);
    expect((await w.client.patch(`${w.ev}/items/${item.id}/`, { default_price: "x" })).status).toBe(400);
    expect((await w.client.post(`${w.ev}/items/`, {})).status).toBe(400);
    expect(await stamp(w.event.id, "items")).toBe(1000);
  });
});

/** The body has exactly the schema's fields, each of the schema's type. */
function expectShape(schema: z.ZodObject, body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual(Object.keys(schema.shape).sort());
  const parsed = schema.safeParse(body);
  expect(parsed.error?.issues ?? []).toEqual([]);
}

describe("item response schemas", () => {
  it("describe exactly what the item, its variations, add-ons and bundles look like", async () => {
    const ev = await otherEvent(w);
    const local: World = { ...w, ev: ev.ev, event: ev.event };
    await setItemMetaProperties(ev.event.id, { color: "blue" });
    const cat = await createCategory(local, { is_addon: true });
    const shirt = await createItem(local, { variations: [variation("S")] });
    const pass = await createMembershipType(w);
    const tax = await seedTaxRule(ev.event.id, 700);
    const quota = await seedQuota(ev.event.id);
    const picture = await upload(w.client, "image/png", "p.png");
    const full = await createItem(local, {
      internal_name: "full",
      original_price: "12.00",
      category: cat.id,
      description: { en: "d" },
      tax_rule: tax.id,
      picture,
      available_from: "2026-01-01T00:00:00Z",
      available_until: "2026-02-01T00:00:00Z",
      hidden_if_available: quota.id,
      generate_tickets: true,
      show_quota_left: false,
      min_per_order: 1,
      max_per_order: 2,
      require_membership_types: [pass.id],
      grant_membership_type: pass.id,
      validity_mode: "fixed",
      validity_fixed_from: "2026-01-01T00:00:00Z",
      validity_fixed_until: "2026-12-31T00:00:00Z",
      validity_dynamic_duration_minutes: 1,
      validity_dynamic_duration_hours: 1,
      validity_dynamic_duration_days: 1,
      validity_dynamic_duration_months: 1,
      validity_dynamic_start_choice_day_limit: 3,
      meta_data: { color: "red" },
      variations: [
        variation("A", {
          default_price: "3.00",
          original_price: "4.00",
          description: { en: "x" },
          available_from: "2026-01-01T00:00:00Z",
        }),
      ],
      addons: [{ addon_category: cat.id }],
      bundles: [{ bundled_item: shirt.id, bundled_variation: shirt.variations[0].id }],
    });
    const plain = await createItem(local);
    for (const item of [full, plain, (await w.client.get(`${ev.ev}/items/${full.id}/`)).body]) {
      expectShape(itemResponse, item);
      for (const v of item.variations) expectShape(variationResponse, v);
      for (const a of item.addons) expectShape(inlineAddonResponse, a);
      for (const b of item.bundles) expectShape(inlineBundleResponse, b);
    }
    expect(full.variations).toHaveLength(1);
    expect(full.addons).toHaveLength(1);
    expect(full.bundles).toHaveLength(1);
    for (const item of (await w.client.get(`${ev.ev}/items/`)).body.results) expectShape(itemResponse, item);
    const nested = `${ev.ev}/items/${full.id}`;
    expectShape(variationResponse, (await w.client.get(`${nested}/variations/${full.variations[0].id}/`)).body);
    expectShape(variationResponse, (await w.client.get(`${nested}/variations/`)).body.results[0]);
    const addon = (await w.client.get(`${nested}/addons/`)).body.results[0];
    expectShape(addonResponse, addon);
    expectShape(addonResponse, (await w.client.get(`${nested}/addons/${addon.id}/`)).body);
    const bundle = (await w.client.get(`${nested}/bundles/`)).body.results[0];
    expectShape(bundleResponse, bundle);
    expectShape(bundleResponse, (await w.client.get(`${nested}/bundles/${bundle.id}/`)).body);
  });
});

describe("item writes racing the deletion of what they refer to", () => {
  it("answer 201 or 400, never 500, while the category they use is deleted", async () => {
    const ev = await otherEvent(w);
    const local: World = { ...w, ev: ev.ev, event: ev.event };
    const cat = await createCategory(local, { is_addon: true });
    const base = await createItem(local);
    const [deleted, ...writes] = await Promise.all([
      w.client.delete(`${ev.ev}/categories/${cat.id}/`),
      ...Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? w.client.post(`${ev.ev}/items/`, {
              name: `T${i}`,
              default_price: "1",
              category: cat.id,
              addons: [{ addon_category: cat.id }],
            })
          : w.client.post(`${ev.ev}/items/${base.id}/addons/`, { addon_category: cat.id, position: i }),
      ),
    ]);
    expect(deleted.status).toBe(204);
    const allowed = [
      {
        category: [`Invalid pk "${cat.id}" - object does not exist.`],
        addons: [{ addon_category: ["The add-on's category must belong to the same event as the item."] }],
      },
      { addon_category: ["The add-on's category must belong to the same event as the item."] },
      { addon_category: ["The item already has an add-on of this category."] },
      { non_field_errors: ["A referenced object was changed or deleted meanwhile. Please retry."] },
    ];
    for (const res of writes) {
      expect([201, 400], res.text).toContain(res.status);
      if (res.status === 400) expect(allowed).toContainEqual(res.body);
    }
    // whatever was created before the deletion lost its category and its add-ons with it
    const list = await w.client.get(`${ev.ev}/items/`);
    for (const item of list.body.results) {
      expect(item.category).toBeNull();
      expect(item.addons).toEqual([]);
    }
  });
});
