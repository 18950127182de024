/**
 * Event cloning (spec "Endpoints › Events"; pretix docs events.rst): POST .../events/ with
 * `clone_from` (`<event>` or `<organizer>/<event>`) and POST .../events/{event}/clone/. A rich
 * source is built through the API, cloned both ways and read back through the API: every
 * copied object equals its original with every reference pointing at the copies.
 */
import { env } from "cloudflare:workers";
import { and, count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { cloneStatements } from "../../src/db/event-clone";
import type { EventValues } from "../../src/db/events";
import { changeStamps, events, items, orders, teamEvents } from "../../src/db/schema";
import { db, type Json, seedEventRow, seedOrganizer, seedTeam, unique } from "../harness";
import {
  addUncopiedObjects,
  buildRichSource,
  SEATING_LAYOUT,
  type Catalog,
  eventPath,
  idMap,
  orgPath,
  readCatalog,
  type RichSource,
} from "../helpers/clone";
import { eventId } from "../helpers/events";

type Org = Awaited<ReturnType<typeof seedOrganizer>>;

const body = (overrides: Record<string, unknown> = {}) => ({
  name: { en: "Copy" },
  slug: unique("copy"),
  date_from: "2031-05-10T10:00:00Z",
  ...overrides,
});

const NOT_FOUND = { clone_from: ["Event to copy from was not found."] };

async function totals() {
  const [[e], [i]] = await Promise.all([
    db().select({ n: count() }).from(events),
    db().select({ n: count() }).from(items),
  ]);
  return { events: e!.n, items: i!.n };
}

const sortNum = (ids: number[]) => [...ids].sort((a, b) => a - b);
const withoutId = ({ id: _id, ...rest }: Json) => rest;
const byName = (a: Json, b: Json) => JSON.stringify(a.name).localeCompare(JSON.stringify(b.name));

/**
 * The copy holds exactly the source's catalog: equal objects, new ids, every reference
 * (category, tax rule, variation, add-on category, bundled item / variation, hidden-if-
 * available quota, quota items / variations, question items / dependency) remapped to the
 * copies. Returns the maps for further checks.
 */
function expectRemappedCopy(src: Catalog, copy: Catalog, opts: { quotasCopied: boolean } = { quotasCopied: true }) {
  const tax = idMap(src.taxrules, copy.taxrules, (t) => t.name.en);
  const cat = idMap(src.categories, copy.categories, (c) => c.name.en);
  const item = idMap(src.items, copy.items, (i) => i.name.en);
  const quota = opts.quotasCopied ? idMap(src.quotas, copy.quotas, (q) => q.name) : new Map<number, number>();
  const question = idMap(src.questions, copy.questions, (q) => q.identifier);
  const variation = new Map<number, number>();
  for (const s of src.items) {
    const c = copy.items.find((i) => i.id === item.get(s.id))!;
    expect(c.variations.map((v: Json) => v.value)).toEqual(s.variations.map((v: Json) => v.value));
    s.variations.forEach((v: Json, k: number) => variation.set(v.id, c.variations[k].id));
  }
  const map = (m: Map<number, number>, id: number | null) => {
    if (id === null) return null;
    expect(m.has(id), `no copy of ${id}`).toBe(true);
    return m.get(id)!;
  };

  // new objects, none of them the source's
  for (const m of [tax, cat, item, variation, quota, question])
    for (const id of m.values()) expect(m.has(id)).toBe(false);

  expect(copy.taxrules.map(withoutId).sort(byName)).toEqual(src.taxrules.map(withoutId).sort(byName));
  expect(copy.categories.map(withoutId).sort(byName)).toEqual(src.categories.map(withoutId).sort(byName));

  for (const s of src.items) {
    const c = copy.items.find((i) => i.id === item.get(s.id));
    expect(c).toEqual({
      ...s,
      id: item.get(s.id),
      category: map(cat, s.category),
      tax_rule: map(tax, s.tax_rule),
      hidden_if_available: opts.quotasCopied ? map(quota, s.hidden_if_available) : null,
      variations: s.variations.map((v: Json) => ({ ...v, id: variation.get(v.id) })),
      addons: s.addons.map((a: Json) => ({ ...a, addon_category: map(cat, a.addon_category) })),
      bundles: s.bundles.map((b: Json) => ({
        ...b,
        bundled_item: map(item, b.bundled_item),
        bundled_variation: map(variation, b.bundled_variation),
      })),
    });
  }

  if (opts.quotasCopied) {
    for (const s of src.quotas) {
      const c = copy.quotas.find((q) => q.id === quota.get(s.id));
      expect(c).toEqual({
        ...s,
        id: quota.get(s.id),
        items: sortNum(s.items.map((i: number) => map(item, i))),
        variations: sortNum(s.variations.map((v: number) => map(variation, v))),
        closed: false,
      });
    }
  }

  for (const s of src.questions) {
    const c = copy.questions.find((q) => q.id === question.get(s.id));
    expect(c).toEqual({
      ...s,
      id: question.get(s.id),
      items: sortNum(s.items.map((i: number) => map(item, i))),
      options: s.options.map((o: Json) => ({ ...o, id: expect.any(Number) })),
      dependency_question: map(question, s.dependency_question),
    });
    const srcOptionIds = new Set(s.options.map((o: Json) => o.id));
    for (const o of c.options) expect(srcOptionIds.has(o.id)).toBe(false);
  }

  expect(copy.settings).toEqual(src.settings);
  return { tax, cat, item, variation, quota, question };
}

let org: Org;
let src: RichSource;
let source: Catalog;

beforeAll(async () => {
  org = await seedOrganizer();
  src = await buildRichSource(org);
  await addUncopiedObjects(org, src);
  source = await readCatalog(org.client, src.path);
});

describe("cloning an event", () => {
  it("the source is as rich as the tests need", () => {
    expect(source.items).toHaveLength(4);
    expect(
      source.items.some(
        (i) => i.variations.length === 2 && i.addons.length === 1 && i.require_membership_types.length === 1,
      ),
    ).toBe(true);
    expect(source.items.some((i) => i.bundles.length === 2)).toBe(true);
    expect(source.items.some((i) => i.hidden_if_available !== null)).toBe(true);
    expect(source.quotas).toHaveLength(2);
    expect(source.questions.some((q) => q.dependency_question !== null)).toBe(true);
    expect(source.event.seat_category_mapping.Stalls).toEqual(expect.any(Number));
    expect(source.settings.returnurl_prefix).toBe("https://example.org/return/");
  });

  it("with clone_from=<event>: creates the event from the body and copies the catalog, every reference remapped", async () => {
    const b = body();
    const res = await org.client.post(`${orgPath(org)}/events/?clone_from=${src.slug}`, b);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const copy = await readCatalog(org.client, eventPath(org, b.slug));
    const maps = expectRemappedCopy(source, copy);
    const ticket = source.items.find((i) => i.name.en === "Ticket")!;
    expect(res.body).toEqual({
      name: { en: "Copy" },
      slug: b.slug,
      live: false,
      // copied: is_public, testmode, has_subevents, plugins; timezone (a setting in pretix),
      // sales channels, item meta properties, meta data, seating plan and mapping
      testmode: true,
      currency: "EUR", // not copied: the body's value or the default
      date_from: "2031-05-10T10:00:00Z",
      date_to: null,
      // as far before date_from as in the source
      date_admission: "2031-05-10T09:00:00Z",
      is_public: false,
      presale_start: null,
      presale_end: null,
      location: null,
      geo_lat: null,
      geo_lon: null,
      has_subevents: false,
      meta_data: { [src.metaProperty]: "Conference" },
      plugins: ["pretix.plugins.banktransfer", "pretix.plugins.ticketoutputpdf", "pretix.plugins.returnurl"],
      seating_plan: src.seatingPlanId,
      seat_category_mapping: { Stalls: maps.item.get(ticket.id), Balcony: null },
      timezone: "Europe/Berlin",
      item_meta_properties: { color: "blue" },
      sales_channels: ["web", "pretixpos"],
      public_url: `http://ticketing.test/${org.slug}/${b.slug}/`,
      valid_keys: {},
    });
    expect(copy.event).toEqual(res.body);
    // membership links and pictures are part of the item: the same types, the same stored file
    const copiedTicket = copy.items.find((i) => i.name.en === "Ticket")!;
    expect(copiedTicket.require_membership_types).toEqual([src.membershipTypeId]);
    expect(copiedTicket.variations[1].require_membership_types).toEqual([src.membershipTypeId]);
    expect(copiedTicket.picture).toBe(ticket.picture);
    expect((await org.client.get(copiedTicket.picture)).status).toBe(200);
  });

  it("with clone_from=<organizer>/<event> of the same organizer", async () => {
    const b = body();
    const res = await org.client.post(`${orgPath(org)}/events/?clone_from=${org.slug}/${src.slug}`, b);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expectRemappedCopy(source, await readCatalog(org.client, eventPath(org, b.slug)));
  });

  it("with POST .../events/{event}/clone/", async () => {
    const b = body();
    const res = await org.client.post(`${src.path}/clone/`, b);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      slug: b.slug,
      is_public: false,
      testmode: true,
      has_subevents: false,
      seating_plan: src.seatingPlanId,
    });
    expectRemappedCopy(source, await readCatalog(org.client, eventPath(org, b.slug)));
  });

  it("leaves the source exactly as it was", async () => {
    await org.client.post(`${src.path}/clone/`, body());
    expect(await readCatalog(org.client, src.path)).toEqual(source);
  });

  it("copies nothing else: no sub-events, vouchers, discounts, email rules, ticket layouts or orders", async () => {
    const b = body();
    expect((await org.client.post(`${src.path}/clone/`, b)).status).toBe(201);
    const path = eventPath(org, b.slug);
    for (const list of ["subevents", "vouchers", "discounts", "sendmail_rules", "ticketlayouts"]) {
      expect((await org.client.get(`${src.path}/${list}/`)).body.count, list).toBeGreaterThanOrEqual(
        list === "subevents" ? 0 : 1,
      );
      const res = await org.client.get(`${path}/${list}/`);
      expect(res.status).toBe(200);
      expect(res.body.count, list).toBe(0);
    }
    const id = await eventId(org.id, b.slug);
    const [o] = await db().select({ n: count() }).from(orders).where(eq(orders.eventId, id));
    expect(o!.n).toBe(0);
  });

  it("stamps the new event's inventory, so its event object knows the copied quotas", async () => {
    const b = body();
    expect((await org.client.post(`${src.path}/clone/`, b)).status).toBe(201);
    const path = eventPath(org, b.slug);
    const quotas = (await org.client.get(`${path}/quotas/`)).body.results as Json[];
    const main = quotas.find((q) => q.name === "Main")!;
    const shirts = quotas.find((q) => q.name === "Shirts")!;
    expect((await org.client.get(`${path}/quotas/${main.id}/availability/`)).body).toMatchObject({
      available: true,
      available_number: 100,
    });
    // closed in the source, reopened in the copy
    expect((await org.client.get(`${path}/quotas/${shirts.id}/availability/`)).body).toMatchObject({
      available: true,
      available_number: 50,
    });
    const id = await eventId(org.id, b.slug);
    const stamp = await db()
      .select()
      .from(changeStamps)
      .where(and(eq(changeStamps.scope, `event:${id}`), eq(changeStamps.resource, "inventory")))
      .get();
    expect(stamp?.modifiedAt).toEqual(expect.any(Number));
  });
});

