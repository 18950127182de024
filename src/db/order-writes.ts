/**
 * The order writes of the event object: a new order's statements (one batch), whether D1 has an
 * order, and the memberships a paid order grants.
 */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Statement } from "./batch";
import type { DB } from "./client";
import { p, rowInsert } from "./fixed";
import { touchInventory } from "./inventory";
import { mailInsertStatement, type MailInsert } from "./mail";
import { reconcileTransactions } from "./transactions";
import { orderPlacedNotification } from "./webhooks";
import {
  cartPositions,
  memberships,
  orderFees,
  orderPayments,
  orderPositions,
  orders,
  quotas,
  vouchers,
} from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type OrderInsert = typeof orders.$inferInsert;
/**
 * A position row; `addonToPositionid` refers to another position of the same order. Its copy of
 * the order's status and its sort name are derived here (`positionRows`).
 */
export type PositionInsert = Omit<
  typeof orderPositions.$inferInsert,
  "orderId" | "addonTo" | "orderStatus" | "sortName"
> & { addonToPositionid: number | null };
export type FeeInsert = Omit<typeof orderFees.$inferInsert, "orderId">;
export type PaymentInsert = Omit<typeof orderPayments.$inferInsert, "orderId">;

export type OrderWrite = {
  order: OrderInsert;
  positions: PositionInsert[];
  fees: FeeInsert[];
  payments: PaymentInsert[];
  consumeCartIds: string[];
  mails: MailInsert[];
};

const orderIdOf = (eventId: number, code: string) =>
  sql<number>`(SELECT id FROM orders WHERE event_id = ${eventId} AND code = ${code})`;

// The inserts of a new order's rows, built once per shape of row (db/fixed.ts); the order's id is found by event and code.
const ORDER_ID = sql`(SELECT id FROM orders WHERE event_id = ${p("_eventId")} AND code = ${p("_code")})`;
const insertOrder = rowInsert(orders);
const insertPosition = rowInsert(orderPositions, { orderId: ORDER_ID });
const insertAddonPosition = rowInsert(orderPositions, {
  orderId: ORDER_ID,
  addonTo: sql`(SELECT p2.id FROM order_positions p2 WHERE p2.order_id = ${ORDER_ID} AND p2.positionid = ${p("_base")})`,
});
const insertPayment = rowInsert(orderPayments, { orderId: ORDER_ID });

/** The statements that write a new order, atomically in one batch (`extra`: the object's own, e.g. automatic check-ins, before the mails). */
export function orderWriteStatements(
  db: DB,
  w: OrderWrite,
  voucherUses: Map<number, number>,
  closedQuotaIds: number[],
  now: number,
  extra: Statement[] = [],
) {
  const eventId = w.order.eventId;
  const orderId = orderIdOf(eventId, w.order.code);
  const ofOrder = { _eventId: eventId, _code: w.order.code };
  const stmts: Statement[] = [insertOrder(db, w.order)];
  const byNumber = new Map(w.positions.map((p) => [p.positionid, p]));
  for (const { addonToPositionid, ...row } of w.positions) {
    const base = addonToPositionid === null ? undefined : byNumber.get(addonToPositionid);
    const full = { ...row, orderStatus: w.order.status, sortName: sortNameOf(row.attendeeName, base?.attendeeName) };
    // one row per statement, bases before their add-ons: an add-on's subquery must see its base
    stmts.push(
      addonToPositionid === null
        ? insertPosition(db, { ...full, addonTo: null }, ofOrder)
        : insertAddonPosition(db, full, { ...ofOrder, _base: addonToPositionid }),
    );
  }
  // one row per statement, bases before their add-ons: an add-on's subquery must see its base
  for (const part of chunks(
    w.fees.map((f) => ({ ...f, orderId })),
    5,
  ))
    stmts.push(db.insert(orderFees).values(part));
  // what the order owes, in the ledger (as of its placement)
  stmts.push(reconcileTransactions(db, orderId, w.order.datetime, now));
  for (const payment of w.payments) stmts.push(insertPayment(db, payment, ofOrder));
  for (const [voucherId, n] of voucherUses) {
    stmts.push(
      db
        .update(vouchers)
        .set({ redeemed: sql`${vouchers.redeemed} + ${n}` })
        .where(and(eq(vouchers.id, voucherId), eq(vouchers.eventId, eventId))),
    );
  }
  for (const part of chunks(w.consumeCartIds, MAX_PARAMS - 5)) {
    stmts.push(
      db.delete(cartPositions).where(and(eq(cartPositions.eventId, eventId), inArray(cartPositions.cartId, part))),
    );
  }
  if (closedQuotaIds.length) {
    stmts.push(
      db
        .update(quotas)
        .set({ closed: true })
        .where(and(eq(quotas.eventId, eventId), inArray(quotas.id, closedQuotaIds))),
    );
    stmts.push(touchInventory(db, eventId, now));
  }
  stmts.push(grantMembershipsStatement(db, orderId, now));
  stmts.push(...extra);
  // the webhook calls reporting the order, in the same transaction (db/webhooks.ts)
  stmts.push(
    orderPlacedNotification(
      db,
      { eventId, code: w.order.code, status: w.order.status, requireApproval: w.order.requireApproval ?? false },
      now,
    ),
  );
  // mails last: the event object reads their ids from the end of the batch's results
  for (const m of w.mails) stmts.push(mailInsertStatement(db, m));
  return stmts;
}

