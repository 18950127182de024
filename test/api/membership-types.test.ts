import { beforeAll, describe, expect, it } from "vitest";
import { membershipTypes } from "../../src/db/schema";
import { db, seedDevice, seedOrganizer, seedTeam } from "../harness";
import { createItem, createMembershipType, variation, type World, world } from "../helpers/items";

let w: World;
let base: string;
beforeAll(async () => {
  w = await world();
  base = `/api/v1/organizers/${w.slug}/membershiptypes`;
});

describe("membership types", () => {
  it("creates (201), lists and reads membership types", async () => {
    const res = await w.client.post(`${base}/`, {
      name: { de: "Wochenkarte", en: "Week pass" },
      transferable: false,
      allow_parallel_usage: false,
      max_usages: 7,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      name: { de: "Wochenkarte", en: "Week pass" },
      transferable: false,
      allow_parallel_usage: false,
      max_usages: 7,
    });
    const minimal = await w.client.post(`${base}/`, { name: "Year pass" });
    expect(minimal.body).toEqual({
      id: minimal.body.id,
      name: { en: "Year pass" },
      transferable: false,
      allow_parallel_usage: false,
      max_usages: null,
    });
    expect((await w.client.get(`${base}/${res.body.id}/`)).body).toEqual(res.body);
    const list = await w.client.get(`${base}/`);
    expect(list.status).toBe(200);
    expect(list.body.results).toEqual(expect.arrayContaining([res.body, minimal.body]));
    expect(list.body.results.map((t: { id: number }) => t.id)).toEqual(
      [...list.body.results.map((t: { id: number }) => t.id)].sort((a, b) => a - b),
    );
    expect((await w.client.get(`${base}/999999/`)).status).toBe(404);
  });

  it("validates the input", async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{}, { name: ["This field is required."] }],
      [{ name: { en: " " } }, { name: ["This field may not be blank."] }],
      [{ name: "A", max_usages: -1 }, { max_usages: ["Ensure this value is greater than or equal to 0."] }],
      [{ name: "A", max_usages: 1e10 }, { max_usages: ["Ensure this value is less than or equal to 2147483647."] }],
      [{ name: "A", max_usages: 2.5 }, { max_usages: ["A valid integer is required."] }],
      [{ name: "A", transferable: 1 }, { transferable: ["Must be a valid boolean."] }],
    ];
    const before = (await db().select().from(membershipTypes)).length;
    for (const [body, errors] of cases) {
      const res = await w.client.post(`${base}/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect((await db().select().from(membershipTypes)).length).toBe(before);
  });

  it("PATCH changes sent fields, PUT resets omitted ones", async () => {
    const t = await createMembershipType(w, { transferable: true, allow_parallel_usage: true, max_usages: 3 });
    const patched = await w.client.patch(`${base}/${t.id}/`, { max_usages: 5 });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...t, max_usages: 5 });
    const put = await w.client.put(`${base}/${t.id}/`, { name: "Renamed" });
    expect(put.body).toEqual({
      id: t.id,
      name: { en: "Renamed" },
      transferable: false,
      allow_parallel_usage: false,
      max_usages: null,
    });
    expect((await w.client.put(`${base}/${t.id}/`, { max_usages: 1 })).body).toEqual({
      name: ["This field is required."],
    });
    expect((await w.client.patch(`${base}/999999/`, { max_usages: 1 })).status).toBe(404);
  });

  it("deletes an unused type (204) and refuses types that items or variations require or grant (403)", async () => {
    const unused = await createMembershipType(w);
    expect((await w.client.delete(`${base}/${unused.id}/`)).status).toBe(204);
    expect((await w.client.get(`${base}/${unused.id}/`)).status).toBe(404);
    expect((await w.client.delete(`${base}/${unused.id}/`)).status).toBe(404);

    const required = await createMembershipType(w);
    const granted = await createMembershipType(w);
    const byVariation = await createMembershipType(w);
    const item = await createItem(w, {
      require_membership: true,
      require_membership_types: [required.id],
      grant_membership_type: granted.id,
    });
    const withVariation = await createItem(w, {
      variations: [variation("A", { require_membership_types: [byVariation.id] })],
    });
    for (const t of [required, granted, byVariation]) {
      const res = await w.client.delete(`${base}/${t.id}/`);
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/cannot be deleted because it is in use/);
      expect((await w.client.get(`${base}/${t.id}/`)).status).toBe(200);
    }
    // once no item uses them any more, they can go
    await w.client.patch(`${w.ev}/items/${item.id}/`, { require_membership_types: [], grant_membership_type: null });
    await w.client.patch(`${w.ev}/items/${withVariation.id}/variations/${withVariation.variations[0].id}/`, {
      require_membership_types: [],
    });
    for (const t of [required, granted, byVariation])
      expect((await w.client.delete(`${base}/${t.id}/`)).status).toBe(204);
  });

  it("reading needs access to the organizer; writing needs can_change_organizer_settings", async () => {
    const t = await createMembershipType(w);
    const readers = [
      (await seedDevice(w.id)).client,
      (await seedTeam(w.id, { permissions: ["can_change_items"] })).client,
    ];
    for (const client of readers) {
      expect((await client.get(`${base}/`)).status).toBe(200);
      expect((await client.get(`${base}/${t.id}/`)).body).toEqual(t);
      for (const res of [
        await client.post(`${base}/`, { name: "X" }),
        await client.patch(`${base}/${t.id}/`, { max_usages: 1 }),
        await client.put(`${base}/${t.id}/`, { name: "X" }),
        await client.delete(`${base}/${t.id}/`),
      ]) {
        expect(res.status).toBe(403);
      }
    }
    const settings = await seedTeam(w.id, { permissions: ["can_change_organizer_settings"] });
    expect((await settings.client.patch(`${base}/${t.id}/`, { max_usages: 2 })).status).toBe(200);
  });

  it("never reaches another organizer's types", async () => {
    const t = await createMembershipType(w);
    const foreign = await seedOrganizer();
    expect((await foreign.client.get(`${base}/`)).status).toBe(403);
    expect((await foreign.client.get(`${base}/${t.id}/`)).status).toBe(403);
    const theirBase = `/api/v1/organizers/${foreign.slug}/membershiptypes`;
    expect((await foreign.client.get(`${theirBase}/${t.id}/`)).status).toBe(404);
    expect((await foreign.client.patch(`${theirBase}/${t.id}/`, { max_usages: 1 })).status).toBe(404);
    expect((await foreign.client.delete(`${theirBase}/${t.id}/`)).status).toBe(404);
    expect((await foreign.client.get(`${theirBase}/`)).body.count).toBe(0);
    expect((await w.client.get(`${base}/${t.id}/`)).body).toEqual(t);
  });
});
