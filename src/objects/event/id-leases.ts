/**
 * The blocks of D1 ids the object holds (db/id-leases.ts), one per table, in its own SQLite: a
 * check-in, an order and its positions, fees and payments answered at the object take their ids
 * from them. A block is refilled in a batch the object sends anyway once fewer than `low` are
 * left, so answers go on through a D1 outage for at least that many rows.
 */
import type { Statement } from "../../db/batch";
import type { DB } from "../../db/client";
import { type LeasedTable, leaseIdsStatements } from "../../db/id-leases";
import type { EventState } from "./state";

/** Per table: how many ids one lease takes, and below how many left the next is taken (ids are plenty: a group's range is 10¹²). */
export const LEASES: Record<LeasedTable, { size: number; low: number }> = {
  checkins: { size: 1_000, low: 500 },
  orders: { size: 200, low: 100 },
  order_positions: { size: 1_000, low: 500 },
  order_fees: { size: 200, low: 100 },
  order_payments: { size: 200, low: 100 },
};

/** The tables an order's answer takes ids of. */
export const ORDER_TABLES: readonly LeasedTable[] = ["orders", "order_positions", "order_fees", "order_payments"];

export function createIdLeaseTable(sql: SqlStorage): void {
  sql.exec(
    "CREATE TABLE IF NOT EXISTS id_leases (name TEXT PRIMARY KEY, next INTEGER NOT NULL, last INTEGER NOT NULL)",
  );
}

function left(s: EventState, table: LeasedTable): { next: number; last: number } | undefined {
  return [...s.sql.exec<{ next: number; last: number }>("SELECT next, last FROM id_leases WHERE name = ?", table)][0];
}

/** How many ids of `table` the object holds. */
export function idsLeft(s: EventState, table: LeasedTable): number {
  const lease = left(s, table);
  return lease ? Math.max(0, lease.last - lease.next + 1) : 0;
}

/** `n` ids of `table` from the held block (callers run it inside a decision's `transactionSync`), or null when fewer are left. */
export function takeIds(s: EventState, table: LeasedTable, n: number): number[] | null {
  const lease = left(s, table);
  if (!lease || lease.last - lease.next + 1 < n) return null;
  s.sql.exec("UPDATE id_leases SET next = next + ? WHERE name = ?", n, table);
  return Array.from({ length: n }, (_, i) => lease.next + i);
}

/**
 * The statements that lease a new block of each of `tables` that runs low, to go at the end of
 * a batch; `keep` stores the blocks from that batch's results (replacing what was left).
 */
export function leaseRefill(
  s: EventState,
  db: DB,
  tables: readonly LeasedTable[],
): { statements: Statement[]; keep(results: readonly unknown[]): void } {
  const low = tables.filter((t) => idsLeft(s, t) < LEASES[t].low);
  const statements = low.flatMap((t) => leaseIdsStatements(db, t, LEASES[t].size));
  return {
    statements,
    keep(results) {
      const at = results.length - statements.length;
      low.forEach((t, i) => {
        const [leased] = results[at + 2 * i + 1] as { seq: number }[];
        if (!leased) return;
        s.sql.exec(
          "INSERT OR REPLACE INTO id_leases (name, next, last) VALUES (?, ?, ?)",
          t,
          leased.seq - LEASES[t].size + 1,
          leased.seq,
        );
      });
    },
  };
}

/** The organizer moved to another database: ids leased from the old one are not used there. */
export function dropLeases(s: EventState): void {
  s.sql.exec("DELETE FROM id_leases");
}
