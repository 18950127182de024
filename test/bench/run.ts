/**
 * `npm run bench [-- flags]`: the benchmark (what it measures:
 * docs/benchmark.md). Not a test: it starts the service locally (wrangler dev on a fresh
 * temporary state directory), loads it from this process and prints a table plus one JSON
 * line. Scenarios: many parallel buyers on one quota of one event; many devices redeeming
 * tickets on one check-in list, and storms of parallel scans of one ticket (./checkin.ts).
 *
 *  1. A trivial authenticated endpoint, GET /api/v1/organizers/{slug}/ (credential and
 *     organizer lookup, nothing else): requests/s and latency, measured before and after
 *     the orders, as the yardstick for this machine in this run.
 *  2. Contended order creation: `--concurrency` clients post one-position orders against
 *     ONE quota of `--quota` until it is sold out, plus `--extra` attempts: orders/s until
 *     sold out, latency of successes and of refusals, status counts, and the oversold count
 *     from the API's order list and the quota's availability (must be 0).
 *  3. D1 round trips per request (the debugging aid DEBUG_D1_ROUND_TRIPS, on here).
 *  4. Check-in (./checkin.ts): `--devices` devices redeem `--tickets` distinct tickets on one
 *     list (redemptions/s, p50/p99, round trips, ratio to the trivial endpoint measured in the
 *     same minutes), then `--storms` tickets are each scanned by `--storm-width` parallel
 *     requests; double entries (from the answers and from the list's positions) must be 0.
 *  5. A large event (./large.ts): `--large-positions` order positions written into the local
 *     state; every list request of the orders list and of a check-in list's tickets against
 *     the trivial endpoint (goal: ≤ 2 ×), and the first order after the event's object
 *     restarted against warm orders (goal: ≤ 10 ×).
 *  6. On-sales at once (./rushes.ts): one event sells out alone, then `--onsale-events`
 *     events at the same moment: does one slow the others?
 *  7. Live availability (./live.ts): `--live-subscribers` listen while buyers sell an event out:
 *     the delay to each subscriber, and orders/s with them against without.
 *  8. A remote D1 primary (./remote-primary.ts; only when named: `--scenario primary`): orders
 *     and redeems on a fresh service with D1 local, then on one whose D1 acts as a primary
 *     `--simulate-primary-ms` away; p50/p99 of both and their ratio. The two simulation flags
 *     also apply to the other scenarios named with them (their service gets the same vars).
 *  9. Organizer groups (./groups.ts; only when named: `--scenario groups`): four organizers'
 *     on-sales at once with a simulated writer time per D1 write, all in one organizer group and
 *     then in four; total orders/s of both and their ratio.
 * 10. An on-sale queue (./queue.ts): `--queue-visitors` visitors join a first-come and a
 *     shuffled queue, then wait until admitted; order, rate, nobody twice or skipped, p99s.
 *
 * Besides the table and the JSON, each run draws an SVG chart (./chart.ts): per scenario,
 * answers per second and p50/p99 latency second by second, the trivial endpoint beside them.
 *
 * Exit code 1 when anything was oversold, any 5xx or other unexpected answer came, the quota
 * did not end exactly sold out, or a goal of the large event was missed; 2 for bad flags.
 */
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  latency,
  type RequestSpec,
  round,
  roundTrips,
  runPhase,
  type Sample,
  send,
  statusCounts,
  type TripSummary,
} from "./load.ts";
import { benchCheckin, type CheckinSummary, summarizeCheckin } from "./checkin.ts";
import { chartSvg, COLORS, type Panel, pointsOf, TRIVIAL_COLOR } from "./chart.ts";
import { benchLarge, fileBytes, type LargeSummary, summarizeLarge } from "./large.ts";
import { apiFor, benchRushes, type RushSummary, summarizeRushes } from "./rushes.ts";
import {
  benchRemotePrimary,
  type PrimarySummary,
  primaryPhases,
  printRemotePrimary,
  summarizeRemotePrimary,
} from "./remote-primary.ts";
import { benchGroups, type GroupsSummary, groupsPhases, printGroups, summarizeGroups } from "./groups.ts";
import { benchLive, type LiveSummary, liveReport, summarizeLive } from "./live.ts";
import { benchQueue, type QueueSummary, queueLines, summarizeQueue } from "./queue.ts";
import { perOperation, type ProfileSummary, profiled, profileFile, summarizeProfile } from "./profile.ts";
import { type Service, startService } from "./server.ts";