describe("body fields override the copy", () => {
  it("plugins, is_public, testmode, has_subevents, timezone, sales channels, item meta properties, meta data, date_admission", async () => {
    const b = body({
      plugins: ["pretix.plugins.stripe"],
      is_public: true,
      testmode: false,
      timezone: "Europe/London",
      sales_channels: ["web"],
      item_meta_properties: { size: "L" },
      meta_data: { [src.metaProperty]: "Workshop" },
      date_admission: null,
      currency: "CHF",
    });
    const res = await org.client.post(`${src.path}/clone/`, b);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      plugins: ["pretix.plugins.stripe"],
      is_public: true,
      testmode: false,
      timezone: "Europe/London",
      sales_channels: ["web"],
      item_meta_properties: { size: "L" },
      meta_data: { [src.metaProperty]: "Workshop" },
      date_admission: null,
      currency: "CHF",
      has_subevents: false,
    });
    // the catalog is copied all the same; item meta data show the new event's properties
    const copy = await readCatalog(org.client, eventPath(org, b.slug));
    expect(copy.items.map((i) => i.meta_data)).toEqual(copy.items.map(() => ({ size: "L" })));
  });

  it("an empty plugin list is a list like any other", async () => {
    const res = await org.client.post(`${orgPath(org)}/events/?clone_from=${src.slug}`, body({ plugins: [] }));
    expect(res.status).toBe(201);
    expect(res.body.plugins).toEqual([]);
  });

  it("has_subevents: true makes a series without the seating plan; its catalog is copied", async () => {
    const b = body({ has_subevents: true });
    const res = await org.client.post(`${src.path}/clone/`, b);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ has_subevents: true, seating_plan: null, seat_category_mapping: {} });
    expectRemappedCopy(source, await readCatalog(org.client, eventPath(org, b.slug)));
  });

  it("seating_plan in the body replaces the copied plan; the mapping is not copied then", async () => {
    const other = (await org.client.post(`${orgPath(org)}/seatingplans/`, { name: "Other", layout: SEATING_LAYOUT }))
      .body;
    expect(other.id).toEqual(expect.any(Number));
    const res = await org.client.post(`${src.path}/clone/`, body({ seating_plan: other.id }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ seating_plan: other.id, seat_category_mapping: {} });
    const none = await org.client.post(`${src.path}/clone/`, body({ seating_plan: null }));
    expect(none.body).toMatchObject({ seating_plan: null, seat_category_mapping: {} });
  });
});

