/**
 * The on-sale queue under a rush (issue 27; docs/onsale-queue.md): `--queue-visitors` visitors
 * join two queues (one first come, one shuffled, opening once the joins are done) as fast as
 * `--queue-clients` clients can send, then poll their status as `poll_seconds` says until admitted.
 * One request in ten is the trivial endpoint, in the same mix, as the yardstick. Then admitted
 * and other buyers order on the first come event, whose quota is smaller than the admitted.
 * Printed: the admission order (first come exact; shuffle: a chi-square test of arrival decile
 * against admission decile), admitted per minute against the rate, none twice or skipped, the
 * p99 of join and status against the trivial p99, sales without admission and oversold.
 */
import { latency, type Phase, type RequestSpec, round, runPhase, type Sample, send } from "./load.ts";
import type { Service } from "./server.ts";

export type QueueBenchOptions = { visitors: number; clients: number; rate: number; quota: number; buyers: number };

type Api = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

type Visitor = { queue: 0 | 1; token: string; j: number; n: string; admittedAt: number | null; a: string | null };

const ADMISSION_MINUTES = 60;

function payloadOf(token: string): any {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}

export async function benchQueue(service: Service, api: Api, o: QueueBenchOptions, log: (l: string) => void) {
  const org = service.organizer;
  const auth = { Authorization: `Token ${service.token}` };
  const create = async (url: string, body: unknown) => {
    const r = await api("POST", url, body);
    if (r.status !== 201) throw new Error(`POST ${url} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  // both queues open once every visitor has joined (set then): all shuffled visitors come early
  const farAhead = Date.now() + 24 * 3_600_000;
  const shops: { path: string; item: number; queue: number }[] = [];
  for (const [slug, order] of [
    ["queue-first-come", "first_come"],
    ["queue-shuffle", "shuffle"],
  ] as const) {
    const path = `/api/v1/organizers/${org}/events/${slug}`;
    await create(`/api/v1/organizers/${org}/events/`, {
      name: { en: slug },
      slug,
      currency: "EUR",
      date_from: "2030-09-01T19:00:00Z",
    });
    const item = await create(`${path}/items/`, { name: { en: "Ticket" }, default_price: "40.00", admission: true });
    await create(`${path}/quotas/`, { name: "Tickets", size: o.quota, items: [item.id] });
    const queue = await create(`${path}/onsale_queues/`, {
      opens_at: new Date(farAhead).toISOString(),
      arrival_order: order,
      admissions_per_minute: o.rate,
      admission_minutes: ADMISSION_MINUTES,
      orders_per_admission: 1,
    });
    shops.push({ path, item: item.id as number, queue: queue.id as number });
  }
  const trivial = (): RequestSpec => ({
    url: `${service.base}/api/v1/organizers/${org}/`,
    init: { headers: auth },
    expected: (s) => s === 200,
  });
  await runPhase({ concurrency: 8, durationMs: 2000, make: trivial });

  // ---- joins: one request in ten is the trivial endpoint
  log(`queue: ${o.visitors} visitors join two queues, ${o.clients} clients`);
  const visitors: Visitor[] = [];
  const joinSamples: Sample[] = [];
  const trivialSamples: Sample[] = [];
  const j0 = performance.now();
  let next = 0;
  let sentJoins = 0;
  const joiner = async () => {
    while (next < o.visitors) {
      if (++sentJoins % 10 === 0) {
        trivialSamples.push(await send(trivial(), j0));
        continue;
      }
      const i = next++;
      const shop = shops[i % 2]!;
      const start = performance.now();
      const res = await fetch(`${service.base}${shop.path}/queue/join/`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-D1-Round-Trips": "off" },
        body: "{}",
      }).catch(() => null);
      const body: any = res ? await res.json().catch(() => null) : null;
      const end = performance.now();
      joinSamples.push({ status: res?.status ?? 0, ms: end - start, at: end - j0, trips: null });
      if (res?.status === 201 && body?.ticket) {
        const t = payloadOf(body.ticket);
        visitors.push({ queue: (i % 2) as 0 | 1, token: body.ticket, j: t.j, n: t.n, admittedAt: null, a: null });
      }
    }
  };
  await Promise.all(Array.from({ length: o.clients }, joiner));
  const joins: Phase = { samples: joinSamples, elapsedMs: performance.now() - j0, startedAt: j0 };
  const opensAt = Date.now() + 3000;
  for (const shop of shops) {
    const r = await api("PATCH", `${shop.path}/onsale_queues/${shop.queue}/`, {
      opens_at: new Date(opensAt).toISOString(),
    });
    if (r.status !== 200) throw new Error(`PATCH of the queue answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  log(
    `queue: ${visitors.length} joined in ${round(joins.elapsedMs / 1000, 1)} s; the queues open in 3 s; polling until admitted`,
  );

  // ---- polling as poll_seconds says (a visitor is due again then), one in ten requests trivial
  const pollSamples: Sample[] = [];
  const waiting = visitors.map((v) => ({ v, due: 0 }));
  const t0 = performance.now();
  const deadline =
    Date.now() + Math.ceil((o.visitors / 2 / o.rate) * 60_000) + Math.max(0, opensAt - Date.now()) + 120_000;
  let sent = 0;
  const client = async () => {
    while (waiting.length && Date.now() < deadline) {
      if (++sent % 10 === 0) {
        trivialSamples.push(await send(trivial(), t0));
        continue;
      }
      let best = 0;
      for (let i = 1; i < waiting.length; i++) if (waiting[i]!.due < waiting[best]!.due) best = i;
      const w = waiting[best]!;
      const now = Date.now();
      if (w.due > now) {
        await new Promise((r) => setTimeout(r, Math.min(250, w.due - now)));
        continue;
      }
      w.due = Number.POSITIVE_INFINITY; // taken by this client
      const spec: RequestSpec = {
        url: `${service.base}${shops[w.v.queue]!.path}/queue/status/`,
        init: { headers: { "X-Queue-Ticket": w.v.token, "X-D1-Round-Trips": "off" } },
        expected: (s) => s === 200,
      };
      const start = performance.now();
      const res = await fetch(spec.url, spec.init).catch(() => null);
      const body: any = res ? await res.json().catch(() => null) : null;
      const end = performance.now();
      pollSamples.push({ status: res?.status ?? 0, ms: end - start, at: end - t0, trips: null });
      if (body?.state === "admitted") {
        const p = payloadOf(body.admission.token);
        w.v.admittedAt = p.x - ADMISSION_MINUTES * 60_000;
        w.v.a = p.a;
        (w.v as Visitor & { admission?: string }).admission = body.admission.token;
        waiting.splice(waiting.indexOf(w), 1);
      } else w.due = Date.now() + 1000 * (body?.poll_seconds ?? 1);
    }
  };
  await Promise.all(Array.from({ length: o.clients }, client));
  const polls: Phase = { samples: pollSamples, elapsedMs: performance.now() - t0, startedAt: t0 };

  // ---- sales on the first come event: admitted buyers, a second order of one admission, and buyers without
  const admittedFc = visitors.filter((v) => v.queue === 0 && v.a) as (Visitor & { admission: string })[];
  const shop = shops[0]!;
  const orderSpec = (i: number, admission: string | null): RequestSpec => ({
    url: `${service.base}${shop.path}/orders/`,
    init: {
      method: "POST",
      headers: {
        ...auth,
        "Content-Type": "application/json",
        ...(admission ? { "X-Queue-Admission": admission } : {}),
      },
      body: JSON.stringify({ email: `fan${i}@example.org`, positions: [{ item: shop.item }] }),
    },
    expected: (s) => s === 201 || s === 400 || s === 403,
  });
  const buyers = admittedFc.slice(0, o.buyers);
  log(
    `queue: ${buyers.length} admitted buyers (each token twice) and ${o.buyers} without admission on a quota of ${o.quota}`,
  );
  const plan = [
    ...buyers.map((b) => b.admission),
    ...buyers.map((b) => b.admission),
    ...Array<string | null>(o.buyers).fill(null),
  ].sort(() => Math.random() - 0.5);
  const outcomes: { status: number; admitted: boolean }[] = [];
  let nextSale = 0;
  const buyer = async () => {
    while (nextSale < plan.length) {
      const i = nextSale++;
      const sample = await send(orderSpec(i, plan[i]!), performance.now());
      outcomes.push({ status: sample.status, admitted: plan[i] !== null });
    }
  };
  await Promise.all(Array.from({ length: 32 }, buyer));
  const quota = (await api("GET", `${shop.path}/quotas/`)).body.results[0];
  const availability = (await api("GET", `${shop.path}/quotas/${quota.id}/availability/`)).body;
  const counters = await Promise.all(shops.map((s) => api("GET", `${s.path}/onsale_queues/${s.queue}/`)));
  return { opensAt, shops, visitors, joins, joinSamples, polls, trivialSamples, outcomes, availability, counters };
}

/** Φ(z), the standard normal distribution (Abramowitz–Stegun 26.2.17). */
function normalCdf(z: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const d = 0.3989422804014327 * Math.exp((-z * z) / 2);
  const p = d * t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return z > 0 ? 1 - p : p;
}

/** The p-value of a chi-square statistic with `df` degrees of freedom (Wilson–Hilferty). */
export function chiSquareP(x: number, df: number): number {
  const z = ((x / df) ** (1 / 3) - (1 - 2 / (9 * df))) / Math.sqrt(2 / (9 * df));
  return 1 - normalCdf(z);
}

/** Chi-square of arrival decile against admission decile (10 × 10, independence). */
function deciles(early: Visitor[]): { chi2: number; df: number; p: number } {
  const n = early.length;
  const byArrival = [...early].sort((a, b) => a.j - b.j || (a.n < b.n ? -1 : 1));
  const arrivalDecile = new Map(byArrival.map((v, i) => [v, Math.floor((i * 10) / n)]));
  const byAdmission = [...early].sort((a, b) => a.admittedAt! - b.admittedAt! || (a.n < b.n ? -1 : 1));
  const table = Array.from({ length: 10 }, () => Array<number>(10).fill(0));
  byAdmission.forEach((v, i) => table[arrivalDecile.get(v)!]![Math.floor((i * 10) / n)]!++);
  const rows = table.map((r) => r.reduce((a, b) => a + b, 0));
  const cols = table[0]!.map((_, c) => table.reduce((a, r) => a + r[c]!, 0));
  let chi2 = 0;
  for (let r = 0; r < 10; r++)
    for (let c = 0; c < 10; c++) {
      const e = (rows[r]! * cols[c]!) / n;
      if (e > 0) chi2 += (table[r]![c]! - e) ** 2 / e;
    }
  return { chi2: round(chi2, 2), df: 81, p: round(chiSquareP(chi2, 81), 4) };
}

export function summarizeQueue(r: Awaited<ReturnType<typeof benchQueue>>, o: QueueBenchOptions) {
  const ok = (s: Sample) => s.status === 200 || s.status === 201;
  const trivial = latency(r.trivialSamples.filter(ok));
  const join = latency(r.joinSamples.filter((s) => s.status === 201));
  const status = latency(r.polls.samples.filter((s) => s.status === 200));
  const fc = r.visitors.filter((v) => v.queue === 0);
  const sh = r.visitors.filter((v) => v.queue === 1);
  const admitted = r.visitors.filter((v) => v.admittedAt !== null);
  // first come: sorted by arrival, admission times never go back
  const fcSorted = [...fc].sort((a, b) => a.j - b.j || (a.n < b.n ? -1 : 1));
  const outOfOrder = fcSorted.filter(
    (v, i) => i > 0 && (v.admittedAt ?? Infinity) < (fcSorted[i - 1]!.admittedAt ?? Infinity),
  ).length;
  const early = sh.filter((v) => v.j < r.opensAt && v.admittedAt !== null);
  const late = sh.filter((v) => v.j >= r.opensAt && v.admittedAt !== null);
  const lastEarly = Math.max(...early.map((v) => v.admittedAt!));
  const lateBeforeEarly = late.filter((v) => v.admittedAt! < lastEarly && v.admittedAt! !== lastEarly).length;
  const shuffle = early.length >= 100 ? deciles(early) : null;
  const firstMinute = [fc, sh].map(
    (vs) =>
      vs.filter((v) => v.admittedAt !== null && v.admittedAt >= r.opensAt && v.admittedAt < r.opensAt + 60_000).length,
  );
  const ids = admitted.map((v) => v.a);
  const twice = ids.length - new Set(ids).size;
  const wrongId = admitted.filter((v) => v.a !== v.n).length;
  const skipped = r.visitors.length - admitted.length;
  const sold = r.availability.pending_orders + r.availability.paid_orders;
  const withoutAdmission = r.outcomes.filter((x) => !x.admitted && x.status === 201).length;
  const ratio = (x: number) => (trivial.p99_ms > 0 ? round(x / trivial.p99_ms, 2) : null);
  const checks = {
    all_joined: r.visitors.length === o.visitors,
    first_come_exact: outOfOrder === 0,
    shuffle_uniform: shuffle !== null && shuffle.p > 0.01,
    shuffle_early_before_late: lateBeforeEarly === 0,
    // a queue with fewer visitors than a minute's rate runs dry: then all of them
    rate_within_5_percent: firstMinute.every((n, i) => {
      const expected = Math.min(o.rate, [fc, sh][i]!.length);
      return Math.abs(n - expected) <= 0.05 * expected;
    }),
    none_admitted_twice: twice === 0 && wrongId === 0,
    none_skipped: skipped === 0,
    join_p99_within_3x_trivial: (ratio(join.p99_ms) ?? Infinity) <= 3,
    status_p99_within_3x_trivial: (ratio(status.p99_ms) ?? Infinity) <= 3,
    no_sale_without_admission: withoutAdmission === 0,
    not_oversold: sold <= o.quota,
    sales_not_above_admitted: r.outcomes.filter((x) => x.status === 201).length <= Math.min(o.buyers, fc.length),
    no_5xx: [...r.joins.samples, ...r.polls.samples].every((s) => s.status < 500 && s.status !== 0),
  };
  return {
    scenario: `on-sale queue: ${o.visitors} visitors join two queues (first come, shuffled), then poll until admitted at ${o.rate} a minute each`,
    settings: o,
    joins: {
      seconds: round(r.joins.elapsedMs / 1000, 1),
      per_second: round((r.visitors.length * 1000) / r.joins.elapsedMs, 1),
      latency: join,
    },
    status: {
      requests: r.polls.samples.length,
      per_visitor: round(r.polls.samples.length / Math.max(1, r.visitors.length), 1),
      latency: status,
      seconds: round(r.polls.elapsedMs / 1000, 1),
    },
    trivial,
    ratio_join_p99_to_trivial_p99: ratio(join.p99_ms),
    ratio_status_p99_to_trivial_p99: ratio(status.p99_ms),
    first_come: { visitors: fc.length, out_of_order: outOfOrder },
    shuffle: { early: early.length, late: late.length, late_before_early: lateBeforeEarly, deciles: shuffle },
    admitted_first_minute: firstMinute,
    admitted: admitted.length,
    admitted_twice: twice,
    skipped,
    counters: r.counters.map((c) => ({ joined: c.body.joined, admitted: c.body.admitted })),
    sales: {
      created_with_admission: r.outcomes.filter((x) => x.admitted && x.status === 201).length,
      created_without_admission: withoutAdmission,
      refused_403: r.outcomes.filter((x) => x.status === 403).length,
      refused_400: r.outcomes.filter((x) => x.status === 400).length,
      sold,
      quota: o.quota,
    },
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}

export type QueueSummary = ReturnType<typeof summarizeQueue>;

export function queueLines(s: QueueSummary): string[] {
  const d = s.shuffle.deciles;
  return [
    "",
    `Benchmark: ${s.scenario}`,
    `joins: ${s.first_come.visitors + s.shuffle.early + s.shuffle.late} in ${s.joins.seconds} s (${s.joins.per_second}/s), p50 ${s.joins.latency.p50_ms} ms, p99 ${s.joins.latency.p99_ms} ms · status: ${s.status.requests} requests (${s.status.per_visitor} per visitor) in ${s.status.seconds} s, p50 ${s.status.latency.p50_ms} ms, p99 ${s.status.latency.p99_ms} ms`,
    `trivial (same mix): p50 ${s.trivial.p50_ms} ms, p99 ${s.trivial.p99_ms} ms · p99 ÷ trivial p99: join ${s.ratio_join_p99_to_trivial_p99}, status ${s.ratio_status_p99_to_trivial_p99} (goal ≤ 3)`,
    `first come: ${s.first_come.out_of_order} admitted out of arrival order among ${s.first_come.visitors}`,
    `shuffle: ${s.shuffle.early} before the opening, ${s.shuffle.late} after (${s.shuffle.late_before_early} of those admitted before an earlier one); arrival decile × admission decile: chi-square ${d?.chi2} (df ${d?.df}), p = ${d?.p}`,
    `admitted in the first minute: ${s.admitted_first_minute.join(" and ")} (rate ${s.settings.rate}, ±5 %) · admitted ${s.admitted}, twice ${s.admitted_twice}, skipped ${s.skipped} · counters ${JSON.stringify(s.counters)}`,
    `sales: ${s.sales.created_with_admission} with admission, ${s.sales.created_without_admission} without, ${s.sales.refused_403} refused 403, ${s.sales.refused_400} refused 400; sold ${s.sales.sold} of ${s.sales.quota}`,
    `checks: ${Object.entries(s.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
  ];
}
