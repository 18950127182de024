/**
 * Pending orders past their payment term expire (event setting
 * payment_term_expire_automatically, default on) and free their capacity — through the
 * event object, like every status change.
 */
import { eq, inArray } from "drizzle-orm";
import type { DB } from "../db/client";
import { eventSettingsFor } from "../db/events";
import { overdueOrders } from "../db/orders";
import { events, orderPositions } from "../db/schema";
import type { Demand } from "../domain/inventory";
import type { Env } from "../env";
import { inventoryStamp, withEventObject } from "../objects/client";

export async function expireOverdueOrders(env: Env, db: DB, now: number): Promise<number> {
  const overdue = await overdueOrders(db, now);
  if (overdue.length === 0) return 0;
  const eventIds = [...new Set(overdue.map((o) => o.eventId))];
  const eventRows = await db.select({ id: events.id, organizerId: events.organizerId }).from(events).where(inArray(events.id, eventIds));
  let expired = 0;
  for (const ev of eventRows) {
    const settings = await eventSettingsFor(db, ev.organizerId, ev.id);
    if (settings.payment_term_expire_automatically === false) continue;
    const stamp = await inventoryStamp(db, ev.id);
    for (const o of overdue.filter((x) => x.eventId === ev.id)) {
      const positions = await db
        .select({ itemId: orderPositions.itemId, variationId: orderPositions.variationId, subeventId: orderPositions.subeventId, seat: orderPositions.seat, voucherId: orderPositions.voucherId })
        .from(orderPositions)
        .where(eq(orderPositions.orderId, o.id));
      const demands: Demand[] = positions;
      try {
        const r = await withEventObject<{ ok: boolean; changed?: boolean }>(env, ev.id, (s) =>
          s.changeOrderStatus(stamp, { orderId: o.id, code: o.code, from: ["n"], to: "e", demands, cancelPayments: false }),
        );
        if (r.ok && r.changed) expired++;
      } catch (e) {
        console.error(`expiring order ${o.code} of event ${ev.id} failed; next run retries`, e);
      }
    }
  }
  return expired;
}