describe("a series as the source", () => {
  it("copies neither its dates nor their quotas; an item hidden by a date's quota no longer hides", async () => {
    const c = org.client;
    const slug = unique("series");
    expect(
      (
        await c.post(`${orgPath(org)}/events/`, {
          name: { en: "Tour" },
          slug,
          date_from: "2030-01-01T10:00:00Z",
          has_subevents: true,
        })
      ).status,
    ).toBe(201);
    const path = eventPath(org, slug);
    const date = (
      await c.post(`${path}/subevents/`, { name: { en: "Berlin" }, date_from: "2030-02-01T19:00:00Z", active: true })
    ).body;
    const ticket = (await c.post(`${path}/items/`, { name: { en: "Ticket" }, default_price: "10.00" })).body;
    const quota = (await c.post(`${path}/quotas/`, { name: "Berlin", size: 10, items: [ticket.id], subevent: date.id }))
      .body;
    expect(quota.id, JSON.stringify(quota)).toEqual(expect.any(Number));
    const late = await c.post(`${path}/items/`, {
      name: { en: "Late" },
      default_price: "12.00",
      hidden_if_available: quota.id,
    });
    expect(late.status, JSON.stringify(late.body)).toBe(201);

    const b = body();
    const res = await c.post(`${path}/clone/`, b);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.has_subevents).toBe(true);
    const copyPath = eventPath(org, b.slug);
    expect((await c.get(`${copyPath}/subevents/`)).body.count).toBe(0);
    expect((await c.get(`${copyPath}/quotas/`)).body.count).toBe(0);
    const copy = await readCatalog(c, copyPath);
    expectRemappedCopy(await readCatalog(c, path), copy, { quotasCopied: false });
    expect(copy.items.find((i) => i.name.en === "Late")!.hidden_if_available).toBeNull();

    // has_subevents: false in the body makes a single event of the copy
    const single = await c.post(`${path}/clone/`, body({ has_subevents: false }));
    expect(single.body.has_subevents).toBe(false);
  });
});

