/**
 * Live availability under a rush (issue 27, docs/live-availability.md): `--live-subscribers`
 * clients listen to an event's availability (server-sent events) while `--concurrency` buyers
 * take all but the last unit of its quota of `--live-quota`; then the last order, alone, sells it
 * out. Reported: the delay from that order's answer to each subscriber's receipt of the sell-out
 * (goal: within 1 s), and orders/s against the same rush on an event nobody listens to.
 */
import { latency, type Phase, type RequestSpec, round, runPhase, statusCounts } from "./load.ts";
import type { Service } from "./server.ts";

export type LiveOptions = { subscribers: number; quota: number; buyers: number };

type Api = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

type Shop = { slug: string; path: string; item: number; quota: number };

/**
 * One subscriber: when it read its first state, when it first read the ticket as sold out (any
 * state below 100: the benchmark's orders stay pending, so 10), how many events it read.
 */
type Listener = {
  connectedAt: number | null;
  soldOutAt: number | null;
  events: number;
  lastState: number | null;
  lastLeft: number | null;
};

/** Reads one subscriber's stream until `signal` aborts it, noting when the sell-out arrives. */
async function listen(url: string, item: number, signal: AbortSignal, l: Listener): Promise<void> {
  try {
    const res = await fetch(url, { headers: { Accept: "text/event-stream" }, signal });
    if (res.status !== 200 || !res.body) return;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").find((line) => line.startsWith("data: "));
        if (data) {
          const now = performance.now();
          l.events++;
          l.connectedAt ??= now;
          const state = JSON.parse(data.slice(6)) as {
            dates: { products: { item: number; availability_state: number; available_number: number | null }[] }[];
          };
          const p = state.dates[0]?.products.find((x) => x.item === item);
          l.lastState = p?.availability_state ?? null;
          l.lastLeft = p?.available_number ?? null;
          if (l.lastState !== null && l.lastState < 100) l.soldOutAt ??= now;
        }
        end = buffer.indexOf("\n\n");
      }
    }
  } catch {
    // aborted at the end, or the connection failed (counted as not reached)
  }
}

