import { describe, expect, it } from "vitest";
import { BASE, db, seedDevice, seedEventRow, seedOrganizer, seedTeam, unique } from "../harness";
import {
  createEvent,
  createMetaProperty,
  DAY,
  eventBody,
  eventId,
  iso,
  seedItem,
  seedOrder,
  seedQuota,
  seedSeatingPlan,
  seedVariation,
} from "../helpers/events";
import { events, teamEvents } from "../../src/db/schema";
import { and, eq } from "drizzle-orm";

const eventsUrl = (org: string) => `/api/v1/organizers/${org}/events/`;
const eventUrl = (org: string, ev: string) => `/api/v1/organizers/${org}/events/${ev}/`;

async function eventCount(orgId: number): Promise<number> {
  return (await db().select().from(events).where(eq(events.organizerId, orgId))).length;
}

describe("event creation", () => {
  it("creates an event with defaults and answers with the full detail", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(eventsUrl(org.slug), {
      name: { en: "Sample Conference", de: "Beispielkonferenz" },
      slug: "sampleconf",
      date_from: "2030-12-27T10:00:00Z",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      name: { en: "Sample Conference", de: "Beispielkonferenz" },
      slug: "sampleconf",
      live: false,
      testmode: false,
      currency: "EUR",
      date_from: "2030-12-27T10:00:00Z",
      date_to: null,
      date_admission: null,
      is_public: true,
      presale_start: null,
      presale_end: null,
      location: null,
      geo_lat: null,
      geo_lon: null,
      has_subevents: false,
      meta_data: {},
      plugins: [
        "pretix.plugins.sendmail",
        "pretix.plugins.statistics",
        "pretix.plugins.checkinlists",
        "pretix.plugins.autocheckin",
      ],
      seating_plan: null,
      seat_category_mapping: {},
      timezone: "UTC",
      item_meta_properties: {},
      sales_channels: ["web"],
      public_url: `${BASE}/${org.slug}/sampleconf/`,
      valid_keys: {},
    });
    const detail = await org.client.get(eventUrl(org.slug, "sampleconf"));
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual(res.body);
  });

  it("stores every field sent and reads it back", async () => {
    const org = await seedOrganizer();
    const plan = await seedSeatingPlan(org.id);
    await createMetaProperty(org.client, org.slug, { name: "Format" });
    const body = {
      name: { en: "Full" },
      slug: "full-event",
      live: false,
      testmode: true,
      currency: "USD",
      date_from: "2030-06-01T18:00:00+02:00",
      date_to: "2030-06-01T23:30:00.500Z",
      date_admission: "2030-06-01T17:00:00Z",
      is_public: false,
      presale_start: "2030-01-01T00:00:00Z",
      presale_end: "2030-05-31T00:00:00Z",
      location: { en: "Town hall", de: "Rathaus" },
      geo_lat: 52.52,
      geo_lon: "13.405",
      has_subevents: false,
      meta_data: { Format: "Concert" },
      plugins: ["pretix.plugins.banktransfer", "pretix.plugins.returnurl"],
      seating_plan: plan,
      seat_category_mapping: {},
      timezone: "Europe/Berlin",
      item_meta_properties: { color: "blue" },
      sales_channels: ["web", "pretixpos"],
    };
    const res = await org.client.post(eventsUrl(org.slug), body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      ...body,
      date_from: "2030-06-01T16:00:00Z",
      date_to: "2030-06-01T23:30:00.500Z",
      geo_lon: 13.405,
      valid_keys: {},
    });
  });

  it("refuses live: true at creation and creates nothing", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(eventsUrl(org.slug), eventBody({ live: true }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      live: [
        "Events cannot be created as 'live'. Quotas and payment must be added to the event before sales can go live.",
      ],
    });
    expect(await eventCount(org.id)).toBe(0);
  });

  it("refuses a slug used before in the organizer, not in another organizer", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await createEvent(org.client, org.slug, { slug: "taken" });
    const res = await org.client.post(eventsUrl(org.slug), eventBody({ slug: "taken" }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ slug: ["This slug has already been used for a different event."] });
    expect(await eventCount(org.id)).toBe(1);
    await createEvent(other.client, other.slug, { slug: "taken" });
  });

  it("creates one event when many requests take the same slug at once; the others answer 400 on slug", async () => {
    const org = await seedOrganizer();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => org.client.post(eventsUrl(org.slug), eventBody({ slug: "rush" }))),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(400)]);
    for (const r of results.filter((x) => x.status === 400)) {
      expect(r.body).toEqual({ slug: ["This slug has already been used for a different event."] });
    }
    expect(await eventCount(org.id)).toBe(1);
  });

  it("answers 400 with field errors for invalid values and creates nothing", async () => {
    const org = await seedOrganizer();
    const foreignPlan = await seedSeatingPlan((await seedOrganizer()).id);
    const cases: [Record<string, unknown>, string][] = [
      [{ slug: "Bad Slug!" }, "slug"],
      [{ currency: "EURO" }, "currency"],
      [{ timezone: "Mars/Olympus" }, "timezone"],
      [{ date_from: "tomorrow" }, "date_from"],
      [{ date_to: "2030-12-26T10:00:00Z" }, "date_to"],
      [{ presale_start: "2030-05-02T00:00:00Z", presale_end: "2030-05-01T00:00:00Z" }, "presale_end"],
      [{ plugins: ["pretix.plugins.nonexistent"] }, "plugins"],
      [{ sales_channels: ["teleshopping"] }, "sales_channels"],
      [{ sales_channels: ["web", "web"] }, "sales_channels"],
      [{ seat_category_mapping: { Stalls: null } }, "seat_category_mapping"],
      [{ seating_plan: foreignPlan }, "seating_plan"],
      [{ seating_plan: 1e300 }, "seating_plan"],
      [{ has_subevents: true, seating_plan: await seedSeatingPlan(org.id) }, "seating_plan"],
      [{ geo_lat: 91 }, "geo_lat"],
      [{ geo_lon: "east" }, "geo_lon"],
      [{ meta_data: { Unknown: "x" } }, "meta_data"],
      [{ meta_data: { Unknown: 5 } }, "meta_data"],
      [{ name: "" }, "name"],
      [{ live: "yes" }, "live"],
    ];
    for (const [overrides, field] of cases) {
      const res = await org.client.post(eventsUrl(org.slug), eventBody(overrides));
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      expect(Object.keys(res.body), JSON.stringify(res.body)).toEqual([field]);
    }
    expect(await eventCount(org.id)).toBe(0);
  });

  it("names the exact messages for dates, plugins and unknown meta data keys", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(
      eventsUrl(org.slug),
      eventBody({ date_to: "2030-01-01T00:00:00Z", plugins: ["x.y"], meta_data: { Nope: "1" } }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      date_to: ["The end of the event has to be later than its start."],
      plugins: ["Unknown plugin: 'x.y'."],
      meta_data: ["Meta data property 'Nope' does not exist."],
    });
  });

  it("requires name, slug and date_from", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(eventsUrl(org.slug), {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      name: ["This field is required."],
      slug: ["This field is required."],
      date_from: ["This field is required."],
    });
  });

  it("adds a new event to the event list of a creating team limited to some events", async () => {
    const org = await seedOrganizer();
    const mine = await seedEventRow(org.id);
    const team = await seedTeam(org.id, {
      permissions: ["can_create_events", "can_change_event_settings"],
      allEvents: false,
      events: [mine.id],
    });
    const created = await createEvent(team.client, org.slug);
    const id = await eventId(org.id, created.slug);
    const link = await db()
      .select()
      .from(teamEvents)
      .where(and(eq(teamEvents.teamId, team.teamId), eq(teamEvents.eventId, id)));
    expect(link).toHaveLength(1);
    expect((await team.client.get(eventUrl(org.slug, created.slug))).status).toBe(200);
    const list = await team.client.get(eventsUrl(org.slug));
    expect(list.body.results.map((e: { slug: string }) => e.slug).sort()).toEqual([created.slug, mine.slug].sort());
  });

  it("answers 403 without can_create_events", async () => {
    const org = await seedOrganizer();
    const team = await seedTeam(org.id, { permissions: ["can_change_event_settings"] });
    const res = await team.client.post(eventsUrl(org.slug), eventBody());
    expect(res.status).toBe(403);
    expect(await eventCount(org.id)).toBe(0);
  });
});

