import { beforeAll, describe, expect, it } from "vitest";
import { categoryResponse } from "../../src/api/categories";
import { seedDevice, seedOrganizer, seedTeam } from "../harness";
import { ageStamp, createCategory, createItem, otherEvent, type World, world } from "../helpers/items";

let w: World;
beforeAll(async () => {
  w = await world();
});

describe("categories", () => {
  it("creates (201) and reads a category with every field", async () => {
    const res = await w.client.post(`${w.ev}/categories/`, {
      name: { en: "Tickets", de: "Tickets" },
      internal_name: "main",
      description: { en: "Tickets are what you need to get in." },
      position: 1,
      is_addon: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      name: { en: "Tickets", de: "Tickets" },
      internal_name: "main",
      description: { en: "Tickets are what you need to get in." },
      position: 1,
      is_addon: false,
    });
    expect((await w.client.get(`${w.ev}/categories/${res.body.id}/`)).body).toEqual(res.body);
    const minimal = await w.client.post(`${w.ev}/categories/`, { name: "Merch" });
    expect(minimal.body).toEqual({
      id: minimal.body.id,
      name: { en: "Merch" },
      internal_name: null,
      description: null,
      position: 0,
      is_addon: false,
    });
    // the response schema describes exactly these fields and types
    for (const body of [res.body, minimal.body, ...(await w.client.get(`${w.ev}/categories/`)).body.results]) {
      expect(Object.keys(body).sort()).toEqual(Object.keys(categoryResponse.shape).sort());
      expect(categoryResponse.safeParse(body).error?.issues ?? []).toEqual([]);
    }
  });

  it("validates the input", async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{}, { name: ["This field is required."] }],
      [{ name: "" }, { name: ["This field may not be blank."] }],
      [{ name: "A", is_addon: "sure" }, { is_addon: ["Must be a valid boolean."] }],
      [{ name: "A", position: "first" }, { position: ["A valid integer is required."] }],
      [{ name: "A", position: 2 ** 40 }, { position: ["Ensure this value is less than or equal to 2147483647."] }],
      [
        { name: "A", internal_name: "x".repeat(256) },
        { internal_name: ["Ensure this field has no more than 255 characters."] },
      ],
      [{ name: "A", description: 5 }, { description: ["Invalid value."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await w.client.post(`${w.ev}/categories/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
  });

  it("lists with is_addon and ordering (default position, then id)", async () => {
    const ev = await otherEvent(w);
    const local = { ...w, ev: ev.ev, event: ev.event };
    const a = await createCategory(local, { position: 2 });
    const b = await createCategory(local, { position: 1, is_addon: true });
    const c = await createCategory(local, { position: 1 });
    const ids = async (query: string) =>
      (await w.client.get(`${ev.ev}/categories/${query}`)).body.results.map((x: { id: number }) => x.id);
    expect(await ids("")).toEqual([b.id, c.id, a.id]);
    expect(await ids("?ordering=id")).toEqual([a.id, b.id, c.id]);
    expect(await ids("?ordering=-id")).toEqual([c.id, b.id, a.id]);
    expect(await ids("?ordering=-position")).toEqual([a.id, b.id, c.id]);
    expect(await ids("?is_addon=true")).toEqual([b.id]);
    expect(await ids("?is_addon=false")).toEqual([c.id, a.id]);
    expect((await w.client.get(`${ev.ev}/categories/?is_addon=x`)).status).toBe(400);
    const page = await w.client.get(`${ev.ev}/categories/?page_size=2`);
    expect(page.body).toMatchObject({ count: 3, previous: null });
    expect(page.body.next).toMatch(/page=2/);
  });

  it("PATCH changes sent fields, PUT resets omitted ones", async () => {
    const cat = await createCategory(w, { internal_name: "x", description: { en: "d" }, position: 4, is_addon: true });
    const patched = await w.client.patch(`${w.ev}/categories/${cat.id}/`, { is_addon: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...cat, is_addon: false });
    const missing = await w.client.put(`${w.ev}/categories/${cat.id}/`, { position: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ name: ["This field is required."] });
    const put = await w.client.put(`${w.ev}/categories/${cat.id}/`, { name: "New" });
    expect(put.body).toEqual({
      id: cat.id,
      name: { en: "New" },
      internal_name: null,
      description: null,
      position: 0,
      is_addon: false,
    });
    expect((await w.client.patch(`${w.ev}/categories/999999/`, { position: 1 })).status).toBe(404);
  });

  it("deletes (204) on the plural and the singular path; items stay without category, add-ons of it go", async () => {
    const cat = await createCategory(w, { is_addon: true });
    const inCat = await createItem(w, { category: cat.id });
    const base = await createItem(w, { addons: [{ addon_category: cat.id }] });
    const res = await w.client.delete(`${w.ev}/categories/${cat.id}/`);
    expect(res.status).toBe(204);
    expect((await w.client.get(`${w.ev}/categories/${cat.id}/`)).status).toBe(404);
    expect((await w.client.get(`${w.ev}/items/${inCat.id}/`)).body).toEqual({ ...inCat, category: null });
    expect((await w.client.get(`${w.ev}/items/${base.id}/`)).body.addons).toEqual([]);
    expect((await w.client.get(`${w.ev}/items/?category=${cat.id}`)).body.count).toBe(0);

    const other = await createCategory(w);
    expect((await w.client.delete(`${w.ev}/category/${other.id}/`)).status).toBe(204);
    expect((await w.client.get(`${w.ev}/categories/${other.id}/`)).status).toBe(404);
    expect((await w.client.delete(`${w.ev}/category/${other.id}/`)).status).toBe(404);
    expect((await w.client.delete(`${w.ev}/categories/${other.id}/`)).status).toBe(404);
  });

  it("supports Last-Modified / If-Modified-Since on the list, moved by every write", async () => {
    const ev = await otherEvent(w);
    const local = { ...w, ev: ev.ev, event: ev.event };
    expect((await w.client.get(`${ev.ev}/categories/`)).headers.get("Last-Modified")).toBeNull();
    const cat = await createCategory(local);
    const list = await w.client.get(`${ev.ev}/categories/`);
    const lm = list.headers.get("Last-Modified")!;
    expect(lm).toMatch(/GMT$/);
    expect((await w.client.get(`${ev.ev}/categories/`, { headers: { "If-Modified-Since": lm } })).status).toBe(304);
    const older = new Date(Date.parse(lm) - 1000).toUTCString();
    expect((await w.client.get(`${ev.ev}/categories/`, { headers: { "If-Modified-Since": older } })).status).toBe(200);

    const since = { headers: { "If-Modified-Since": "Thu, 01 Jan 1970 00:00:01 GMT" } };
    const writes: [string, () => Promise<{ status: number }>][] = [
      ["create", () => w.client.post(`${ev.ev}/categories/`, { name: "B" })],
      ["patch", () => w.client.patch(`${ev.ev}/categories/${cat.id}/`, { position: 5 })],
      ["put", () => w.client.put(`${ev.ev}/categories/${cat.id}/`, { name: "C" })],
      ["delete", () => w.client.delete(`${ev.ev}/categories/${cat.id}/`)],
    ];
    for (const [name, write] of writes) {
      await ageStamp(ev.event.id, "categories", 1000);
      expect((await w.client.get(`${ev.ev}/categories/`, since)).status, name).toBe(304);
      expect((await write()).status, name).toBeLessThan(300);
      expect((await w.client.get(`${ev.ev}/categories/`, since)).status, name).toBe(200);
    }
  });

  it("lets devices and any team read; writing needs can_change_items", async () => {
    const cat = await createCategory(w);
    for (const client of [(await seedDevice(w.id)).client, (await seedTeam(w.id, { permissions: [] })).client]) {
      expect((await client.get(`${w.ev}/categories/`)).status).toBe(200);
      expect((await client.get(`${w.ev}/categories/${cat.id}/`)).body).toEqual(cat);
      expect((await client.post(`${w.ev}/categories/`, { name: "X" })).status).toBe(403);
      expect((await client.patch(`${w.ev}/categories/${cat.id}/`, { position: 3 })).status).toBe(403);
      expect((await client.put(`${w.ev}/categories/${cat.id}/`, { name: "X" })).status).toBe(403);
      expect((await client.delete(`${w.ev}/categories/${cat.id}/`)).status).toBe(403);
      expect((await client.delete(`${w.ev}/category/${cat.id}/`)).status).toBe(403);
    }
    expect((await w.client.get(`${w.ev}/categories/${cat.id}/`)).body).toEqual(cat);
    const writer = await seedTeam(w.id, { permissions: ["can_change_items"] });
    expect((await writer.client.patch(`${w.ev}/categories/${cat.id}/`, { position: 3 })).status).toBe(200);
  });

  it("never reaches a category of another event or organizer by id", async () => {
    const cat = await createCategory(w);
    const other = await otherEvent(w);
    expect((await w.client.get(`${other.ev}/categories/${cat.id}/`)).status).toBe(404);
    expect((await w.client.patch(`${other.ev}/categories/${cat.id}/`, { position: 1 })).status).toBe(404);
    expect((await w.client.put(`${other.ev}/categories/${cat.id}/`, { name: "x" })).status).toBe(404);
    expect((await w.client.delete(`${other.ev}/categories/${cat.id}/`)).status).toBe(404);
    expect((await w.client.delete(`${other.ev}/category/${cat.id}/`)).status).toBe(404);
    expect((await (await seedOrganizer()).client.get(`${w.ev}/categories/${cat.id}/`)).status).toBe(403);
    expect((await w.client.get(`${w.ev}/categories/${cat.id}/`)).body).toEqual(cat);
  });
});
