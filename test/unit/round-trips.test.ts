/** The D1 round-trip counter of the debugging aid (src/db/round-trips.ts); off by default. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countRoundTrips } from "../../src/db/round-trips";
import { seedOrganizer } from "../harness";

describe("countRoundTrips", () => {
  it("counts each call that reaches D1 once and passes results through", async () => {
    const trips = { n: 0 };
    const d1 = countRoundTrips(env.DB, trips);
    const stmt = d1.prepare("SELECT ? AS v");
    expect(trips.n).toBe(0); // preparing and binding are local
    expect(await stmt.bind(7).first("v")).toBe(7);
    expect(await stmt.bind(8).first()).toEqual({ v: 8 });
    expect((await stmt.bind(9).all()).results).toEqual([{ v: 9 }]);
    expect(await stmt.bind(10).raw()).toEqual([[10]]);
    expect(await stmt.bind(11).raw({ columnNames: true })).toEqual([["v"], [11]]);
    expect((await d1.prepare("SELECT 1").run()).success).toBe(true);
    expect(trips.n).toBe(6);
    const results = await d1.batch<{ v: number }>([stmt.bind(1), stmt.bind(2), d1.prepare("SELECT 3 AS v")]);
    expect(results.map((r) => r.results[0]!.v)).toEqual([1, 2, 3]);
    expect(trips.n).toBe(7); // a batch is one round trip
    await d1.exec("SELECT 1");
    expect(trips.n).toBe(8);
    const session = d1.withSession();
    expect(await session.prepare("SELECT 4 AS v").first("v")).toBe(4);
    expect(trips.n).toBe(9);
  });

  it("is off unless configured: no round-trip headers", async () => {
    const org = await seedOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-D1-Round-Trips")).toBeNull();
    expect(res.headers.get("X-D1-Round-Trips-Object")).toBeNull();
  });
});
