/**
 * D1 round-trip counting, a debugging aid (README "Configuration": DEBUG_D1_ROUND_TRIPS,
 * off by default; `npm run bench` turns it on). When on, the Worker wraps its D1 binding per
 * request, the event object wraps it per call, and the response carries the counts in
 * `X-D1-Round-Trips` (all), `X-D1-Round-Trips-Worker` and `X-D1-Round-Trips-Object`. One
 * round trip is one call that reaches D1: a prepared statement's first/all/run/raw, one
 * batch (however many statements), one exec. When off, nothing is wrapped.
 */
import type { Env } from "../env";

export type RoundTrips = { n: number };

/** The per-request counts on the Worker side (the object's come back with its answers). */
export type RequestRoundTrips = { worker: RoundTrips; object: RoundTrips };

export const ROUND_TRIP_HEADERS = {
  total: "X-D1-Round-Trips",
  worker: "X-D1-Round-Trips-Worker",
  object: "X-D1-Round-Trips-Object",
} as const;

export function roundTripsEnabled(env: Pick<Env, "DEBUG_D1_ROUND_TRIPS">): boolean {
  return env.DEBUG_D1_ROUND_TRIPS === "1";
}

const inner = new WeakMap<object, D1PreparedStatement>();

function countStatement(stmt: D1PreparedStatement, trips: RoundTrips): D1PreparedStatement {
  const wrapped = {
    bind: (...values: unknown[]) => countStatement(stmt.bind(...values), trips),
    first: (column?: string) => {
      trips.n++;
      return column === undefined ? stmt.first() : stmt.first(column);
    },
    run: () => {
      trips.n++;
      return stmt.run();
    },
    all: () => {
      trips.n++;
      return stmt.all();
    },
    raw: (options?: { columnNames?: boolean }) => {
      trips.n++;
      return options?.columnNames ? stmt.raw({ columnNames: true }) : stmt.raw();
    },
  } as unknown as D1PreparedStatement;
  inner.set(wrapped, stmt);
  return wrapped;
}

/** The statements as the binding knows them (a batch reads their SQL and parameters). */
function unwrap(statements: D1PreparedStatement[]): D1PreparedStatement[] {
  return statements.map((s) => inner.get(s) ?? s);
}

/** `d1` with every round trip counted into `trips`. */
export function countRoundTrips(d1: D1Database, trips: RoundTrips): D1Database {
  return {
    prepare: (query: string) => countStatement(d1.prepare(query), trips),
    batch: <T>(statements: D1PreparedStatement[]) => {
      trips.n++;
      return d1.batch<T>(unwrap(statements));
    },
    exec: (query: string) => {
      trips.n++;
      return d1.exec(query);
    },
    withSession: (constraintOrBookmark?: string) => {
      const session = d1.withSession(constraintOrBookmark);
      return {
        prepare: (query: string) => countStatement(session.prepare(query), trips),
        batch: <T>(statements: D1PreparedStatement[]) => {
          trips.n++;
          return session.batch<T>(unwrap(statements));
        },
        getBookmark: () => session.getBookmark(),
      } as D1DatabaseSession;
    },
    dump: () => {
      trips.n++;
      return d1.dump();
    },
  } as D1Database;
}

/**
 * What the event object answers when counting is on: its answer and its own round trips.
 * The Worker's `withEventObject` unwraps it, so callers see the plain answer.
 */
export type Counted<T> = { d1RoundTripsCounted: true; value: T; d1RoundTrips: number };

/** The answer type of an event-object method: plain, or counted in debug mode. */
export type Reported<T> = T | Counted<T>;

export function isCounted(x: unknown): x is Counted<unknown> {
  return typeof x === "object" && x !== null && (x as { d1RoundTripsCounted?: unknown }).d1RoundTripsCounted === true;
}

/** A per-request copy of the Worker's env whose D1 binding counts, and the counts. */
const REQUEST_TRIPS = "__d1RoundTrips";

export function countingEnv(env: Env): { env: Env; trips: RequestRoundTrips } {
  const trips: RequestRoundTrips = { worker: { n: 0 }, object: { n: 0 } };
  return { env: { ...env, DB: countRoundTrips(env.DB, trips.worker), [REQUEST_TRIPS]: trips } as Env, trips };
}

/** The request's counts, when its env came from `countingEnv`. */
export function requestRoundTrips(env: Env): RequestRoundTrips | undefined {
  return (env as Env & { [REQUEST_TRIPS]?: RequestRoundTrips })[REQUEST_TRIPS];
}
