/**
 * The organizer's orders and order positions (pretix docs orders.rst; pretix's test_orders.py
 * `test_organizer_level`, `test_orderposition_list_limited_read`): every event's whose orders the
 * credential may see, with the event lists' query and answer and each row's event; another
 * organizer's orders and an event the credential may not see never appear.
 */
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions, orders } from "../../src/db/schema";
import { db, type Json, seedDevice, seedTeam, unique } from "../harness";
import { settleObject } from "../helpers/sales";
import { type Venue, venue } from "../helpers/checkin";

/** Another event of the venue's organizer, with a ticket on sale and a way to sell it. */
async function otherEvent(v: Venue) {
  const slug = unique("ev");
  const made = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/`, {
    name: { en: "Matinee" },
    slug,
    currency: "EUR",
    date_from: "2030-06-02T15:00:00Z",
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const path = `/api/v1/organizers/${v.orgSlug}/events/${slug}`;
  const eventId = (await db(v.org.group).query.events.findFirst({ where: (e, { eq }) => eq(e.slug, slug) }))!.id;
  const item = await v.client.post(`${path}/items/`, { name: { en: "Ticket" }, default_price: "10.00" });
  expect(item.status).toBe(201);
  expect((await v.client.post(`${path}/quotas/`, { name: "All", size: 10, items: [item.body.id] })).status).toBe(201);
  const order = async (body: Record<string, unknown> = {}) => {
    const r = await v.client.post(`${path}/orders/`, {
      email: "b@example.org",
      status: "p",
      payment_provider: "manual",
      positions: [{ item: item.body.id }],
      ...body,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(await settleObject(eventId)).toBe(true);
    return r.body as Json;
  };
  return { slug, path, eventId, order };
}

const get = async (client: Venue["client"], path: string) => {
  const res = await client.get(path);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body as { count: number; results: Json[] };
};

describe("the organizer's orders", () => {
  it("lists every event's orders as the event's list shows them, each with its event", async () => {
    const v = await venue();
    const a = await v.order({ email: "anna@example.org" });
    const other = await otherEvent(v);
    const b = await other.order({ status: "n" });
    const orgOrders = `/api/v1/organizers/${v.orgSlug}/orders/`;
    // every order keeps its event's organizer, whichever write placed it (a trigger, migration 0025)
    const kept = await db(v.org.group)
      .select({ organizerId: orders.organizerId })
      .from(orders)
      .where(inArray(orders.eventId, [v.eventId, other.eventId]));
    expect(kept).toEqual([{ organizerId: v.org.id }, { organizerId: v.org.id }]);
    const all = await get(v.client, orgOrders);
    expect(all.count).toBe(2);
    expect(all.results.map((o) => [o.code, o.event])).toEqual([
      [a.code, v.eventSlug],
      [b.code, other.slug],
    ]);
    // the same order as the event's list shows it (its url and downloads at its own event)
    const own = (await get(v.client, `${other.path}/orders/`)).results[0];
    expect(all.results[1]).toEqual(own);
    // the event list's filters
    expect((await get(v.client, `${orgOrders}?status=n`)).results.map((o) => o.code)).toEqual([b.code]);
    expect((await get(v.client, `${orgOrders}?code=${a.code.toLowerCase()}`)).results.map((o) => o.code)).toEqual([
      a.code,
    ]);
    expect((await get(v.client, `${orgOrders}?email=ANNA@example.org`)).count).toBe(1);
    expect((await get(v.client, `${orgOrders}?search=${other.slug}-${b.code}`)).results.map((o) => o.code)).toEqual([
      b.code,
    ]);
    expect((await get(v.client, `${orgOrders}?search=${v.eventSlug}-${b.code}`)).count).toBe(0);
    expect((await get(v.client, `${orgOrders}?subevent_after=2020-01-01T00:00:00Z`)).count).toBe(0);
    expect((await get(v.client, `${orgOrders}?include=code`)).results).toEqual([{ code: a.code }, { code: b.code }]);
    // every ordering, paged
    for (const f of ["", "-datetime", "code", "-code", "status", "-last_modified", "cancellation_date"]) {
      const q = f ? `&ordering=${f}` : "";
      const whole = (await get(v.client, `${orgOrders}?page_size=10${q}`)).results.map((o) => o.code);
      const first = (await get(v.client, `${orgOrders}?page_size=1${q}`)).results.map((o) => o.code);
      const second = (await get(v.client, `${orgOrders}?page_size=1&page=2${q}`)).results.map((o) => o.code);
      expect([...first, ...second], f).toEqual(whole);
    }
    expect((await v.client.get(`${orgOrders}?page=3&page_size=1`)).status).toBe(404);
  });

  it("shows only the events whose orders the credential may see, and nothing of another organizer", async () => {
    const v = await venue();
    const a = await v.order();
    const other = await otherEvent(v);
    const b = await other.order();
    const orgOrders = `/api/v1/organizers/${v.orgSlug}/orders/`;
    const orgPositions = `/api/v1/organizers/${v.orgSlug}/orderpositions/`;
    const codes = async (client: Venue["client"], path = orgOrders) =>
      (await get(client, path)).results.map((o) => (o.code ?? o.order) as string);

    const ofOther = await seedTeam(
      v.org.id,
      { permissions: ["can_view_orders"], allEvents: false, events: [other.eventId] },
      v.org.group,
    );
    expect(await codes(ofOther.client)).toEqual([b.code]);
    expect(await codes(ofOther.client, orgPositions)).toEqual([b.code]);
    const ofNone = await seedTeam(v.org.id, { permissions: "all", allEvents: false }, v.org.group);
    expect(await codes(ofNone.client)).toEqual([]);
    const blind = await seedTeam(v.org.id, { permissions: ["can_view_vouchers"], allEvents: true }, v.org.group);
    expect(await get(blind.client, orgOrders)).toEqual({ count: 0, next: null, previous: null, results: [] });
    expect((await get(blind.client, orgPositions)).count).toBe(0);
    // a device sees its events' orders
    const device = await seedDevice(v.org.id, { allEvents: false, events: [v.eventId], group: v.org.group });
    expect(await codes(device.client)).toEqual([a.code]);
    expect(await codes(device.client, orgPositions)).toEqual([a.code]);

    const stranger = await venue();
    const theirs = await stranger.order();
    expect((await stranger.client.get(orgOrders)).status).toBe(403);
    expect((await stranger.client.get(orgPositions)).status).toBe(403);
    expect(await codes(stranger.client, `/api/v1/organizers/${stranger.orgSlug}/orders/`)).toEqual([theirs.code]);
    expect(await codes(stranger.client, `/api/v1/organizers/${stranger.orgSlug}/orderpositions/`)).toEqual([
      theirs.code,
    ]);
    // the filters cannot reach past the credential's events
    expect(await codes(ofOther.client, `${orgOrders}?code=${a.code}`)).toEqual([]);
    expect(await codes(ofOther.client, `${orgPositions}?order=${a.code}`)).toEqual([]);
    expect(await codes(ofOther.client, `${orgPositions}?search=${a.code}`)).toEqual([]);
  });
});

describe("the organizer's order positions", () => {
  it("lists every event's positions as the event's list shows them, with their event, filtered and paged", async () => {
    const v = await venue();
    const a = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    const other = await otherEvent(v);
    const b = await other.order({ status: "n" });
    const orgPositions = `/api/v1/organizers/${v.orgSlug}/orderpositions/`;
    const all = await get(v.client, orgPositions);
    expect(all.count).toBe(3);
    expect(all.results.map((p) => [p.order, p.event])).toEqual([
      [a.code, v.eventSlug],
      [a.code, v.eventSlug],
      [b.code, other.slug],
    ]);
    const own = (await get(v.client, `${v.path}/orderpositions/`)).results;
    expect(all.results.slice(0, 2)).toEqual(own.map((p) => ({ ...p, event: v.eventSlug })));
    expect((await get(v.client, `${orgPositions}?order__status=n`)).results.map((p) => p.order)).toEqual([b.code]);
    expect((await get(v.client, `${orgPositions}?order=${b.code}`)).count).toBe(1);
    for (const f of ["", "-order__datetime", "order__code", "-positionid", "attendee_name", "-order__status"]) {
      const q = f ? `&ordering=${f}` : "";
      const whole = (await get(v.client, `${orgPositions}?page_size=10${q}`)).results.map((p) => p.id);
      const paged: unknown[] = [];
      for (const page of [1, 2])
        paged.push(...(await get(v.client, `${orgPositions}?page_size=2&page=${page}${q}`)).results.map((p) => p.id));
      expect(paged, f).toEqual(whole);
    }
  });

  it("shows one position of a visible event by id; canceled only when asked; another event's or organizer's 404 or 403", async () => {
    const v = await venue();
    const a = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    const other = await otherEvent(v);
    const b = await other.order();
    const [first, second] = a.positions as Json[];
    const one = (id: number, client = v.client, q = "") =>
      client.get(`/api/v1/organizers/${v.orgSlug}/orderpositions/${id}/${q}`);
    const shown = await one(first.id);
    expect(shown.status).toBe(200);
    const listed = (await get(v.client, `${v.path}/orderpositions/?order=${a.code}`)).results[0];
    expect(shown.body).toEqual({ ...listed, event: v.eventSlug });
    expect(shown.body.downloads).toHaveLength(1);
    await db(v.org.group).update(orderPositions).set({ canceled: true }).where(eq(orderPositions.id, second.id));
    expect((await one(second.id)).status).toBe(404);
    const canceled = await one(second.id, v.client, "?include_canceled_positions=true");
    expect(canceled.status).toBe(200);
    expect(canceled.body.canceled).toBe(true);
    const ofOther = await seedTeam(
      v.org.id,
      { permissions: ["can_view_orders"], allEvents: false, events: [other.eventId] },
      v.org.group,
    );
    expect((await one(first.id, ofOther.client)).status).toBe(404);
    expect((await one(b.positions[0].id, ofOther.client)).body.event).toBe(other.slug);
    const stranger = await venue();
    expect((await one(first.id, stranger.client)).status).toBe(403);
    expect(
      (await stranger.client.get(`/api/v1/organizers/${stranger.orgSlug}/orderpositions/${first.id}/`)).status,
    ).toBe(404);
  });
});
