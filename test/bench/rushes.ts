/**
 * Several on-sales at once (issue "Production hardening", item 7; docs/scaling.md): do the
 * events' rushes slow each other? Each event has its own Durable Object, so its decisions never
 * wait for another event's; what they share is the Worker, the one D1 database (one writer)
 * and, here, the machine's two cores.
 *
 * 1. One event sells out alone: `--rush-buyers` buyers on its quota of `--rush-quota`.
 * 2. `--rush-events` other events sell out at the same moment, each with as many buyers on a
 *    quota of the same size; a single client asks the trivial endpoint meanwhile.
 * Reported: each event's orders/s against the lone event's, all events' orders/s together, the
 * trivial endpoint's latency meanwhile against before, and per event that nothing was oversold.
 */
import {
  latency,
  type Phase,
  type RequestSpec,
  round,
  roundTrips,
  runPhase,
  type Sample,
  send,
  statusCounts,
} from "./load.ts";
import type { Service } from "./server.ts";

export type RushOptions = { events: number; quota: number; buyers: number; extra: number };

export type Api = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** An event on sale: one item, one quota. */
export type Shop = { slug: string; path: string; item: number; quota: number };

/** The API as `token`'s holder sees it at `base` (JSON in, JSON out when it is JSON). */
export function apiFor(base: string, token: string): Api {
  return async (method, url, body) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        Authorization: `Token ${token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed };
  };
}

/** Creates an event of `org` with one admission item and one quota of `size` on it. */
export async function openShop(api: Api, org: string, slug: string, name: string, size: number): Promise<Shop> {
  const create = async (url: string, body: unknown) => {
    const r = await api("POST", url, body);
    if (r.status !== 201) throw new Error(`POST ${url} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const path = `/api/v1/organizers/${org}/events/${slug}`;
  await create(`/api/v1/organizers/${org}/events/`, {
    name: { en: name },
    slug,
    currency: "EUR",
    date_from: "2030-08-01T19:00:00Z",
  });
  const item = await create(`${path}/items/`, { name: { en: "Ticket" }, default_price: "30.00", admission: true });
  const quota = await create(`${path}/quotas/`, { name: "Tickets", size, items: [item.id] });
  return { slug, path, item: item.id, quota: quota.id };
}

