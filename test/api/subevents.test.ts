import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { changeStamps, subeventItems, subevents } from "../../src/db/schema";
import { type Client, db, type Json, seedDevice, seedOrganizer, seedTeam } from "../harness";
import {
  createEvent,
  createMetaProperty,
  DAY,
  eventId,
  iso,
  seedItem,
  seedOrder,
  seedQuota,
  seedSeatingPlan,
  seedVariation,
} from "../helpers/events";

const subUrl = (org: string, ev: string) => `/api/v1/organizers/${org}/events/${ev}/subevents/`;

async function series(overrides: Record<string, unknown> = {}) {
  const org = await seedOrganizer();
  const ev = await createEvent(org.client, org.slug, { has_subevents: true, ...overrides });
  return { org, ev, url: subUrl(org.slug, ev.slug), id: await eventId(org.id, ev.slug) };
}

async function createSub(client: Client, url: string, body: Record<string, unknown>): Promise<Json> {
  const res = await client.post(url, {
    name: { en: "Date" },
    date_from: "2030-01-01T10:00:00Z",
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function subCount(evId: number) {
  return (await db().select().from(subevents).where(eq(subevents.eventId, evId))).length;
}

describe("sub-event creation", () => {
  it("creates a date with defaults", async () => {
    const { org, ev, url } = await series();
    const res = await org.client.post(url, { name: { en: "First" }, date_from: "2030-12-27T10:00:00Z" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: { en: "First" },
      event: ev.slug,
      active: false,
      is_public: true,
      date_from: "2030-12-27T10:00:00Z",
      date_to: null,
      date_admission: null,
      presale_start: null,
      presale_end: null,
      frontpage_text: null,
      location: null,
      geo_lat: null,
      geo_lon: null,
      item_price_overrides: [],
      variation_price_overrides: [],
      meta_data: {},
      seating_plan: null,
      seat_category_mapping: {},
      last_modified: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const detail = await org.client.get(`${url}${res.body.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual(res.body);
  });

  it("stores overrides, meta data, seating and every other field", async () => {
    const { org, url, id } = await series();
    await createMetaProperty(org.client, org.slug, { name: "Room" });
    const item = await seedItem(id, { price: 1000 });
    const withVariations = await seedItem(id);
    const variation = await seedVariation(withVariations, { price: 500 });
    const plan = await seedSeatingPlan(org.id);
    const body = {
      name: { en: "Matinee", de: "Matinee" },
      active: true,
      is_public: false,
      date_from: "2030-03-01T14:00:00+01:00",
      date_to: "2030-03-01T17:00:00Z",
      date_admission: "2030-03-01T12:30:00Z",
      presale_start: "2030-01-01T00:00:00Z",
      presale_end: "2030-02-28T00:00:00Z",
      frontpage_text: { en: "Bring a towel." },
      location: { en: "Small hall" },
      geo_lat: -33.86,
      geo_lon: 151.2,
      item_price_overrides: [
        { item, price: "12.50", disabled: false, available_from: "2030-01-15T00:00:00Z", available_until: null },
      ],
      variation_price_overrides: [{ variation, price: null, disabled: true }],
      meta_data: { Room: "B" },
      seating_plan: plan,
      seat_category_mapping: { Stalls: item },
    };
    const res = await org.client.post(url, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      ...body,
      date_from: "2030-03-01T13:00:00Z",
      item_price_overrides: [
        { item, price: "12.50", disabled: false, available_from: "2030-01-15T00:00:00Z", available_until: null },
      ],
      variation_price_overrides: [
        { variation, price: null, disabled: true, available_from: null, available_until: null },
      ],
    });
  });

  it("is refused for an event that is not a series", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug);
    const res = await org.client.post(subUrl(org.slug, ev.slug), {
      name: { en: "x" },
      date_from: "2030-01-01T10:00:00Z",
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      non_field_errors: [
        "This event is not an event series (has_subevents is false); sub-events can only be created for event series.",
      ],
    });
    expect(await subCount(await eventId(org.id, ev.slug))).toBe(0);
    const list = await org.client.get(subUrl(org.slug, ev.slug));
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(0);
  });

  it("answers 400 for invalid input and creates nothing", async () => {
    const { org, url, id } = await series();
    const other = await createEvent(org.client, org.slug, { has_subevents: true });
    const otherId = await eventId(org.id, other.slug);
    const foreignItem = await seedItem(otherId);
    const foreignVariation = await seedVariation(foreignItem);
    const item = await seedItem(id);
    const foreignPlan = await seedSeatingPlan((await seedOrganizer()).id);
    const cases: [Record<string, unknown>, string, string?][] = [
      [{ name: undefined }, "name"],
      [{ date_from: undefined }, "date_from"],
      [{ date_to: "2029-12-31T10:00:00Z" }, "date_to", "The end of the event has to be later than its start."],
      [{ presale_start: "2029-12-02T00:00:00Z", presale_end: "2029-12-01T00:00:00Z" }, "presale_end"],
      [
        { item_price_overrides: [{ item: foreignItem, price: "1.00" }] },
        "item_price_overrides",
        "One or more items do not belong to this event.",
      ],
      [
        {
          item_price_overrides: [
            { item, price: "1.00" },
            { item, price: "2.00" },
          ],
        },
        "item_price_overrides",
        "Each item may only be listed once.",
      ],
      [{ item_price_overrides: [{ item, price: "-1.00" }] }, "item_price_overrides"],
      [{ item_price_overrides: [{ item, price: "1.001" }] }, "item_price_overrides"],
      [{ item_price_overrides: [{ item, price: "1e400" }] }, "item_price_overrides"],
      [
        {
          item_price_overrides: [
            { item, available_from: "2030-01-02T00:00:00Z", available_until: "2030-01-01T00:00:00Z" },
          ],
        },
        "item_price_overrides",
        "available_until has to be later than available_from.",
      ],
      [{ item_price_overrides: [{ price: "1.00" }] }, "item_price_overrides"],
      [
        { variation_price_overrides: [{ variation: foreignVariation }] },
        "variation_price_overrides",
        "One or more variations do not belong to this event.",
      ],
      [{ seating_plan: foreignPlan }, "seating_plan", `Invalid pk "${foreignPlan}" - object does not exist.`],
      [{ seat_category_mapping: { A: foreignItem } }, "seat_category_mapping", `Item '${foreignItem}' does not exist.`],
      [{ meta_data: { Nope: "x" } }, "meta_data", "Meta data property 'Nope' does not exist."],
      [{ geo_lon: 181 }, "geo_lon"],
      [{ active: "yes" }, "active"],
    ];
    for (const [overrides, field, message] of cases) {
      const res = await org.client.post(url, { name: { en: "Date" }, date_from: "2030-01-01T10:00:00Z", ...overrides });
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      expect(Object.keys(res.body), JSON.stringify(res.body)).toEqual([field]);
      if (message) expect(res.body[field]).toEqual([message]);
    }
    expect(await subCount(id)).toBe(0);
  });

  it("needs can_create_events; devices cannot create dates", async () => {
    const { org, url, id } = await series();
    const settingsOnly = await seedTeam(org.id, { permissions: ["can_change_event_settings"] });
    const body = { name: { en: "x" }, date_from: "2030-01-01T10:00:00Z" };
    expect((await settingsOnly.client.post(url, body)).status).toBe(403);
    expect((await (await seedDevice(org.id)).client.post(url, body)).status).toBe(403);
    const creator = await seedTeam(org.id, { permissions: ["can_create_events"] });
    expect((await creator.client.post(url, body)).status).toBe(201);
    expect(await subCount(id)).toBe(1);
  });
});

describe("sub-event update", () => {
  it("PATCH changes only the fields sent and replaces override lists", async () => {
    const { org, url, id } = await series();
    const a = await seedItem(id);
    const b = await seedItem(id);
    const created = await createSub(org.client, url, {
      location: { en: "Hall" },
      item_price_overrides: [{ item: a, price: "10.00" }],
    });
    const res = await org.client.patch(`${url}${created.id}/`, {
      name: { en: "Renamed" },
      item_price_overrides: [{ item: b, price: "23.42" }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: { en: "Renamed" },
      location: { en: "Hall" },
      item_price_overrides: [{ item: b, price: "23.42", disabled: false, available_from: null, available_until: null }],
    });
    expect(await db().select().from(subeventItems).where(eq(subeventItems.subeventId, created.id))).toHaveLength(1);
    const kept = await org.client.patch(`${url}${created.id}/`, { active: true });
    expect(kept.body.item_price_overrides).toEqual(res.body.item_price_overrides);
    expect(Date.parse(kept.body.last_modified)).toBeGreaterThanOrEqual(Date.parse(created.last_modified));
  });

  it("PUT resets omitted fields to their defaults", async () => {
    const { org, url, id } = await series();
    await createMetaProperty(org.client, org.slug, { name: "Room" });
    const item = await seedItem(id);
    const created = await createSub(org.client, url, {
      active: true,
      location: { en: "Hall" },
      date_to: "2030-01-01T12:00:00Z",
      item_price_overrides: [{ item, price: "10.00" }],
      meta_data: { Room: "A" },
    });
    const res = await org.client.put(`${url}${created.id}/`, {
      name: { en: "Only" },
      date_from: "2030-02-01T10:00:00Z",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: { en: "Only" },
      active: false,
      location: null,
      date_to: null,
      item_price_overrides: [],
      meta_data: {},
    });
    const missing = await org.client.put(`${url}${created.id}/`, { name: { en: "No date" } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ date_from: ["This field is required."] });
  });

  it("checks the date order against the stored dates", async () => {
    const { org, url } = await series();
    const created = await createSub(org.client, url, { date_to: "2030-01-01T12:00:00Z" });
    const res = await org.client.patch(`${url}${created.id}/`, { date_from: "2030-01-02T10:00:00Z" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ date_to: ["The end of the event has to be later than its start."] });
  });

  it("needs can_change_event_settings", async () => {
    const { org, url } = await series();
    const created = await createSub(org.client, url, {});
    const creator = await seedTeam(org.id, { permissions: ["can_create_events"] });
    expect((await creator.client.patch(`${url}${created.id}/`, { active: true })).status).toBe(403);
    expect((await creator.client.delete(`${url}${created.id}/`)).status).toBe(403);
    const device = await seedDevice(org.id);
    expect((await device.client.patch(`${url}${created.id}/`, { active: true })).status).toBe(403);
    expect((await device.client.get(`${url}${created.id}/`)).status).toBe(200);
  });
});

describe("sub-event deletion", () => {
  it("deletes a date without orders, with its overrides", async () => {
    const { org, url, id } = await series();
    const item = await seedItem(id);
    const created = await createSub(org.client, url, { item_price_overrides: [{ item, price: "1.00" }] });
    expect((await org.client.delete(`${url}${created.id}/`)).status).toBe(204);
    expect((await org.client.get(`${url}${created.id}/`)).status).toBe(404);
    expect(await db().select().from(subeventItems).where(eq(subeventItems.subeventId, created.id))).toHaveLength(0);
    expect((await org.client.delete(`${url}${created.id}/`)).status).toBe(404);
  });

  it("refuses to delete a date used in orders", async () => {
    const { org, url, id } = await series();
    const created = await createSub(org.client, url, {});
    await seedOrder(id, await seedItem(id), created.id);
    const res = await org.client.delete(`${url}${created.id}/`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail:
        "The sub-event can not be deleted as it has already been used in orders. Please set 'active' to false instead to hide it from users.",
    });
    expect((await org.client.get(`${url}${created.id}/`)).status).toBe(200);
  });
});

describe("sub-event isolation", () => {
  it("never reaches a date of another event or organizer by id", async () => {
    const a = await series();
    const b = await createEvent(a.org.client, a.org.slug, { has_subevents: true });
    const created = await createSub(a.org.client, a.url, {});
    const other = subUrl(a.org.slug, b.slug);
    expect((await a.org.client.get(`${other}${created.id}/`)).status).toBe(404);
    expect((await a.org.client.patch(`${other}${created.id}/`, { active: true })).status).toBe(404);
    expect(
      (await a.org.client.put(`${other}${created.id}/`, { name: { en: "x" }, date_from: "2030-01-01T10:00:00Z" }))
        .status,
    ).toBe(404);
    expect((await a.org.client.delete(`${other}${created.id}/`)).status).toBe(404);
    expect((await a.org.client.get(`${a.url}abc/`)).status).toBe(404);
    const foreign = await series();
    expect((await foreign.org.client.get(`${a.url}${created.id}/`)).status).toBe(403);
    expect((await foreign.org.client.get(`${foreign.url}${created.id}/`)).status).toBe(404);
    expect((await a.org.client.get(`${a.url}${created.id}/`)).body.active).toBe(false);
  });
});

describe("sub-event list", () => {
  async function world() {
    const s = await series();
    const now = Date.now();
    const past = await createSub(s.org.client, s.url, {
      name: { en: "Past show" },
      date_from: iso(now - 5 * DAY),
      date_to: iso(now - 4 * DAY),
      active: true,
    });
    const running = await createSub(s.org.client, s.url, {
      name: { en: "Now" },
      date_from: iso(now - DAY),
      date_to: iso(now + DAY),
      location: { de: "Kölner Dom" },
    });
    const future = await createSub(s.org.client, s.url, {
      name: { en: "Late show", fr: "Spectacle tardif" },
      date_from: iso(now + 3 * DAY),
      active: true,
    });
    return { ...s, past, running, future, now };
  }
  const ids = (body: { results: { id: number }[] }) => body.results.map((r) => r.id);

  it("lists the dates ordered by date_from", async () => {
    const w = await world();
    const res = await w.org.client.get(w.url);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
    expect(ids(res.body)).toEqual([w.past.id, w.running.id, w.future.id]);
    expect(res.body.results[0]).toEqual(w.past);
    expect(ids((await w.org.client.get(`${w.url}?ordering=-date_from`)).body)).toEqual([
      w.future.id,
      w.running.id,
      w.past.id,
    ]);
  });

  it("filters by active, is_future, is_past and ends_after", async () => {
    const w = await world();
    const q = async (query: string) => ids((await w.org.client.get(`${w.url}?${query}`)).body);
    expect(await q("active=true")).toEqual([w.past.id, w.future.id]);
    expect(await q("active=false")).toEqual([w.running.id]);
    expect(await q("is_future=true")).toEqual([w.running.id, w.future.id]);
    expect(await q("is_future=false")).toEqual([w.past.id]);
    expect(await q("is_past=true")).toEqual([w.past.id]);
    expect(await q("is_past=false")).toEqual([w.running.id, w.future.id]);
    expect(await q(`ends_after=${encodeURIComponent(iso(w.now + 2 * DAY))}`)).toEqual([w.future.id]);
  });

  it("searches name and location in any language", async () => {
    const w = await world();
    const q = async (query: string) =>
      ids((await w.org.client.get(`${w.url}?search=${encodeURIComponent(query)}`)).body);
    expect(await q("show")).toEqual([w.past.id, w.future.id]);
    expect(await q("tardif")).toEqual([w.future.id]);
    expect(await q("kölner")).toEqual([w.running.id]);
    expect(await q("nothing")).toEqual([]);
  });

  it("returns only dates changed since modified_since", async () => {
    const w = await world();
    const hourAgo = Date.now() - 3_600_000;
    await db().update(subevents).set({ lastModified: hourAgo }).where(eq(subevents.eventId, w.id));
    await w.org.client.patch(`${w.url}${w.running.id}/`, { active: true });
    const since = (ms: number) => `${w.url}?modified_since=${encodeURIComponent(iso(ms))}`;
    expect(ids((await w.org.client.get(since(hourAgo + 60_000))).body)).toEqual([w.running.id]);
    expect((await w.org.client.get(since(hourAgo))).body.count).toBe(3);
    expect((await w.org.client.get(`${w.url}?modified_since=yesterday`)).status).toBe(400);
    // the list tells the server time to pass back next time
    const page = await w.org.client.get(w.url);
    const generated = page.headers.get("X-Page-Generated")!;
    expect(Date.parse(generated)).toBeGreaterThan(hourAgo);
    expect((await w.org.client.get(`${w.url}?modified_since=${encodeURIComponent(generated)}`)).body.count).toBe(0);
  });

  it("filters by attr[...] with the series' values and organizer defaults", async () => {
    const s = await series();
    await createMetaProperty(s.org.client, s.org.slug, { name: "Format" });
    await createMetaProperty(s.org.client, s.org.slug, { name: "Lang", default: "en" });
    await s.org.client.patch(`/api/v1/organizers/${s.org.slug}/events/${s.ev.slug}/`, {
      meta_data: { Format: "Seminar" },
    });
    const own = await createSub(s.org.client, s.url, { meta_data: { Format: "Workshop", Lang: "de" } });
    const inherited = await createSub(s.org.client, s.url, { date_from: "2030-01-02T10:00:00Z" });
    const q = async (query: string) => ids((await s.org.client.get(`${s.url}?${query}`)).body);
    expect(await q("attr[Format]=Workshop")).toEqual([own.id]);
    expect(await q("attr[Format]=Seminar")).toEqual([inherited.id]);
    expect(await q("attr[Format]=")).toEqual([]);
    expect(await q("attr[Lang]=en")).toEqual([inherited.id]);
    expect(await q("attr[Lang]=de")).toEqual([own.id]);
    expect(own.meta_data).toEqual({ Format: "Workshop", Lang: "de" });
    expect(inherited.meta_data).toEqual({});
  });

  it("answers 304 to If-Modified-Since until the list changes", async () => {
    const w = await world();
    const first = await w.org.client.get(w.url);
    const lastModified = first.headers.get("Last-Modified");
    expect(lastModified).toBeTruthy();
    const again = await w.org.client.get(w.url, { headers: { "If-Modified-Since": lastModified! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    // the list's change stamp moves back an hour; a client that fetched since then is current
    await db()
      .update(changeStamps)
      .set({ modifiedAt: Date.now() - 3_600_000 })
      .where(eq(changeStamps.scope, `event:${w.id}`));
    const stale = new Date(Date.now() - 1_800_000).toUTCString();
    expect((await w.org.client.get(w.url, { headers: { "If-Modified-Since": stale } })).status).toBe(304);
    await w.org.client.delete(`${w.url}${w.past.id}/`);
    const changed = await w.org.client.get(w.url, { headers: { "If-Modified-Since": stale } });
    expect(changed.status).toBe(200);
    expect(ids(changed.body)).toEqual([w.running.id, w.future.id]);
    // a refused delete does not mark the list as changed
    await db()
      .update(changeStamps)
      .set({ modifiedAt: Date.now() - 3_600_000 })
      .where(eq(changeStamps.scope, `event:${w.id}`));
    await seedOrder(w.id, await seedItem(w.id), w.running.id);
    expect((await w.org.client.delete(`${w.url}${w.running.id}/`)).status).toBe(403);
    expect((await w.org.client.get(w.url, { headers: { "If-Modified-Since": stale } })).status).toBe(304);
  });

  it("lets devices and teams without permissions read dates of their events", async () => {
    const w = await world();
    const none = await seedTeam(w.org.id, { permissions: [] });
    expect((await none.client.get(w.url)).body.count).toBe(3);
    const device = await seedDevice(w.org.id, { allEvents: false, events: [w.id] });
    expect((await device.client.get(w.url)).body.count).toBe(3);
    const elsewhere = await seedDevice(w.org.id, { allEvents: false, events: [] });
    expect((await elsewhere.client.get(w.url)).status).toBe(403);
  });
});

describe("organizer-level sub-event list", () => {
  it("lists dates of all accessible series with filters", async () => {
    const org = await seedOrganizer();
    const now = Date.now();
    const live = await createEvent(org.client, org.slug, {
      has_subevents: true,
      slug: "live-series",
      sales_channels: ["web", "pretixpos"],
      plugins: [],
    });
    const offline = await createEvent(org.client, org.slug, { has_subevents: true, slug: "offline-series" });
    const liveId = await eventId(org.id, live.slug);
    const a = await createSub(org.client, subUrl(org.slug, live.slug), { date_from: iso(now + DAY), active: true });
    const b = await createSub(org.client, subUrl(org.slug, offline.slug), {
      date_from: iso(now - 3 * DAY),
      date_to: iso(now - 2 * DAY),
    });
    await seedQuota(liveId);
    expect((await org.client.patch(`/api/v1/organizers/${org.slug}/events/${live.slug}/`, { live: true })).status).toBe(
      200,
    );
    const foreign = await seedOrganizer();
    const foreignSeries = await createEvent(foreign.client, foreign.slug, { has_subevents: true });
    await createSub(foreign.client, subUrl(foreign.slug, foreignSeries.slug), {});

    const url = `/api/v1/organizers/${org.slug}/subevents/`;
    const q = async (query = "") =>
      (await org.client.get(`${url}${query}`)).body.results.map((r: { id: number; event: string }) => [r.id, r.event]);
    expect(await q()).toEqual([
      [b.id, "offline-series"],
      [a.id, "live-series"],
    ]);
    expect(await q("?event__live=true")).toEqual([[a.id, "live-series"]]);
    expect(await q("?event__live=false")).toEqual([[b.id, "offline-series"]]);
    expect(await q("?active=true")).toEqual([[a.id, "live-series"]]);
    expect(await q("?is_future=true")).toEqual([[a.id, "live-series"]]);
    expect(await q("?is_past=true")).toEqual([[b.id, "offline-series"]]);
    expect(await q(`?ends_after=${encodeURIComponent(iso(now))}`)).toEqual([[a.id, "live-series"]]);
    expect(await q("?sales_channel=pretixpos")).toEqual([[a.id, "live-series"]]);

    const limited = await seedTeam(org.id, { permissions: [], allEvents: false, events: [liveId] });
    const res = await limited.client.get(url);
    expect(res.body.results.map((r: { id: number }) => r.id)).toEqual([a.id]);
    expect((await foreign.client.get(url)).status).toBe(403);
  });
});
