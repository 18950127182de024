import {
  createTableRelationsHelpers,
  type ExtractTablesWithRelations,
  extractTablesRelationalConfig,
} from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { DrizzleD1Database, SQLiteD1Session } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import * as schema from "./schema";

/**
 * The schema's relational configuration, built once per isolate: `drizzle(d1, { schema })`
 * builds it on every call, and the service makes a database handle per
 * request, per request session and per event-object call.
 */
const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
const relational = {
  fullSchema: schema,
  schema: tables.tables as ExtractTablesWithRelations<typeof schema>,
  tableNamesMap: tables.tableNamesMap,
};
const dialect = new SQLiteAsyncDialect();

/**
 * A drizzle database on a D1 binding, or on one of its sessions (db/sessions.ts): drizzle only
 * prepares statements and runs batches, which a session does too. What `drizzle(d1, { schema })`
 * makes (no logger, no cache), with the configuration above.
 */
export function createDb(d1: D1Database | D1DatabaseSession) {
  const client = d1 as D1Database;
  const db = new DrizzleD1Database<typeof schema>(
    "async",
    dialect,
    new SQLiteD1Session<typeof schema, ExtractTablesWithRelations<typeof schema>>(client, dialect, relational, {}),
    relational,
  );
  return Object.assign(db, { $client: client });
}

export type DB = ReturnType<typeof createDb>;
export { schema };

/**
 * `db`, except that its first batch runs `lead.statements` ahead of its own, in the same round
 * trip: their results go to `lead.settle`, whose promise the batch awaits before it returns its
 * own results (a rejection fails the batch, and its own results are never returned). Later
 * batches and every other call are `db`'s.
 */
export function withLeadingStatements(
  db: DB,
  lead: { statements: readonly BatchItem<"sqlite">[]; settle(results: Promise<unknown[]>): Promise<void> },
): DB {
  let carried = false;
  const out = Object.create(db) as DB;
  const batch = async (items: readonly BatchItem<"sqlite">[]) => {
    const run = (all: readonly BatchItem<"sqlite">[]) =>
      db.batch(all as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]) as Promise<unknown[]>;
    if (carried) return run(items);
    carried = true;
    const n = lead.statements.length;
    const all = run([...lead.statements, ...items]);
    await lead.settle(all.then((results) => results.slice(0, n)));
    return (await all).slice(n);
  };
  Object.defineProperty(out, "batch", { value: batch });
  return out;
}
