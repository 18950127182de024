/**
 * A shop built through the API for the selling tests: an organizer, an event (or a series
 * with dates), items, quotas and vouchers, each created the way an integrator would; and what
 * D1 holds of an event's sales, read directly to see what a request did or did not create.
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { cartPositions, orders, vouchers } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { type Client, db, HARNESS_GROUP, type Json, seedOrganizer, unique } from "../harness";

export type Shop = {
  org: Awaited<ReturnType<typeof seedOrganizer>>;
  client: Client;
  orgSlug: string;
  eventSlug: string;
  path: string;
  eventId: number;
  post(path: string, body: unknown): Promise<Json>;
  item(body?: Record<string, unknown>): Promise<Json>;
  quota(body: Record<string, unknown>): Promise<Json>;
  voucher(body: Record<string, unknown>): Promise<Json>;
  subevent(body?: Record<string, unknown>): Promise<Json>;
  /**
   * Waits until D1 has everything the event's object answered before D1 had it (orders, scans:
   * docs/scaling.md "Orders answered at the event's object"), for tests that read D1 or a list right after.
   */
  settle(): Promise<void>;
};

export async function shop(
  opts: { series?: boolean; event?: Record<string, unknown>; group?: number } = {},
): Promise<Shop> {
  const org = await seedOrganizer({ group: opts.group });
  const eventSlug = unique("ev");
  const res = await org.client.post(`/api/v1/organizers/${org.slug}/events/`, {
    name: { en: "Concert" },
    slug: eventSlug,
    currency: "EUR",
    date_from: "2030-06-01T19:00:00Z",
    has_subevents: opts.series ?? false,
    ...opts.event,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const path = `/api/v1/organizers/${org.slug}/events/${eventSlug}`;
  const eventId = (await db(org.group).query.events.findFirst({ where: (e, { eq }) => eq(e.slug, eventSlug) }))!.id;
  const post = async (p: string, body: unknown) => {
    const r = await org.client.post(`${path}${p}`, body);
    expect(r.status, `${p}: ${JSON.stringify(r.body)}`).toBe(201);
    return r.body;
  };
  return {
    org,
    client: org.client,
    orgSlug: org.slug,
    eventSlug,
    path,
    eventId,
    post,
    item: (body = {}) => post("/items/", { name: { en: "Ticket" }, default_price: "20.00", admission: true, ...body }),
    quota: (body) => post("/quotas/", { name: "Tickets", ...body }),
    voucher: (body) => post("/vouchers/", { code: unique("VOUCHER").toUpperCase(), ...body }),
    subevent: (body = {}) =>
      post("/subevents/", { name: { en: "Date" }, date_from: "2030-07-01T19:00:00Z", active: true, ...body }),
    settle: async () => expect(await settleObject(eventId)).toBe(true),
  };
}

/** A shop whose event has a seating plan with seats s1, s2, s3, all for `ticket`. */
export async function seatedShop() {
  const s = await shop();
  const ticket = await s.item();
  const q = await s.quota({ size: 100, items: [ticket.id] });
  const plan = await s.client.post(`/api/v1/organizers/${s.orgSlug}/seatingplans/`, {
    name: "Hall",
    layout: {
      categories: [{ name: "Stalls" }],
      zones: [
        {
          name: "Main",
          rows: [
            {
              row_number: "1",
              seats: ["s1", "s2", "s3"].map((guid, i) => ({
                seat_guid: guid,
                seat_number: String(i + 1),
                category: "Stalls",
              })),
            },
          ],
        },
      ],
    },
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(201);
  const patched = await s.client.patch(`${s.path}/`, {
    seating_plan: plan.body.id,
    seat_category_mapping: { Stalls: ticket.id },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  return { s, ticket, q };
}

/** A cart position created through the API (price 1.00 unless `body` gives one). */
export async function cart(s: Shop, body: Record<string, unknown>) {
  const res = await s.client.post(`${s.path}/cartpositions/`, { price: "1.00", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The event object writes to D1 what it answered before D1 had it (true: D1 has all of it). */
export const settleObject = async (eventId: number) =>
  (await eventObject(env, eventId).settle({ group: HARNESS_GROUP })).value;

export const eventIdOf = async (s: Shop) =>
  (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, s.eventSlug) }))!.id;
/** The event's orders in D1, once D1 has those the event's object answered before it had them. */
export const ordersOf = async (eventId: number) => {
  expect(await settleObject(eventId)).toBe(true);
  return db().select().from(orders).where(eq(orders.eventId, eventId));
};
export const cartsOf = async (eventId: number) =>
  db().select().from(cartPositions).where(eq(cartPositions.eventId, eventId));
export const vouchersOf = async (eventId: number) => db().select().from(vouchers).where(eq(vouchers.eventId, eventId));
