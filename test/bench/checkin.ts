/**
 * The check-in scenario of `npm run bench` (issue "Check-in at the edge", item 9): many devices
 * redeeming distinct tickets on one list through `checkinrpc/redeem`, then a storm of parallel
 * scans of single tickets. Measures redemptions/s, p50/p99, the D1 round trips per redeem
 * (worker + event object, from the debugging aid's headers) and the ratio to the trivial
 * endpoint measured in the same minutes; counts double entries (must be 0) from the API.
 *
 * Devices are inserted into the local database the way the operator command writes its rows
 * (SHA-256 of the token), since the device API belongs to another part of the service.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runDatabaseCommand } from "../../src/cli/wrangler.ts";
import { groupBinding } from "../../src/lib/group-names.ts";
import { newApiToken, secretOrganizer } from "../../src/lib/organizer-credentials.ts";
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
import { type ProfileSummary, perOperation, profiled, profileFile, summarizeProfile } from "./profile.ts";
import type { Service } from "./server.ts";

export type CheckinOptions = {
  tickets: number;
  devices: number;
  storms: number;
  stormWidth: number;
  trivialSeconds: number;
  warmupSeconds: number;
  /** A folder for a CPU profile of the gates (profile.ts): where a scan's time goes. */
  profile?: string;
};

type Api = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * Devices of the organizer, straight into its group's local D1 (as `npm run admin` writes rows),
 * with keys that name the organizer as the service's own do (src/lib/organizer-credentials.ts).
 */
