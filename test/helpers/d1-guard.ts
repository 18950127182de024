/**
 * The D1 binding as the tests run it (installed once per isolate by test/setup.ts): every
 * statement of the Worker, the Durable Objects and the tests themselves is held to D1's
 * production limits (./d1-limits.ts), and every call passes the D1 faults tests inject by
 * statement (`injectD1Fault`, ./faults.ts).
 *
 * The binding's classes are patched (the Worker, the objects and the tests share one isolate
 * and one D1 implementation), so a fault reaches whichever code sends the matching statement.
 */
import { d1LimitViolation } from "./d1-limits";
import { withInjectedFaults as run } from "./faults";

const STATE = Symbol.for("ticketing.test.d1Guard");
type State = { statements: number };

function state(): State {
  const g = globalThis as unknown as Record<symbol, State | undefined>;
  return (g[STATE] ??= { statements: 0 });
}

/** Statements checked against the limits since the isolate started (proves the guard is in place). */
export function guardedStatements(): number {
  return state().statements;
}

type Statement = { statement: string; params: unknown[] };

function violation(stmts: readonly Statement[]): Error | null {
  for (const s of stmts) {
    state().statements++;
    const v = d1LimitViolation(s.statement, s.params ?? []);
    if (v) return new Error(v);
  }
  return null;
}

const INSTALLED = Symbol.for("ticketing.test.d1Guard.installed");

/** Patches the classes behind `db` (idempotent). */
export function installD1Guard(db: D1Database): void {
  const dbProto = Object.getPrototypeOf(db) as Record<string | symbol, unknown>;
  if (dbProto[INSTALLED]) return;
  dbProto[INSTALLED] = true;
  const stmtProto = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<
    string,
    (...a: unknown[]) => Promise<unknown>
  >;
  for (const method of ["first", "run", "all", "raw"] as const) {
    const original = stmtProto[method]!;
    stmtProto[method] = function (this: Statement, ...args: unknown[]) {
      const refused = violation([this]);
      if (refused) return Promise.reject(refused);
      return run([this.statement], () => original.apply(this, args));
    };
  }
  // D1Database.batch hands the same list on to its session's batch (synchronously), which is
  // patched too: that inner call passes through, so a call meets each fault rule once
  const handing = new WeakSet<Statement[]>();
  const patchBatch = (proto: Record<string | symbol, unknown>) => {
    const original = proto.batch as (s: Statement[]) => Promise<unknown>;
    proto.batch = function (this: unknown, statements: Statement[]) {
      if (handing.has(statements)) return original.call(this, statements);
      const refused = violation(statements);
      if (refused) return Promise.reject(refused);
      return run(
        statements.map((s) => s.statement),
        () => {
          handing.add(statements);
          try {
            return original.call(this, statements);
          } finally {
            handing.delete(statements);
          }
        },
      );
    };
  };
  patchBatch(dbProto);
  const session = (db as unknown as { withSession?: (b?: string) => object }).withSession?.("first-unconstrained");
  if (session) {
    const sessionProto = Object.getPrototypeOf(session) as Record<string | symbol, unknown>;
    if (sessionProto !== dbProto && typeof sessionProto.batch === "function") patchBatch(sessionProto);
  }
  const exec = dbProto.exec as (sql: string) => Promise<unknown>;
  dbProto.exec = function (this: unknown, sql: string) {
    for (const part of sql.split(/;\s*\n/)) {
      const refused = violation([{ statement: part, params: [] }]);
      if (refused) return Promise.reject(refused);
    }
    return exec.call(this, sql);
  };
}