/** The name lists sort a position by: its own (if not empty), else its base position's (`base`: undefined when it is none). */
export function sortNameOf(own: string | null | undefined, base: string | null | undefined): string | null {
  return own ? own : (base ?? null);
}

export async function orderExists(db: DB, eventId: number, code: string): Promise<boolean> {
  const row = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.eventId, eventId), eq(orders.code, code)))
    .get();
  return row !== undefined;
}

/**
 * Grants the memberships that paid positions of an order earn (items with
 * `grant_membership_type`, orders with a customer), once per position: one statement,
 * idempotent, run in the same batch as the change that makes the order paid. Duration: the
 * (sub-)event's dates with `grant_membership_duration_like_event`, else from now on for the
 * item's months and days.
 */
export function grantMembershipsStatement(db: DB, orderId: SQL | number, now: number) {
  // drizzle lists every column of the table, id first: NULL lets SQLite assign it
  return db.insert(memberships).select(sql`
    SELECT NULL, e.organizer_id, o.customer_id, i.grant_membership_type_id, o.testmode,
      CASE WHEN i.grant_membership_duration_like_event THEN coalesce(s.date_from, e.date_from) ELSE ${now} END,
      CASE WHEN i.grant_membership_duration_like_event
        THEN coalesce(s.date_to, s.date_from, e.date_to, e.date_from)
        ELSE CAST(unixepoch(datetime(${now} / 1000, 'unixepoch', '+' || i.grant_membership_duration_months || ' months', '+' || i.grant_membership_duration_days || ' days')) AS INTEGER) * 1000
      END,
      p.attendee_name_parts, p.id
    FROM order_positions p
      JOIN orders o ON o.id = p.order_id
      JOIN items i ON i.id = p.item_id
      JOIN events e ON e.id = o.event_id
      LEFT JOIN subevents s ON s.id = p.subevent_id
    WHERE o.id = ${orderId} AND o.status = 'p' AND o.customer_id IS NOT NULL AND p.canceled = 0
      AND i.grant_membership_type_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.granted_in = p.id)`);
}

/** The codes among `codes` of orders D1 has for the event. */
export async function ordersPresent(db: DB, eventId: number, codes: readonly string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const rows = await db
    .select({ code: orders.code })
    .from(orders)
    .where(and(eq(orders.eventId, eventId), inArray(orders.code, [...codes])));
  return new Set(rows.map((r) => r.code));
}

/** The order's status, and how many of its positions are not canceled. */
export function orderStatusQuery(db: DB, orderId: number) {
  return db
    .select({
      status: orders.status,
      open: sql<number>`(SELECT count(*) FROM order_positions p WHERE p.order_id = ${orderId} AND p.canceled = 0)`,
    })
    .from(orders)
    .where(eq(orders.id, orderId));
}

/** The condition "the order got status `to` at `now`" (in the batch of that status change: its tickets change with it). */
export function statusChangedAtSql(orderId: number, to: string, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM orders o WHERE o.id = ${orderId} AND o.status = ${to} AND o.last_modified = ${now})`;
}
