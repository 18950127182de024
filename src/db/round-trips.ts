/**
 * D1 round-trip counting, a debugging aid (`DEBUG_D1_ROUND_TRIPS`, docs/configuration.md): when on,
 * the Worker's and the event object's D1 bindings are wrapped and every call that reaches D1 counts
 * into the async context it runs in (the Worker asks the object for its count through `countedCall`),
 * answered in the `X-D1-Round-Trips*` and `X-D1-Time-Ms*` headers. When off, nothing is wrapped.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Calls that reached D1, and (when `ms` is kept) the milliseconds until they answered. */
export type RoundTrips = { n: number; ms?: number };

/**
 * The counts of one request (or one event-object call): its own D1 round trips, and those of the
 * event objects it called; `objectStart` when an object it called had just started (what it read
 * from its own storage to serve, and the positions it held then).
 */
export type ContextRoundTrips = {
  own: Required<RoundTrips>;
  object: Required<RoundTrips>;
  objectStart?: { rowsRead: number; heldPositions: number };
};

export const ROUND_TRIP_HEADERS = {
  total: "X-D1-Round-Trips",
  worker: "X-D1-Round-Trips-Worker",
  object: "X-D1-Round-Trips-Object",
  /** `rows_read=N; held_positions=M`: the request woke an event object, which read N rows of its storage. */
  objectStart: "X-Event-Object-Start",
  time: "X-D1-Time-Ms",
  timeObject: "X-D1-Time-Ms-Object",
} as const;

export function roundTripsEnabled(env: { DEBUG_D1_ROUND_TRIPS?: string }): boolean {
  return env.DEBUG_D1_ROUND_TRIPS === "1";
}

const context = new AsyncLocalStorage<ContextRoundTrips>();

/** Runs `fn` with its own counts: every round trip of a counting binding inside it counts there. */
export function withRoundTripCounting<T>(counts: ContextRoundTrips, fn: () => T): T {
  return context.run(counts, fn);
}

/** The counts of the running request or call (undefined: not counting). */
export function currentRoundTrips(): ContextRoundTrips | undefined {
  return context.getStore();
}

export function newRoundTrips(): ContextRoundTrips {
  return { own: { n: 0, ms: 0 }, object: { n: 0, ms: 0 } };
}

/** A round trip begins: counted now; the function returned ends it (its time added to `trips.ms`, if kept). */
type Tick = () => () => void;

function ticking(trips: () => RoundTrips | undefined): Tick {
  return () => {
    const t = trips();
    if (!t) return () => {};
    t.n++;
    const start = Date.now();
    return () => {
      if (t.ms !== undefined) t.ms += Date.now() - start;
    };
  };
}

/** Runs `call` as one round trip. */
function timed<T>(tick: Tick, call: () => Promise<T>): Promise<T> {
  const done = tick();
  return call().finally(done);
}

const inner = new WeakMap<object, D1PreparedStatement>();

function countStatement(stmt: D1PreparedStatement, tick: Tick): D1PreparedStatement {
  const wrapped = {
    bind: (...values: unknown[]) => countStatement(stmt.bind(...values), tick),
    first: (column?: string) => timed(tick, () => (column === undefined ? stmt.first() : stmt.first(column))),
    run: () => timed(tick, () => stmt.run()),
    all: () => timed(tick, () => stmt.all()),
    raw: (options?: { columnNames?: boolean }) =>
      timed(tick, () => (options?.columnNames ? stmt.raw({ columnNames: true }) : stmt.raw())),
  } as unknown as D1PreparedStatement;
  inner.set(wrapped, stmt);
  return wrapped;
}

/** The statements as the binding knows them (a batch reads their SQL and parameters). */
function unwrap(statements: D1PreparedStatement[]): D1PreparedStatement[] {
  return statements.map((s) => inner.get(s) ?? s);
}

function wrap(d1: D1Database, tick: Tick): D1Database {
  return {
    prepare: (query: string) => countStatement(d1.prepare(query), tick),
    batch: <T>(statements: D1PreparedStatement[]) => timed(tick, () => d1.batch<T>(unwrap(statements))),
    exec: (query: string) => timed(tick, () => d1.exec(query)),
    withSession: (constraintOrBookmark?: string) => {
      const session = d1.withSession(constraintOrBookmark);
      return {
        prepare: (query: string) => countStatement(session.prepare(query), tick),
        batch: <T>(statements: D1PreparedStatement[]) => timed(tick, () => session.batch<T>(unwrap(statements))),
        getBookmark: () => session.getBookmark(),
      } as D1DatabaseSession;
    },
    dump: () => timed(tick, () => d1.dump()),
  } as D1Database;
}

/** `d1` with every round trip counted into `trips` (and its time, if `trips.ms` is kept). */
export function countRoundTrips(d1: D1Database, trips: RoundTrips): D1Database {
  return wrap(
    d1,
    ticking(() => trips),
  );
}

/** `d1` with every round trip counted into the running context's counts (nothing outside one). */
export function countRoundTripsInContext(d1: D1Database): D1Database {
  return wrap(
    d1,
    ticking(() => context.getStore()?.own),
  );
}
