/**
 * The query plans of list requests (test/api/large-event-plans.test.ts and the other lists'
 * plan tests): a request runs through the app with a D1 binding that records each statement;
 * each is then explained (`EXPLAIN QUERY PLAN`) with its own parameters on the same database,
 * and the plan is held to the rules below (no full scan, no sort of every row, no list subquery
 * per row; a text search starts from the trigram indexes).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app";
import { BASE } from "../harness";

export type Recorded = { sql: string; params: unknown[] };
type PlanRow = { id: number; parent: number; detail: string };

/** The harness group's database (DB_2), recording every statement that reaches D1 (batched or not; in a session or not). */
function recordingDb(d1: D1Database, log: Recorded[]): D1Database {
  return recording(d1, log) as unknown as D1Database;
}

/** A D1 binding or session, recording its statements; a session started from it records too. */
function recording(d1: D1Database | D1DatabaseSession, log: Recorded[]): object {
  const statement = (stmt: D1PreparedStatement, rec: Recorded): D1PreparedStatement => {
    const run = <T>(fn: () => T) => {
      log.push(rec);
      return fn();
    };
    const wrapped = {
      bind: (...values: unknown[]) => statement(stmt.bind(...values), { sql: rec.sql, params: values }),
      first: (column?: string) => run(() => (column === undefined ? stmt.first() : stmt.first(column))),
      all: () => run(() => stmt.all()),
      run: () => run(() => stmt.run()),
      raw: (options?: { columnNames?: boolean }) =>
        run(() => (options?.columnNames ? stmt.raw({ columnNames: true }) : stmt.raw())),
    } as unknown as D1PreparedStatement;
    inner.set(wrapped, { stmt, rec });
    return wrapped;
  };
  const inner = new WeakMap<object, { stmt: D1PreparedStatement; rec: Recorded }>();
  return {
    prepare: (query: string) => statement(d1.prepare(query), { sql: query, params: [] }),
    batch: (stmts: D1PreparedStatement[]) => {
      for (const s of stmts) log.push(inner.get(s)!.rec);
      return d1.batch(stmts.map((s) => inner.get(s)!.stmt));
    },
    ...("withSession" in d1
      ? {
          exec: (query: string) => d1.exec(query),
          withSession: (constraint?: string) => recording(d1.withSession(constraint), log),
        }
      : { getBookmark: () => d1.getBookmark() }),
  };
}

const app = createApp();

/** Runs a GET through the app; returns the response and every statement it ran. */
export async function recorded(client: { authorization: string | null }, path: string) {
  const log: Recorded[] = [];
  const ctx = createExecutionContext();
  const headers: Record<string, string> = client.authorization ? { Authorization: client.authorization } : {};
  const res = await app.fetch(
    new Request(`${BASE}${path}`, { headers }),
    { ...env, DB_2: recordingDb(env.DB_2, log) },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as { count?: number; results?: unknown[] };
  return { status: res.status, body, statements: log };
}

export async function planOf(r: Recorded): Promise<PlanRow[]> {
  const { results } = await env.DB_2.prepare(`EXPLAIN QUERY PLAN ${r.sql}`)
    .bind(...r.params)
    .all<PlanRow>();
  return results;
}

/** What is wrong with a plan (empty: nothing). */
export function planProblems(plan: PlanRow[]): string[] {
  const byId = new Map(plan.map((r) => [r.id, r]));
  const subqueries = new Set(plan.flatMap((r) => /^(?:CO-ROUTINE|MATERIALIZE) (\S+)/.exec(r.detail)?.[1] ?? []));
  const inCorrelated = (r: PlanRow): boolean => {
    for (let p = byId.get(r.parent); p; p = byId.get(p.parent)) if (p.detail.startsWith("CORRELATED")) return true;
    return false;
  };
  const problems: string[] = [];
  for (const r of plan) {
    const scan = /^SCAN (\S+)/.exec(r.detail);
    if (scan) {
      const what = scan[1]!;
      const harmless =
        what === "CONSTANT" || what.startsWith("(subquery") || subqueries.has(what) || /VIRTUAL TABLE/.test(r.detail);
      if (!harmless) problems.push(`full scan: ${r.detail}`);
    }
    // a list subquery correlated with each row (`x IN (SELECT ... WHERE ... = outer.col)`) runs
    // once per row: over check-ins, orders or tickets that multiplies the event by itself
    if (r.detail.startsWith("CORRELATED LIST SUBQUERY")) {
      const large = plan.filter(
        (x) => x.parent === r.id && /^(SEARCH|SCAN) (checkins|orders|order_positions|c|o|p) /.test(x.detail),
      );
      for (const x of large) problems.push(`a list subquery for every row: ${x.detail}`);
    }
    if (r.detail === "USE TEMP B-TREE FOR ORDER BY" && !inCorrelated(r)) {
      const level = plan.filter((x) => x.parent === r.parent && x !== r);
      // the rows of a page's ids (rowid IN the ids' subquery), of an index range (>, <), or of one order
      const bounded = level.some(
        (x) =>
          /USING INTEGER PRIMARY KEY \(rowid=\?\)/.test(x.detail) ||
          /[<>]=?\?\)/.test(x.detail) ||
          /\(order_id=\?\)$/.test(x.detail),
      );
      if (!bounded) problems.push(`sorts every matching row: ${level.map((x) => x.detail).join(" / ")}`);
    }
  }
  return problems;
}

/**
 * What is wrong with the plan of a statement that searches text through the trigram indexes:
 * it must start from the indexes' candidates, not walk the event's orders or tickets by an
 * index on the event (and test each against them).
 */
export function searchProblems(plan: PlanRow[]): string[] {
  const problems: string[] = [];
  if (!plan.some((r) => /^SCAN orders_search VIRTUAL TABLE INDEX \d+:M/.test(r.detail)))
    problems.push("the orders' trigram index is not searched");
  if (!plan.some((r) => /^SCAN order_positions_search VIRTUAL TABLE INDEX \d+:M/.test(r.detail)))
    problems.push("the positions' trigram index is not searched");
  for (const r of plan) {
    if (/^SEARCH (orders|o|order_positions|p) USING (COVERING )?INDEX \S+ \(event_id=/.test(r.detail))
      problems.push(`walks the event: ${r.detail}`);
  }
  return problems;
}
