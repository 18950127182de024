/**
 * Fault injection for a D1 binding (the event object's, in the failure tests): a binding whose
 * batches do what `batch` says, on the binding itself and in every session opened on it (the
 * event object runs its D1 work in sessions, src/db/sessions.ts); everything else is the real
 * binding's. `batch` gets the statements and `commit`, which runs them for real.
 */
type Batch = (statements: D1PreparedStatement[]) => Promise<D1Result[]>;

export function breakBatches(real: D1Database, batch: (statements: D1PreparedStatement[], commit: Batch) => Promise<D1Result[]>): D1Database {
  const wrap = <T extends D1Database | D1DatabaseSession>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === "batch") return (statements: D1PreparedStatement[]) => batch(statements, (s) => t.batch(s));
        if (prop === "withSession" && "withSession" in t) return (constraint?: string) => wrap(t.withSession(constraint));
        const v = Reflect.get(t, prop);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
  return wrap(real);
}
