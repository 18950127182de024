/**
 * Four on-sales in one organizer group and in four (issue 26, point 3; docs/scaling.md): four
 * organizers sell out an event each at the same moment, with a simulated writer time per D1
 * write statement (SIMULATE_D1_WRITE_MS), first all four in group 1, then one in each of groups
 * 1–4. One service, started with a copy of wrangler.toml that has DB_3 and DB_4 as well.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../../src/cli/wrangler.ts";
import { latency, type Phase, round, roundTrips, runPhase, statusCounts } from "./load.ts";
import { type Api, apiFor, created, openShop, type Shop, shopOrder, shopSold, soldRate } from "./rushes.ts";
import { createOrganizer, type Organizer, startService } from "./server.ts";

export type GroupsOptions = {
  /** Organizers (and organizer groups of the second layout). */
  organizers: number;
  /** Each organizer's quota. */
  quota: number;
  /** Parallel buyers per organizer. */
  buyers: number;
  /** How long each layout's on-sales run at most (they end earlier once every quota is sold out). */
  seconds: number;
  /** Order attempts per organizer after its quota is sold out (within the time). */
  extra: number;
  writeMs: number;
  primaryMs: number;
  verbose: boolean;
};

const GOAL = 3;

/**
 * A copy of wrangler.toml with the data databases DB_3 … DB_<groups> added, in the project's
 * folder (its relative paths, and .dev.vars beside it, hold there); the caller removes it.
 */
function groupsConfig(groups: number): string {
  const file = path.join(projectRoot, `wrangler.bench-groups-${process.pid}.toml`);
  const blocks = [];
  for (let g = 3; g <= groups; g++)
    blocks.push(
      `[[d1_databases]]\nbinding = "DB_${g}"\ndatabase_name = "ticketing-${g}"\ndatabase_id = "00000000-0000-4000-8000-${String(g).padStart(12, "0")}"\nmigrations_dir = "migrations"\n`,
    );
  const base = readFileSync(path.join(projectRoot, "wrangler.toml"), "utf8");
  process.once("exit", () => rmSync(file, { force: true }));
  writeFileSync(
    file,
    `${base}\n# the benchmark's organizer groups beyond the two of wrangler.toml\n${blocks.join("\n")}`,
  );
  return file;
}

type Seller = Organizer & { group: number; api: Api; shop: Shop };

type Layout = { name: string; sellers: Seller[] };

