/**
 * A list's page read in the credential's round trip (src/http/credential-batch.ts): the orders
 * list and a check-in list's tickets, asked again by a credential this isolate admitted to the
 * event, cost one D1 round trip; the credential is still checked on every request, before any
 * row is answered. Round trips are counted by the debugging aid (on in this project).
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkinLists, devices, events, teamApiTokens, teams } from "../../src/db/schema";
import {
  type ApiResponse,
  type Client,
  db,
  seedDevice,
  seedEventRow,
  seedOrderPosition,
  seedOrderRow,
  seedKnownOrganizer,
  seedTeam,
} from "../harness";
import { seedItem } from "../helpers/catalog";

const trips = (res: ApiResponse) => res.headers.get("X-D1-Round-Trips");

async function sellingEvent() {
  const org = await seedKnownOrganizer();
  const ev = await seedEventRow(org.id);
  const item = await seedItem(ev.id);
  for (const status of ["p", "p", "n"] as const)
    await seedOrderPosition(await seedOrderRow(ev.id, { status }), { itemId: item.id });
  const list = (
    await db()
      .insert(checkinLists)
      .values({ eventId: ev.id, name: "Entrance", allProducts: true, rules: {}, autoCheckinSalesChannels: [] })
      .returning()
  )[0]!;
  const path = `/api/v1/organizers/${org.slug}/events/${ev.slug}`;
  return { org, ev, list, path, orders: `${path}/orders/`, tickets: `${path}/checkinlists/${list.id}/positions/` };
}

/** The page once with its own round trip (the credential admitted), then once more. */
async function admitted(client: Client, url: string) {
  const first = await client.get(url);
  expect(first.status, first.text).toBe(200);
  expect(trips(first)).toBe("2");
  return first;
}

const setTokenActive = (teamId: number, active: boolean) =>
  db().update(teamApiTokens).set({ active }).where(eq(teamApiTokens.teamId, teamId));

