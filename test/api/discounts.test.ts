import { describe, expect, it } from "vitest";
import { discountResponse } from "../../src/api/discounts";
import { DATETIME_FORMAT_MESSAGE } from "../../src/rules/fields";
import { seedEventRow, seedOrganizer } from "../harness";
import { seedCatalogEvent, seedItem } from "../helpers/catalog";

const THREE_FOR_TWO = {
  internal_name: "3 for 2",
  condition_min_count: 3,
  benefit_discount_matching_percent: "100.00",
  benefit_only_apply_to_cheapest_n_matches: 1,
};

describe("discounts", () => {
  it("creates a discount with the spec's defaults and reads it back", async () => {
    const { client, path } = await seedCatalogEvent();
    const res = await client.post(`${path}/discounts/`, THREE_FOR_TWO);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      active: true,
      internal_name: "3 for 2",
      position: 0,
      sales_channels: ["web"],
      available_from: null,
      available_until: null,
      subevent_mode: "mixed",
      condition_all_products: true,
      condition_limit_products: [],
      condition_apply_to_addons: true,
      condition_ignore_voucher_discounted: false,
      condition_min_count: 3,
      condition_min_value: "0.00",
      benefit_discount_matching_percent: "100.00",
      benefit_only_apply_to_cheapest_n_matches: 1,
    });
    expect((await client.get(`${path}/discounts/${res.body.id}/`)).body).toEqual(res.body);
    expect((await client.get(`${path}/discounts/`)).body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [res.body],
    });
    // the response schema describes the wire exactly (no field more, none less)
    expect(discountResponse.strict().parse(res.body)).toEqual(res.body);
  });

  it("stores every field, with products of the event", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const a = await seedItem(event.id);
    const b = await seedItem(event.id);
    const res = await client.post(`${path}/discounts/`, {
      active: false,
      internal_name: "Big spender",
      position: 3,
      sales_channels: ["web", "resellers", "web"],
      available_from: "2030-01-01T00:00:00+01:00",
      available_until: "2030-02-01T00:00:00Z",
      subevent_mode: "same",
      condition_all_products: false,
      condition_limit_products: [b.id, a.id],
      condition_apply_to_addons: false,
      condition_ignore_voucher_discounted: true,
      condition_min_value: "100.50",
      benefit_discount_matching_percent: 10,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      active: false,
      position: 3,
      sales_channels: ["web", "resellers"],
      available_from: "2029-12-31T23:00:00Z",
      available_until: "2030-02-01T00:00:00Z",
      subevent_mode: "same",
      condition_all_products: false,
      condition_limit_products: [a.id, b.id].sort((x, y) => x - y),
      condition_apply_to_addons: false,
      condition_ignore_voucher_discounted: true,
      condition_min_count: 0,
      condition_min_value: "100.50",
      benefit_discount_matching_percent: "10.00",
      benefit_only_apply_to_cheapest_n_matches: null,
    });
  });

  it("rejects the combinations pretix forbids, with field errors, and creates nothing", async () => {
    const { client, path } = await seedCatalogEvent();
    const cases: [object, Record<string, string[]>][] = [
      [
        { condition_min_count: 2, condition_min_value: "50.00" },
        {
          condition_min_value: [
            "You can either set a minimum number of matching products or a minimum value, not both.",
          ],
        },
      ],
      [
        { condition_min_value: "50.00", subevent_mode: "distinct" },
        {
          condition_min_value: [
            "You cannot apply the discount only to bookings of different dates if you are matching on a minimum value.",
          ],
        },
      ],
      [
        { condition_min_value: "50.00", benefit_only_apply_to_cheapest_n_matches: 1 },
        {
          benefit_only_apply_to_cheapest_n_matches: [
            "You cannot apply the discount only to some of the matched products if you are matching on a minimum value.",
          ],
        },
      ],
      [{}, { non_field_errors: ["You need to either set a minimum number of matching products or a minimum value."] }],
      [
        { condition_min_count: 1, available_from: "2030-02-01T00:00:00Z", available_until: "2030-01-01T00:00:00Z" },
        { available_until: ["The end of the availability must not be before its start."] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await client.post(`${path}/discounts/`, { internal_name: "x", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    // a min count with subevent_mode distinct and cheapest-n is fine
    const ok = await client.post(`${path}/discounts/`, { ...THREE_FOR_TWO, subevent_mode: "distinct" });
    expect(ok.status).toBe(201);
    expect((await client.get(`${path}/discounts/`)).body.count).toBe(1);
  });

  it("validates field types and ranges", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const foreign = await seedItem(other.id);
    const cases: [object, Record<string, string[]>][] = [
      [{ internal_name: undefined }, { internal_name: ["This field is required."] }],
      [{ subevent_mode: "sometimes" }, { subevent_mode: ['"sometimes" is not a valid choice.'] }],
      [{ sales_channels: [] }, { sales_channels: ["This list may not be empty."] }],
      [{ condition_min_count: -1 }, { condition_min_count: ["Ensure this value is greater than or equal to 0."] }],
      [
        { benefit_discount_matching_percent: "100.01" },
        { benefit_discount_matching_percent: ["Ensure this value is less than or equal to 100.00."] },
      ],
      [
        { condition_limit_products: [foreign.id] },
        { condition_limit_products: [`Invalid pk "${foreign.id}" - object does not exist.`] },
      ],
      [{ available_from: "tomorrow" }, { available_from: [DATETIME_FORMAT_MESSAGE] }],
    ];
    for (const [body, errors] of cases) {
      const res = await client.post(`${path}/discounts/`, { ...THREE_FOR_TWO, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect((await client.get(`${path}/discounts/`)).body.count).toBe(0);
  });

  it("lists with the active filter and id/position ordering", async () => {
    const { client, path } = await seedCatalogEvent();
    const d1 = (await client.post(`${path}/discounts/`, { ...THREE_FOR_TWO, position: 2 })).body;
    const d2 = (await client.post(`${path}/discounts/`, { ...THREE_FOR_TWO, position: 1, active: false })).body;
    const d3 = (await client.post(`${path}/discounts/`, { ...THREE_FOR_TWO, position: 3 })).body;
    const ids = async (query: string) =>
      (await client.get(`${path}/discounts/${query}`)).body.results.map((d: { id: number }) => d.id);
    expect(await ids("")).toEqual([d2.id, d1.id, d3.id]);
    expect(await ids("?ordering=id")).toEqual([d1.id, d2.id, d3.id]);
    expect(await ids("?ordering=-position")).toEqual([d3.id, d1.id, d2.id]);
    expect(await ids("?active=true")).toEqual([d1.id, d3.id]);
    expect(await ids("?active=false")).toEqual([d2.id]);
    expect((await client.get(`${path}/discounts/?active=perhaps`)).status).toBe(400);
  });

  it("PATCH changes only the sent fields and checks the merged state; PUT resets omitted fields", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const { body: d } = await client.post(`${path}/discounts/`, {
      ...THREE_FOR_TWO,
      sales_channels: ["resellers"],
      condition_limit_products: [item.id],
    });
    const patched = await client.patch(`${path}/discounts/${d.id}/`, { active: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...d, active: false });
    // condition_min_count 3 is stored: adding a minimum value conflicts
    const conflict = await client.patch(`${path}/discounts/${d.id}/`, { condition_min_value: "10.00" });
    expect(conflict.status).toBe(400);
    expect(conflict.body).toEqual({
      condition_min_value: ["You can either set a minimum number of matching products or a minimum value, not both."],
      benefit_only_apply_to_cheapest_n_matches: [
        "You cannot apply the discount only to some of the matched products if you are matching on a minimum value.",
      ],
    });
    expect((await client.get(`${path}/discounts/${d.id}/`)).body).toEqual({ ...d, active: false });
    const put = await client.put(`${path}/discounts/${d.id}/`, {
      internal_name: "Value",
      condition_min_value: "10.00",
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      ...d,
      internal_name: "Value",
      active: true,
      sales_channels: ["web"],
      condition_limit_products: [],
      condition_min_count: 0,
      condition_min_value: "10.00",
      benefit_discount_matching_percent: "0.00",
      benefit_only_apply_to_cheapest_n_matches: null,
    });
  });

  it("answers product changes to a discount deleted meanwhile with 200 or 404, never 500", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const { body: d } = await client.post(`${path}/discounts/`, THREE_FOR_TWO);
    const changes = Array.from({ length: 8 }, () =>
      client.patch(`${path}/discounts/${d.id}/`, { condition_limit_products: [item.id] }),
    );
    const [deleted, ...changed] = await Promise.all([client.delete(`${path}/discounts/${d.id}/`), ...changes]);
    expect(deleted.status).toBe(204);
    for (const r of changed) expect([200, 404]).toContain(r.status);
    expect((await client.get(`${path}/discounts/${d.id}/`)).status).toBe(404);
  });

  it("deletes on the plural and the singular path", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: d1 } = await client.post(`${path}/discounts/`, THREE_FOR_TWO);
    const { body: d2 } = await client.post(`${path}/discounts/`, THREE_FOR_TWO);
    expect((await client.delete(`${path}/discounts/${d1.id}/`)).status).toBe(204);
    expect((await client.delete(`${path}/discount/${d2.id}/`)).status).toBe(204);
    expect((await client.get(`${path}/discounts/`)).body.count).toBe(0);
    expect((await client.delete(`${path}/discount/${d2.id}/`)).status).toBe(404);
  });

  it("never reaches a discount of another event or organizer", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const otherPath = `/api/v1/organizers/${org.slug}/events/${other.slug}`;
    const { body: foreign } = await client.post(`${otherPath}/discounts/`, THREE_FOR_TWO);
    expect((await client.get(`${path}/discounts/${foreign.id}/`)).status).toBe(404);
    expect((await client.patch(`${path}/discounts/${foreign.id}/`, { active: false })).status).toBe(404);
    expect((await client.delete(`${path}/discounts/${foreign.id}/`)).status).toBe(404);
    expect((await client.delete(`${path}/discount/${foreign.id}/`)).status).toBe(404);
    const stranger = await seedOrganizer();
    expect((await stranger.client.get(`${otherPath}/discounts/${foreign.id}/`)).status).toBe(403);
    expect((await client.get(`${otherPath}/discounts/${foreign.id}/`)).body.active).toBe(true);
  });
});
