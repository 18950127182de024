/**
 * Blocks of ids the event object hands out itself, so that a row it answers for has its D1 id
 * before D1 has the row (docs/scaling.md "Orders answered at the event's object"): a lease moves the
 * table's AUTOINCREMENT counter past the block (SQLite never hands out an id at or below it).
 */
import { sql } from "drizzle-orm";
import type { DB } from "./client";
import { rawRows, statement } from "./raw";

/** The tables whose ids the event object leases. */
export const LEASED_TABLES = ["checkins", "orders", "order_positions", "order_fees", "order_payments"] as const;
export type LeasedTable = (typeof LEASED_TABLES)[number];

/**
 * A block of `size` ids of `table` no one else gets; the second statement returns the counter,
 * the block's last id. The first creates the counter where the table never had a row.
 */
export function leaseIdsStatements(db: DB, table: LeasedTable, size: number) {
  if (!LEASED_TABLES.includes(table)) throw new Error(`not a leased table: ${table}`);
  const name = sql.raw(table);
  return [
    statement(
      db,
      sql`INSERT INTO sqlite_sequence (name, seq) SELECT ${table}, coalesce((SELECT max(id) FROM ${name}), 0)
        WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ${table})`,
    ),
    rawRows<{ seq: number }>(
      db,
      sql`UPDATE sqlite_sequence SET seq = seq + ${size} WHERE name = ${table} RETURNING seq`,
    ),
  ] as const;
}
