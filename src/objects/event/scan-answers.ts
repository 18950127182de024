/**
 * What the object keeps to answer a scan from its own storage (docs/scaling.md "Scans answered
 * at the event's object"): each ticket as D1 last showed it to a scan, valid while the products'
 * stamp is the one it was read under; and the D1 ids of the ticket's check-ins (a new one comes
 * from the object's leased block, id-leases.ts). The answer takes the order's status, the ticket's secret and
 * answers, and the check-ins from the object, which decides them.
 */
import type { CheckinJson } from "../../db/checkin/passages";
import type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
import type { Answer } from "../../db/schema";
import type { TicketFacts } from "../../rules/checkin";
import type { EventState } from "./state";

export function createScanAnswerTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS scan_rows (ticket_id INTEGER PRIMARY KEY, order_code TEXT NOT NULL,
    stamps TEXT NOT NULL, row TEXT NOT NULL)`);
  sql.exec("CREATE INDEX IF NOT EXISTS scan_rows_order ON scan_rows (order_code)");
  sql.exec("CREATE TABLE IF NOT EXISTS checkin_ids (uid TEXT PRIMARY KEY, id INTEGER NOT NULL)");
}

/** What a row depends on besides its order: the products (attention, texts, tickets), as D1's stamp says. */
const stampsKey = (s: EventState) => String(s.config.stamps.items ?? 0);

/** Keeps tickets as D1 showed them (under the configuration the object has now). */
export function rememberRows(s: EventState, rows: readonly CheckinPositionRow[]): void {
  const stamps = stampsKey(s);
  for (const r of rows) {
    const { checkins: _, ...row } = r;
    s.sql.exec(
      "INSERT OR REPLACE INTO scan_rows (ticket_id, order_code, stamps, row) VALUES (?, ?, ?, ?)",
      r.id,
      r.orderCode,
      stamps,
      JSON.stringify(row),
    );
  }
}

/** The order's tickets changed in D1 (status, secrets): their rows are read again when next needed. */
export function forgetRowsOfOrder(s: EventState, code: string): void {
  s.sql.exec("DELETE FROM scan_rows WHERE order_code = ?", code);
}

/** A ticket changed (secret, block): its row is read again when next needed. */
export function forgetRow(s: EventState, ticketId: number): void {
  s.sql.exec("DELETE FROM scan_rows WHERE ticket_id = ?", ticketId);
}

/** Keeps the D1 ids of check-ins (by uid). */
export function rememberCheckinIds(s: EventState, ids: readonly { uid: string; id: number }[]): void {
  for (const c of ids) s.sql.exec("INSERT OR REPLACE INTO checkin_ids (uid, id) VALUES (?, ?)", c.uid, c.id);
}

/**
 * The ticket as a scan's answer shows it, from the object's storage alone: its row, with the
 * order's status, the ticket's secret and answers as the object has them, and its check-ins on
 * the list. null when the object lacks a piece (no row under the current configuration, a
 * check-in without its D1 id): the scan is then answered after D1 as before.
 */
export function localPosition(
  s: EventState,
  ticket: TicketFacts,
  listId: number,
  answers: Answer[] | null,
): CheckinPositionRow | null {
  const [stored] = [
    ...s.sql.exec<{ row: string; stamps: string }>("SELECT row, stamps FROM scan_rows WHERE ticket_id = ?", ticket.id),
  ];
  if (!stored || stored.stamps !== stampsKey(s)) return null;
  const order = s.ci.order(ticket.orderCode);
  if (!order) return null;
  const checkins: CheckinJson[] = [];
  for (const p of s.ci.passages(ticket.id, listId)) {
    const [known] = [...s.sql.exec<{ id: number }>("SELECT id FROM checkin_ids WHERE uid = ?", p.uid)];
    if (!known) return null;
    checkins.push({
      id: known.id,
      list: listId,
      type: p.type,
      datetime: p.datetime,
      device: p.deviceId,
      auto_checked_in: p.auto ? 1 : 0,
    });
  }
  checkins.sort((a, b) => a.datetime - b.datetime || a.id - b.id);
  const row = JSON.parse(stored.row) as Omit<CheckinPositionRow, "checkins">;
  return {
    ...row,
    orderStatus: order.status,
    secret: ticket.secret,
    answers: JSON.stringify(answers ?? ticket.answers),
    checkins: JSON.stringify(checkins),
  };
}