const USAGE = `usage: npm run bench -- [flags]
  --concurrency N       parallel buyers (and clients of the trivial endpoint)   default 64
  --quota N             size of the one quota                                    default 1000
  --extra N             order attempts after the quota is sold out               default 500
  --warmup-orders N     orders before measuring (taken from the quota)           default 50
  --trivial-seconds S   trivial endpoint, measured (half before, half after)     default 10
  --warmup-seconds S    trivial endpoint, before measuring                       default 3
  --scenario S          orders, checkin, large, onsales or all (comma-separated)  default all
                        primary: the remote-primary scenario (never part of all)
                        groups: on-sales in one organizer group and in four (never part of all)
  --simulate-primary-ms MS  D1 as a primary this far away (SIMULATE_D1_PRIMARY_MS) default off; primary: 100
  --simulate-write-ms MS    writer time per D1 write statement (SIMULATE_D1_WRITE_MS) default off
  --primary-clients N   primary: parallel buyers and devices (measured)          default 1
  --primary-orders N    primary: orders measured per run                         default 200
  --primary-tickets N   primary: tickets redeemed per run                        default 200
  --groups-organizers N groups: organizers selling at once (and groups)       default 4
  --groups-quota N      groups: each organizer's quota                           default 1000
  --groups-buyers N     groups: parallel buyers per organizer                    default 16
  --groups-seconds S    groups: each layout's on-sales, at most                  default 20
                        (groups: --simulate-write-ms default 2, --simulate-primary-ms default 0)
  --large-positions N   large: order positions of the one large event            default 100000
  --large-samples N     large: measured requests per list request                default 45
  --onsale-events N     onsales: events selling out at once                      default 4
  --onsale-quota N      onsales: each event's quota                               default 300
  --onsale-buyers N     onsales: parallel buyers per event                        default 16
  --live-subscribers N  live: subscribers of the live availability                default 1000
  --live-quota N        live: the quota the buyers sell out                      default 300
  --queue-visitors N    queue: visitors joining (half first come, half shuffled)  default 20000
  --queue-rate N        queue: admissions per minute of each queue                default 5000
  --chart FILE          also write the SVG chart to FILE (default: beside the JSON)
  --tickets N           check-in: distinct tickets redeemed                       default 1000
  --devices N           check-in: scanning devices (parallel clients)             default 64
  --storms N            check-in: tickets scanned by a storm of parallel scans    default 20
  --storm-width N       check-in: parallel scans per storm                        default 64
  --profile DIR         V8 CPU profiles into DIR: of the orders and of the check-in gates (where the time goes)
  --port P              port for wrangler dev                                    default a free one
  --json FILE           also write the JSON result to FILE (default: a temporary file)
  --keep                keep the temporary state directory
  --verbose             show wrangler's output`;

const SCENARIOS = ["orders", "checkin", "large", "onsales", "live", "queue"] as const;
/** Scenarios that run only when named. */
const NAMED_ONLY = ["primary", "groups"] as const;