describe("event list", () => {
  async function world() {
    const org = await seedOrganizer();
    const now = Date.now();
    const past = await createEvent(org.client, org.slug, {
      slug: "b-past",
      name: { en: "Old Gala", fr: "Gala ancien" },
      date_from: iso(now - 10 * DAY),
      date_to: iso(now - 9 * DAY),
      is_public: false,
    });
    const running = await createEvent(org.client, org.slug, {
      slug: "c-running",
      name: { en: "Festival" },
      date_from: iso(now - DAY),
      date_to: iso(now + DAY),
      location: { de: "Stadthalle Köln" },
    });
    const future = await createEvent(org.client, org.slug, {
      slug: "a-future",
      name: { en: "Expo" },
      date_from: iso(now + 20 * DAY),
      sales_channels: ["pretixpos"],
    });
    const series = await createEvent(org.client, org.slug, {
      slug: "d-series",
      name: { en: "Tour" },
      has_subevents: true,
      date_from: iso(now - 100 * DAY),
    });
    return { org, past, running, future, series, now };
  }

  const slugs = (body: { results: { slug: string }[] }) => body.results.map((e) => e.slug);

  it("lists the organizer's events ordered by slug, without valid_keys", async () => {
    const { org } = await world();
    const other = await seedOrganizer();
    await createEvent(other.client, other.slug, { slug: "a-other" });
    const res = await org.client.get(eventsUrl(org.slug));
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(4);
    expect(slugs(res.body)).toEqual(["a-future", "b-past", "c-running", "d-series"]);
    expect(res.body.results[0]).not.toHaveProperty("valid_keys");
    expect(res.body.results[0].public_url).toBe(`${BASE}/${org.slug}/a-future/`);
  });

  it("orders by date_from, -date_from and -slug", async () => {
    const { org } = await world();
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?ordering=date_from`)).body)).toEqual([
      "d-series",
      "b-past",
      "c-running",
      "a-future",
    ]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?ordering=-date_from`)).body)).toEqual([
      "a-future",
      "c-running",
      "b-past",
      "d-series",
    ]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?ordering=-slug`)).body)).toEqual([
      "d-series",
      "c-running",
      "b-past",
      "a-future",
    ]);
  });

  it("filters by is_public, live and has_subevents", async () => {
    const { org } = await world();
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?is_public=false`)).body)).toEqual(["b-past"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?is_public=true`)).body)).toEqual([
      "a-future",
      "c-running",
      "d-series",
    ]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?has_subevents=true`)).body)).toEqual(["d-series"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?live=true`)).body)).toEqual([]);
    expect((await org.client.get(`${eventsUrl(org.slug)}?live=false`)).body.count).toBe(4);
    const bad = await org.client.get(`${eventsUrl(org.slug)}?live=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty("live");
  });

  it("filters by is_future, is_past and ends_after; series are never returned by them", async () => {
    const { org, now } = await world();
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?is_future=true`)).body)).toEqual([
      "a-future",
      "c-running",
    ]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?is_future=false`)).body)).toEqual(["b-past"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?is_past=true`)).body)).toEqual(["b-past"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?is_past=false`)).body)).toEqual([
      "a-future",
      "c-running",
    ]);
    const after = encodeURIComponent(iso(now + 2 * DAY));
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?ends_after=${after}`)).body)).toEqual(["a-future"]);
    const earlier = encodeURIComponent(iso(now - 9.5 * DAY));
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?ends_after=${earlier}`)).body)).toEqual([
      "a-future",
      "b-past",
      "c-running",
    ]);
    const bad = await org.client.get(`${eventsUrl(org.slug)}?ends_after=soon`);
    expect(bad.status).toBe(400);
  });

  it("never returns series, whatever their dates, for is_future, is_past and ends_after", async () => {
    const org = await seedOrganizer();
    const now = Date.now();
    await createEvent(org.client, org.slug, { slug: "s-future", has_subevents: true, date_from: iso(now + 10 * DAY) });
    await createEvent(org.client, org.slug, {
      slug: "s-past",
      has_subevents: true,
      date_from: iso(now - 10 * DAY),
      date_to: iso(now - 9 * DAY),
    });
    await createEvent(org.client, org.slug, { slug: "single", date_from: iso(now + 10 * DAY) });
    const q = async (query: string) => slugs((await org.client.get(`${eventsUrl(org.slug)}?${query}`)).body);
    expect(await q("is_future=true")).toEqual(["single"]);
    expect(await q("is_future=false")).toEqual([]);
    expect(await q("is_past=true")).toEqual([]);
    expect(await q("is_past=false")).toEqual(["single"]);
    expect(await q(`ends_after=${encodeURIComponent(iso(now - 20 * DAY))}`)).toEqual(["single"]);
    expect(await q("")).toEqual(["s-future", "s-past", "single"]);
  });

  it("searches slug, name and location in any language", async () => {
    const { org } = await world();
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?search=future`)).body)).toEqual(["a-future"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?search=ancien`)).body)).toEqual(["b-past"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?search=stadthalle`)).body)).toEqual(["c-running"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?search=%25`)).body)).toEqual([]);
    // language codes are keys, not text
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?search=fr`)).body)).toEqual([]);
  });

  it("filters by sales_channel", async () => {
    const { org } = await world();
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?sales_channel=pretixpos`)).body)).toEqual(["a-future"]);
    expect(slugs((await org.client.get(`${eventsUrl(org.slug)}?sales_channel=web`)).body)).toEqual([
      "b-past",
      "c-running",
      "d-series",
    ]);
  });

  it("filters by attr[...], with the empty value and organizer defaults", async () => {
    const org = await seedOrganizer();
    await createMetaProperty(org.client, org.slug, { name: "Format" });
    await createMetaProperty(org.client, org.slug, { name: "Color", default: "blue" });
    await createEvent(org.client, org.slug, { slug: "seminar", meta_data: { Format: "Seminar", Color: "red" } });
    await createEvent(org.client, org.slug, { slug: "concert", meta_data: { Format: "Concert" } });
    await createEvent(org.client, org.slug, { slug: "plain" });
    const q = async (query: string) => slugs((await org.client.get(`${eventsUrl(org.slug)}?${query}`)).body);
    expect(await q("attr[Format]=Seminar")).toEqual(["seminar"]);
    expect(await q("attr[Format]=")).toEqual(["plain"]);
    expect(await q("attr[Color]=blue")).toEqual(["concert", "plain"]);
    expect(await q("attr[Color]=red")).toEqual(["seminar"]);
    expect(await q("attr[Color]=")).toEqual([]);
    expect(await q("attr[Color]=blue&attr[Format]=Concert")).toEqual(["concert"]);
    expect(await q("attr[NoSuchKey]=x")).toEqual(["concert", "plain", "seminar"]);
  });

  it("shows a limited team and a limited device only their events; other organizers get 403", async () => {
    const { org, future } = await world();
    const id = await eventId(org.id, future.slug);
    const team = await seedTeam(org.id, { permissions: ["can_change_event_settings"], allEvents: false, events: [id] });
    expect(slugs((await team.client.get(eventsUrl(org.slug))).body)).toEqual(["a-future"]);
    const device = await seedDevice(org.id, { allEvents: false, events: [id] });
    expect(slugs((await device.client.get(eventsUrl(org.slug))).body)).toEqual(["a-future"]);
    expect((await device.client.get(eventUrl(org.slug, "b-past"))).status).toBe(403);
    const foreign = await seedOrganizer();
    expect((await foreign.client.get(eventsUrl(org.slug))).status).toBe(403);
    expect((await foreign.client.get(eventUrl(org.slug, future.slug))).status).toBe(403);
  });

  it("paginates with count, next and previous", async () => {
    const org = await seedOrganizer();
    for (let i = 0; i < 3; i++) await createEvent(org.client, org.slug, { slug: `e${i}` });
    const first = await org.client.get(`${eventsUrl(org.slug)}?page_size=2`);
    expect(first.body.count).toBe(3);
    expect(slugs(first.body)).toEqual(["e0", "e1"]);
    expect(first.body.next).toBe(`${BASE}${eventsUrl(org.slug)}?page_size=2&page=2`);
    const second = await org.client.get(first.body.next);
    expect(slugs(second.body)).toEqual(["e2"]);
    expect(second.body.next).toBeNull();
  });
});

