/**
 * The orders list's total without filters, or with `status` and `testmode` only, comes from
 * order_tallies (migration 0019: orders per event, status and test mode, kept by triggers).
 * Orders created at once, paid, canceled, expired, in test mode or not, keep every such total
 * equal to the orders the list pages through, and the tallies equal to a count of the orders.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Json } from "../harness";
import { type Venue, venue } from "../helpers/checkin";

type Tally = { status: string; testmode: number; n: number };

/** The event's tallies (rows of 0 left out) and what counting its orders gives. */
async function tallies(eventId: number): Promise<{ kept: Tally[]; counted: Tally[] }> {
  const kept = await env.DB_2.prepare(
    "SELECT status, testmode, n FROM order_tallies WHERE event_id = ? AND n <> 0 ORDER BY status, testmode",
  )
    .bind(eventId)
    .all<Tally>();
  const counted = await env.DB_2.prepare(
    "SELECT status, testmode, count(*) AS n FROM orders WHERE event_id = ? GROUP BY status, testmode ORDER BY status, testmode",
  )
    .bind(eventId)
    .all<Tally>();
  return { kept: kept.results, counted: counted.results };
}

/** The list's total under `query` and the codes it pages through (pages of 4). */
async function listed(v: Venue, query: string) {
  const codes: string[] = [];
  let count = -1;
  for (let page = 1; ; page++) {
    const r = await v.client.get(`${v.path}/orders/?page_size=4&page=${page}${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    count = r.body.count;
    codes.push(...r.body.results.map((o: Json) => o.code as string));
    if (!r.body.next) break;
  }
  return { count, codes: codes.sort() };
}

const codesOf = (orders: Json[]) => orders.map((o) => o.code as string).sort();

describe("orders list totals from the tallies", () => {
  it("follow every change of the orders, also when many happen at once, under each filter the tallies serve", async () => {
    const v = await venue();
    // ten orders created at once: paid and pending, some in test mode
    const created: Json[] = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        v.order({ status: i % 2 ? "n" : "p", testmode: i % 5 === 0, email: `buyer${i}@example.org` }),
      ),
    );
    const check = async () => {
      const now: Json[] = [];
      for (const o of created) now.push((await v.client.get(`${v.path}/orders/${o.code}/`)).body);
      const where = (p: (o: Json) => boolean) => codesOf(now.filter(p));
      const cases: [string, string[]][] = [
        ["", where(() => true)],
        ["&testmode=true", where((o) => o.testmode)],
        ["&testmode=false", where((o) => !o.testmode)],
        ...["n", "p", "e", "c"].map((s): [string, string[]] => [`&status=${s}`, where((o) => o.status === s)]),
        ["&status=p&testmode=false", where((o) => o.status === "p" && !o.testmode)],
        // a filter the tallies do not serve counts the orders
        ["&email=buyer1@example.org", where((o) => o.email === "buyer1@example.org")],
      ];
      for (const [query, codes] of cases) expect(await listed(v, query), query).toEqual({ count: codes.length, codes });
      const t = await tallies(v.eventId);
      expect(t.kept).toEqual(t.counted);
      return now;
    };
    expect((await check()).length).toBe(10);

    // at once: two pending orders paid, two paid orders canceled, one pending canceled, one pending expired
    const pending = created.filter((o) => o.status === "n");
    const paid = created.filter((o) => o.status === "p");
    const results = await Promise.all([
      ...pending.slice(0, 2).map((o) => v.client.post(`${v.path}/orders/${o.code}/mark_paid/`, {})),
      ...[...paid.slice(0, 2), pending[2]].map((o) => v.client.post(`${v.path}/orders/${o.code}/mark_canceled/`, {})),
      v.client.post(`${v.path}/orders/${pending[3].code}/mark_expired/`, {}),
    ]);
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after = await check();
    expect(after.filter((o) => o.status === "c").length).toBe(3);
    expect((await listed(v, "&status=p")).count).toBe(5);

    // a refused change (paying a canceled order) changes no total
    expect((await v.client.post(`${v.path}/orders/${paid[0].code}/mark_paid/`, {})).status).toBe(400);
    await check();
  });
});
