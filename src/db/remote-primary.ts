/**
 * A simulated remote D1 primary, a debugging aid for the benchmark (`SIMULATE_D1_PRIMARY_MS`,
 * `SIMULATE_D1_WRITE_MS`; docs/configuration.md, docs/scaling.md): every D1 binding of an env is
 * wrapped so that each call D1 would send to its primary waits the round trip, and each write
 * statement holds that database's one writer for the write time. Off (both empty or 0): nothing is wrapped.
 */
import { log } from "../lib/log";

export type PrimarySimulation = {
  /** The round trip from here to the primary and back, in milliseconds. */
  roundTripMs: number;
  /** How long one write statement holds the database's single writer, in milliseconds. */
  writeMs: number;
};

type SimulationVars = { SIMULATE_D1_PRIMARY_MS?: string; SIMULATE_D1_WRITE_MS?: string };

function milliseconds(name: string, raw: string | undefined): number {
  const text = (raw ?? "").trim();
  if (text === "") return 0;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) {
    log.warn("configuration: not a number of milliseconds; ignored", { variable: name, value: raw });
    return 0;
  }
  return n;
}

const settings = new WeakMap<object, PrimarySimulation | null>();

/** The simulation `env` asks for, or null when it is off. */
export function primarySimulation(env: SimulationVars): PrimarySimulation | null {
  if (settings.has(env)) return settings.get(env)!;
  const roundTripMs = milliseconds("SIMULATE_D1_PRIMARY_MS", env.SIMULATE_D1_PRIMARY_MS);
  const writeMs = milliseconds("SIMULATE_D1_WRITE_MS", env.SIMULATE_D1_WRITE_MS);
  const sim = roundTripMs > 0 || writeMs > 0 ? { roundTripMs, writeMs } : null;
  settings.set(env, sim);
  return sim;
}

// ---------------------------------------------------------------- which statements write

