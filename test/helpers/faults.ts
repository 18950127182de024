/**
 * D1 fault injection for tests: one mechanism, one set of fault modes, in two scopes.
 *
 * Modes (what a D1 call does when a fault hits it):
 * - `fail`: refused before it reaches the database (nothing written);
 * - `lost`: runs (a batch commits), then fails: the answer is lost;
 * - `hang`: never answers (nothing written);
 * - `commit-then-hang`: runs (a batch commits), then never answers.
 *
 * Scopes:
 * - `injectD1Fault(match, mode)`: the next D1 call(s) whose SQL matches, whoever sends them
 *   (the Worker, an event object, a queue consumer, the test itself). The D1 guard
 *   (./d1-guard.ts, installed by test/setup.ts for every test file) applies these rules in the
 *   binding's classes; they are cleared after each test.
 * - `breakObjectWrites(eventId, mode)`: every batch the running event object sends from now on
 *   (its own binding is replaced; D1 sessions it opens included), while the Worker and the
 *   test read and write D1 normally. A restarted object has its real binding again.
 */
import { runInDurableObject } from "cloudflare:test";
import { expect, vi } from "vitest";
import { env } from "cloudflare:workers";
import { dataGroups, groupBinding, groupDatabase } from "../../src/lib/data-groups";
import { eventObject } from "../../src/objects/client";
import type { EventObject } from "../../src/objects/event/object";

export type D1FaultMode = "fail" | "lost" | "hang" | "commit-then-hang";

/** The error text of an injected fault: what D1 answers when its connection drops. */
export const INJECTED_D1_ERROR = "D1_ERROR: Network connection lost.";

export type InjectedFault = {
  /** How many calls the fault has hit so far. */
  hits: () => number;
  /** Resolves when the fault hit its first call (for `lost` and `commit-then-hang`: once that call has committed). */
  reached: Promise<void>;
};

type Fault = { mode: D1FaultMode; remaining: number; hits: number; signal: () => void; delayMs: number };
type Rule = { match: (sql: string) => boolean; fault: Fault };

function fault(mode: D1FaultMode, times: number, delayMs = 0): { f: Fault; handle: InjectedFault } {
  let signal!: () => void;
  const reached = new Promise<void>((r) => (signal = r));
  const f: Fault = { mode, remaining: times, hits: 0, signal, delayMs };
  return { f, handle: { hits: () => f.hits, reached } };
}

/** Runs `call` as the fault `f` lets it (the one place where the modes are implemented). */
function underFault<T>(f: Fault, call: () => Promise<T>): Promise<T> {
  f.remaining--;
  f.hits++;
  switch (f.mode) {
    case "fail":
      f.signal();
      if (f.delayMs > 0)
        return new Promise<T>((_, reject) => setTimeout(() => reject(new Error(INJECTED_D1_ERROR)), f.delayMs));
      return Promise.reject(new Error(INJECTED_D1_ERROR));
    case "hang":
      f.signal();
      return new Promise<T>(() => {});
    case "lost":
      return call().then(() => {
        f.signal();
        throw new Error(INJECTED_D1_ERROR);
      });
    case "commit-then-hang":
      return call().then(() => {
        f.signal();
        return new Promise<T>(() => {});
      });
  }
}

// ---- by statement, anywhere ----

const STATE = Symbol.for("ticketing.test.d1Faults");

function rules(): Rule[] {
  const g = globalThis as unknown as Record<symbol, Rule[] | undefined>;
  return (g[STATE] ??= []);
}

/**
 * Injects a fault into the next `times` (default 1) D1 calls (a statement's first/all/run/raw,
 * or a batch) with a statement whose SQL matches `match`. `delayMs` (for `fail`): the refusal
 * comes that late, as a slow connection's would, while the calls beside it go on.
 */
export function injectD1Fault(
  match: RegExp | ((sql: string) => boolean),
  mode: D1FaultMode,
  opts: { times?: number; delayMs?: number } = {},
): InjectedFault {
  const { f, handle } = fault(mode, opts.times ?? 1, opts.delayMs);
  rules().push({ match: typeof match === "function" ? match : (sql: string) => match.test(sql), fault: f });
  return handle;
}

export function clearD1Faults(): void {
  rules().length = 0;
}

/** A D1 call (its statements' SQL) under the injected faults: the D1 guard sends every call through here. */
export function withInjectedFaults<T>(sqls: string[], call: () => Promise<T>): Promise<T> {
  const rule = rules().find((r) => r.fault.remaining > 0 && sqls.some((s) => r.match(s)));
  return rule ? underFault(rule.fault, call) : call();
}

// ---- every batch of one event object ----

type Batch = (statements: D1PreparedStatement[]) => Promise<D1Result[]>;

/** `real` with every batch (on the binding and in each session opened on it) under the fault `f`. */
function faultyBinding(real: D1Database, f: Fault): D1Database {
  const wrap = <T extends D1Database | D1DatabaseSession>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === "batch") return ((statements) => underFault(f, () => t.batch(statements))) satisfies Batch;
        if (prop === "withSession" && "withSession" in t)
          return (constraint?: string) => wrap(t.withSession(constraint));
        const v = Reflect.get(t, prop);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
  return wrap(real);
}

/** From now on, every D1 batch of the event's running object meets `mode` (the object's writes fail, hang, or commit unheard). */
export async function breakObjectWrites(eventId: number, mode: D1FaultMode): Promise<InjectedFault> {
  const { f, handle } = fault(mode, Number.POSITIVE_INFINITY);
  await runInDurableObject(eventObject(env, eventId), (instance: EventObject) => {
    // every organizer group's database: the object works on its event's group
    const broken: Record<string, D1Database> = {};
    for (const g of dataGroups(env)) broken[groupBinding(g)] = faultyBinding(groupDatabase(env, g), f);
    (instance as unknown as { env: typeof env }).env = { ...env, ...broken };
  });
  return handle;
}

/** The event's running object writes to D1 again (undoes `breakObjectWrites`). */
export async function mendObjectWrites(eventId: number): Promise<void> {
  await runInDurableObject(eventObject(env, eventId), (instance: EventObject) => {
    (instance as unknown as { env: typeof env }).env = env;
  });
}

// ---- what an event object holds ----

/** How many entries the event object's outbox holds (decisions D1 does not have yet). */
export const outboxSize = (eventId: number) =>
  runInDurableObject(
    eventObject(env, eventId),
    (_: EventObject, state: DurableObjectState) =>
      state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n,
  );

/** The event object's alarm time, or null. */
export const alarmAt = (eventId: number) =>
  runInDurableObject(eventObject(env, eventId), (_: EventObject, state: DurableObjectState) =>
    state.storage.getAlarm(),
  );

/** The object has finished with a failed call: its outbox is empty (at once, or once its request's handling ends). */
export const outboxEmptied = (eventId: number) =>
  vi.waitFor(async () => expect(await outboxSize(eventId)).toBe(0), { timeout: 5_000, interval: 20 });

/** The event object's running instance ends (as on a restart); its storage stays. */
export async function endInstance(eventId: number): Promise<void> {
  await runInDurableObject(eventObject(env, eventId), (_: EventObject, state: DurableObjectState) => {
    state.abort("the instance ends");
  }).catch(() => undefined);
}