export async function benchLive(service: Service, api: Api, o: LiveOptions, log: (l: string) => void) {
  const org = service.organizer;
  const auth = { Authorization: `Token ${service.token}` };
  const create = async (url: string, body: unknown) => {
    const r = await api("POST", url, body);
    if (r.status !== 201) throw new Error(`POST ${url} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const shops: Shop[] = [];
  for (const slug of ["live-unwatched", "live-watched"]) {
    const path = `/api/v1/organizers/${org}/events/${slug}`;
    await create(`/api/v1/organizers/${org}/events/`, {
      name: { en: slug },
      slug,
      currency: "EUR",
      date_from: "2030-09-01T19:00:00Z",
    });
    // the units left are shown: every order changes the state, and each state reaches every subscriber
    const item = await create(`${path}/items/`, {
      name: { en: "Ticket" },
      default_price: "30.00",
      admission: true,
      show_quota_left: true,
    });
    const quota = await create(`${path}/quotas/`, { name: "Tickets", size: o.quota, items: [item.id] });
    const live = await api("PATCH", `${path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] });
    if (live.status !== 200) throw new Error(`PATCH ${path}/ answered ${live.status}: ${JSON.stringify(live.body)}`);
    shops.push({ slug, path, item: item.id, quota: quota.id });
  }
  const order = (s: Shop, i: number): RequestSpec => ({
    url: `${service.base}${s.path}/orders/`,
    init: {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ email: `fan${i}@example.org`, positions: [{ item: s.item }] }),
    },
    expected: (st) => st === 201 || st === 400,
  });
  const [unwatched, watched] = shops as [Shop, Shop];
  for (const s of shops) {
    const w = await runPhase({ concurrency: 1, count: 1, make: (i) => order(s, -1 - i) });
    if (w.samples[0]!.status !== 201) throw new Error(`warming ${s.slug} answered ${w.samples[0]!.status}`);
  }
  // the rush takes all but the last unit; the last order then comes alone, so that the order
  // that sold out is known and each subscriber's delay is measured from its answer
  const rushCount = o.quota - 2;
  const last = async (s: Shop) => {
    const sent = performance.now();
    const res = await fetch(`${service.base}${s.path}/orders/`, order(s, 9_999_999).init);
    await res.text();
    if (res.status !== 201) throw new Error(`the last order of ${s.slug} answered ${res.status}`);
    return { sent, answered: performance.now() };
  };

  log(`live: the rush with nobody listening, ${o.buyers} buyers, ${rushCount} orders, then the last one`);
  const alone = await runPhase({ concurrency: o.buyers, count: rushCount, make: (i) => order(unwatched, i) });
  await last(unwatched);

  log(`live: ${o.subscribers} subscribers connect`);
  const abort = new AbortController();
  const listeners: Listener[] = Array.from({ length: o.subscribers }, () => ({
    connectedAt: null,
    soldOutAt: null,
    events: 0,
    lastState: null,
    lastLeft: null,
  }));
  const url = `${service.base}${watched.path}/availability/live/`;
  const streams = listeners.map((l) => listen(url, watched.item, abort.signal, l));
  const until = async (done: () => boolean, ms: number) => {
    const end = performance.now() + ms;
    while (!done() && performance.now() < end) await new Promise((r) => setTimeout(r, 20));
  };
  await until(() => listeners.every((l) => l.connectedAt !== null), 60_000);
  const connected = listeners.filter((l) => l.connectedAt !== null).length;
  log(`live: ${connected} subscribers read the first state; the rush with them listening`);
  const rush = await runPhase({ concurrency: o.buyers, count: rushCount, make: (i) => order(watched, 1_000_000 + i) });
  // the subscribers catch up with the rush (one unit left), then the last order
  const caughtUpStart = performance.now();
  await until(() => listeners.every((l) => l.lastLeft === 1), 30_000);
  const caughtUpMs = performance.now() - caughtUpStart;
  const caughtUp = listeners.filter((l) => l.lastLeft === 1).length;
  log(`live: ${caughtUp} subscribers at one unit left after ${Math.round(caughtUpMs)} ms; the last order`);
  const soldOut = await last(watched);
  await until(() => listeners.every((l) => l.connectedAt === null || l.soldOutAt !== null), 10_000);
  abort.abort();
  await Promise.all(streams);

  const availability: { sold: number; available: number | null }[] = [];
  for (const s of shops) {
    const a = (await api("GET", `${s.path}/quotas/${s.quota}/availability/`)).body as {
      pending_orders: number;
      paid_orders: number;
      available_number: number | null;
    };
    availability.push({ sold: a.pending_orders + a.paid_orders, available: a.available_number });
  }
  return { alone, rush, listeners, soldOut, availability, rushCount, connected, caughtUp, caughtUpMs };
}

const created = (p: Phase) => p.samples.filter((s) => s.status === 201);

function soldRate(p: Phase): number {
  const ok = created(p);
  const until = ok.length ? Math.max(...ok.map((s) => s.at)) : p.elapsedMs;
  return until > 0 ? round((ok.length * 1000) / until, 1) : 0;
}

