/**
 * What the event object keeps from D1 to answer a scan without asking D1 again: the tickets of
 * an order read as scans show them, the D1 ids of their check-ins, and blocks of check-in ids
 * it hands out itself (so a check-in it answers has its id before D1 has the row).
 */
import { type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { rawRows } from "../raw";
import { inIntegers } from "../util";
import { type CheckinPositionRow, positionSelect } from "./ticket-rows";

/** The tickets of the orders `orderIds` selects (a subquery of order ids), as scans show them. */
function rowsOfOrders(db: DB, eventId: number, orderIds: SQL) {
  return rawRows<CheckinPositionRow>(
    db,
    sql`SELECT ${positionSelect([])} FROM order_positions p JOIN orders o ON o.id = p.order_id
      WHERE p.event_id = ${eventId} AND p.order_id IN (${orderIds})`,
  );
}

/** The tickets of one order (by code), as scans show them. */
export function scanRowsOfOrder(db: DB, eventId: number, code: string) {
  return rowsOfOrders(db, eventId, sql`SELECT id FROM orders WHERE event_id = ${eventId} AND code = ${code}`);
}

/** The tickets of the orders of the given tickets, as scans show them. */
export function scanRowsOfTickets(db: DB, eventId: number, ticketIds: readonly number[]) {
  return rowsOfOrders(
    db,
    eventId,
    sql`SELECT order_id FROM order_positions WHERE event_id = ${eventId} AND ${inIntegers(sql`id`, ticketIds)}`,
  );
}

/** The tickets of the orders of the ticket a scanned code names (ticketMatchSql), as scans show them. */
export function scanRowsMatching(db: DB, eventId: number, match: SQL) {
  return rowsOfOrders(db, eventId, sql`SELECT order_id FROM order_positions WHERE event_id = ${eventId} AND ${match}`);
}

/** The D1 ids of the successful check-ins of one order's tickets (by code), by uid. */
export function checkinIdsOfOrder(db: DB, eventId: number, code: string) {
  return rawRows<{ uid: string; id: number }>(
    db,
    sql`SELECT c.uid AS uid, c.id AS id FROM checkins c JOIN order_positions p ON p.id = c.position_id
      WHERE c.successful = 1 AND p.order_id = (SELECT id FROM orders WHERE event_id = ${eventId} AND code = ${code})`,
  );
}

/** The D1 ids of the successful check-ins of the orders of the given tickets, by uid. */
export function checkinIdsOfTickets(db: DB, eventId: number, ticketIds: readonly number[]) {
  return rawRows<{ uid: string; id: number }>(
    db,
    sql`SELECT c.uid AS uid, c.id AS id FROM checkins c JOIN order_positions p ON p.id = c.position_id
      WHERE c.successful = 1 AND p.order_id IN (SELECT order_id FROM order_positions WHERE event_id = ${eventId} AND ${inIntegers(sql`id`, ticketIds)})`,
  );
}