describe("event detail", () => {
  it("includes valid_keys (empty: ticket secrets are random, not signed)", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const res = await org.client.get(eventUrl(org.slug, ev.slug));
    expect(res.status).toBe(200);
    expect(res.body.valid_keys).toEqual({});
    const device = await seedDevice(org.id);
    expect((await device.client.get(eventUrl(org.slug, ev.slug))).body.slug).toBe(ev.slug);
  });

  it("answers 403 for an unknown event or organizer", async () => {
    const org = await seedOrganizer();
    expect((await org.client.get(eventUrl(org.slug, "nope"))).status).toBe(403);
    expect((await org.client.get(eventUrl("no-such-org", "nope"))).status).toBe(403);
  });

  it("does not accept PUT (405)", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug);
    const res = await org.client.put(eventUrl(org.slug, ev.slug), eventBody({ slug: ev.slug }));
    expect(res.status).toBe(405);
  });
});

describe("event update", () => {
  it("changes only the fields sent", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug, { location: { en: "Hall" }, testmode: true });
    const res = await org.client.patch(eventUrl(org.slug, ev.slug), {
      name: { en: "Renamed" },
      plugins: ["pretix.plugins.banktransfer", "pretix.plugins.stripe"],
      date_to: "2030-12-28T10:00:00Z",
      is_public: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...ev,
      name: { en: "Renamed" },
      plugins: ["pretix.plugins.banktransfer", "pretix.plugins.stripe"],
      date_to: "2030-12-28T10:00:00Z",
      is_public: false,
    });
    expect((await org.client.get(eventUrl(org.slug, ev.slug))).body).toEqual(res.body);
  });

  it("refuses to change has_subevents or the slug", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug);
    const res = await org.client.patch(eventUrl(org.slug, ev.slug), { has_subevents: true, slug: "other" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      slug: ["The slug of an event cannot be changed."],
      has_subevents: ["Once created an event cannot change between an series and a single event."],
    });
    expect((await org.client.patch(eventUrl(org.slug, ev.slug), { has_subevents: false, slug: ev.slug })).status).toBe(
      200,
    );
  });

  it("checks the date order against the stored dates", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug, { date_to: "2030-12-28T10:00:00Z" });
    const res = await org.client.patch(eventUrl(org.slug, ev.slug), { date_from: "2030-12-29T10:00:00Z" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ date_to: ["The end of the event has to be later than its start."] });
    expect(
      (await org.client.patch(eventUrl(org.slug, ev.slug), { date_from: "2030-12-29T10:00:00Z", date_to: null }))
        .status,
    ).toBe(200);
  });

  it("goes live only with a quota, a payment method for paid products and required meta data", async () => {
    const org = await seedOrganizer();
    await createMetaProperty(org.client, org.slug, { name: "Region", required: true });
    await createMetaProperty(org.client, org.slug, { name: "Level", required: true, default: "basic" });
    const ev = await createEvent(org.client, org.slug, { plugins: [] });
    const id = await eventId(org.id, ev.slug);
    const item = await seedItem(id, { price: 0 });
    await seedVariation(item, { price: 1500 });
    const url = eventUrl(org.slug, ev.slug);

    let res = await org.client.patch(url, { live: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      live: [
        "You have configured at least one paid product but have not enabled any payment methods.",
        "You need to configure at least one quota to sell anything.",
        'You need to fill the meta parameter "Region".',
      ],
    });
    expect((await org.client.get(url)).body.live).toBe(false);

    await seedQuota(id);
    res = await org.client.patch(url, {
      live: true,
      plugins: ["pretix.plugins.banktransfer"],
      meta_data: { Region: "North" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.live).toBe(true);
    expect(
      (await org.client.get(`${eventsUrl(org.slug)}?live=true`)).body.results.map((e: { slug: string }) => e.slug),
    ).toEqual([ev.slug]);
    expect((await org.client.patch(url, { live: false })).body.live).toBe(false);
  });

  it("lets free events go live with a quota and no payment plugin", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug, { plugins: [] });
    const id = await eventId(org.id, ev.slug);
    await seedItem(id, { price: 0 });
    await seedQuota(id);
    const res = await org.client.patch(eventUrl(org.slug, ev.slug), { live: true });
    expect(res.status).toBe(200);
    expect(res.body.live).toBe(true);
  });

  it("takes a seating plan of the organizer and a category mapping to the event's own items", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug);
    const other = await createEvent(org.client, org.slug);
    const item = await seedItem(await eventId(org.id, ev.slug));
    const foreignItem = await seedItem(await eventId(org.id, other.slug));
    const plan = await seedSeatingPlan(org.id);
    const foreignPlan = await seedSeatingPlan((await seedOrganizer()).id);
    const url = eventUrl(org.slug, ev.slug);

    let res = await org.client.patch(url, {
      seating_plan: foreignPlan,
      seat_category_mapping: { Stalls: foreignItem },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      seating_plan: [`Invalid pk "${foreignPlan}" - object does not exist.`],
      seat_category_mapping: [`Item '${foreignItem}' does not exist.`],
    });
    res = await org.client.patch(url, { seating_plan: plan, seat_category_mapping: { Stalls: item, Balcony: null } });
    expect(res.status).toBe(200);
    expect(res.body.seating_plan).toBe(plan);
    expect(res.body.seat_category_mapping).toEqual({ Stalls: item, Balcony: null });
    res = await org.client.patch(url, { seating_plan: null });
    expect(res.body.seating_plan).toBeNull();
  });

  it("refuses a seating plan on an event series", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug, { has_subevents: true });
    const res = await org.client.patch(eventUrl(org.slug, ev.slug), { seating_plan: await seedSeatingPlan(org.id) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ seating_plan: ["Event series should not directly be assigned a seating plan."] });
  });

  it("replaces meta_data, checks choices and protects protected properties", async () => {
    const org = await seedOrganizer();
    await createMetaProperty(org.client, org.slug, {
      name: "Format",
      choices: [{ key: "Seminar" }, { key: "Concert" }],
    });
    await createMetaProperty(org.client, org.slug, { name: "Budget", protected: true });
    await createMetaProperty(org.client, org.slug, { name: "Note" });
    const ev = await createEvent(org.client, org.slug, { meta_data: { Format: "Seminar", Budget: "A", Note: "x" } });
    const url = eventUrl(org.slug, ev.slug);

    let res = await org.client.patch(url, { meta_data: { Format: "Opera", Budget: "A" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ meta_data: ["Meta data property 'Format' does not allow value 'Opera'."] });

    res = await org.client.patch(url, { meta_data: { Format: "Concert", Budget: "A" } });
    expect(res.status).toBe(200);
    expect(res.body.meta_data).toEqual({ Format: "Concert", Budget: "A" });

    const settingsOnly = await seedTeam(org.id, { permissions: ["can_change_event_settings"] });
    res = await settingsOnly.client.patch(url, { meta_data: { Format: "Seminar", Budget: "B" } });
    expect(res.status).toBe(400);
    expect(res.body.meta_data[0]).toMatch(/'Budget' is protected/);
    res = await settingsOnly.client.patch(url, { meta_data: { Format: "Seminar" } });
    expect(res.status).toBe(400);
    res = await settingsOnly.client.patch(url, { meta_data: { Format: "Seminar", Budget: "A" } });
    expect(res.status).toBe(200);
    expect((await org.client.get(url)).body.meta_data).toEqual({ Format: "Seminar", Budget: "A" });
  });

  it("refuses a currency change once the event has orders", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug);
    const id = await eventId(org.id, ev.slug);
    expect((await org.client.patch(eventUrl(org.slug, ev.slug), { currency: "CHF" })).body.currency).toBe("CHF");
    await seedOrder(id, await seedItem(id));
    const res = await org.client.patch(eventUrl(org.slug, ev.slug), { currency: "USD" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ currency: ["The currency cannot be changed once the event has orders."] });
  });

  it("needs can_change_event_settings; devices cannot change events", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug);
    const creator = await seedTeam(org.id, { permissions: ["can_create_events"] });
    expect((await creator.client.patch(eventUrl(org.slug, ev.slug), { name: { en: "x" } })).status).toBe(403);
    const device = await seedDevice(org.id);
    expect((await device.client.patch(eventUrl(org.slug, ev.slug), { name: { en: "x" } })).status).toBe(403);
    expect((await org.client.get(eventUrl(org.slug, ev.slug))).body.name).toEqual({ en: "Sample Conference" });
  });
});

