/**
 * The round-trip budgets of issue 12 (docs/benchmark.md), as counted by the debugging aid
 * (src/db/round-trips.ts, on in this project): a page of any list costs at most 2 D1 round
 * trips — the credential's batch and the list's batch (count, page, children, stamps) — with
 * its filters and `search` too; an order is created in at most 3 and a ticket redeemed in at
 * most 2 (test/configured/round-trips.test.ts has those in detail).
 */
import { describe, expect, it } from "vitest";
import { venue } from "../helpers/checkin";
import { shop } from "../helpers/sales";
import type { Client } from "../harness";

const LIST_PAGE_BUDGET = 2;

async function trips(client: Client, url: string) {
  const res = await client.get(url);
  expect(res.status, `${url}: ${res.text.slice(0, 200)}`).toBe(200);
  expect(res.body.count, url).toBeGreaterThan(0);
  return {
    total: Number(res.headers.get("X-D1-Round-Trips")),
    object: Number(res.headers.get("X-D1-Round-Trips-Object")),
  };
}

describe("a list page costs at most 2 D1 round trips", () => {
  it("the lists of sales: events, dates, items, quotas, vouchers, orders (with search and filters), cart positions", {
    timeout: 60_000,
  }, async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const date = await s.subevent({ name: { en: "Opening night" } });
    await s.quota({ size: 10, items: [ticket.id], subevent: date.id });
    await s.voucher({ code: "ROUND1", item: ticket.id });
    const order = await s.client.post(`${s.path}/orders/`, {
      email: "buyer@example.org",
      positions: [{ item: ticket.id, subevent: date.id, attendee_name: "Ada Lovelace" }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(
      (await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, subevent: date.id, price: "1.00" })).status,
    ).toBe(201);
    const org = `/api/v1/organizers/${s.orgSlug}`;
    const pages = [
      `${org}/events/`,
      `${org}/events/?search=${s.eventSlug}&ordering=-date_from`,
      `${s.path}/subevents/?search=opening`,
      `${s.path}/items/`,
      `${s.path}/quotas/`,
      `${s.path}/vouchers/?code=ROUND1`,
      `${s.path}/orders/`,
      `${s.path}/orders/?search=lovelace&item=${ticket.id}&subevent=${date.id}&include_canceled_positions=true&ordering=-code`,
      `${s.path}/orders/?created_since=2000-01-01T00:00:00Z&search=${order.body.code}`,
      `${s.path}/cartpositions/`,
    ];
    for (const url of pages) {
      const t = await trips(s.client, url);
      expect(t.total, url).toBeLessThanOrEqual(LIST_PAGE_BUDGET);
      expect(t.object, url).toBe(0);
    }
  });

  it("the organizer's lists: customers, gift cards", async () => {
    const s = await shop();
    const org = `/api/v1/organizers/${s.orgSlug}`;
    expect((await s.client.post(`${org}/customers/`, { email: "c@example.org" })).status).toBe(201);
    expect(
      (await s.client.post(`${org}/giftcards/`, { secret: "ROUNDTRIP1", currency: "EUR", value: "5.00" })).status,
    ).toBe(201);
    for (const url of [`${org}/customers/?email=c@example.org`, `${org}/giftcards/?secret=ROUNDTRIP1`]) {
      expect((await trips(s.client, url)).total, url).toBeLessThanOrEqual(LIST_PAGE_BUDGET);
    }
  });

  it("check-in: lists, a list's tickets with search and filters, checkinrpc/search", async () => {
    const v = await venue();
    const list = await v.list();
    const ticket = await v.sell({ positions: [{ item: v.ticket.id, attendee_name: "Grace Hopper" }] });
    expect((await v.redeem({ secret: ticket.secret, lists: [list.id] })).status).toBe(201);
    const pages = [
      `${v.path}/checkinlists/`,
      `${v.path}/checkinlists/${list.id}/positions/`,
      `${v.path}/checkinlists/${list.id}/positions/?search=hopper&item__in=${v.ticket.id}&has_checkin=true&ordering=-last_checked_in`,
    ];
    for (const url of pages) expect((await trips(v.client, url)).total, url).toBeLessThanOrEqual(LIST_PAGE_BUDGET);
    const search = `/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${list.id}&search=hopper`;
    // the organizer-level search also learns which event the list belongs to (once per isolate)
    await trips(v.scanner, search);
    expect((await trips(v.scanner, search)).total).toBeLessThanOrEqual(LIST_PAGE_BUDGET);
  });
});
