/**
 * Raw SQL as items of a D1 batch: drizzle batches raw statements only without parameters, so
 * these are prepared on the database's own client.
 */
import type { SQL } from "drizzle-orm";
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