function options() {
  const { values } = parseArgs({
    options: {
      concurrency: { type: "string", default: "64" },
      quota: { type: "string", default: "1000" },
      extra: { type: "string", default: "500" },
      "warmup-orders": { type: "string", default: "50" },
      "trivial-seconds": { type: "string", default: "10" },
      "warmup-seconds": { type: "string", default: "3" },
      scenario: { type: "string", default: "all" },
      tickets: { type: "string", default: "1000" },
      devices: { type: "string", default: "64" },
      storms: { type: "string", default: "20" },
      "storm-width": { type: "string", default: "64" },
      "large-positions": { type: "string", default: "100000" },
      "large-samples": { type: "string", default: "45" },
      "onsale-events": { type: "string", default: "4" },
      "onsale-quota": { type: "string", default: "300" },
      "onsale-buyers": { type: "string", default: "16" },
      "simulate-primary-ms": { type: "string" },
      "simulate-write-ms": { type: "string" },
      "primary-clients": { type: "string", default: "1" },
      "primary-orders": { type: "string", default: "200" },
      "primary-tickets": { type: "string", default: "200" },
      "groups-organizers": { type: "string", default: "4" },
      "groups-quota": { type: "string", default: "1000" },
      "groups-buyers": { type: "string", default: "16" },
      "groups-seconds": { type: "string", default: "20" },
      "live-subscribers": { type: "string", default: "1000" },
      "live-quota": { type: "string", default: "300" },
      "queue-visitors": { type: "string", default: "20000" },
      "queue-rate": { type: "string", default: "5000" },
      chart: { type: "string" },
      port: { type: "string" },
      json: { type: "string" },
      profile: { type: "string" },
      keep: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (name: string, raw: string, min: number) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer of at least ${min}`);
    return n;
  };
  const seconds = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number of seconds`);
    return n;
  };
  const o = {
    concurrency: int("concurrency", values.concurrency, 1),
    quota: int("quota", values.quota, 1),
    extra: int("extra", values.extra, 0),
    warmupOrders: int("warmup-orders", values["warmup-orders"], 0),
    trivialSeconds: seconds("trivial-seconds", values["trivial-seconds"]),
    warmupSeconds: seconds("warmup-seconds", values["warmup-seconds"]),
    scenarios: new Set(values.scenario === "all" ? SCENARIOS : values.scenario.split(",").map((x) => x.trim())),
    tickets: int("tickets", values.tickets, 1),
    devices: int("devices", values.devices, 1),
    storms: int("storms", values.storms, 0),
    stormWidth: int("storm-width", values["storm-width"], 2),
    largePositions: int("large-positions", values["large-positions"], 6),
    largeSamples: int("large-samples", values["large-samples"], 1),
    onsaleEvents: int("onsale-events", values["onsale-events"], 2),
    onsaleQuota: int("onsale-quota", values["onsale-quota"], 2),
    onsaleBuyers: int("onsale-buyers", values["onsale-buyers"], 1),
    simulatePrimaryMs:
      values["simulate-primary-ms"] === undefined
        ? undefined
        : int("simulate-primary-ms", values["simulate-primary-ms"], 0),
    simulateWriteMs:
      values["simulate-write-ms"] === undefined ? undefined : int("simulate-write-ms", values["simulate-write-ms"], 0),
    primaryClients: int("primary-clients", values["primary-clients"], 1),
    primaryOrders: int("primary-orders", values["primary-orders"], 1),
    primaryTickets: int("primary-tickets", values["primary-tickets"], 1),
    groupsOrganizers: int("groups-organizers", values["groups-organizers"], 2),
    groupsQuota: int("groups-quota", values["groups-quota"], 2),
    groupsBuyers: int("groups-buyers", values["groups-buyers"], 1),
    groupsSeconds: seconds("groups-seconds", values["groups-seconds"]),
    liveSubscribers: int("live-subscribers", values["live-subscribers"], 1),
    liveQuota: int("live-quota", values["live-quota"], 2),
    queueVisitors: int("queue-visitors", values["queue-visitors"], 200),
    queueRate: int("queue-rate", values["queue-rate"], 60),
    chart: values.chart,
    port: values.port === undefined ? undefined : int("port", values.port, 1),
    json: values.json,
    keep: values.keep,
    verbose: values.verbose,
    profile: values.profile,
  };
  if (o.warmupOrders >= o.quota) throw new Error("--warmup-orders must be smaller than --quota");
  for (const x of o.scenarios)
    if (![...SCENARIOS, ...NAMED_ONLY].includes(x as never))
      throw new Error(`--scenario: ${x} is not one of ${[...SCENARIOS, ...NAMED_ONLY].join(", ")}, all`);
  return o;
}

let opts: ReturnType<typeof options>;

try {
  opts = options();
} catch (e) {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
  process.exit(2);
}

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// ------------------------------------------------------------------ the service

let service: Service | null = null;
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the service`);
    void (service?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

class SetupError extends Error {}

/** The API as the benchmark's organizer sees it (the service started first). */
function api(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  return apiFor(service!.base, service!.token)(method, url, body);
}

async function create(url: string, body: unknown): Promise<any> {
  const res = await api("POST", url, body);
  if (res.status !== 201) throw new SetupError(`POST ${url} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

// ------------------------------------------------------------------ the run

type Result = Awaited<ReturnType<typeof bench>>;

async function bench() {
  const loadBefore = os.loadavg()[0]!;
  const org = service!.organizer;
  const eventSlug = "rush";
  const eventPath = `/api/v1/organizers/${org}/events/${eventSlug}`;
  await create(`/api/v1/organizers/${org}/events/`, {
    name: { en: "Benchmark rush" },
    slug: eventSlug,
    currency: "EUR",
    date_from: "2030-06-01T19:00:00Z",
  });
  const item = await create(`${eventPath}/items/`, { name: { en: "Ticket" }, default_price: "20.00", admission: true });
  const quota = await create(`${eventPath}/quotas/`, { name: "Tickets", size: opts.quota, items: [item.id] });
  // Orders through the API need no live event (spec: time frames are not checked).
  log(`event "${eventSlug}", item ${item.id}, quota ${quota.id} of ${opts.quota}`);

  const auth = { Authorization: `Token ${service!.token}` };
  const trivialUrl = `/api/v1/organizers/${org}/`;
  const trivial = (): RequestSpec => ({
    url: `${service!.base}${trivialUrl}`,
    init: { headers: auth },
    expected: (s) => s === 200,
  });
  const order = (i: number): RequestSpec => ({
    url: `${service!.base}${eventPath}/orders/`,
    init: {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ email: `buyer${i}@example.org`, positions: [{ item: item.id }] }),
    },
    expected: (s) => s === 201 || s === 400,
  });

  log(`warming up: trivial endpoint for ${opts.warmupSeconds} s, ${opts.warmupOrders} orders`);
  await runPhase({ concurrency: opts.concurrency, durationMs: opts.warmupSeconds * 1000, make: trivial });
  const warm = await runPhase({
    concurrency: Math.min(opts.concurrency, Math.max(1, opts.warmupOrders)),
    count: opts.warmupOrders,
    make: (i) => order(-1 - i),
  });
  const warmSold = warm.samples.filter((s) => s.status === 201).length;

  const half = (opts.trivialSeconds * 1000) / 2;
  log(`trivial endpoint: ${opts.concurrency} clients for ${half / 1000} s`);
  const trivialBefore = await runPhase({ concurrency: opts.concurrency, durationMs: half, make: trivial });

  const attempts = opts.quota - warmSold + opts.extra;
  log(`orders: ${opts.concurrency} buyers, ${attempts} attempts on the ${opts.quota - warmSold} tickets left`);
  const bytesBefore = fileBytes(service!.stateDir);
  const ordersPhase = () => runPhase({ concurrency: opts.concurrency, count: attempts, make: order });
  let orders: Awaited<ReturnType<typeof ordersPhase>>;
  let profile: ProfileSummary | null = null;
  if (opts.profile) {
    const file = profileFile(opts.profile, "orders");
    const run = await profiled(service!.inspectorPort(), file, ordersPhase);
    orders = run.value;
    profile = run.profile && summarizeProfile(run.profile, ["countedCall"]);
    log(run.profile ? `orders: CPU profile in ${file}` : `orders: no CPU profile: ${run.error}`);
  } else orders = await ordersPhase();
  const bytesAfter = fileBytes(service!.stateDir);

  log(`trivial endpoint again for ${half / 1000} s`);
  const trivialAfter = await runPhase({ concurrency: opts.concurrency, durationMs: half, make: trivial });
  const loadAfter = os.loadavg()[0]!;

  // ---- what was sold, according to the API
  log("checking the order list and the quota's availability");
  let soldPositions = 0;
  let listedOrders = 0;
  let next: string | null = `${service!.base}${eventPath}/orders/`;
  while (next) {
    const res: Response = await fetch(next, { headers: auth });
    if (res.status !== 200) throw new SetupError(`GET ${next} answered ${res.status}`);
    const page = (await res.json()) as {
      next: string | null;
      results: { status: string; positions: { item: number }[] }[];
    };
    for (const o of page.results) {
      listedOrders++;
      if (o.status === "n" || o.status === "p") soldPositions += o.positions.filter((p) => p.item === item.id).length;
    }
    next = page.next;
  }
  const availability = await api("GET", `${eventPath}/quotas/${quota.id}/availability/`);
  if (availability.status !== 200) throw new SetupError(`availability answered ${availability.status}`);
  const a = availability.body as {
    available: boolean;
    available_number: number | null;
    pending_orders: number;
    paid_orders: number;
  };
  const availabilityTrips = (
    await send(
      {
        url: `${service!.base}${eventPath}/quotas/${quota.id}/availability/`,
        init: { headers: auth },
        expected: (s) => s === 200,
      },
      0,
    )
  ).trips;

  return {
    loadBefore,
    loadAfter,
    item,
    quota,
    warm,
    warmSold,
    trivialBefore,
    trivialAfter,
    orders,
    attempts,
    soldPositions,
    listedOrders,
    availability: a,
    availabilityTrips,
    bytesBefore,
    bytesAfter,
    profile,
  };
}

