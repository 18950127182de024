/**
 * The one door of the debugging and simulation aids (docs/configuration.md): D1 round-trip
 * counting (DEBUG_D1_ROUND_TRIPS, round-trips.ts) and the simulated remote primary
 * (SIMULATE_D1_PRIMARY_MS, SIMULATE_D1_WRITE_MS, remote-primary.ts). The Worker's entry
 * (src/index.ts) and the event object's bindings go through here only when one of those
 * variables is set: a production request, queue batch, cron run or object call never does.
 */
import type { Env } from "../lib/env";
import { simulateRemotePrimary } from "./remote-primary";
import {
  type ContextRoundTrips,
  countRoundTrips,
  countRoundTripsInContext,
  newRoundTrips,
  ROUND_TRIP_HEADERS,
  type RoundTrips,
  roundTripsEnabled,
} from "./round-trips";

type AidVars = { DEBUG_D1_ROUND_TRIPS?: string; SIMULATE_D1_PRIMARY_MS?: string; SIMULATE_D1_WRITE_MS?: string };

/** Whether `env` asks for any of the aids (the one question an entry asks). */
export function debugAidsAsked(env: AidVars): boolean {
  return roundTripsEnabled(env) || !!env.SIMULATE_D1_PRIMARY_MS?.trim() || !!env.SIMULATE_D1_WRITE_MS?.trim();
}

function isD1(value: unknown): value is D1Database {
  return typeof value === "object" && value !== null && "prepare" in value && "withSession" in value;
}

/** `env` with each of its D1 bindings replaced by `wrap(binding)`. */
function mapD1<E extends object>(env: E, wrap: (d1: D1Database) => D1Database): E {
  const out: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const [name, value] of Object.entries(out)) if (isD1(value)) out[name] = wrap(value);
  return out as E;
}

/** The bindings of a queue batch or a cron run: D1 as a remote primary when simulated. */
export function debugEnv<E extends object>(env: E): E {
  return simulateRemotePrimary(env);
}

const objectEnvs = new WeakMap<object, Env>();

/**
 * The event object's bindings: D1 as a remote primary when simulated, and, with the counting on,
 * every D1 call counted into the object call that runs it (objects/event/counting.ts).
 */
export function objectDebugEnv(env: Env): Env {
  let out = objectEnvs.get(env);
  if (!out) {
    const simulated = simulateRemotePrimary(env);
    out = roundTripsEnabled(env) ? mapD1(simulated, countRoundTripsInContext) : simulated;
    objectEnvs.set(env, out);
  }
  return out;
}

/** The headers that answer a request's counts. */
function roundTripHeaders(counts: ContextRoundTrips): [string, string][] {
  const headers: [string, string][] = [
    [ROUND_TRIP_HEADERS.total, String(counts.own.n + counts.object.n)],
    [ROUND_TRIP_HEADERS.worker, String(counts.own.n)],
    [ROUND_TRIP_HEADERS.object, String(counts.object.n)],
    [ROUND_TRIP_HEADERS.time, String(counts.own.ms + counts.object.ms)],
    [ROUND_TRIP_HEADERS.timeObject, String(counts.object.ms)],
  ];
  const start = counts.objectStart;
  if (start)
    headers.push([
      ROUND_TRIP_HEADERS.objectStart,
      `rows_read=${start.rowsRead}; held_positions=${start.heldPositions}`,
    ]);
  return headers;
}

function withHeaders(res: Response, headers: [string, string][]): Response {
  const out = res.webSocket ? res : new Response(res.body, res);
  for (const [name, value] of headers) out.headers.set(name, value);
  return out;
}

/**
 * A request under the aids: its bindings simulated, and, unless it asks not to be counted (the
 * benchmark's latency samples: counting costs time of its own), its D1 round trips and those of
 * the event objects it calls (`env.ROUND_TRIPS`, objects/client.ts) answered in its headers.
 */
export async function fetchWithDebugAids<E extends Env>(
  request: Request,
  env: E,
  fetch: (env: E) => Response | Promise<Response>,
): Promise<Response> {
  const simulated = simulateRemotePrimary(env);
  if (!roundTripsEnabled(env) || request.headers.get(ROUND_TRIP_HEADERS.total) === "off") return fetch(simulated);
  const counts = newRoundTrips();
  const own: RoundTrips = counts.own;
  const counted = mapD1(simulated, (d1) => countRoundTrips(d1, own));
  const res = await fetch({ ...counted, ROUND_TRIPS: counts });
  return withHeaders(res, roundTripHeaders(counts));
}