describe("bad requests create nothing", () => {
  it("400 without slug or with a taken slug, both ways", async () => {
    const before = await totals();
    for (const url of [`${orgPath(org)}/events/?clone_from=${src.slug}`, `${src.path}/clone/`]) {
      const { slug: _s, ...noSlug } = body();
      const missing = await org.client.post(url, noSlug);
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ slug: ["This field is required."] });
      const taken = await org.client.post(url, body({ slug: src.slug }));
      expect(taken.status).toBe(400);
      expect(taken.body).toEqual({ slug: ["This slug has already been used for a different event."] });
      const live = await org.client.post(url, body({ live: true }));
      expect(live.status).toBe(400);
      expect(Object.keys(live.body)).toEqual(["live"]);
      const mapping = await org.client.post(url, body({ seat_category_mapping: { Stalls: null } }));
      expect(mapping.status).toBe(400);
      expect(mapping.body).toEqual({
        seat_category_mapping: ["You cannot specify seat category mappings on event creation."],
      });
      const seriesWithPlan = await org.client.post(url, body({ has_subevents: true, seating_plan: src.seatingPlanId }));
      expect(seriesWithPlan.status).toBe(400);
      expect(seriesWithPlan.body).toEqual({
        seating_plan: ["Event series should not directly be assigned a seating plan."],
      });
    }
    expect(await totals()).toEqual(before);
  });

  it("many clones taking the same slug at once: one is created, the others answer 400 on slug", async () => {
    const before = await totals();
    const slug = unique("rush");
    const urls = [`${orgPath(org)}/events/?clone_from=${src.slug}`, `${src.path}/clone/`];
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => org.client.post(urls[i % 2]!, body({ slug }))),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(7).fill(400)]);
    for (const r of results.filter((x) => x.status === 400)) {
      expect(r.body).toEqual({ slug: ["This slug has already been used for a different event."] });
    }
    const after = await totals();
    expect(after.events).toBe(before.events + 1);
    expect(after.items).toBe(before.items + source.items.length);
  });

  it("400 for a source that does not exist, in any spelling", async () => {
    const before = await totals();
    for (const from of ["nope", "", `${org.slug}/nope`, `${org.slug}/`, `${org.slug}/${src.slug}/x`, `/${src.slug}`]) {
      const res = await org.client.post(`${orgPath(org)}/events/?clone_from=${encodeURIComponent(from)}`, body());
      expect(res.status, from).toBe(400);
      expect(res.body).toEqual(NOT_FOUND);
    }
    // reported together with the body's own errors
    const both = await org.client.post(`${orgPath(org)}/events/?clone_from=nope`, body({ slug: src.slug }));
    expect(both.body).toEqual({ ...NOT_FOUND, slug: ["This slug has already been used for a different event."] });
    expect(await totals()).toEqual(before);
  });

  it("another organizer's event is never a source, and the answer does not tell whether it exists", async () => {
    const foreign = await seedOrganizer();
    const theirs = await seedEventRow(foreign.id);
    const before = await totals();
    const existing = await org.client.post(`${orgPath(org)}/events/?clone_from=${foreign.slug}/${theirs.slug}`, body());
    const missing = await org.client.post(`${orgPath(org)}/events/?clone_from=${foreign.slug}/nope`, body());
    const noOrg = await org.client.post(`${orgPath(org)}/events/?clone_from=${unique("noorg")}/${theirs.slug}`, body());
    for (const res of [existing, missing, noOrg]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual(NOT_FOUND);
    }
    // their event's slug alone names an event of this organizer (none)
    expect((await org.client.post(`${orgPath(org)}/events/?clone_from=${theirs.slug}`, body())).body).toEqual(
      NOT_FOUND,
    );
    // through the clone path of the other organizer: 403 like every foreign URL
    expect((await org.client.post(`${orgPath(foreign)}/events/${theirs.slug}/clone/`, body())).status).toBe(403);
    expect(await totals()).toEqual(before);
  });
});

