/**
 * The remote-primary scenario of `npm run bench` (issue 26, point 3; docs/scaling.md): the same
 * orders and redeems once against D1 as it is locally and once with a simulated remote primary
 * (`--simulate-primary-ms`, the service's SIMULATE_D1_PRIMARY_MS; the writer time
 * `--simulate-write-ms` in both), each on a fresh service, and p50/p99 of both with their ratio.
 * The issue's goal: p50 with the remote primary ≤ 1.3 × p50 without, for orders and for redeems.
 */
import { seedDevices } from "./checkin.ts";
import {
  latency,
  type Phase,
  type RequestSpec,
  round,
  roundTrips,
  runPhase,
  type Sample,
  statusCounts,
} from "./load.ts";
import { type Service, startService } from "./server.ts";

export type PrimaryOptions = {
  /** The simulated round trip to the primary of the second run (the first runs at 0). */
  primaryMs: number;
  /** The simulated writer time per write statement, in both runs. */
  writeMs: number;
  /**
   * Parallel clients measured: buyers, and devices at the gate. One by default: what a request
   * waits for, without the queueing of a busy machine in front of it.
   */
  clients: number;
  /** Orders measured (they sell out the quota; a tenth more attempts are refused). */
  orders: number;
  /** Distinct tickets redeemed. */
  tickets: number;
  warmupOrders: number;
  /** Print wrangler's output. */
  verbose: boolean;
};

const GOAL = 1.3;

/** One run: a fresh service with the simulation at `primaryMs`, its orders and its redeems. */
async function runAt(primaryMs: number, o: PrimaryOptions, log: (l: string) => void) {
  const vars = { SIMULATE_D1_PRIMARY_MS: String(primaryMs), SIMULATE_D1_WRITE_MS: String(o.writeMs) };
  log(`remote primary: starting a service with SIMULATE_D1_PRIMARY_MS=${primaryMs}, SIMULATE_D1_WRITE_MS=${o.writeMs}`);
  const service = await startService({ log, vars, verbose: o.verbose, stateDirPrefix: "ticketing-bench-primary-" });
  try {
    return { primaryMs, ...(await measure(service, o, log)) };
  } finally {
    await service.stop();
  }
}

async function measure(service: Service, o: PrimaryOptions, log: (l: string) => void) {
  const auth = { Authorization: `Token ${service.token}` };
  const json = { ...auth, "Content-Type": "application/json" };
  const org = service.organizer;
  const create = async (url: string, body: unknown) => {
    const res = await fetch(`${service.base}${url}`, { method: "POST", headers: json, body: JSON.stringify(body) });
    const answer = (await res.json()) as any;
    if (res.status !== 201) throw new Error(`POST ${url} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const slug = "far";
  const ev = `/api/v1/organizers/${org}/events/${slug}`;
  await create(`/api/v1/organizers/${org}/events/`, {
    name: { en: "Remote primary" },
    slug,
    currency: "EUR",
    date_from: "2030-06-01T19:00:00Z",
  });
  const item = await create(`${ev}/items/`, { name: { en: "Ticket" }, default_price: "20.00", admission: true });
  const size = o.warmupOrders + o.tickets + o.orders;
  const quota = await create(`${ev}/quotas/`, { name: "Tickets", size, items: [item.id] });
  const list = await create(`${ev}/checkinlists/`, { name: "Gate", all_products: true });
  const order = (i: number, paid: boolean): RequestSpec => ({
    url: `${service.base}${ev}/orders/`,
    init: {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        email: `buyer${i}@example.org`,
        positions: [{ item: item.id }],
        ...(paid ? { status: "p", payment_provider: "manual" } : {}),
      }),
    },
    expected: (s) => s === 201 || (!paid && s === 400),
  });
  const trivial = (): RequestSpec => ({
    url: `${service.base}/api/v1/organizers/${org}/`,
    init: { headers: auth },
    expected: (s) => s === 200,
  });

  log(`remote primary: warming up (${o.warmupOrders} orders), selling ${o.tickets} paid tickets`);
  // setting up is not measured: at least 8 clients
  const setup = Math.max(8, o.clients);
  const warm = await runPhase({ concurrency: setup, count: o.warmupOrders, make: (i) => order(-1 - i, false) });
  const selling = await runPhase({ concurrency: setup, count: o.tickets, make: (i) => order(100_000 + i, true) });
  if ([...warm.samples, ...selling.samples].some((s) => s.status !== 201))
    throw new Error(
      `selling the tickets failed: ${JSON.stringify(statusCounts([...warm.samples, ...selling.samples]))}`,
    );
  // the event object answered the orders; D1 (and so the list) has them one write later
  let secrets: string[] = [];
  for (const deadline = Date.now() + 60_000; secrets.length !== o.tickets && Date.now() < deadline; ) {
    secrets = [];
    let next: string | null = `${service.base}${ev}/orders/?status=p`;
    while (next) {
      const res: Response = await fetch(next, { headers: auth });
      const page = (await res.json()) as { next: string | null; results: { positions: { secret: string }[] }[] };
      for (const ord of page.results) secrets.push(ord.positions[0]!.secret);
      next = page.next;
    }
    if (secrets.length !== o.tickets) await new Promise((r) => setTimeout(r, 250));
  }
  if (secrets.length !== o.tickets) throw new Error(`expected ${o.tickets} paid tickets, found ${secrets.length}`);

  log(`remote primary: trivial endpoint, ${o.clients} clients for 3 s`);
  const trivialPhase = await runPhase({ concurrency: o.clients, durationMs: 3000, make: trivial });

  const attempts = o.orders + Math.ceil(o.orders / 10);
  log(`remote primary: ${o.clients} buyers, ${attempts} order attempts on the ${o.orders} tickets left`);
  const orders = await runPhase({ concurrency: o.clients, count: attempts, make: (i) => order(i, false) });

  log(`remote primary: ${o.clients} devices redeem ${secrets.length} distinct tickets`);
  const devices = await seedDevices(service, o.clients);
  const redeems = await runPhase({
    concurrency: o.clients,
    count: secrets.length,
    make: (i) => ({
      url: `${service.base}/api/v1/organizers/${org}/checkinrpc/redeem/`,
      init: {
        method: "POST",
        headers: { Authorization: `Device ${devices[i % devices.length]}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          secret: secrets[i],
          lists: [list.id],
          type: "entry",
          nonce: `n${i}`,
          source_type: "barcode",
          questions_supported: true,
          answers: {},
        }),
      },
      expected: (s) => s === 201,
    }),
  });

  const availability = (await (
    await fetch(`${service.base}${ev}/quotas/${quota.id}/availability/`, { headers: auth })
  ).json()) as { available_number: number | null; pending_orders: number; paid_orders: number };
  const status = (await (
    await fetch(`${service.base}${ev}/checkinlists/${list.id}/status/`, { headers: auth })
  ).json()) as {
    checkin_count: number;
  };
  return {
    size,
    trivialPhase,
    orders,
    redeems,
    availability,
    checkinCount: status.checkin_count,
    tickets: secrets.length,
  };
}

