/**
 * A venue for the check-in tests, built through the API: a shop with an admission item and a
 * quota, check-in lists, paid orders (tickets), and a scanner device of the organizer.
 */
import { expect } from "vitest";
import { type Client, type Json, seedDevice } from "../harness";
import { shop, type Shop } from "./sales";

export type Venue = Shop & {
  ticket: Json;
  device: Awaited<ReturnType<typeof seedDevice>>;
  scanner: Client;
  list(body?: Record<string, unknown>): Promise<Json>;
  /** An order (paid unless `body` says otherwise), in D1 once this resolves. */
  order(body?: Record<string, unknown>): Promise<Json>;
  /** A paid order of one ticket; its position. */
  sell(body?: Record<string, unknown>): Promise<Json>;
  redeem(body: Record<string, unknown>, client?: Client, query?: string): ReturnType<Client["post"]>;
};

export async function venue(
  opts: { series?: boolean; quota?: Record<string, unknown>; event?: Record<string, unknown>; group?: number } = {},
): Promise<Venue> {
  const s = await shop({ series: opts.series, event: opts.event, group: opts.group });
  const ticket = await s.item({ admission: true });
  if (!opts.series) await s.quota({ size: 1000, items: [ticket.id], ...opts.quota });
  const device = await seedDevice(s.org.id, { group: s.org.group });
  const order = async (body: Record<string, unknown> = {}) => {
    const order = { email: "a@example.org", status: "p", positions: [{ item: ticket.id }], ...body };
    // a paid order names its payment provider (pretix refuses one without)
    const r = await s.client.post(`${s.path}/orders/`, {
      ...(order.status === "p" ? { payment_provider: "manual" } : {}),
      ...order,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    // the lists and D1 have it (the event's object may answer an order before D1 has it)
    await s.settle();
    return r.body;
  };
  return {
    ...s,
    ticket,
    device,
    scanner: device.client,
    list: (body = {}) => s.post("/checkinlists/", { name: "Entrance", all_products: true, ...body }),
    order,
    sell: async (body = {}) => (await order(body)).positions[0],
    redeem: (body, client = device.client, query = "") =>
      client.post(`/api/v1/organizers/${s.orgSlug}/checkinrpc/redeem/${query}`, body),
  };
}

/** A venue whose event uses signed secrets; its valid_keys as the event detail shows them. */
export async function signedVenue(opts: Parameters<typeof venue>[0] = {}): Promise<Venue & { keys: string[] }> {
  const v = await venue(opts);
  const set = await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig1" });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body.ticket_secret_generator).toBe("pretix_sig1");
  const keys = (await v.client.get(`${v.path}/`)).body.valid_keys.pretix_sig1 as string[];
  return { ...v, keys };
}