describe("permissions", () => {
  it("a team without can_create_events gets 403 both ways", async () => {
    const team = await seedTeam(org.id, { permissions: ["can_change_event_settings", "can_change_items"] });
    const before = await totals();
    expect((await team.client.post(`${orgPath(org)}/events/?clone_from=${src.slug}`, body())).status).toBe(403);
    expect((await team.client.post(`${src.path}/clone/`, body())).status).toBe(403);
    expect(await totals()).toEqual(before);
  });

  it("a team limited to other events: the source is not found (clone_from) or forbidden (clone path)", async () => {
    const other = await seedEventRow(org.id);
    const team = await seedTeam(org.id, { permissions: "all", allEvents: false, events: [other.id] });
    const before = await totals();
    const viaQuery = await team.client.post(`${orgPath(org)}/events/?clone_from=${src.slug}`, body());
    expect(viaQuery.status).toBe(400);
    expect(viaQuery.body).toEqual(NOT_FOUND);
    expect((await team.client.post(`${src.path}/clone/`, body())).status).toBe(403);
    expect(await totals()).toEqual(before);
  });

  it("a team limited to the source may clone it; the copy joins the team's events", async () => {
    const team = await seedTeam(org.id, {
      permissions: ["can_create_events", "can_change_event_settings"],
      allEvents: false,
      events: [src.id],
    });
    for (const url of [`${orgPath(org)}/events/?clone_from=${src.slug}`, `${src.path}/clone/`]) {
      const b = body();
      const res = await team.client.post(url, b);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const id = await eventId(org.id, b.slug);
      expect(await db().select().from(teamEvents).where(eq(teamEvents.teamId, team.teamId))).toContainEqual({
        teamId: team.teamId,
        eventId: id,
      });
      expect((await team.client.get(`${eventPath(org, b.slug)}/`)).status).toBe(200);
    }
  });

  it("the clone path answers POST only", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const res = await org.client.request(method, `${src.path}/clone/`, method === "DELETE" ? undefined : body());
      expect(res.status, method).toBe(405);
    }
  });
});