type Run = Awaited<ReturnType<typeof runAt>>;

const perSecond = (n: number, ms: number) => (ms > 0 ? round((n * 1000) / ms, 1) : 0);

function summarizeRun(r: Run) {
  const created = r.orders.samples.filter((s) => s.status === 201);
  const refused = r.orders.samples.filter((s) => s.status === 400);
  const admitted = r.redeems.samples.filter((s) => s.status === 201);
  const all = [...r.orders.samples, ...r.redeems.samples, ...r.trivialPhase.samples];
  const unexpected = [
    ...r.orders.samples.filter((s) => s.status !== 201 && s.status !== 400),
    ...r.redeems.samples.filter((s) => s.status !== 201),
    ...r.trivialPhase.samples.filter((s) => s.status !== 200),
  ];
  const sold = r.availability.pending_orders + r.availability.paid_orders;
  return {
    simulate_primary_ms: r.primaryMs,
    trivial: { latency: latency(r.trivialPhase.samples.filter((s) => s.status === 200)) },
    orders: {
      created_201: created.length,
      refused_400: refused.length,
      orders_per_second: perSecond(created.length, r.orders.elapsedMs),
      latency_created: latency(created),
      d1_round_trips_created: roundTrips(created),
    },
    redeem: {
      redeemed_201: admitted.length,
      redemptions_per_second: perSecond(admitted.length, r.redeems.elapsedMs),
      latency: latency(admitted),
      d1_round_trips: roundTrips(admitted),
    },
    oversold: Math.max(0, sold - r.size),
    double_entries: Math.max(0, r.checkinCount - r.tickets) + Math.max(0, admitted.length - r.tickets),
    quota: { size: r.size, sold, available_number: r.availability.available_number },
    server_errors_5xx: all.filter((s) => s.status >= 500).length,
    unexpected_samples: unexpected.slice(0, 5).map((s) => ({ status: s.status, body: s.body ?? "" })),
    unexpected: unexpected.length,
  };
}

export async function benchRemotePrimary(o: PrimaryOptions, log: (l: string) => void) {
  const local = await runAt(0, o, log);
  const remote = await runAt(o.primaryMs, o, log);
  return { local, remote };
}