// ------------------------------------------------------------------ the report

function perSecond(n: number, ms: number) {
  return ms > 0 ? round((n * 1000) / ms, 1) : 0;
}

function summarize(r: Result) {
  const trivialSamples = [...r.trivialBefore.samples, ...r.trivialAfter.samples];
  const trivialOk = trivialSamples.filter((s) => s.status === 200);
  const trivialRate = perSecond(trivialOk.length, r.trivialBefore.elapsedMs + r.trivialAfter.elapsedMs);
  const created = r.orders.samples.filter((s) => s.status === 201);
  const refused = r.orders.samples.filter((s) => s.status === 400);
  const soldOutRefusals = refused.filter((s) => s.body === undefined || /not enough quota available/.test(s.body));
  // orders/s: the successes over the time until the last of them came back (the sell-out)
  const soldOutAt = created.length ? Math.max(...created.map((s) => s.at)) : r.orders.elapsedMs;
  const orderRate = perSecond(created.length, soldOutAt);
  const all = [...r.warm.samples, ...r.orders.samples, ...trivialSamples];
  const serverErrors = all.filter((s) => s.status >= 500);
  const unexpected = [
    ...trivialSamples.filter((s) => s.status !== 200),
    ...[...r.warm.samples, ...r.orders.samples].filter((s) => s.status !== 201 && s.status !== 400),
  ];
  const refusedForOtherReasons = refused.filter(
    (s) => s.body !== undefined && !/not enough quota available/.test(s.body),
  );
  const soldByAvailability = r.availability.pending_orders + r.availability.paid_orders;
  const oversold = Math.max(r.soldPositions, soldByAvailability) - opts.quota;
  const totalCreated = r.warmSold + created.length;
  const checks = {
    oversold_zero: oversold <= 0 && r.soldPositions <= opts.quota && soldByAvailability <= opts.quota,
    no_5xx: serverErrors.length === 0,
    no_unexpected_status: unexpected.length === 0 && refusedForOtherReasons.length === 0,
    sold_out_exactly:
      totalCreated === opts.quota &&
      r.soldPositions === opts.quota &&
      r.availability.available_number === 0 &&
      r.availability.available === false,
    orders_listed_once: r.listedOrders === totalCreated,
  };
  const sample = (s: Sample) => ({ status: s.status, body: s.body ?? "" });
  return {
    scenario: "contended order creation: many parallel buyers, one quota of one event",
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? "unknown",
      memory_gb: round(os.totalmem() / 2 ** 30, 1),
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      node: process.version,
      // other work on the machine skews the absolute numbers (the ratio less so)
      load_average_1min_before: round(r.loadBefore, 2),
      load_average_1min_after: round(r.loadAfter, 2),
    },
    service: "wrangler dev --local (workerd; D1, Durable Objects simulated on local SQLite), same machine",
    settings: {
      concurrency: opts.concurrency,
      quota_size: opts.quota,
      warmup_orders: opts.warmupOrders,
      extra_attempts: opts.extra,
      measured_attempts: r.attempts,
      trivial_seconds: opts.trivialSeconds,
    },
    trivial: {
      endpoint: "GET /api/v1/organizers/{slug}/ (authenticated)",
      requests: trivialSamples.length,
      requests_per_second: trivialRate,
      before_per_second: perSecond(
        r.trivialBefore.samples.filter((s) => s.status === 200).length,
        r.trivialBefore.elapsedMs,
      ),
      after_per_second: perSecond(
        r.trivialAfter.samples.filter((s) => s.status === 200).length,
        r.trivialAfter.elapsedMs,
      ),
      latency: latency(trivialOk),
      d1_round_trips: roundTrips(trivialOk),
    },
    orders: {
      endpoint: "POST /api/v1/organizers/{slug}/events/{slug}/orders/ (one position)",
      attempts: r.orders.samples.length,
      created_201: created.length,
      refused_400: refused.length,
      refused_400_sold_out: soldOutRefusals.length,
      orders_per_second: orderRate,
      tickets_per_minute: round(orderRate * 60, 0),
      sold_out_after_seconds: round(soldOutAt / 1000, 2),
      attempts_per_second: perSecond(r.orders.samples.length, r.orders.elapsedMs),
      latency_created: latency(created),
      latency_refused: latency(refused),
      d1_round_trips_created: roundTrips(created),
      // what D1's file grew by per order created (one position, its mail in the outbox, indexes)
      d1_bytes_per_order_created: created.length ? Math.round((r.bytesAfter - r.bytesBefore) / created.length) : null,
      d1_round_trips_refused: roundTrips(refused),
      statuses: statusCounts(r.orders.samples),
      warmup_statuses: statusCounts(r.warm.samples),
    },
    ratio_orders_to_trivial: trivialRate > 0 ? round(orderRate / trivialRate, 3) : null,
    profile: r.profile && { per_order: perOperation(r.profile, r.orders.samples.length), ...r.profile },
    reference: "pretix's published ceiling: 300-400 tickets per minute per event",
    verification: {
      quota_size: opts.quota,
      orders_created_201: totalCreated,
      orders_listed: r.listedOrders,
      positions_sold_by_order_list: r.soldPositions,
      positions_sold_by_availability: soldByAvailability,
      available_number: r.availability.available_number,
      available: r.availability.available,
      oversold,
      availability_d1_round_trips: r.availabilityTrips,
    },
    server_errors_5xx: serverErrors.length,
    server_error_samples: serverErrors.slice(0, 5).map(sample),
    unexpected_answers: unexpected.length + refusedForOtherReasons.length,
    unexpected_samples: [...unexpected, ...refusedForOtherReasons].slice(0, 5).map(sample),
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "))
    .join("\n");
}