/** A buyer's one-position order at `shop` (201 sold, 400 sold out). */
export function shopOrder(base: string, token: string, s: Shop, i: number): RequestSpec {
  return {
    url: `${base}${s.path}/orders/`,
    init: {
      method: "POST",
      headers: { Authorization: `Token ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ email: `fan${i}@example.org`, positions: [{ item: s.item }] }),
    },
    expected: (st) => st === 201 || st === 400,
  };
}

/** What a shop's quota says it sold (pending and paid) and has left. */
export async function shopSold(api: Api, s: Shop): Promise<{ sold: number; available: number | null }> {
  const a = (await api("GET", `${s.path}/quotas/${s.quota}/availability/`)).body as {
    pending_orders: number;
    paid_orders: number;
    available_number: number | null;
  };
  return { sold: a.pending_orders + a.paid_orders, available: a.available_number };
}

export async function benchRushes(service: Service, api: Api, o: RushOptions, log: (l: string) => void) {
  const org = service.organizer;
  const auth = { Authorization: `Token ${service.token}` };
  const shops: Shop[] = [];
  for (let i = 0; i <= o.events; i++) shops.push(await openShop(api, org, `onsale-${i}`, `On-sale ${i}`, o.quota));
  const order = (s: Shop, i: number): RequestSpec => shopOrder(service.base, service.token, s, i);
  const trivial = (): RequestSpec => ({
    url: `${service.base}/api/v1/organizers/${org}/`,
    init: { headers: auth },
    expected: (st) => st === 200,
  });

  // every event's object exists and the Worker is warm before anything is measured (one order each)
  log(`on-sales: warming ${shops.length} events`);
  for (const s of shops) {
    const w = await runPhase({ concurrency: 1, count: 1, make: (i) => order(s, -1 - i) });
    if (w.samples[0]!.status !== 201)
      throw new Error(`warming ${s.slug} answered ${w.samples[0]!.status}: ${w.samples[0]!.body}`);
  }
  await runPhase({ concurrency: 4, durationMs: 2000, make: trivial });
  log("on-sales: the trivial endpoint alone (one client, 3 s)");
  const trivialBefore = await runPhase({ concurrency: 1, durationMs: 3000, make: trivial });

  const attempts = o.quota - 1 + o.extra;
  const [solo, ...together] = shops;
  log(`on-sales: one event alone, ${o.buyers} buyers, ${attempts} attempts`);
  const alone = await runPhase({ concurrency: o.buyers, count: attempts, make: (i) => order(solo!, i) });

  log(`on-sales: ${together.length} events at once, ${o.buyers} buyers each, a trivial client beside them`);
  let running = true;
  const probe = (async () => {
    const samples: Sample[] = [];
    const t0 = performance.now();
    while (running) samples.push(await send(trivial(), t0));
    return { samples, elapsedMs: performance.now() - t0, startedAt: t0 } satisfies Phase;
  })();
  const rushes = await Promise.all(
    together.map((s) => runPhase({ concurrency: o.buyers, count: attempts, make: (i) => order(s, 1_000_000 + i) })),
  );
  running = false;
  const trivialDuring = await probe;

  // what each event sold, according to its quota
  const availability: { sold: number; available: number | null }[] = [];
  for (const s of shops) availability.push(await shopSold(api, s));
  return { shops, alone, rushes, trivialBefore, trivialDuring, availability, attempts };
}

export const created = (p: Phase) => p.samples.filter((s) => s.status === 201);

/** Orders per second until sold out (the successes over the time until the last of them came back). */
export function soldRate(p: Phase): number {
  const ok = created(p);
  const until = ok.length ? Math.max(...ok.map((s) => s.at)) : p.elapsedMs;
  return until > 0 ? round((ok.length * 1000) / until, 1) : 0;
}

export function summarizeRushes(r: Awaited<ReturnType<typeof benchRushes>>, o: RushOptions) {
  const aloneRate = soldRate(r.alone);
  const each = r.rushes.map((p, i) => ({
    event: r.shops[i + 1]!.slug,
    orders_per_second: soldRate(p),
    ratio_to_alone: aloneRate > 0 ? round(soldRate(p) / aloneRate, 2) : null,
    latency_created: latency(created(p)),
    statuses: statusCounts(p.samples),
  }));
  // all events together: every success over the time until the last event sold out
  const start = Math.min(...r.rushes.map((p) => p.startedAt));
  const end = Math.max(...r.rushes.flatMap((p) => created(p).map((s) => p.startedAt + s.at)));
  const total = r.rushes.reduce((n, p) => n + created(p).length, 0);
  const togetherRate = end > start ? round((total * 1000) / (end - start), 1) : 0;
  const trivialBefore = latency(r.trivialBefore.samples.filter((s) => s.status === 200));
  const trivialDuring = latency(r.trivialDuring.samples.filter((s) => s.status === 200));
  const all = [r.alone, ...r.rushes, r.trivialBefore, r.trivialDuring].flatMap((p) => p.samples);
  const serverErrors = all.filter((s) => s.status >= 500);
  const oversold = r.availability.map((a) => Math.max(0, a.sold - o.quota));
  const meanRatio = each.length ? round(each.reduce((n, e) => n + (e.ratio_to_alone ?? 0), 0) / each.length, 2) : null;
  const checks = {
    oversold_zero: oversold.every((n) => n === 0),
    every_event_sold_out: r.availability.every((a) => a.sold === o.quota && a.available === 0),
    no_5xx: serverErrors.length === 0,
  };
  return {
    scenario: `${o.events} on-sales at once: each event's own quota of ${o.quota}, ${o.buyers} buyers each, against one event alone`,
    settings: {
      events_together: o.events,
      quota_per_event: o.quota,
      buyers_per_event: o.buyers,
      attempts_per_event: r.attempts,
    },
    alone: {
      event: r.shops[0]!.slug,
      orders_per_second: aloneRate,
      latency_created: latency(created(r.alone)),
      d1_round_trips_created: roundTrips(created(r.alone)),
      statuses: statusCounts(r.alone.samples),
    },
    together: {
      events: each,
      orders_per_second_all_events: togetherRate,
      ratio_all_to_alone: aloneRate > 0 ? round(togetherRate / aloneRate, 2) : null,
      mean_ratio_each_to_alone: meanRatio,
    },
    trivial: {
      before: trivialBefore,
      during: trivialDuring,
      ratio_p50_during_to_before:
        trivialBefore.p50_ms > 0 ? round(trivialDuring.p50_ms / trivialBefore.p50_ms, 2) : null,
    },
    slow_each_other: meanRatio !== null && meanRatio < 0.8,
    oversold,
    server_errors_5xx: serverErrors.length,
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}

export type RushSummary = ReturnType<typeof summarizeRushes>;