const READ_ONLY = new Set(["SELECT", "EXPLAIN", "VALUES"]);
const CHANGES = /\b(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * Whether a statement writes: D1 treats as read-only the statements made of SELECT, EXPLAIN and
 * WITH alone; a WITH that carries an INSERT, UPDATE, DELETE or REPLACE writes.
 */
export function isWrite(sql: string): boolean {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, " ").trimStart();
  const keyword = (/^[(\s]*([A-Za-z]+)/.exec(text)?.[1] ?? "").toUpperCase();
  if (READ_ONLY.has(keyword)) return false;
  if (keyword === "WITH") return CHANGES.test(text);
  return true;
}

/** Write statements in a script of statements separated by semicolons (`exec`). */
function writesIn(script: string): number {
  return script
    .split(";")
    .filter((s) => s.trim() !== "")
    .filter(isWrite).length;
}

// ---------------------------------------------------------------- the primary

/** One database's single writer: the time it is busy until (this process's clock). */
type Writer = { freeAt: number };

/** Per database (binding name): the Worker and the objects of one `wrangler dev` share the process. */
const writers = new Map<string, Writer>();

function writerOf(name: string): Writer {
  let w = writers.get(name);
  if (!w) {
    w = { freeAt: 0 };
    writers.set(name, w);
  }
  return w;
}

/** Until when the named database's writer is taken by the writes queued so far (this process's clock; tests). */
export function writerBusyUntil(name: string): number {
  return writerOf(name).freeAt;
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/**
 * `call` as the primary answers it: half the round trip there; for `writes` write statements,
 * a turn of the database's writer (after every write queued before it) of `writes × writeMs`;
 * then the call, and half the round trip back. The writer is a timeline, not a lock: each call
 * waits on its own timer, so nothing resolves a promise of another request's context.
 */
async function atPrimary<T>(sim: PrimarySimulation, writer: Writer, writes: number, call: () => Promise<T>) {
  const there = sim.roundTripMs / 2;
  await sleep(there);
  if (writes > 0 && sim.writeMs > 0) {
    const now = Date.now();
    writer.freeAt = Math.max(now, writer.freeAt) + writes * sim.writeMs;
    await sleep(writer.freeAt - now);
  }
  try {
    return await call();
  } finally {
    await sleep(sim.roundTripMs - there);
  }
}

/** Sends a call with `writes` write statements where D1 would: the primary, or a replica (no delay). */
type Route = <T>(writes: number, call: () => Promise<T>) => Promise<T>;

// ---------------------------------------------------------------- the wrapper

const inner = new WeakMap<object, { stmt: D1PreparedStatement; writes: number }>();

function statement(stmt: D1PreparedStatement, writes: number, route: Route): D1PreparedStatement {
  const wrapped = {
    bind: (...values: unknown[]) => statement(stmt.bind(...values), writes, route),
    first: (column?: string) => route(writes, () => (column === undefined ? stmt.first() : stmt.first(column))),
    run: () => route(writes, () => stmt.run()),
    all: () => route(writes, () => stmt.all()),
    raw: (options?: { columnNames?: boolean }) =>
      route(writes, () => (options?.columnNames ? stmt.raw({ columnNames: true }) : stmt.raw())),
  } as unknown as D1PreparedStatement;
  inner.set(wrapped, { stmt, writes });
  return wrapped;
}

/** A batch is one transaction at one place: its write statements, and the statements as D1 knows them. */
function batchOf(statements: D1PreparedStatement[]) {
  let writes = 0;
  const plain = statements.map((s) => {
    const known = inner.get(s);
    // a statement prepared elsewhere: counted as a write
    writes += known ? known.writes : 1;
    return known ? known.stmt : s;
  });
  return { writes, plain };
}

/**
 * `d1` as a remote primary named `name` (its writer is shared by every wrapper of that name):
 * - the binding itself (no session) goes to the primary for every call: without the Sessions
 *   API, D1 runs every query on the primary;
 * - a session goes to the primary for its writes (and a batch holding one), and for its first
 *   call when it was started with `first-primary`; its other reads, and every read of a session
 *   started `first-unconstrained` or at a bookmark, are answered by a nearby replica, no delay.
 */
export function simulatedPrimary(d1: D1Database, name: string, sim: PrimarySimulation): D1Database {
  const writer = writerOf(name);
  const primary: Route = (writes, call) => atPrimary(sim, writer, writes, call);
  const sessionRoute = (constraint: string | undefined): Route => {
    let first = true;
    return (writes, call) => {
      const toPrimary = writes > 0 || (first && constraint === "first-primary");
      first = false;
      return toPrimary ? primary(writes, call) : call();
    };
  };
  return {
    prepare: (query: string) => statement(d1.prepare(query), isWrite(query) ? 1 : 0, primary),
    batch: <T>(statements: D1PreparedStatement[]) => {
      const { writes, plain } = batchOf(statements);
      return primary(writes, () => d1.batch<T>(plain));
    },
    exec: (query: string) => primary(writesIn(query), () => d1.exec(query)),
    withSession: (constraintOrBookmark?: string) => {
      const session = d1.withSession(constraintOrBookmark);
      const route = sessionRoute(constraintOrBookmark);
      return {
        prepare: (query: string) => statement(session.prepare(query), isWrite(query) ? 1 : 0, route),
        batch: <T>(statements: D1PreparedStatement[]) => {
          const { writes, plain } = batchOf(statements);
          return route(writes, () => session.batch<T>(plain));
        },
        getBookmark: () => session.getBookmark(),
      } as D1DatabaseSession;
    },
    dump: () => primary(0, () => d1.dump()),
  } as D1Database;
}

function isD1(value: unknown): value is D1Database {
  const v = value as Partial<D1Database> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.prepare === "function" &&
    typeof v.batch === "function" &&
    typeof v.exec === "function" &&
    typeof v.withSession === "function"
  );
}

const simulated = new WeakMap<object, object>();
const outputs = new WeakSet<object>();

/**
 * `env` with every D1 binding in it wrapped as a remote primary (each its own database and
 * writer, by binding name), or `env` itself when the simulation is off.
 */
export function simulateRemotePrimary<E extends object>(env: E): E {
  if (outputs.has(env)) return env;
  const sim = primarySimulation(env as SimulationVars);
  if (!sim) return env;
  let out = simulated.get(env) as E | undefined;
  if (!out) {
    const copy = { ...env } as Record<string, unknown>;
    for (const [name, value] of Object.entries(env)) if (isD1(value)) copy[name] = simulatedPrimary(value, name, sim);
    out = copy as E;
    simulated.set(env, out);
    outputs.add(out);
  }
  return out;
}
