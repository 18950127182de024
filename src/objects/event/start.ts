/**
 * The object's start: its tables, then what a (re)started object reads to serve. The orders'
 * holds stay in storage (order-book.ts), so only the unexpired carts and the tickets that left
 * are read, whatever the event sold; then the catalog from D1. The rows the start reads from its
 * storage are counted (`ObjectStart`, a debugging aid).
 */
import { keyOf } from "../../rules/inventory";
import type { CallCounting } from "./counting";
import { createOrderBookTables } from "./order-book";
import { createAdmissionTables } from "./waiting-room-admissions";
import { createIdLeaseTable } from "./id-leases";
import { createScanAnswerTables } from "./scan-answers";
import { scheduleAlarm } from "./schedule";
import type { EventState } from "./state";
import type { ObjectStart } from "./types";

/** The object's SQLite, counting the rows that the statements made until `stop` read. */
export type StartReads = { sql: SqlStorage; stop(): number };

export function countStartReads(storage: SqlStorage): StartReads {
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  let starting = true;
  const sql = new Proxy(storage, {
    get(target, name) {
      if (name !== "exec") return Reflect.get(target, name);
      return (query: string, ...bindings: unknown[]) => {
        const cursor = target.exec(query, ...bindings);
        if (starting) cursors.push(cursor);
        return cursor;
      };
    },
  });
  return {
    sql,
    stop() {
      starting = false;
      return cursors.reduce((n, c) => n + c.rowsRead, 0);
    },
  };
}

/** The object's tables (idempotent). */
export function createTables(s: EventState): void {
  createOrderBookTables(s.sql);
  s.outbox.createTable();
  createAdmissionTables(s.sql);
  createScanAnswerTables(s.sql);
  createIdLeaseTable(s.sql);
  s.ci.createTables();
}

/** Rebuilds the ledger's carts and exited tickets from storage (expired carts are deleted); what it read. */
export function restoreHolds(s: EventState, reads: StartReads, now: number): ObjectStart {
  s.sql.exec("DELETE FROM holds WHERE kind = 'cart' AND expires <= ?", now);
  for (const r of s.sql.exec<{
    ref: string;
    grp: string | null;
    key: string;
    seat: string | null;
    voucher_id: number | null;
    expires: number | null;
  }>("SELECT ref, grp, key, seat, voucher_id, expires FROM holds WHERE kind = 'cart'")) {
    s.ledger.addCart(r.ref, r.grp ?? "", { key: r.key, seat: r.seat, voucherId: r.voucher_id }, r.expires ?? 0);
  }
  for (const t of s.ci.exitedTickets())
    s.ledger.setExited(t.id, keyOf(t.item, t.variation, t.subevent), t.orderCode, true);
  const rowsRead = reads.stop();
  return { rowsRead, heldPositions: s.book.held() };
}

/**
 * Loads the catalog from D1 (the object of an event, named by its id) and has the scheduler set
 * the alarm: now for entries a previous instance left in the outbox (their requests died with
 * it), else at the next cart expiry or automatic exit.
 */
export async function loadAndWake(s: EventState, counting: CallCounting): Promise<void> {
  if (Number.isFinite(s.eventId)) s.ledger.setCatalog(await counting.countStart(s.env, () => s.loadCatalog()));
  await scheduleAlarm(s);
}