describe("a list page read with the credential", () => {
  it("the orders list and a list's tickets: one round trip once the credential was admitted to the event, the same answer", async () => {
    const e = await sellingEvent();
    const orders = await admitted(e.org.client, e.orders);
    expect(orders.body.count).toBe(3);
    const again = await e.org.client.get(e.orders);
    expect(again.status).toBe(200);
    expect(trips(again)).toBe("1");
    expect(again.body).toEqual(orders.body);
    // the admission is the event's: the list's tickets ride along at once
    const tickets = await e.org.client.get(`${e.tickets}?ordering=-last_checked_in`);
    expect(tickets.status).toBe(200);
    expect(trips(tickets)).toBe("1");
    expect(tickets.body.count).toBe(2); // the pending order's ticket is not on a list without include_pending
    const other = await seedTeam(e.org.id, { permissions: ["can_view_orders"] });
    const fresh = await other.client.get(`${e.tickets}?ordering=-last_checked_in`);
    expect(trips(fresh)).toBe("2");
    expect(fresh.body).toEqual(tickets.body);
    // a filter, a later page, a list the event does not have: still one round trip, answered as before
    const paid = await e.org.client.get(`${e.orders}?status=p&page_size=1&page=2`);
    expect([paid.status, paid.body.count, paid.body.results.length, trips(paid)]).toEqual([200, 2, 1, "1"]);
    const missing = await e.org.client.get(`${e.path}/checkinlists/${e.list.id + 1000}/positions/`);
    expect([missing.status, trips(missing)]).toEqual([404, "1"]);
    // other routes read their credential first, as before
    const items = await e.org.client.get(`${e.path}/items/`);
    expect([items.status, trips(items)]).toEqual([200, "2"]);
  });

  it("a token deactivated after its last page: 401 and no rows, on either list; admitted again only after a page with its own round trip", async () => {
    const e = await sellingEvent();
    const team = await seedTeam(e.org.id, { permissions: ["can_view_orders"] });
    await admitted(team.client, e.orders);
    await setTokenActive(team.teamId, false);
    for (const url of [e.orders, e.tickets, `${e.orders}?search=guest`]) {
      const refused = await team.client.get(url);
      expect(refused.status, url).toBe(401);
      expect(refused.body).toEqual({ detail: "Invalid token." });
    }
    await setTokenActive(team.teamId, true);
    // the refusal forgot the admission: the next page reads its credential first
    expect(trips(await admitted(team.client, e.orders))).toBe("2");
    expect(trips(await team.client.get(e.orders))).toBe("1");
  });

  it("a team that lost the permission or the event after its last page: 403", async () => {
    const e = await sellingEvent();
    const team = await seedTeam(e.org.id, { permissions: ["can_view_orders"] });
    await admitted(team.client, e.tickets);
    await db().update(teams).set({ canViewOrders: false }).where(eq(teams.id, team.teamId));
    const noPermission = await team.client.get(e.tickets);
    expect(noPermission.status).toBe(403);
    expect(noPermission.body.results).toBeUndefined();

    await db().update(teams).set({ canViewOrders: true }).where(eq(teams.id, team.teamId));
    await admitted(team.client, e.orders);
    await db().update(teams).set({ allEvents: false }).where(eq(teams.id, team.teamId));
    const noEvent = await team.client.get(e.orders);
    expect(noEvent.status).toBe(403);
    expect(noEvent.body.results).toBeUndefined();
  });

  it("a device revoked after its last page of tickets: 401", async () => {
    const e = await sellingEvent();
    const device = await seedDevice(e.org.id);
    await admitted(device.client, e.tickets);
    expect(trips(await device.client.get(e.tickets))).toBe("1");
    await db().update(devices).set({ revoked: true }).where(eq(devices.id, device.id));
    const refused = await device.client.get(e.tickets);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ detail: "Device access has been revoked." });
  });

  it("another event under the remembered slug: the page is read again for it", async () => {
    const e = await sellingEvent();
    await admitted(e.org.client, e.orders);
    // the event leaves its slug to a new event of the organizer, without orders
    await db()
      .update(events)
      .set({ slug: `${e.ev.slug}-old` })
      .where(eq(events.id, e.ev.id));
    await seedEventRow(e.org.id, { slug: e.ev.slug });
    const page = await e.org.client.get(e.orders);
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(0);
    expect(page.body.results).toEqual([]);
    expect(trips(page)).toBe("2"); // the batch with the old event's page, then the new event's page
    expect(trips(await e.org.client.get(e.orders))).toBe("1");
  });

  it("an answer before any read (a refused query parameter) waits for the credential: 401 when it is deactivated, the usual answer when not", async () => {
    const e = await sellingEvent();
    const team = await seedTeam(e.org.id, { permissions: ["can_view_orders"] });
    await admitted(team.client, e.orders);
    const bad = `${e.orders}?status=zz`;
    const usual = await e.org.client.get(bad, { contract: false });
    expect(usual.status).toBe(400);
    const refusedParam = await team.client.get(bad, { contract: false });
    expect([refusedParam.status, refusedParam.body]).toEqual([400, usual.body]);
    await setTokenActive(team.teamId, false);
    for (const url of [bad, `${e.path}/checkinlists/${e.list.id + 1000}/positions/`]) {
      const refused = await team.client.get(url, { contract: false });
      expect([refused.status, refused.body], url).toEqual([401, { detail: "Invalid token." }]);
    }
  });

  it("many pages at once with one admitted credential: every one answered alike, each in one round trip", async () => {
    const e = await sellingEvent();
    const first = await admitted(e.org.client, e.tickets);
    const pages = await Promise.all(Array.from({ length: 20 }, () => e.org.client.get(e.tickets)));
    for (const p of pages) {
      expect(p.status).toBe(200);
      expect(trips(p)).toBe("1");
      expect(p.body).toEqual(first.body);
    }
  });
});
