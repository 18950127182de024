/**
 * A shop built through the API for the selling tests: an organizer, an event (or a series
 * with dates), items, quotas and vouchers, each created the way an integrator would.
 */
import { expect } from "vitest";
import { type Client, type Json, seedOrganizer, unique } from "../harness";

export type Shop = {
  org: Awaited<ReturnType<typeof seedOrganizer>>;
  client: Client;
  orgSlug: string;
  eventSlug: string;
  path: string;
  post(path: string, body: unknown): Promise<Json>;
  item(body?: Record<string, unknown>): Promise<Json>;
  quota(body: Record<string, unknown>): Promise<Json>;
  voucher(body: Record<string, unknown>): Promise<Json>;
  subevent(body?: Record<string, unknown>): Promise<Json>;
};

export async function shop(opts: { series?: boolean; event?: Record<string, unknown> } = {}): Promise<Shop> {
  const org = await seedOrganizer();
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
    post,
    item: (body = {}) => post("/items/", { name: { en: "Ticket" }, default_price: "20.00", admission: true, ...body }),
    quota: (body) => post("/quotas/", { name: "Tickets", ...body }),
    voucher: (body) => post("/vouchers/", { code: unique("VOUCHER").toUpperCase(), ...body }),
    subevent: (body = {}) =>
      post("/subevents/", { name: { en: "Date" }, date_from: "2030-07-01T19:00:00Z", active: true, ...body }),
  };
}