function tripsCell(t: TripSummary): string {
  if (!t) return "-";
  const range = t.min === t.max ? "" : ` [${t.min}-${t.max}]`;
  return `${t.mean} = ${t.worker_mean} + ${t.object_mean}${range} · ${t.d1_ms_mean} ms`;
}

function print(s: ReturnType<typeof summarize>) {
  const o = s.orders;
  const t = s.trivial;
  const lines = [
    "",
    `Benchmark: ${s.scenario}`,
    `${s.date} · ${s.machine.cpus} CPUs (${s.machine.cpu_model}), ${s.machine.memory_gb} GB · Node ${s.machine.node} · load average ${s.machine.load_average_1min_before} before, ${s.machine.load_average_1min_after} after`,
    `service: ${s.service}`,
    `${s.settings.concurrency} clients · quota ${s.settings.quota_size} (${s.settings.warmup_orders} sold in the warm-up) · ${s.settings.measured_attempts} measured order attempts`,
    "",
    table([
      ["", "requests", "per second", "p50 ms", "p99 ms", "D1 round trips (worker + object) · ms waiting for D1"],
      [
        `trivial: ${t.endpoint}`,
        String(t.requests),
        String(t.requests_per_second),
        String(t.latency.p50_ms),
        String(t.latency.p99_ms),
        tripsCell(t.d1_round_trips),
      ],
      [
        "orders: 201 created",
        String(o.created_201),
        String(o.orders_per_second),
        String(o.latency_created.p50_ms),
        String(o.latency_created.p99_ms),
        tripsCell(o.d1_round_trips_created),
      ],
      [
        "orders: 400 refused (sold out)",
        String(o.refused_400),
        "",
        String(o.latency_refused.p50_ms),
        String(o.latency_refused.p99_ms),
        tripsCell(o.d1_round_trips_refused),
      ],
    ]),
    "",
    `trivial endpoint before / after the orders: ${t.before_per_second} / ${t.after_per_second} requests/s`,
    `orders/s until sold out: ${o.orders_per_second} (${o.tickets_per_minute} tickets/minute; sold out after ${o.sold_out_after_seconds} s; ${s.reference})`,
    `ratio orders/s ÷ trivial requests/s: ${s.ratio_orders_to_trivial} · D1 grew by ${o.d1_bytes_per_order_created} bytes per order created`,
    ...(s.profile?.per_order
      ? [
          `CPU per order attempt (profile of the orders): ${s.profile.per_order.busy_ms} ms busy = event object ${s.profile.per_order.object_ms} + Worker ${s.profile.per_order.worker_ms} + runtime ${s.profile.per_order.runtime_ms} · one event's object: ${s.profile.per_order.object_decisions_per_second} orders decided/s at most`,
          `heaviest places: ${s.profile.by_place
            .slice(0, 8)
            .map((x) => `${x.place} ${x.share}%`)
            .join(", ")}`,
        ]
      : []),
    `statuses: ${Object.entries(o.statuses)
      .map(([k, v]) => `${k} × ${v}`)
      .join(", ")} · 5xx: ${s.server_errors_5xx} · unexpected: ${s.unexpected_answers}`,
    `oversold: ${s.verification.oversold} (quota ${s.verification.quota_size}; sold per order list ${s.verification.positions_sold_by_order_list}, per availability ${s.verification.positions_sold_by_availability}; available_number ${s.verification.available_number})`,
    `checks: ${Object.entries(s.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
  ];
  for (const e of [...s.server_error_samples, ...s.unexpected_samples]) lines.push(`  answer ${e.status}: ${e.body}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

function printCheckin(c: CheckinSummary, loadBefore: number, loadAfter: number) {
  const r = c.redeem;
  const st = c.storm;
  const lines = [
    "",
    `Benchmark: ${c.scenario}`,
    `${c.settings.devices} devices · ${c.settings.distinct_tickets} distinct tickets · ${c.settings.storms} storms × ${c.settings.storm_width} parallel scans · load average ${round(loadBefore, 2)} before, ${round(loadAfter, 2)} after`,
    "",
    table([
      ["", "requests", "per second", "p50 ms", "p99 ms", "D1 round trips (worker + object) · ms waiting for D1"],
      [
        "trivial endpoint",
        String(c.trivial.latency.count),
        String(c.trivial.requests_per_second),
        String(c.trivial.latency.p50_ms),
        String(c.trivial.latency.p99_ms),
        tripsCell(c.trivial.d1_round_trips),
      ],
      [
        "redeem: 201 ok (distinct tickets)",
        String(r.redeemed_201),
        String(r.redemptions_per_second),
        String(r.latency.p50_ms),
        String(r.latency.p99_ms),
        tripsCell(r.d1_round_trips),
      ],
      ["storm: 201 ok", String(st.admitted_201), "", "", "", tripsCell(st.d1_round_trips_admitted)],
      [
        "storm: 400 already_redeemed",
        String(st.refused_400_already_redeemed),
        "",
        String(st.latency.p50_ms),
        String(st.latency.p99_ms),
        tripsCell(st.d1_round_trips_refused),
      ],
    ]),
    "",
    `ratio redemptions/s ÷ trivial requests/s: ${c.ratio_redemptions_to_trivial} · p99 ÷ trivial p99: ${c.ratio_p99_to_trivial_p99} (${c.goals})`,
    `double entries: ${c.double_entries.by_answers} by the answers, ${c.double_entries.by_list_positions} by the list's positions · list status: ${c.list_status.checkin_count} checked in, ${c.list_status.inside_count} inside`,
    ...(c.profile
      ? [
          `CPU per scan (profile of the gates): ${c.profile.busy_ms_per_scan} ms busy = event object ${c.profile.object_ms_per_scan} + Worker ${c.profile.worker_ms_per_scan} + runtime ${c.profile.runtime_ms_per_scan} · one event's object: ${c.profile.object_decisions_per_second} decisions/s at most`,
          `heaviest places: ${c.profile.by_place
            .slice(0, 8)
            .map((x) => `${x.place} ${x.share}%`)
            .join(", ")}`,
        ]
      : []),
    `checks: ${Object.entries(c.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
  ];
  for (const e of c.unexpected_samples) lines.push(`  answer ${e.status}: ${e.body}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

function printLarge(l: LargeSummary, loadBefore: number, loadAfter: number) {
  const r = l.restart;
  const lines = [
    "",
    `Benchmark: ${l.scenario}`,
    `${l.fixture.checkins} check-ins · ${l.settings.samples_per_request} samples per request, one client, each after a trivial request · load average ${round(loadBefore, 2)} before, ${round(loadAfter, 2)} after`,
    `D1: ${l.fixture.d1_bytes_added} bytes added by the fixture: ${l.fixture.d1_bytes_per_order} bytes per order, ${l.fixture.d1_bytes_per_position} per position (with indexes and check-ins)`,
    "",
    table([
      ["", "results", "p50 ms", "p99 ms", "÷ trivial p50", "D1 round trips · ms waiting for D1"],
      [
        "trivial: GET /api/v1/organizers/{slug}/",
        "",
        String(l.trivial.latency.p50_ms),
        String(l.trivial.latency.p99_ms),
        "1",
        tripsCell(l.trivial.d1_round_trips),
      ],
      ...l.lists.map((x) => [
        `${x.list}: ${x.request}`,
        String(x.count ?? ""),
        String(x.latency.p50_ms),
        String(x.latency.p99_ms),
        `${x.ratio_p50_to_trivial_p50}${x.within_2x ? "" : " !"}`,
        tripsCell(x.d1_round_trips),
      ]),
    ]),
    "",
    `warm order (one client): ${tripsCell(r.warm_d1_round_trips)} waiting for D1, ${r.warm_d1_round_trips?.object_d1_ms_mean} ms of it the object's write · redeem (one device): p50 ${l.redeem_one_device.latency.p50_ms} ms, ${tripsCell(l.redeem_one_device.d1_round_trips)} waiting for D1`,
    `first order after the object restarted: ${r.first_order_status} in ${r.first_order_ms} ms (${r.first_order_d1_round_trips ? `${r.first_order_d1_round_trips.total} D1 round trips` : "-"}); warm orders p50 ${r.warm_orders.p50_ms} ms, p99 ${r.warm_orders.p99_ms} ms; ratio ${r.ratio_first_to_warm_p50} (goal ≤ 10)`,
    r.object_start
      ? `the object's start: ${r.object_start.rows_read} rows read from its storage, ${r.object_start.held_positions} positions held (an in-memory ledger of them would take ${l.in_memory_ledger_estimate.heap_mb} MB)`
      : "the object's start: not reported",
    `quota: ${l.quota.held_by_object} held according to the object, ${l.quota.held_in_d1} in D1 before the orders of this scenario`,
    `checks: ${Object.entries(l.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

function printRushes(r: RushSummary, loadBefore: number, loadAfter: number) {
  const lines = [
    "",
    `Benchmark: ${r.scenario}`,
    `load average ${round(loadBefore, 2)} before, ${round(loadAfter, 2)} after`,
    "",
    table([
      ["", "orders/s until sold out", "÷ alone", "p50 ms", "p99 ms"],
      [
        `${r.alone.event} alone`,
        String(r.alone.orders_per_second),
        "1",
        String(r.alone.latency_created.p50_ms),
        String(r.alone.latency_created.p99_ms),
      ],
      ...r.together.events.map((e) => [
        `${e.event} (together)`,
        String(e.orders_per_second),
        String(e.ratio_to_alone),
        String(e.latency_created.p50_ms),
        String(e.latency_created.p99_ms),
      ]),
      ["all together", String(r.together.orders_per_second_all_events), String(r.together.ratio_all_to_alone), "", ""],
      ["trivial, 1 client, before", "", "", String(r.trivial.before.p50_ms), String(r.trivial.before.p99_ms)],
      [
        "trivial, 1 client, during",
        "",
        String(r.trivial.ratio_p50_during_to_before),
        String(r.trivial.during.p50_ms),
        String(r.trivial.during.p99_ms),
      ],
    ]),
    "",
    `do they slow each other? ${r.slow_each_other ? "yes" : "no"}: each event sells at ${r.together.mean_ratio_each_to_alone} × the lone event's rate; all together at ${r.together.ratio_all_to_alone} ×`,
    `oversold per event: ${r.oversold.join(", ")} · 5xx: ${r.server_errors_5xx}`,
    `checks: ${Object.entries(r.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

// ------------------------------------------------------------------ main

let exitCode = 1;
try {
  // the simulation flags, as the service's vars (none without them: the service as always)
  const simulation = {
    ...(opts.simulatePrimaryMs === undefined ? {} : { SIMULATE_D1_PRIMARY_MS: String(opts.simulatePrimaryMs) }),
    ...(opts.simulateWriteMs === undefined ? {} : { SIMULATE_D1_WRITE_MS: String(opts.simulateWriteMs) }),
  };
  if (SCENARIOS.some((x) => opts.scenarios.has(x))) {
    log("starting the service (migrations, organizer, wrangler dev)");
    service = await startService({ port: opts.port, keep: opts.keep, verbose: opts.verbose, log, vars: simulation });
    log(`listening on ${service.base}`);
  }
  const panels: Panel[] = [];
  const ok200 = (s: Sample) => s.status === 200;
  let summary: ReturnType<typeof summarize> | null = null;
  if (opts.scenarios.has("orders")) {
    const r = await bench();
    summary = summarize(r);
    print(summary);
    const origin = r.trivialBefore.startedAt;
    panels.push({
      title: "Rush on one quota: many parallel buyers, one event",
      note: `${opts.concurrency} clients; the trivial endpoint before and after the orders`,
      series: [
        { name: "orders 201 created", color: COLORS[0]!, points: pointsOf(r.orders, (s) => s.status === 201, origin) },
        { name: "orders 400 sold out", color: COLORS[1]!, points: pointsOf(r.orders, (s) => s.status === 400, origin) },
        {
          name: "trivial GET organizer",
          color: TRIVIAL_COLOR,
          points: [...pointsOf(r.trivialBefore, ok200, origin), ...pointsOf(r.trivialAfter, ok200, origin)],
        },
      ],
    });
  }
  let checkin: CheckinSummary | null = null;
  if (opts.scenarios.has("checkin")) {
    const loadBefore = os.loadavg()[0]!;
    const o = {
      tickets: opts.tickets,
      devices: opts.devices,
      storms: opts.storms,
      stormWidth: opts.stormWidth,
      trivialSeconds: opts.trivialSeconds,
      warmupSeconds: opts.warmupSeconds,
      profile: opts.profile,
    };
    const r = await benchCheckin(service!, api, o, log);
    checkin = summarizeCheckin(r, o);
    printCheckin(checkin, loadBefore, os.loadavg()[0]!);
    const origin = r.trivialBefore.startedAt;
    panels.push({
      title: "Check-in: devices redeeming tickets on one list, then storms on single tickets",
      note: `${opts.devices} devices; the trivial endpoint before and after`,
      series: [
        {
          name: "redeem 201 (distinct tickets)",
          color: COLORS[2]!,
          points: pointsOf(r.gates, (s) => s.status === 201, origin),
        },
        {
          name: "storm scans (201 and 400)",
          color: COLORS[3]!,
          points: r.storms.flatMap((st) =>
            st.samples
              .filter((s) => s.status === 201 || s.status === 400)
              .map((s) => ({ t: (st.startedAt + s.at - origin) / 1000, ms: s.ms })),
          ),
        },
        {
          name: "trivial GET organizer",
          color: TRIVIAL_COLOR,
          points: [...pointsOf(r.trivialBefore, ok200, origin), ...pointsOf(r.trivialAfter, ok200, origin)],
        },
      ],
    });
  }
  let large: LargeSummary | null = null;
  if (opts.scenarios.has("large")) {
    const loadBefore = os.loadavg()[0]!;
    const o = { positions: opts.largePositions, samples: opts.largeSamples };
    const r = await benchLarge(service!, api, o, log);
    large = summarizeLarge(r, o);
    printLarge(large, loadBefore, os.loadavg()[0]!);
    const origin = r.phases.trivial.startedAt;
    panels.push({
      title: `Large event: list pages with ${large.fixture.positions} positions (one client, each after a trivial request)`,
      note: "every documented ordering, first / deep / last page, search, modified_since, in turn",
      series: [
        { name: "orders list", color: COLORS[0]!, points: pointsOf(r.phases.orders, ok200, origin) },
        { name: "check-in list's tickets", color: COLORS[2]!, points: pointsOf(r.phases.tickets, ok200, origin) },
        { name: "trivial GET organizer", color: TRIVIAL_COLOR, points: pointsOf(r.phases.trivial, ok200, origin) },
      ],
    });
  }
  let onsales: RushSummary | null = null;
  if (opts.scenarios.has("onsales")) {
    const loadBefore = os.loadavg()[0]!;
    const o = {
      events: opts.onsaleEvents,
      quota: opts.onsaleQuota,
      buyers: opts.onsaleBuyers,
      extra: Math.ceil(opts.onsaleQuota / 5),
    };
    const r = await benchRushes(service!, api, o, log);
    onsales = summarizeRushes(r, o);
    printRushes(onsales, loadBefore, os.loadavg()[0]!);
    const origin = r.trivialBefore.startedAt;
    panels.push({
      title: `On-sales at once: one event alone, then ${o.events} events together`,
      note: `${o.buyers} buyers per event, quota ${o.quota} each; one trivial client before and during the joint on-sale`,
      series: [
        { name: "alone", color: COLORS[0]!, points: pointsOf(r.alone, (s) => s.status === 201, origin) },
        ...r.rushes.map((p, i) => ({
          name: r.shops[i + 1]!.slug,
          color: COLORS[(i + 1) % COLORS.length]!,
          points: pointsOf(p, (s) => s.status === 201, origin),
        })),
        {
          name: "trivial (1 client)",
          color: TRIVIAL_COLOR,
          points: [...pointsOf(r.trivialBefore, ok200, origin), ...pointsOf(r.trivialDuring, ok200, origin)],
        },
      ],
    });
  }
  let live: LiveSummary | null = null;
  if (opts.scenarios.has("live")) {
    const loadBefore = os.loadavg()[0]!;
    const o = { subscribers: opts.liveSubscribers, quota: opts.liveQuota, buyers: opts.concurrency };
    const r = await benchLive(service!, api, o, log);
    live = summarizeLive(r, o, summary?.orders.orders_per_second ?? null);
    process.stdout.write(liveReport(live, loadBefore, os.loadavg()[0]!));
  }
  let primary: PrimarySummary | null = null;
  if (opts.scenarios.has("primary")) {
    const loadBefore = os.loadavg()[0]!;
    const o = {
      primaryMs: opts.simulatePrimaryMs ?? 100,
      writeMs: opts.simulateWriteMs ?? 0,
      clients: opts.primaryClients,
      orders: opts.primaryOrders,
      tickets: opts.primaryTickets,
      warmupOrders: 20,
      verbose: opts.verbose,
    };
    const r = await benchRemotePrimary(o, log);
    primary = summarizeRemotePrimary(r, o);
    process.stdout.write(printRemotePrimary(primary, loadBefore, os.loadavg()[0]!));
    panels.push({
      title: `A remote D1 primary: orders and redeems with D1 local, then ${o.primaryMs} ms away`,
      note: `${o.clients} clients; ${o.writeMs} ms writer time per write statement in both; each run on its own clock`,
      series: primaryPhases(r).map((p, i) => ({
        name: p.name,
        color: COLORS[i % COLORS.length]!,
        points: pointsOf(p.phase, p.ok, p.phase.startedAt),
      })),
    });
  }
  let groups: GroupsSummary | null = null;
  if (opts.scenarios.has("groups")) {
    const loadBefore = os.loadavg()[0]!;
    const o = {
      organizers: opts.groupsOrganizers,
      quota: opts.groupsQuota,
      buyers: opts.groupsBuyers,
      seconds: opts.groupsSeconds,
      extra: Math.ceil(opts.groupsQuota / 10),
      writeMs: opts.simulateWriteMs ?? 2,
      primaryMs: opts.simulatePrimaryMs ?? 0,
      verbose: opts.verbose,
    };
    const r = await benchGroups(o, log);
    groups = summarizeGroups(r, o);
    process.stdout.write(printGroups(groups, loadBefore, os.loadavg()[0]!));
    panels.push({
      title: `Organizer groups: ${o.organizers} on-sales at once in one group, then in ${o.organizers}`,
      note: `${o.buyers} buyers per organizer; ${o.writeMs} ms writer time per write statement; each layout on its own clock`,
      series: groupsPhases(r).map((p, i) => ({
        name: p.name,
        color: COLORS[i % COLORS.length]!,
        points: pointsOf(p.phase, (s) => s.status === 201, p.phase.startedAt),
      })),
    });
  }
  let queue: QueueSummary | null = null;
  if (opts.scenarios.has("queue")) {
    const o = {
      visitors: opts.queueVisitors,
      clients: opts.concurrency,
      rate: opts.queueRate,
      quota: 100,
      buyers: 150,
    };
    queue = summarizeQueue(await benchQueue(service!, api, o, log), o);
    process.stdout.write(`${queueLines(queue).join("\n")}\n`);
  }
  const result = {
    orders: summary,
    checkin,
    large,
    onsales,
    live,
    ...(primary ? { primary } : {}),
    ...(groups ? { groups } : {}),
    queue,
    ok:
      (summary?.ok ?? true) &&
      (checkin?.ok ?? true) &&
      (large?.ok ?? true) &&
      (onsales?.ok ?? true) &&
      (primary?.ok ?? true) &&
      (groups?.ok ?? true) &&
      (live?.ok ?? true) &&
      (queue?.ok ?? true),
  };
  const file = opts.json ?? path.join(os.tmpdir(), `ticketing-bench-${Date.now()}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  const chartFile = opts.chart ?? `${file.replace(/\.json$/, "")}.svg`;
  const when = new Date().toISOString().slice(0, 16).replace("T", " ");
  writeFileSync(
    chartFile,
    chartSvg(
      `npm run bench, ${when} UTC`,
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}), load average ${round(os.loadavg()[0]!, 1)} at the end · wrangler dev --local on the same machine · second by second`,
      panels,
    ),
  );
  process.stdout.write(`JSON: ${file}\nchart: ${chartFile}\n${JSON.stringify(result)}\n`);
  exitCode = result.ok ? 0 : 1;
} catch (e) {
  process.stderr.write(
    `bench: failed: ${e instanceof Error ? `${e.message}${e.cause ? ` (${String(e.cause)})` : ""}\n${e.stack ?? ""}` : String(e)}\n`,
  );
  if (service && !(e instanceof SetupError)) process.stderr.write(`wrangler's last output:\n${service.logTail()}\n`);
  exitCode = 1;
} finally {
  if (!interrupted) {
    if (opts.keep && service) log(`state kept in ${service.stateDir}`);
    await service?.stop();
  }
}
if (!interrupted) process.exit(exitCode);