export function summarizeLive(
  r: Awaited<ReturnType<typeof benchLive>>,
  o: LiveOptions,
  ordersScenarioRate: number | null,
) {
  const reached = r.listeners.filter((l) => l.soldOutAt !== null);
  const asLatency = (values: number[]) => latency(values.map((ms) => ({ status: 200, ms, at: 0, trips: null })));
  const delays = reached.map((l) => l.soldOutAt! - r.soldOut.answered);
  const delay = asLatency(delays);
  const fromSent = asLatency(reached.map((l) => l.soldOutAt! - r.soldOut.sent));
  const unwatchedRate = soldRate(r.alone);
  const watchedRate = soldRate(r.rush);
  const serverErrors = [...r.alone.samples, ...r.rush.samples].filter((s) => s.status >= 500);
  const notReached = r.listeners.length - delays.length;
  const checks = {
    oversold_zero: r.availability.every((a) => a.sold <= o.quota),
    sold_out_exactly: r.availability.every((a) => a.sold === o.quota && a.available === 0),
    every_subscriber_connected: r.connected === o.subscribers,
    every_subscriber_saw_sold_out: notReached === 0,
    every_subscriber_ends_sold_out: r.listeners.every((l) => l.lastState !== null && l.lastState < 100),
    no_5xx: serverErrors.length === 0,
  };
  return {
    scenario: `live availability: ${o.subscribers} subscribers while ${o.buyers} buyers sell a quota of ${o.quota} out`,
    settings: { subscribers: o.subscribers, quota: o.quota, buyers: o.buyers, rush_orders: r.rushCount },
    delay_after_sold_out_answer_ms: delay,
    delay_after_sold_out_sent_ms: fromSent,
    last_order_ms: round(r.soldOut.answered - r.soldOut.sent, 1),
    subscribers_caught_up_after_rush: r.caughtUp,
    catch_up_after_rush_ms: round(r.caughtUpMs, 0),
    delay_goal_ms: 1000,
    within_goal: delays.length > 0 && delay.max_ms <= 1000,
    subscribers_not_reached: notReached,
    events_per_subscriber: latency(r.listeners.map((l) => ({ status: 200, ms: l.events, at: 0, trips: null }))),
    orders_per_second_unwatched: unwatchedRate,
    orders_per_second_watched: watchedRate,
    ratio_watched_to_unwatched: unwatchedRate > 0 ? round(watchedRate / unwatchedRate, 2) : null,
    ratio_watched_to_orders_scenario:
      ordersScenarioRate && ordersScenarioRate > 0 ? round(watchedRate / ordersScenarioRate, 2) : null,
    latency_created_unwatched: latency(created(r.alone)),
    latency_created_watched: latency(created(r.rush)),
    statuses: { unwatched: statusCounts(r.alone.samples), watched: statusCounts(r.rush.samples) },
    checks,
    ok: Object.values(checks).every(Boolean),
  };
}

export type LiveSummary = ReturnType<typeof summarizeLive>;

export function liveReport(s: LiveSummary, loadBefore: number, loadAfter: number): string {
  const d = s.delay_after_sold_out_answer_ms;
  return [
    "",
    `Benchmark: ${s.scenario}`,
    `load average ${round(loadBefore, 2)} before, ${round(loadAfter, 2)} after`,
    "",
    `rush of ${s.settings.rush_orders} orders, then the last one alone (${s.last_order_ms} ms); ${s.subscribers_caught_up_after_rush} subscribers had caught up with the rush after ${s.catch_up_after_rush_ms} ms`,
    `delay from the sold-out order's answer to each subscriber's sell-out (state < 100): p50 ${d.p50_ms} ms, p99 ${d.p99_ms} ms, max ${d.max_ms} ms (goal ≤ ${s.delay_goal_ms}: ${s.within_goal ? "met" : "MISSED"}); not reached: ${s.subscribers_not_reached}`,
    `… from the moment it was sent: p50 ${s.delay_after_sold_out_sent_ms.p50_ms} ms, p99 ${s.delay_after_sold_out_sent_ms.p99_ms} ms, max ${s.delay_after_sold_out_sent_ms.max_ms} ms`,
    `events read per subscriber: p50 ${s.events_per_subscriber.p50_ms}, max ${s.events_per_subscriber.max_ms}`,
    `orders/s until sold out: ${s.orders_per_second_watched} with subscribers, ${s.orders_per_second_unwatched} without (ratio ${s.ratio_watched_to_unwatched}); ÷ orders scenario: ${s.ratio_watched_to_orders_scenario ?? "not run"}`,
    `created p50/p99 ms: ${s.latency_created_watched.p50_ms}/${s.latency_created_watched.p99_ms} with, ${s.latency_created_unwatched.p50_ms}/${s.latency_created_unwatched.p99_ms} without`,
    `checks: ${Object.entries(s.checks)
      .map(([k, v]) => `${k} ${v ? "ok" : "FAILED"}`)
      .join(", ")}`,
    "",
  ].join("\n");
}
