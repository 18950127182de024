/**
 * Deleting an order in test mode (pretix docs orders.rst "Deleting orders"): one batch reports
 * `pretix.event.order.deleted` to the webhooks and deletes the order with everything that
 * belongs to it (positions, fees, payments, refunds, invoices and transactions go with it by
 * their foreign keys). Only an order that holds no capacity any more (canceled or expired).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { DB } from "./client";
import { orders } from "./schema";
import { notificationStatement, ORDER_ACTIONS } from "./webhooks";

/** The batch: the notification, then the delete returning the order's id (none: not deleted). */
export function deleteTestOrderStatement(db: DB, eventId: number, orderId: number, code: string, now: number) {
  const deletable = sql`EXISTS (SELECT 1 FROM orders o WHERE o.id = ${orderId} AND o.event_id = ${eventId}
    AND o.testmode = 1 AND o.status IN ('c', 'e'))`;
  return [
    notificationStatement(db, { eventId, code, actions: [ORDER_ACTIONS.deleted], now, condition: deletable }),
    db
      .delete(orders)
      .where(
        and(
          eq(orders.id, orderId),
          eq(orders.eventId, eventId),
          eq(orders.testmode, true),
          inArray(orders.status, ["c", "e"]),
        ),
      )
      .returning({ id: orders.id }),
  ] as const;
}
