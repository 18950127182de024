/**
 * A closed-loop load generator: a fixed number of clients, each sending its next request as
 * soon as the previous answered, over kept-alive connections (Node's fetch keeps them alive).
 * It stops after a number of requests or after a duration, whichever is given.
 */

/** D1 round trips of a request (debugging aid headers), and the milliseconds it waited for D1 (all, the event object's). */
export type RoundTripCount = { total: number; worker: number; object: number; ms: number; objectMs: number };

export type Sample = {
  status: number; // 0: no HTTP answer (connection error)
  /** Latency in milliseconds, from sending to the whole body read. */
  ms: number;
  /** Completion time, milliseconds since the phase started. */
  at: number;
  trips: RoundTripCount | null;
  /** The body of an unexpected answer (for the report). */
  body?: string;
  /** The response headers the request asked to keep (`RequestSpec.keepHeaders`). */
  headers?: Record<string, string>;
};

/** A phase's samples; `startedAt` is its t0 (performance.now()), so phases share one clock. */
export type Phase = { samples: Sample[]; elapsedMs: number; startedAt: number };

export type RequestSpec = {
  url: string;
  init: RequestInit;
  expected: (status: number) => boolean;
  keepHeaders?: string[];
};

function tripsOf(headers: Headers): RoundTripCount | null {
  const total = headers.get("x-d1-round-trips");
  if (total === null) return null;
  return {
    total: Number(total),
    worker: Number(headers.get("x-d1-round-trips-worker") ?? 0),
    object: Number(headers.get("x-d1-round-trips-object") ?? 0),
    ms: Number(headers.get("x-d1-time-ms") ?? NaN),
    objectMs: Number(headers.get("x-d1-time-ms-object") ?? NaN),
  };
}

export async function send(spec: RequestSpec, t0: number): Promise<Sample> {
  const start = performance.now();
  try {
    const res = await fetch(spec.url, spec.init);
    const body = await res.text();
    const end = performance.now();
    const sample: Sample = { status: res.status, ms: end - start, at: end - t0, trips: tripsOf(res.headers) };
    if (!spec.expected(res.status)) sample.body = body.slice(0, 500);
    for (const name of spec.keepHeaders ?? []) {
      const value = res.headers.get(name);
      if (value !== null) (sample.headers ??= {})[name] = value;
    }
    return sample;
  } catch (e) {
    const end = performance.now();
    return {
      status: 0,
      ms: end - start,
      at: end - t0,
      trips: null,
      body: e instanceof Error ? `${e.message} ${String(e.cause ?? "")}` : String(e),
    };
  }
}

/** Runs `concurrency` clients; request i is `make(i)`. Stops after `count` requests or `durationMs`. */
export async function runPhase(opts: {
  concurrency: number;
  count?: number;
  durationMs?: number;
  make: (i: number) => RequestSpec;
}): Promise<Phase> {
  const samples: Sample[] = [];
  const t0 = performance.now();
  const deadline = opts.durationMs === undefined ? Infinity : t0 + opts.durationMs;
  const count = opts.count ?? Infinity;
  let next = 0;
  const client = async () => {
    while (next < count && performance.now() < deadline) {
      const i = next++;
      samples.push(await send(opts.make(i), t0));
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  return { samples, elapsedMs: performance.now() - t0, startedAt: t0 };
}

/** Nearest-rank percentile of `values` (p in 0..100); NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export type LatencySummary = { count: number; p50_ms: number; p99_ms: number; max_ms: number };

export function latency(samples: Sample[]): LatencySummary {
  const ms = samples.map((s) => s.ms);
  return {
    count: ms.length,
    p50_ms: round(percentile(ms, 50)),
    p99_ms: round(percentile(ms, 99)),
    max_ms: round(percentile(ms, 100)),
  };
}

export type TripSummary = {
  mean: number;
  min: number;
  max: number;
  worker_mean: number;
  object_mean: number;
  d1_ms_mean: number;
  d1_ms_p50: number;
  object_d1_ms_mean: number;
} | null;

export function roundTrips(samples: Sample[]): TripSummary {
  const counted = samples.map((s) => s.trips).filter((t): t is RoundTripCount => t !== null);
  if (counted.length === 0) return null;
  const mean = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0) / xs.length, 2);
  const totals = counted.map((t) => t.total);
  return {
    mean: mean(totals),
    min: Math.min(...totals),
    max: Math.max(...totals),
    worker_mean: mean(counted.map((t) => t.worker)),
    object_mean: mean(counted.map((t) => t.object)),
    // the time waiting for D1 (the runtime's clock: whole milliseconds, advancing with I/O)
    d1_ms_mean: mean(counted.map((t) => t.ms)),
    d1_ms_p50: percentile(
      counted.map((t) => t.ms),
      50,
    ),
    object_d1_ms_mean: mean(counted.map((t) => t.objectMs)),
  };
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function statusCounts(samples: Sample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[String(s.status)] = (out[String(s.status)] ?? 0) + 1;
  return out;
}
