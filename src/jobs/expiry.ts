/**
 * Pending orders past their payment term expire (event setting
 * payment_term_expire_automatically, default on) and free their capacity — through the
 * event object, like every status change.
 */
import type { DB } from "../db/client";
import { eventSettingsFor } from "../db/events";
import { orderDemands, overdueOrders } from "../db/orders";
import type { Env } from "../env";
import { inventoryStamp, withEventObject } from "../objects/client";

export async function expireOverdueOrders(env: Env, db: DB, now: number): Promise<number> {
  const overdue = await overdueOrders(db, now);
  if (overdue.length === 0) return 0;
  const byEvent = Map.groupBy(overdue, (o) => o.eventId);
  const demands = await orderDemands(db, overdue.map((o) => o.id));
  let expired = 0;
  for (const [eventId, list] of byEvent) {
    const settings = await eventSettingsFor(db, list[0]!.organizerId, eventId);
    if (settings.payment_term_expire_automatically === false) continue;
    const stamp = await inventoryStamp(db, eventId);
    for (const o of list) {
      try {
        const r = await withEventObject<{ ok: boolean; changed?: boolean }>(env, eventId, (s) =>
          s.changeOrderStatus(stamp, { orderId: o.id, code: o.code, from: ["n"], to: "e", demands: demands.get(o.id)!, cancelPayments: false }),
        );
        if (r.ok && r.changed) expired++;
      } catch (e) {
        console.error(`expiring order ${o.code} of event ${eventId} failed; next run retries`, e);
      }
    }
  }
  return expired;
}
