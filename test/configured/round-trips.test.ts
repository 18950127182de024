/**
 * The debugging aid DEBUG_D1_ROUND_TRIPS (on in this project, test/vitest.config.ts): every
 * response says how many D1 round trips the request took, in the Worker and in the event
 * object. The numbers are the hot paths' budgets (docs/benchmark.md): a change that adds a
 * round trip to them shows up here. (Rate limit here: 5 requests per credential.)
 */
import { describe, expect, it } from "vitest";
import { checkinLists } from "../../src/db/schema";
import { forgetOrganizerRoute } from "../../src/services/organizers/organizer-groups";
import {
  db,
  seedDevice,
  seedEventRow,
  seedOrderPosition,
  seedOrderRow,
  seedKnownOrganizer,
  seedOrganizer,
  seedTeam,
} from "../harness";
import { seedItem } from "../helpers/catalog";

function trips(headers: Headers) {
  return {
    total: headers.get("X-D1-Round-Trips"),
    worker: headers.get("X-D1-Round-Trips-Worker"),
    object: headers.get("X-D1-Round-Trips-Object"),
  };
}

describe("D1 round trips per request", () => {
  it("an isolate's first request of an organizer asks the directory for its group, once: later ones do not", async () => {
    const org = await seedOrganizer();
    forgetOrganizerRoute(org.id);
    const first = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(first.status).toBe(200);
    expect(trips(first.headers)).toEqual({ total: "2", worker: "2", object: "0" });
    const again = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(trips(again.headers)).toEqual({ total: "1", worker: "1", object: "0" });
  });

  it("a cheap authenticated read: the credential and the organizer, in one batch", async () => {
    const org = await seedKnownOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe(org.slug);
    expect(trips(res.headers)).toEqual({ total: "1", worker: "1", object: "0" });
  });

  it("a request that says X-D1-Round-Trips: off is answered the same, without counts", async () => {
    const org = await seedKnownOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`, { headers: { "X-D1-Round-Trips": "off" } });
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe(org.slug);
    expect(trips(res.headers)).toEqual({ total: null, worker: null, object: null });
    expect(res.headers.get("X-D1-Time-Ms")).toBeNull();
    // any other value counts as before
    const counted = await org.client.get(`/api/v1/organizers/${org.slug}/`, { headers: { "X-D1-Round-Trips": "on" } });
    expect(trips(counted.headers)).toEqual({ total: "1", worker: "1", object: "0" });
  });

  it("a percent-encoded slug resolves as the router reads it, in the same batch", async () => {
    const org = await seedKnownOrganizer();
    const encoded = `%${org.slug.charCodeAt(0).toString(16)}${org.slug.slice(1)}`;
    const res = await org.client.get(`/api/v1/organizers/${encoded}/`);
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe(org.slug);
    expect(trips(res.headers)).toEqual({ total: "1", worker: "1", object: "0" });
  });

  it("order creation: credential with organizer and event, catalog; the object's write, which reads the order back", async () => {
    const org = await seedKnownOrganizer();
    const ev = await seedEventRow(org.id);
    const path = `/api/v1/organizers/${org.slug}/events/${ev.slug}`;
    const item = await org.client.post(`${path}/items/`, {
      name: { en: "Ticket" },
      default_price: "20.00",
      admission: true,
    });
    expect(item.status).toBe(201);
    const quota = await org.client.post(`${path}/quotas/`, { name: "Tickets", size: 1, items: [item.body.id] });
    expect(quota.status).toBe(201);
    expect(Number(trips(quota.headers).object)).toBeGreaterThan(0); // the object started and read its catalog

    const sold = await org.client.post(`${path}/orders/`, {
      email: "a@example.org",
      positions: [{ item: item.body.id }],
    });
    expect(sold.status).toBe(201);
    expect(trips(sold.headers)).toEqual({ total: "3", worker: "2", object: "1" });

    const refused = await org.client.post(`${path}/orders/`, {
      email: "b@example.org",
      positions: [{ item: item.body.id }],
    });
    expect(refused.status).toBe(400);
    // the object's own refusal (sold out) is final: not read again at the primary
    expect(trips(refused.headers)).toEqual({ total: "2", worker: "2", object: "0" });

    const availability = await org.client.get(`${path}/quotas/${quota.body.id}/availability/`);
    expect(availability.body).toMatchObject({ available: false, available_number: 0 });
    // the object's numbers, and beside them (in parallel) the waiting list's entries per quota
    expect(trips(availability.headers)).toEqual({ total: "4", worker: "4", object: "0" });
  });

  it("invoices: none read while invoicing is off; invoice_generate True adds the invoice's facts and its numbered write to order creation", async () => {
    const org = await seedKnownOrganizer();
    const ev = await seedEventRow(org.id);
    const path = `/api/v1/organizers/${org.slug}/events/${ev.slug}`;
    const item = await org.client.post(`${path}/items/`, {
      name: { en: "Ticket" },
      default_price: "20.00",
      admission: true,
    });
    await org.client.post(`${path}/quotas/`, { name: "Tickets", size: 10, items: [item.body.id] });
    const order = await org.client.post(`${path}/orders/`, {
      email: "a@example.org",
      positions: [{ item: item.body.id }],
    });
    expect(order.status).toBe(201);
    const paid = await org.client.post(`${path}/orders/${order.body.code}/mark_paid/`, {});
    expect(paid.status).toBe(200);
    expect(trips(paid.headers)).toEqual({ total: "9", worker: "8", object: "1" });

    const org2 = await seedKnownOrganizer();
    const ev2 = await seedEventRow(org2.id);
    const path2 = `/api/v1/organizers/${org2.slug}/events/${ev2.slug}`;
    expect((await org2.client.patch(`${path2}/settings/`, { invoice_generate: "True" })).status).toBe(200);
    const item2 = await org2.client.post(`${path2}/items/`, {
      name: { en: "Ticket" },
      default_price: "20.00",
      admission: true,
    });
    await org2.client.post(`${path2}/quotas/`, { name: "Tickets", size: 10, items: [item2.body.id] });
    const sold = await org2.client.post(`${path2}/orders/`, {
      email: "a@example.org",
      positions: [{ item: item2.body.id }],
    });
    expect(sold.status).toBe(201);
    expect(trips(sold.headers)).toEqual({ total: "5", worker: "4", object: "1" });
    const invoices = await org2.client.get(`${path2}/invoices/`);
    expect(invoices.body.results.map((i: { order: string }) => i.order)).toEqual([sold.body.code]);
  });

  it("a redeem: the credential's batch, and none of the object's once it holds the ticket and check-in ids (D1 follows after the answer)", async () => {
    const org = await seedKnownOrganizer();
    const ev = await seedEventRow(org.id);
    const path = `/api/v1/organizers/${org.slug}/events/${ev.slug}`;
    const item = await org.client.post(`${path}/items/`, {
      name: { en: "Ticket" },
      default_price: "20.00",
      admission: true,
    });
    await org.client.post(`${path}/quotas/`, { name: "Tickets", size: 10, items: [item.body.id] });
    const list = await org.client.post(`${path}/checkinlists/`, { name: "Entrance", all_products: true });
    const order = await org.client.post(`${path}/orders/`, {
      status: "p",
      payment_provider: "manual",
      positions: [{ item: item.body.id }, { item: item.body.id }],
    });
    expect(order.status).toBe(201);
    const [a, b] = order.body.positions;
    const scanner = (await seedDevice(org.id)).client;
    const redeem = (secret: string) =>
      scanner.post(`/api/v1/organizers/${org.slug}/checkinrpc/redeem/`, { secret, lists: [list.body.id] });
    const first = await redeem(a.secret);
    expect(first.status).toBe(201);
    // the first scan of a list in this isolate also learns the list's event (once); the object's
    // first scan writes before it answers, and leases check-in ids in that batch
    expect(trips(first.headers)).toEqual({ total: "3", worker: "2", object: "1" });
    const second = await redeem(b.secret);
    expect(second.status).toBe(201);
    expect(trips(second.headers)).toEqual({ total: "1", worker: "1", object: "0" });
    const again = await redeem(b.secret);
    expect(again.body.reason).toBe("already_redeemed");
    expect(trips(again.headers)).toEqual({ total: "1", worker: "1", object: "0" });
  });

  it("counts on error responses too", async () => {
    const org = await seedKnownOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/events/nope/`);
    expect(res.status).toBe(403);
    expect(trips(res.headers)).toEqual({ total: "1", worker: "1", object: "0" });
  });

  it("a list page: the credential's batch and the page's (count, ids, rows), or one batch once the credential was admitted; a list's tickets with the list itself", async () => {
    const org = await seedKnownOrganizer();
    const ev = await seedEventRow(org.id);
    const item = await seedItem(ev.id);
    const order = await seedOrderRow(ev.id, { status: "p" });
    await seedOrderPosition(order, { itemId: item.id });
    const list = (
      await db()
        .insert(checkinLists)
        .values({ eventId: ev.id, name: "Entrance", allProducts: true, rules: {}, autoCheckinSalesChannels: [] })
        .returning()
    )[0]!;
    const path = `/api/v1/organizers/${org.slug}/events/${ev.slug}`;
    const orders = await org.client.get(`${path}/orders/`);
    expect(orders.status).toBe(200);
    expect(orders.body.count).toBe(1);
    expect(trips(orders.headers)).toEqual({ total: "2", worker: "2", object: "0" });
    // another credential's first page of the list's tickets (this one's would ride along: test/configured/credential-batch.test.ts)
    const scanner = await seedTeam(org.id, { permissions: ["can_view_orders"] });
    const tickets = await scanner.client.get(`${path}/checkinlists/${list.id}/positions/?ordering=-last_checked_in`);
    expect(tickets.status).toBe(200);
    expect(tickets.body.count).toBe(1);
    expect(trips(tickets.headers)).toEqual({ total: "2", worker: "2", object: "0" });
    // the time the request waited for D1 is said beside the count
    expect(Number(tickets.headers.get("X-D1-Time-Ms"))).toBeGreaterThanOrEqual(0);
    expect(tickets.headers.get("X-D1-Time-Ms-Object")).toBe("0");
    const missing = await seedTeam(org.id, { permissions: ["can_view_orders"] }).then((t) =>
      t.client.get(`${path}/checkinlists/${list.id + 1000}/positions/`),
    );
    expect(missing.status).toBe(404);
    expect(trips(missing.headers)).toEqual({ total: "2", worker: "2", object: "0" });
    // asked again by a credential admitted to the event: the page rides in the credential's batch
    const again = await org.client.get(`${path}/orders/`);
    expect(again.body).toEqual(orders.body);
    expect(trips(again.headers)).toEqual({ total: "1", worker: "1", object: "0" });
  });
});