/** One layout's on-sales at once: every organizer's buyers on its own quota. */
async function rush(base: string, layout: Layout, o: GroupsOptions) {
  const attempts = o.quota - 1 + o.extra;
  const rushes: Phase[] = await Promise.all(
    layout.sellers.map((s) =>
      runPhase({
        concurrency: o.buyers,
        count: attempts,
        durationMs: o.seconds * 1000,
        make: (i) => shopOrder(base, s.token, s.shop, i),
      }),
    ),
  );
  // the event objects answer orders before D1 has them: D1, each group's writer, follows; the
  // layout's orders are durable once every organizer's list holds its answers (and the warm-up)
  const listed = async (s: Seller) =>
    ((await s.api("GET", `${s.shop.path}/orders/?page_size=1`)).body as { count: number }).count;
  const deadline = Date.now() + D1_CATCH_UP_MS;
  for (const [i, s] of layout.sellers.entries())
    while ((await listed(s)) < created(rushes[i]!).length + 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
  const durableAt = performance.now(); // the phases' clock
  const counts = [];
  for (const s of layout.sellers) counts.push({ ...(await shopSold(s.api, s.shop)), orders: await listed(s) });
  return { layout, rushes, counts, durableAt };
}

/** How long after a layout's on-sales the benchmark waits at most for D1 to hold every answered order. */
const D1_CATCH_UP_MS = 300_000;

export async function benchGroups(o: GroupsOptions, log: (l: string) => void) {
  const config = groupsConfig(o.organizers);
  const vars = { SIMULATE_D1_PRIMARY_MS: String(o.primaryMs), SIMULATE_D1_WRITE_MS: String(o.writeMs) };
  try {
    log(
      `groups: starting a service with ${o.organizers} organizer groups, SIMULATE_D1_WRITE_MS=${o.writeMs}, SIMULATE_D1_PRIMARY_MS=${o.primaryMs}`,
    );
    const service = await startService({
      log,
      vars,
      config,
      group: 1,
      organizer: { slug: "group-1", name: "Group 1" },
      verbose: o.verbose,
      stateDirPrefix: "ticketing-bench-groups-",
    });
    try {
      const seller = async (org: Organizer, group: number, layout: number): Promise<Seller> => {
        const api = apiFor(service.base, org.token);
        const shop = await openShop(api, org.organizer, `onsale-${layout}`, `On-sale ${layout}`, o.quota);
        return { ...org, group, api, shop };
      };
      // group 1's first organizer sells in both layouts (an event each); the operator command
      // makes the others side by side (it retries while another holds a local database)
      const others = await Promise.all(
        Array.from({ length: o.organizers - 1 }, (_, i) => i + 2).flatMap((n) => [
          createOrganizer(service.stateDir, { slug: `one-${n}`, name: `One group ${n}`, group: 1 }, config),
          createOrganizer(service.stateDir, { slug: `spread-${n}`, name: `Group ${n}`, group: n }, config),
        ]),
      );
      const layouts: Layout[] = [
        { name: "one group", sellers: [await seller(service, 1, 1)] },
        { name: `${o.organizers} groups`, sellers: [await seller(service, 1, 2)] },
      ];
      for (let n = 2; n <= o.organizers; n++) {
        layouts[0]!.sellers.push(await seller(others[2 * (n - 2)]!, 1, 1));
        layouts[1]!.sellers.push(await seller(others[2 * (n - 2) + 1]!, n, 2));
      }
      // every organizer's event object exists and the isolate is warm before anything is measured
      log(`groups: warming ${o.organizers * 2} events of ${o.organizers * 2 - 1} organizers (one order each)`);
      for (const s of layouts.flatMap((l) => l.sellers)) {
        const w = await runPhase({
          concurrency: 1,
          count: 1,
          make: (i) => shopOrder(service.base, s.token, s.shop, -1 - i),
        });
        if (w.samples[0]!.status !== 201)
          throw new Error(`warming ${s.organizer} answered ${w.samples[0]!.status}: ${w.samples[0]!.body}`);
      }
      const runs = [];
      for (const layout of layouts) {
        log(
          `groups: ${layout.name}: ${o.organizers} on-sales at once, ${o.buyers} buyers each, at most ${o.seconds} s`,
        );
        runs.push(await rush(service.base, layout, o));
      }
      return runs;
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(config, { force: true });
  }
}

type Run = Awaited<ReturnType<typeof benchGroups>>[number];

function summarizeLayout(r: Run, o: GroupsOptions) {
  const ok = r.rushes.flatMap(created);
  const start = Math.min(...r.rushes.map((p) => p.startedAt));
  const end = Math.max(...r.rushes.flatMap((p) => created(p).map((s) => p.startedAt + s.at)));
  const all = r.rushes.flatMap((p) => p.samples);
  const unexpected = all.filter((s) => s.status !== 201 && s.status !== 400);
  const organizers = r.layout.sellers.map((s, i) => {
    const sold201 = created(r.rushes[i]!).length;
    const c = r.counts[i]!;
    return {
      organizer: s.organizer,
      group: s.group,
      orders_per_second: soldRate(r.rushes[i]!),
      created_201: sold201,
      statuses: statusCounts(r.rushes[i]!.samples),
      // the warm-up order counts too
      quota: { size: o.quota, sold: c.sold, available_number: c.available },
      orders_listed: c.orders,
      oversold: Math.max(0, c.sold - o.quota),
      // every 201 is an order, and no order is there that was not answered 201
      orders_match: c.orders === sold201 + 1 && c.sold === sold201 + 1,
    };
  });
  return {
    layout: r.layout.name,
    groups: [...new Set(r.layout.sellers.map((s) => s.group))],
    orders_per_second: end > start ? round((ok.length * 1000) / (end - start), 1) : 0,
    // answered and in D1: the rate each group's writer sustains
    durable_orders_per_second: r.durableAt > start ? round((ok.length * 1000) / (r.durableAt - start), 1) : 0,
    d1_behind_ms: Math.max(0, r.durableAt - end),
    created_201: ok.length,
    latency_created: latency(ok),
    d1_round_trips_created: roundTrips(ok),
    organizers,
    oversold: organizers.reduce((n, x) => n + x.oversold, 0),
    server_errors_5xx: all.filter((s) => s.status >= 500).length,
    unexpected: unexpected.length,
    unexpected_samples: unexpected.slice(0, 5).map((s) => ({ status: s.status, body: s.body ?? "" })),
  };
}

export function summarizeGroups(runs: Awaited<ReturnType<typeof benchGroups>>, o: GroupsOptions) {
  const [one, spread] = runs.map((r) => summarizeLayout(r, o)) as [
    ReturnType<typeof summarizeLayout>,
    ReturnType<typeof summarizeLayout>,
  ];
  const ratio =
    one.durable_orders_per_second > 0
      ? round(spread.durable_orders_per_second / one.durable_orders_per_second, 2)
      : null;
  const answeredRatio = one.orders_per_second > 0 ? round(spread.orders_per_second / one.orders_per_second, 2) : null;
  const checks = {
    nothing_oversold: one.oversold === 0 && spread.oversold === 0,
    orders_match_answers: [one, spread].every((l) => l.organizers.every((x) => x.orders_match)),
    no_5xx: one.server_errors_5xx === 0 && spread.server_errors_5xx === 0,
    no_unexpected_status: one.unexpected === 0 && spread.unexpected === 0,
  };
  return {
    scenario: `${o.organizers} organizers' on-sales at once, in one organizer group and in ${o.organizers}; ${o.writeMs} ms writer time per write statement, primary round trip ${o.primaryMs} ms`,
    settings: {
      organizers: o.organizers,
      quota_per_organizer: o.quota,
      buyers_per_organizer: o.buyers,
      seconds_at_most: o.seconds,
      simulate_write_ms: o.writeMs,
      simulate_primary_ms: o.primaryMs,
    },
    one_group: one,
    spread,
    ratio_spread_to_one: ratio,
    ratio_answered_spread_to_one: answeredRatio,
    goal: `total orders/s in D1 in ${o.organizers} groups ≥ ${GOAL} × in one group (issue 26)`,
    goal_met: ratio !== null && ratio >= GOAL,
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}

export type GroupsSummary = ReturnType<typeof summarizeGroups>;

/** Each layout's orders per second, on its own clock. */
export function groupsPhases(runs: Awaited<ReturnType<typeof benchGroups>>) {
  return runs.flatMap((r) =>
    r.rushes.map((phase, i) => ({
      name: `${r.layout.name}: ${r.layout.sellers[i]!.organizer} (group ${r.layout.sellers[i]!.group})`,
      phase,
    })),
  );
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "))
    .join("\n");
}

export function printGroups(g: GroupsSummary, loadBefore: number, loadAfter: number): string {
  const rows = [
    [
      "",
      "group",
      "orders 201",
      "answered/s",
      "p50 ms",
      "p99 ms",
      "in D1/s",
      "D1 behind ms",
      "sold / quota",
      "oversold",
    ],
  ];
  for (const l of [g.one_group, g.spread]) {
    for (const x of l.organizers)
      rows.push([
        `${l.layout}: ${x.organizer}`,
        String(x.group),
        String(x.created_201),
        String(x.orders_per_second),
        "",
        "",
        "",
        "",
        `${x.quota.sold} / ${x.quota.size}`,
        String(x.oversold),
      ]);
    rows.push([
      `${l.layout}: all together`,
      l.groups.join(","),
      String(l.created_201),
      String(l.orders_per_second),
      String(l.latency_created.p50_ms),
      String(l.latency_created.p99_ms),
      String(l.durable_orders_per_second),
      String(l.d1_behind_ms),
      "",
      String(l.oversold),
    ]);
  }
  const trips = (t: GroupsSummary["spread"]["d1_round_trips_created"]) =>
    t ? `${t.mean} D1 round trips, ${t.d1_ms_mean} ms waiting for D1 (${t.object_d1_ms_mean} ms in the object)` : "-";
  const lines = [
    "",
    `Benchmark: ${g.scenario}`,
    `${g.settings.buyers_per_organizer} buyers per organizer · quota ${g.settings.quota_per_organizer} each · at most ${g.settings.seconds_at_most} s per layout · load average ${round(loadBefore, 2)} before, ${round(loadAfter, 2)} after`,
    "",
    table(rows),
    "",
    `per order created: one group ${trips(g.one_group.d1_round_trips_created)}; ${g.spread.layout} ${trips(g.spread.d1_round_trips_created)}`,
    `ratio ${g.spread.layout} ÷ one group, orders in D1: ${g.ratio_spread_to_one} (${g.goal}: ${g.goal_met ? "met" : "NOT met"}) · orders answered: ${g.ratio_answered_spread_to_one}`,
    `oversold: ${g.one_group.oversold}, ${g.spread.oversold} · 5xx: ${g.one_group.server_errors_5xx}, ${g.spread.server_errors_5xx}`,
    `checks: ${Object.entries(g.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
  ];
  for (const e of [...g.one_group.unexpected_samples, ...g.spread.unexpected_samples])
    lines.push(`  answer ${e.status}: ${e.body}`);
  return `${lines.join("\n")}\n`;
}