export function summarizeRemotePrimary(r: Awaited<ReturnType<typeof benchRemotePrimary>>, o: PrimaryOptions) {
  const local = summarizeRun(r.local);
  const remote = summarizeRun(r.remote);
  const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : null);
  const ratios = {
    orders_p50: ratio(remote.orders.latency_created.p50_ms, local.orders.latency_created.p50_ms),
    orders_p99: ratio(remote.orders.latency_created.p99_ms, local.orders.latency_created.p99_ms),
    redeem_p50: ratio(remote.redeem.latency.p50_ms, local.redeem.latency.p50_ms),
    redeem_p99: ratio(remote.redeem.latency.p99_ms, local.redeem.latency.p99_ms),
  };
  const checks = {
    nothing_oversold: local.oversold === 0 && remote.oversold === 0,
    sold_out_exactly: [local, remote].every((x) => x.quota.sold === x.quota.size && x.quota.available_number === 0),
    no_double_entries: local.double_entries === 0 && remote.double_entries === 0,
    every_ticket_admitted: [local, remote].every((x) => x.redeem.redeemed_201 === o.tickets),
    no_5xx: local.server_errors_5xx === 0 && remote.server_errors_5xx === 0,
    no_unexpected_status: local.unexpected === 0 && remote.unexpected === 0,
  };
  return {
    scenario: `orders and redeems with D1 local, then with a simulated remote primary (${o.primaryMs} ms round trip); ${o.writeMs} ms writer time per write statement in both`,
    settings: {
      simulate_primary_ms: o.primaryMs,
      simulate_write_ms: o.writeMs,
      clients: o.clients,
      orders: o.orders,
      tickets: o.tickets,
    },
    local,
    remote,
    ratios,
    goal: `p50 with the remote primary ≤ ${GOAL} × p50 without (issue 26), for orders and for redeems`,
    goal_met: {
      orders: ratios.orders_p50 !== null && ratios.orders_p50 <= GOAL,
      redeem: ratios.redeem_p50 !== null && ratios.redeem_p50 <= GOAL,
    },
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}

export type PrimarySummary = ReturnType<typeof summarizeRemotePrimary>;

/** The runs' answers per second and latencies, each on its own clock (both start at 0). */
export function primaryPhases(r: Awaited<ReturnType<typeof benchRemotePrimary>>): {
  name: string;
  phase: Phase;
  ok: (s: Sample) => boolean;
}[] {
  const ok = (s: Sample) => s.status === 201;
  return [
    { name: "orders, D1 local", phase: r.local.orders, ok },
    { name: `orders, primary at ${r.remote.primaryMs} ms`, phase: r.remote.orders, ok },
    { name: "redeem, D1 local", phase: r.local.redeems, ok },
    { name: `redeem, primary at ${r.remote.primaryMs} ms`, phase: r.remote.redeems, ok },
  ];
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "))
    .join("\n");
}

function trips(t: ReturnType<typeof roundTrips>): string {
  return t ? `${t.mean} = ${t.worker_mean} + ${t.object_mean} · ${t.d1_ms_mean} ms` : "-";
}

export function printRemotePrimary(p: PrimarySummary, loadBefore: number, loadAfter: number): string {
  const row = (what: string, x: PrimarySummary["local"], kind: "orders" | "redeem") => {
    const l = kind === "orders" ? x.orders.latency_created : x.redeem.latency;
    const rate = kind === "orders" ? x.orders.orders_per_second : x.redeem.redemptions_per_second;
    const t = kind === "orders" ? x.orders.d1_round_trips_created : x.redeem.d1_round_trips;
    return [what, String(l.count), String(rate), String(l.p50_ms), String(l.p99_ms), trips(t)];
  };
  const ms = p.settings.simulate_primary_ms;
  const met = (b: boolean) => (b ? "met" : "NOT met");
  const lines = [
    "",
    `Benchmark: ${p.scenario}`,
    `${p.settings.clients} clients · ${p.settings.orders} orders · ${p.settings.tickets} redeems · load average ${round(loadBefore, 2)} before, ${round(loadAfter, 2)} after`,
    "",
    table([
      ["", "answers", "per second", "p50 ms", "p99 ms", "D1 round trips (worker + object) · ms waiting for D1"],
      [
        "trivial, D1 local",
        String(p.local.trivial.latency.count),
        "",
        String(p.local.trivial.latency.p50_ms),
        String(p.local.trivial.latency.p99_ms),
        "",
      ],
      [
        `trivial, primary at ${ms} ms`,
        String(p.remote.trivial.latency.count),
        "",
        String(p.remote.trivial.latency.p50_ms),
        String(p.remote.trivial.latency.p99_ms),
        "",
      ],
      row("orders 201, D1 local", p.local, "orders"),
      row(`orders 201, primary at ${ms} ms`, p.remote, "orders"),
      row("redeem 201, D1 local", p.local, "redeem"),
      row(`redeem 201, primary at ${ms} ms`, p.remote, "redeem"),
    ]),
    "",
    `ratio primary at ${ms} ms ÷ local: orders p50 ${p.ratios.orders_p50}, p99 ${p.ratios.orders_p99} · redeem p50 ${p.ratios.redeem_p50}, p99 ${p.ratios.redeem_p99}`,
    `goal (${p.goal}): orders ${met(p.goal_met.orders)}, redeem ${met(p.goal_met.redeem)}`,
    `oversold: ${p.local.oversold}, ${p.remote.oversold} · double entries: ${p.local.double_entries}, ${p.remote.double_entries} · 5xx: ${p.local.server_errors_5xx}, ${p.remote.server_errors_5xx}`,
    `checks: ${Object.entries(p.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
  ];
  for (const e of [...p.local.unexpected_samples, ...p.remote.unexpected_samples])
    lines.push(`  answer ${e.status}: ${e.body}`);
  return `${lines.join("\n")}\n`;
}
