/**
 * The orders each on-sale queue admission has placed (docs/onsale-queue.md "Sales behind the
 * queue"), in the object's SQLite: checked and counted in the same synchronous transaction that
 * places the order, so an admission used from many places at once places at most its allowed
 * orders. A row outlives nothing: once its admission expired, no order can count against it.
 */
import type { EventState } from "./state";
import type { AdmissionClaim } from "./types";

export function createAdmissionTables(sql: SqlStorage): void {
  sql.exec(
    `CREATE TABLE IF NOT EXISTS queue_admissions (
      queue INTEGER NOT NULL, admission TEXT NOT NULL, orders INTEGER NOT NULL, expires INTEGER NOT NULL,
      PRIMARY KEY (queue, admission))`,
  );
  sql.exec("CREATE INDEX IF NOT EXISTS queue_admissions_expires ON queue_admissions (expires)");
}

/** Whether the admission may place one more order at `now` (call inside the deciding transaction). */
export function admissionHasRoom(s: EventState, a: AdmissionClaim, now: number): boolean {
  if (a.expires <= now) return false;
  const [row] = s.sql
    .exec<{ orders: number }>(
      "SELECT orders FROM queue_admissions WHERE queue = ? AND admission = ?",
      a.queueId,
      a.admissionId,
    )
    .toArray();
  return (row?.orders ?? 0) < a.ordersAllowed;
}

/** Counts an order placed with the admission; drops the rows of admissions that expired. */
export function countAdmissionOrder(s: EventState, a: AdmissionClaim, now: number): void {
  s.sql.exec("DELETE FROM queue_admissions WHERE expires <= ?", now);
  s.sql.exec(
    `INSERT INTO queue_admissions (queue, admission, orders, expires) VALUES (?, ?, 1, ?)
     ON CONFLICT (queue, admission) DO UPDATE SET orders = orders + 1`,
    a.queueId,
    a.admissionId,
    a.expires,
  );
}

/** An order counted but not placed (D1 did not write it): the admission may place it again. */
export function uncountAdmissionOrder(s: EventState, a: AdmissionClaim): void {
  s.sql.exec(
    "UPDATE queue_admissions SET orders = orders - 1 WHERE queue = ? AND admission = ? AND orders > 0",
    a.queueId,
    a.admissionId,
  );
}
