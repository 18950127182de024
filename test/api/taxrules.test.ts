import { describe, expect, it } from "vitest";
import { taxRuleResponse } from "../../src/api/taxrules";
import { seedEventRow, seedOrganizer } from "../harness";
import { OLD_HTTP_DATE, OLD_MS, seedCatalogEvent, seedItem, seedOrderPosition, setStamp } from "../helpers/catalog";

const VAT = { name: { en: "VAT" }, rate: "19.00" };

describe("tax rules", () => {
  it("creates a rule with the spec's defaults and reads it back", async () => {
    const { client, path } = await seedCatalogEvent();
    const res = await client.post(`${path}/taxrules/`, VAT);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: { en: "VAT" },
      internal_name: null,
      rate: "19.00",
      price_includes_tax: true,
      eu_reverse_charge: false,
      home_country: null,
      keep_gross_if_rate_changes: false,
    });
    const one = await client.get(`${path}/taxrules/${res.body.id}/`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
    const list = await client.get(`${path}/taxrules/`);
    expect(list.body).toEqual({ count: 1, next: null, previous: null, results: [res.body] });
    // the response schema describes the wire exactly (no field more, none less)
    expect(taxRuleResponse.strict().parse(res.body)).toEqual(res.body);
  });

  it("stores every field and normalizes the rate to a two-place decimal string", async () => {
    const { client, path } = await seedCatalogEvent();
    const res = await client.post(`${path}/taxrules/`, {
      name: { en: "Reduced", de: "Ermäßigt" },
      internal_name: "reduced-7",
      rate: 7,
      price_includes_tax: false,
      eu_reverse_charge: true,
      home_country: "de",
      keep_gross_if_rate_changes: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: { en: "Reduced", de: "Ermäßigt" },
      internal_name: "reduced-7",
      rate: "7.00",
      price_includes_tax: false,
      eu_reverse_charge: true,
      home_country: "DE",
      keep_gross_if_rate_changes: true,
    });
  });

  it("rejects missing and malformed fields with field errors and creates nothing", async () => {
    const { client, path } = await seedCatalogEvent();
    const cases: [unknown, Record<string, unknown>][] = [
      [{ name: { en: "VAT" } }, { rate: ["This field is required."] }],
      [{ rate: "19.00" }, { name: ["This field is required."] }],
      [{ ...VAT, rate: "abc" }, { rate: ["A valid number is required."] }],
      [{ ...VAT, rate: "19.005" }, { rate: ["Ensure that there are no more than 2 decimal places."] }],
      [{ ...VAT, rate: "-1" }, { rate: ["Ensure this value is greater than or equal to 0.00."] }],
      [{ ...VAT, rate: "1e308" }, { rate: ["A valid number is required."] }],
      [{ ...VAT, home_country: "XX" }, { home_country: ['"XX" is not a valid choice.'] }],
      [{ ...VAT, price_includes_tax: "yes" }, { price_includes_tax: ["Must be a valid boolean."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await client.post(`${path}/taxrules/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect((await client.get(`${path}/taxrules/`)).body.count).toBe(0);
  });

  it("requires a home country for reverse charge; null and empty are allowed otherwise", async () => {
    const { client, path } = await seedCatalogEvent();
    const res = await client.post(`${path}/taxrules/`, { ...VAT, eu_reverse_charge: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      home_country: ["You need to set your home country to use the reverse charge feature."],
    });
    const empty = await client.post(`${path}/taxrules/`, { ...VAT, eu_reverse_charge: true, home_country: "" });
    expect(empty.status).toBe(400);
    const ok = await client.post(`${path}/taxrules/`, { ...VAT, home_country: "" });
    expect(ok.status).toBe(201);
    expect(ok.body.home_country).toBe("");
    // PATCH is checked against the stored state
    const patch = await client.patch(`${path}/taxrules/${ok.body.id}/`, { eu_reverse_charge: true });
    expect(patch.status).toBe(400);
    expect(patch.body).toEqual({
      home_country: ["You need to set your home country to use the reverse charge feature."],
    });
    expect((await client.get(`${path}/taxrules/${ok.body.id}/`)).body.eu_reverse_charge).toBe(false);
    const fixed = await client.patch(`${path}/taxrules/${ok.body.id}/`, {
      eu_reverse_charge: true,
      home_country: "AT",
    });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ eu_reverse_charge: true, home_country: "AT" });
  });

  it("PATCH changes only the sent fields; PUT resets omitted fields to their defaults", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: rule } = await client.post(`${path}/taxrules/`, {
      ...VAT,
      internal_name: "std",
      price_includes_tax: false,
      keep_gross_if_rate_changes: true,
      home_country: "DE",
    });
    const patched = await client.patch(`${path}/taxrules/${rule.id}/`, { rate: "20.00" });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...rule, rate: "20.00" });
    const put = await client.put(`${path}/taxrules/${rule.id}/`, { name: { en: "VAT new" }, rate: "21" });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      id: rule.id,
      name: { en: "VAT new" },
      internal_name: null,
      rate: "21.00",
      price_includes_tax: true,
      eu_reverse_charge: false,
      home_country: null,
      keep_gross_if_rate_changes: false,
    });
    const missing = await client.put(`${path}/taxrules/${rule.id}/`, { name: { en: "x" } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ rate: ["This field is required."] });
  });

  it("deletes an unused rule (204, then 404)", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: rule } = await client.post(`${path}/taxrules/`, VAT);
    const del = await client.delete(`${path}/taxrules/${rule.id}/`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await client.get(`${path}/taxrules/${rule.id}/`)).status).toBe(404);
    expect((await client.delete(`${path}/taxrules/${rule.id}/`)).status).toBe(404);
  });

  it("refuses to delete a rule used by a product (403) and keeps it", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const { body: rule } = await client.post(`${path}/taxrules/`, VAT);
    await seedItem(event.id, { taxRuleId: rule.id });
    const del = await client.delete(`${path}/taxrules/${rule.id}/`);
    expect(del.status).toBe(403);
    expect(del.body).toEqual({ detail: "This tax rule can not be deleted as it is currently in use." });
    expect((await client.get(`${path}/taxrules/${rule.id}/`)).status).toBe(200);
  });

  it("refuses to delete a rule used by an order position (403)", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const { body: rule } = await client.post(`${path}/taxrules/`, VAT);
    const item = await seedItem(event.id);
    await seedOrderPosition(event.id, item.id, rule.id);
    const del = await client.delete(`${path}/taxrules/${rule.id}/`);
    expect(del.status).toBe(403);
    expect(del.body.detail).toBe("This tax rule can not be deleted as it is currently in use.");
    expect((await client.get(`${path}/taxrules/${rule.id}/`)).status).toBe(200);
  });

  it("answers the list with Last-Modified and 304 until a rule changes or is deleted", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const { body: rule } = await client.post(`${path}/taxrules/`, VAT);
    await setStamp(event.id, "taxrules", OLD_MS);
    const first = await client.get(`${path}/taxrules/`);
    expect(first.status).toBe(200);
    expect(first.headers.get("Last-Modified")).toBe(OLD_HTTP_DATE);
    const cached = await client.get(`${path}/taxrules/`, { headers: { "If-Modified-Since": OLD_HTTP_DATE } });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe("");

    await client.patch(`${path}/taxrules/${rule.id}/`, { rate: "7.00" });
    const changed = await client.get(`${path}/taxrules/`, { headers: { "If-Modified-Since": OLD_HTTP_DATE } });
    expect(changed.status).toBe(200);
    expect(changed.body.results[0].rate).toBe("7.00");
    expect(Date.parse(changed.headers.get("Last-Modified")!)).toBeGreaterThan(OLD_MS);

    await setStamp(event.id, "taxrules", OLD_MS);
    await client.delete(`${path}/taxrules/${rule.id}/`);
    const afterDelete = await client.get(`${path}/taxrules/`, { headers: { "If-Modified-Since": OLD_HTTP_DATE } });
    expect(afterDelete.status).toBe(200);
    expect(afterDelete.body.count).toBe(0);

    await setStamp(event.id, "taxrules", OLD_MS);
    await client.post(`${path}/taxrules/`, VAT);
    expect((await client.get(`${path}/taxrules/`, { headers: { "If-Modified-Since": OLD_HTTP_DATE } })).status).toBe(
      200,
    );
  });

  it("never reaches a rule of another event or organizer", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const otherPath = `/api/v1/organizers/${org.slug}/events/${other.slug}`;
    const { body: foreign } = await client.post(`${otherPath}/taxrules/`, VAT);
    expect((await client.get(`${path}/taxrules/${foreign.id}/`)).status).toBe(404);
    expect((await client.patch(`${path}/taxrules/${foreign.id}/`, { rate: "1" })).status).toBe(404);
    expect((await client.put(`${path}/taxrules/${foreign.id}/`, VAT)).status).toBe(404);
    expect((await client.delete(`${path}/taxrules/${foreign.id}/`)).status).toBe(404);
    expect((await client.get(`${path}/taxrules/`)).body.count).toBe(0);
    expect((await client.get(`${otherPath}/taxrules/${foreign.id}/`)).body.rate).toBe("19.00");
    const stranger = await seedOrganizer();
    expect((await stranger.client.get(`${otherPath}/taxrules/${foreign.id}/`)).status).toBe(403);
    expect((await client.get(`${path}/taxrules/abc/`)).status).toBe(404);
  });
});