describe("atomicity", () => {
  it("a clone that fails midway leaves no partial event", async () => {
    // make the copy of question options (late in the batch, after the event, items and
    // quotas) fail
    await env.DB_2.prepare(
      "CREATE TRIGGER clone_test_fail BEFORE INSERT ON question_options WHEN NEW.identifier = 'size-m' AND NEW.event_id <> " +
        String(src.id) +
        " BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
    ).run();
    try {
      const before = await totals();
      const b = body();
      // an injected database fault: the 500 it causes is no answer the description declares
      const res = await org.client.post(`${src.path}/clone/`, b, { contract: false });
      expect(res.status).toBe(500);
      expect(await totals()).toEqual(before);
      expect((await org.client.get(`${eventPath(org, b.slug)}/`)).status).toBe(403);
      const viaQuery = await org.client.post(`${orgPath(org)}/events/?clone_from=${src.slug}`, b, { contract: false });
      expect(viaQuery.status).toBe(500);
      expect(await totals()).toEqual(before);
    } finally {
      await env.DB_2.prepare("DROP TRIGGER clone_test_fail").run();
    }
    // the same request succeeds once nothing is in the way
    expect((await org.client.post(`${src.path}/clone/`, body())).status).toBe(201);
  });

  it("every statement of the batch stays within D1's 100 bound parameters, however large the catalog", () => {
    const values: EventValues = {
      name: { en: "x".repeat(10) },
      slug: "x",
      live: false,
      testmode: false,
      currency: "EUR",
      dateFrom: 0,
      dateTo: null,
      dateAdmission: null,
      isPublic: true,
      presaleStart: null,
      presaleEnd: null,
      location: null,
      geoLat: null,
      geoLon: null,
      hasSubevents: false,
      plugins: [],
      seatingPlanId: null,
      seatCategoryMapping: {},
      timezone: "UTC",
      itemMetaProperties: {},
      salesChannels: ["web"],
      createdAt: 0,
      lastModified: 0,
    };
    // the copy is INSERT ... SELECT: its statements do not grow with the catalog; meta data
    // values from the body are inserted in chunks
    const meta = Array.from({ length: 75 }, (_, k) => ({ propertyId: k + 1, value: `value ${k}` }));
    for (const m of [null, meta]) {
      const statements = cloneStatements(db(), org.id, values, {
        sourceId: src.id,
        meta: m,
        copySeatCategoryMapping: true,
        addToTeam: 1,
        now: 0,
      });
      const params = statements.map((s) => (s as unknown as { toSQL(): { params: unknown[] } }).toSQL().params.length);
      expect(Math.max(...params)).toBeLessThanOrEqual(100);
    }
  });
});