describe("event deletion", () => {
  it("deletes an event without orders", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug, { has_subevents: true });
    await org.client.post(`${eventUrl(org.slug, ev.slug)}subevents/`, {
      name: { en: "Day 1" },
      date_from: "2030-01-01T10:00:00Z",
    });
    const res = await org.client.delete(eventUrl(org.slug, ev.slug));
    expect(res.status).toBe(204);
    expect((await org.client.get(eventUrl(org.slug, ev.slug))).status).toBe(403);
    expect(await eventCount(org.id)).toBe(0);
  });

  it("refuses to delete an event with orders", async () => {
    const org = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug);
    const id = await eventId(org.id, ev.slug);
    await seedOrder(id, await seedItem(id));
    const res = await org.client.delete(eventUrl(org.slug, ev.slug));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      detail:
        "The event can not be deleted as it already contains orders. Please set 'live' to false to hide the event and take the shop offline instead.",
    });
    expect((await org.client.get(eventUrl(org.slug, ev.slug))).status).toBe(200);
  });

  it("cannot reach another organizer's event", async () => {
    const org = await seedOrganizer();
    const foreign = await seedOrganizer();
    const ev = await createEvent(org.client, org.slug, { slug: unique("keep") });
    expect((await foreign.client.delete(eventUrl(org.slug, ev.slug))).status).toBe(403);
    expect((await foreign.client.delete(eventUrl(foreign.slug, ev.slug))).status).toBe(403);
    expect(await eventCount(org.id)).toBe(1);
  });
});