export async function seedDevices(service: Service, n: number): Promise<string[]> {
  const organizerId = secretOrganizer(service.token);
  if (organizerId === null) throw new Error("the operator's token names no organizer");
  const tokens = Array.from({ length: n }, () => newApiToken(organizerId));
  const now = Date.now();
  const org = `(SELECT id FROM organizers WHERE slug = '${service.organizer}')`;
  const rows = tokens.map((t, i) => {
    const hash = createHash("sha256").update(t).digest("hex");
    return `INSERT INTO devices (organizer_id, device_id, unique_serial, name, all_events, created_at, initialized, initialization_token, api_token_hash, revoked, security_profile)
      VALUES (${org}, ${1000 + i}, 'BENCH${i}${now}', 'Gate ${i + 1}', 1, ${now}, ${now}, 'benchinit${i}${now}', '${hash}', 0, 'full');`;
  });
  const dir = mkdtempSync(path.join(tmpdir(), "ticketing-bench-devices-"));
  const file = path.join(dir, "devices.sql");
  writeFileSync(file, rows.join("\n"));
  try {
    const r = await runDatabaseCommand([
      "d1",
      "execute",
      groupBinding(await organizerGroup(service)),
      "--local",
      "--json",
      "--file",
      file,
      "--persist-to",
      service.stateDir,
    ]);
    if (r.code !== 0) throw new Error(`inserting devices failed:\n${r.stdout}${r.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return tokens;
}

/** The organizer group of the benchmark's organizer, from the local directory. */
async function organizerGroup(service: Service): Promise<number> {
  const r = await runDatabaseCommand([
    "d1",
    "execute",
    "DIRECTORY",
    "--local",
    "--json",
    "--command",
    `SELECT data_group AS g FROM directory_organizers WHERE slug = '${service.organizer}'`,
    "--persist-to",
    service.stateDir,
  ]);
  const rows =
    r.code === 0 ? (JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as { results: { g: number }[] }[]) : [];
  const group = rows[0]?.results[0]?.g;
  if (typeof group !== "number")
    throw new Error(`the directory has no group of ${service.organizer}:\n${r.stdout}${r.stderr}`);
  return group;
}

export async function benchCheckin(service: Service, api: Api, o: CheckinOptions, log: (l: string) => void) {
  const org = service.organizer;
  const slug = "gates";
  const ev = `/api/v1/organizers/${org}/events/${slug}`;
  const create = async (url: string, body: unknown) => {
    const r = await api("POST", url, body);
    if (r.status !== 201) throw new Error(`POST ${url} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await create(`/api/v1/organizers/${org}/events/`, {
    name: { en: "Benchmark gates" },
    slug,
    currency: "EUR",
    date_from: "2030-06-01T19:00:00Z",
  });
  const item = await create(`${ev}/items/`, { name: { en: "Ticket" }, default_price: "20.00", admission: true });
  const total = o.tickets + o.storms;
  await create(`${ev}/quotas/`, { name: "Tickets", size: total, items: [item.id] });
  const list = await create(`${ev}/checkinlists/`, { name: "Main entrance", all_products: true });

  log(`check-in: selling ${total} paid tickets`);
  const auth = { Authorization: `Token ${service.token}` };
  const secrets: string[] = [];
  const selling = await runPhase({
    concurrency: 32,
    count: total,
    make: (i) => ({
      url: `${service.base}${ev}/orders/`,
      init: {
        method: "POST",
        headers: { ...auth, "Content-Type": "application/json" },
        body: JSON.stringify({
          status: "p",
          payment_provider: "manual",
          email: `guest${i}@example.org`,
          positions: [{ item: item.id }],
        }),
      },
      expected: (s) => s === 201,
    }),
  });
  if (selling.samples.some((s) => s.status !== 201))
    throw new Error(`selling the tickets failed: ${JSON.stringify(statusCounts(selling.samples))}`);
  let next: string | null = `${service.base}${ev}/orders/`;
  while (next) {
    const res: Response = await fetch(next, { headers: auth });
    const page = (await res.json()) as { next: string | null; results: { positions: { secret: string }[] }[] };
    for (const ord of page.results) secrets.push(ord.positions[0]!.secret);
    next = page.next;
  }
  if (secrets.length !== total) throw new Error(`expected ${total} tickets, found ${secrets.length}`);

  log(`check-in: ${o.devices} devices`);
  const devices = await seedDevices(service, o.devices);
  const redeem = (device: number, secret: string, nonce: string): RequestSpec => ({
    url: `${service.base}/api/v1/organizers/${org}/checkinrpc/redeem/`,
    init: {
      method: "POST",
      headers: { Authorization: `Device ${devices[device % devices.length]}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        secret,
        lists: [list.id],
        type: "entry",
        nonce,
        source_type: "barcode",
        questions_supported: true,
        answers: {},
      }),
    },
    expected: (s) => s === 201 || s === 400,
  });
  const trivial = (): RequestSpec => ({
    url: `${service.base}/api/v1/organizers/${org}/`,
    init: { headers: auth },
    expected: (s) => s === 200,
  });

  log(`check-in: warming up (trivial endpoint ${o.warmupSeconds} s)`);
  await runPhase({ concurrency: o.devices, durationMs: o.warmupSeconds * 1000, make: trivial });
  const half = (o.trivialSeconds * 1000) / 2;
  log(`check-in: trivial endpoint, ${o.devices} clients for ${half / 1000} s`);
  const trivialBefore = await runPhase({ concurrency: o.devices, durationMs: half, make: trivial });

  const distinct = secrets.slice(0, o.tickets);
  log(`check-in: ${o.devices} devices redeem ${distinct.length} distinct tickets`);
  const gatesPhase = () =>
    runPhase({ concurrency: o.devices, count: distinct.length, make: (i) => redeem(i, distinct[i]!, `n${i}`) });
  let profile: ProfileSummary | null = null;
  let gates: Phase;
  if (o.profile) {
    const file = profileFile(o.profile, "checkin-gates");
    const run = await profiled(service.inspectorPort(), file, gatesPhase);
    gates = run.value;
    profile = run.profile && summarizeProfile(run.profile, ["countedCall"]);
    log(run.profile ? `check-in: CPU profile of the gates in ${file}` : `check-in: no CPU profile: ${run.error}`);
  } else gates = await gatesPhase();

  const stormSecrets = secrets.slice(o.tickets);
  log(`check-in: ${stormSecrets.length} storms of ${o.stormWidth} parallel scans of one ticket`);
  const storms: { samples: Sample[]; ok: number; startedAt: number }[] = [];
  for (const [k, secret] of stormSecrets.entries()) {
    const p = await runPhase({
      concurrency: o.stormWidth,
      count: o.stormWidth,
      make: (i) => redeem(i, secret, `storm${k}-${i}`),
    });
    storms.push({ samples: p.samples, ok: p.samples.filter((s) => s.status === 201).length, startedAt: p.startedAt });
  }

  log(`check-in: trivial endpoint again for ${half / 1000} s`);
  const trivialAfter = await runPhase({ concurrency: o.devices, durationMs: half, make: trivial });

  // ---- what the API says was admitted: each ticket at most once on the list
  log("check-in: counting check-ins per ticket through the list's positions");
  const entriesPerTicket = new Map<number, number>();
  next = `${service.base}${ev}/checkinlists/${list.id}/positions/?has_checkin=true`;
  while (next) {
    const res: Response = await fetch(next, { headers: auth });
    const page = (await res.json()) as { next: string | null; results: { id: number; checkins: { type: string }[] }[] };
    for (const p of page.results) entriesPerTicket.set(p.id, p.checkins.filter((c) => c.type === "entry").length);
    next = page.next;
  }
  const status = (await api("GET", `${ev}/checkinlists/${list.id}/status/`)).body as {
    checkin_count: number;
    inside_count: number;
  };
  return { trivialBefore, trivialAfter, gates, storms, entriesPerTicket, status, distinct: distinct.length, profile };
}

const perSecond = (n: number, ms: number) => (ms > 0 ? round((n * 1000) / ms, 1) : 0);

export function summarizeCheckin(r: Awaited<ReturnType<typeof benchCheckin>>, o: CheckinOptions) {
  const trivialSamples = [...r.trivialBefore.samples, ...r.trivialAfter.samples];
  const trivialOk = trivialSamples.filter((s) => s.status === 200);
  const trivialRate = perSecond(trivialOk.length, r.trivialBefore.elapsedMs + r.trivialAfter.elapsedMs);
  const ok = r.gates.samples.filter((s) => s.status === 201);
  const rate = perSecond(ok.length, r.gates.elapsedMs);
  const stormSamples = r.storms.flatMap((s) => s.samples);
  const stormOk = stormSamples.filter((s) => s.status === 201);
  const stormRefused = stormSamples.filter((s) => s.status === 400);
  const doubleByAnswers = r.storms.reduce((n, s) => n + Math.max(0, s.ok - 1), 0) + Math.max(0, ok.length - r.distinct);
  const doubleByList = [...r.entriesPerTicket.values()].reduce((n, c) => n + Math.max(0, c - 1), 0);
  const all = [...r.gates.samples, ...stormSamples, ...trivialSamples];
  const serverErrors = all.filter((s) => s.status >= 500);
  const unexpected = [
    ...r.gates.samples.filter((s) => s.status !== 201),
    ...stormSamples.filter((s) => s.status !== 201 && s.status !== 400),
    ...trivialSamples.filter((s) => s.status !== 200),
  ];
  const gateLatency = latency(ok);
  const trivialLatency = latency(trivialOk);
  const checks = {
    double_entries_zero: doubleByAnswers === 0 && doubleByList === 0,
    every_storm_admitted_once: r.storms.every((s) => s.ok === 1),
    every_ticket_admitted: ok.length === r.distinct,
    list_counts_match: r.status.checkin_count === r.distinct + r.storms.length,
    no_5xx: serverErrors.length === 0,
    no_unexpected_status: unexpected.length === 0,
  };
  return {
    scenario: "check-in: many devices redeeming distinct tickets on one list; storms of parallel scans of one ticket",
    settings: {
      devices: o.devices,
      distinct_tickets: r.distinct,
      storms: o.storms,
      storm_width: o.stormWidth,
      trivial_seconds: o.trivialSeconds,
    },
    trivial: { requests_per_second: trivialRate, latency: trivialLatency, d1_round_trips: roundTrips(trivialOk) },
    redeem: {
      endpoint: "POST /api/v1/organizers/{slug}/checkinrpc/redeem/ (Device auth, one list)",
      redeemed_201: ok.length,
      redemptions_per_second: rate,
      latency: gateLatency,
      d1_round_trips: roundTrips(ok),
      statuses: statusCounts(r.gates.samples),
    },
    storm: {
      scans: stormSamples.length,
      admitted_201: stormOk.length,
      refused_400_already_redeemed: stormRefused.length,
      latency: latency(stormSamples.filter((s) => s.status === 201 || s.status === 400)),
      d1_round_trips_admitted: roundTrips(stormOk),
      d1_round_trips_refused: roundTrips(stormRefused),
      statuses: statusCounts(stormSamples),
    },
    double_entries: { by_answers: doubleByAnswers, by_list_positions: doubleByList },
    profile: profilePerScan(r.profile, r.gates.samples.length),
    ratio_redemptions_to_trivial: trivialRate > 0 ? round(rate / trivialRate, 3) : null,
    ratio_p99_to_trivial_p99: trivialLatency.p99_ms > 0 ? round(gateLatency.p99_ms / trivialLatency.p99_ms, 2) : null,
    goals:
      "redemptions/s ≥ 0.5 × trivial requests/s; p99 ≤ 3 × trivial p99; ≤ 2 D1 round trips per redeem; pretix on a similar machine: about 0.13",
    list_status: r.status,
    server_errors_5xx: serverErrors.length,
    unexpected_samples: unexpected.slice(0, 5).map((s) => ({ status: s.status, body: s.body ?? "" })),
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}

/** The gates' CPU profile per scan (profile.ts `perOperation`), with the heaviest places and functions. */
function profilePerScan(p: ProfileSummary | null, scans: number) {
  const per = perOperation(p, scans);
  if (!p || !per) return null;
  return {
    scans,
    busy_ms_per_scan: per.busy_ms,
    object_ms_per_scan: per.object_ms,
    worker_ms_per_scan: per.worker_ms,
    runtime_ms_per_scan: per.runtime_ms,
    object_decisions_per_second: per.object_decisions_per_second,
    ...p,
  };
}

export type CheckinSummary = ReturnType<typeof summarizeCheckin>;
export type { Phase };
