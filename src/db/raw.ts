/**
 * Raw SQL as items of a D1 batch: drizzle batches raw statements only without parameters, so
 * these are prepared on the database's own client. Also raw reads whose rows are plain objects
 * (`readRows`, several at once with `readBatch`), for queries the query builder cannot say.
 */
import type { SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { SQLiteRaw } from "drizzle-orm/sqlite-core/query-builders/raw";
import type { DB } from "./client";

function batchable<R>(db: DB, raw: R): R {
  const client = (db as unknown as { $client: D1Database }).$client;
  const prepared = raw as unknown as { _prepare(): unknown; getQuery(): { sql: string }; stmt?: D1PreparedStatement };
  prepared._prepare = () => {
    prepared.stmt ??= client.prepare(prepared.getQuery().sql);
    return prepared;
  };
  return raw;
}

/** A raw SELECT (its rows). */
export function rawRows<T>(db: DB, query: SQL): SQLiteRaw<T[]> {
  return batchable(db, db.all<T>(query));
}

/** A raw statement that changes rows (its D1 result). */
export function statement(db: DB, query: SQL): SQLiteRaw<D1Result> {
  return batchable(db, db.run(query));
}

export type Row = Record<string, unknown>;

/** Runs a read and returns its rows as plain objects. */
export async function readRows<T = Row>(db: DB, query: SQL): Promise<T[]> {
  return db.all<T>(query);
}

const dialect = new SQLiteSyncDialect();

/** Runs several reads in one round trip (drizzle cannot batch raw statements with parameters on D1). */
export async function readBatch(db: DB, queries: SQL[]): Promise<Row[][]> {
  if (queries.length === 0) return [];
  const d1 = db.$client;
  const statements = queries.map((q) => {
    const { sql: text, params } = dialect.sqlToQuery(q);
    return d1.prepare(text).bind(...params);
  });
  return (await d1.batch<Row>(statements)).map((r) => r.results);
}
