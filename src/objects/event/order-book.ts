/**
 * The event object's order book (rules/inventory/order-book.ts `OrderBook`): the holds of pending and paid
 * orders in the object's SQLite, one row per position in `holds` (kind 'order', beside the
 * carts' rows). Triggers keep the totals the ledger counts with (per capacity key and payment,
 * per voucher) in the statement that changes a row, so no order is kept in memory and a
 * restarted object reads none. Everything is synchronous, in the caller's `transactionSync`.
 */
import type { Hold, Key, OrderBook, OrderHold } from "../../rules/inventory";

/** The tables, indexes and triggers of the book (idempotent; `holds` is shared with the carts). */
export function createOrderBookTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS holds (
    kind TEXT NOT NULL, ref TEXT NOT NULL, idx INTEGER NOT NULL, grp TEXT,
    key TEXT NOT NULL, seat TEXT, voucher_id INTEGER, expires INTEGER, paid INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, ref, idx))`);
  sql.exec("CREATE INDEX IF NOT EXISTS holds_order_seat ON holds (seat) WHERE kind = 'order' AND seat IS NOT NULL");
  sql.exec(
    "CREATE TABLE IF NOT EXISTS order_totals (key TEXT NOT NULL, paid INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (key, paid))",
  );
  sql.exec("CREATE TABLE IF NOT EXISTS voucher_totals (voucher_id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
  const tally = (row: "new" | "old", paid: string, d: "+ 1" | "- 1") => `
    INSERT INTO order_totals (key, paid, n) VALUES (${row}.key, ${paid}, 0 ${d}) ON CONFLICT (key, paid) DO UPDATE SET n = n ${d};`;
  const vouchers = (row: "new" | "old", d: "+ 1" | "- 1") => `
    INSERT INTO voucher_totals (voucher_id, n) SELECT ${row}.voucher_id, 0 ${d} WHERE ${row}.voucher_id IS NOT NULL
      ON CONFLICT (voucher_id) DO UPDATE SET n = n ${d};`;
  sql.exec(`CREATE TRIGGER IF NOT EXISTS holds_order_in AFTER INSERT ON holds WHEN new.kind = 'order'
    BEGIN ${tally("new", "new.paid", "+ 1")} ${vouchers("new", "+ 1")} END`);
  sql.exec(`CREATE TRIGGER IF NOT EXISTS holds_order_out AFTER DELETE ON holds WHEN old.kind = 'order'
    BEGIN ${tally("old", "old.paid", "- 1")} ${vouchers("old", "- 1")} END`);
  // only the payment of an order's rows ever changes
  sql.exec(`CREATE TRIGGER IF NOT EXISTS holds_order_paid AFTER UPDATE OF paid ON holds WHEN new.kind = 'order' AND old.paid <> new.paid
    BEGIN ${tally("old", "old.paid", "- 1")} ${tally("new", "new.paid", "+ 1")} END`);
  // No totals yet (an empty book, or storage kept across versions): count once what is there.
  const totals = sql.exec<{ n: number }>("SELECT count(*) AS n FROM order_totals").one().n;
  if (totals === 0) {
    sql.exec(
      "INSERT INTO order_totals (key, paid, n) SELECT key, paid, count(*) FROM holds WHERE kind = 'order' GROUP BY key, paid",
    );
    sql.exec(
      "INSERT INTO voucher_totals (voucher_id, n) SELECT voucher_id, count(*) FROM holds WHERE kind = 'order' AND voucher_id IS NOT NULL GROUP BY voucher_id",
    );
  }
}

export class SqlOrderBook implements OrderBook {
  constructor(private readonly sql: SqlStorage) {}

  get(code: string): OrderHold | undefined {
    const rows = [
      ...this.sql.exec<{ key: string; seat: string | null; voucher_id: number | null; paid: number }>(
        "SELECT key, seat, voucher_id, paid FROM holds WHERE kind = 'order' AND ref = ? ORDER BY idx",
        code,
      ),
    ];
    if (rows.length === 0) return undefined;
    return {
      paid: rows[0]!.paid === 1,
      positions: rows.map((r): Hold => ({ key: r.key, seat: r.seat, voucherId: r.voucher_id })),
    };
  }

  add(code: string, positions: readonly Hold[], paid: boolean): void {
    positions.forEach((h, idx) =>
      this.sql.exec(
        // IGNORE: an order's rows are written once (a REPLACE would not run the delete trigger)
        "INSERT OR IGNORE INTO holds (kind, ref, idx, grp, key, seat, voucher_id, expires, paid) VALUES ('order', ?, ?, NULL, ?, ?, ?, NULL, ?)",
        code,
        idx,
        h.key,
        h.seat,
        h.voucherId,
        paid ? 1 : 0,
      ),
    );
  }

  setPaid(code: string, paid: boolean): void {
    this.sql.exec(
      "UPDATE holds SET paid = ? WHERE kind = 'order' AND ref = ? AND paid <> ?",
      paid ? 1 : 0,
      code,
      paid ? 1 : 0,
    );
  }

  remove(code: string): void {
    this.sql.exec("DELETE FROM holds WHERE kind = 'order' AND ref = ?", code);
  }

  count(key: Key): { pending: number; paid: number } {
    const out = { pending: 0, paid: 0 };
    for (const r of this.sql.exec<{ paid: number; n: number }>("SELECT paid, n FROM order_totals WHERE key = ?", key)) {
      if (r.paid === 1) out.paid = r.n;
      else out.pending = r.n;
    }
    return out;
  }

  voucherUses(voucherId: number): number {
    return [...this.sql.exec<{ n: number }>("SELECT n FROM voucher_totals WHERE voucher_id = ?", voucherId)][0]?.n ?? 0;
  }

  seatHolder(seat: string): string | undefined {
    return [
      ...this.sql.exec<{ ref: string }>("SELECT ref FROM holds WHERE kind = 'order' AND seat = ? LIMIT 1", seat),
    ][0]?.ref;
  }

  /** Positions held (pending and paid), from the totals: what a restarted object holds, read in O(keys). */
  held(): number {
    return this.sql.exec<{ n: number | null }>("SELECT sum(n) AS n FROM order_totals").one().n ?? 0;
  }
}
