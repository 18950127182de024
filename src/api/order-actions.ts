/**
 * Order state changes and order mails, shared by the orders API and the customer-facing
 * payment pages: both go through the event object (the one door for status changes) and need
 * only the bindings, the database and the event, not a request of either kind.
 */
import type { DB } from "../db/client";
import { eventSettingsFor } from "../db/events";
import { itemNames } from "../db/items";
import { mailInsertStatement } from "../db/mail";
import type { OrderRecord } from "../db/orders";
import type { GiftCardDebit } from "../db/payments";
import type { OrderStatus } from "../db/schema";
import type { Demand, Refusal } from "../domain/inventory";
import { dispatchMail } from "../domain/mail";
import { orderMail } from "../domain/order-mails";
import type { Env } from "../env";
import type { EventRow, OrganizerRow } from "../http/context";
import { i18nText } from "../lib/i18n";
import { inventoryStamp, withEventObject } from "../objects/client";
import type { Decision } from "../objects/event-object";

export type OrderScope = { env: Env; db: DB; event: EventRow };

export function demandsOf(r: OrderRecord): Demand[] {
  return r.positions
    .filter((p) => p.canceled !== 1)
    .map((p) => ({ itemId: p.item, variationId: p.variation, subeventId: p.subevent, seat: p.seat, voucherId: p.voucher }));
}

export type StatusChange = {
  from: OrderStatus[];
  to: OrderStatus;
  confirmPaymentId?: number;
  cancelPayments?: boolean;
  force?: boolean;
  giftCard?: GiftCardDebit;
};

/**
 * `refused`: the event object has no capacity for an order that needs it again (expired or
 * canceled → pending or paid). `unchanged`: the order's status (or, for a gift card, the card
 * or the payment) changed meanwhile, so the conditional write did nothing.
 */
export type StatusResult = { ok: true } | { ok: false; reason: "refused"; refusals: Refusal[] } | { ok: false; reason: "unchanged" };

/**
 * Moves an order through the event object. The caller checked that its status is one of
 * `from`; the object checks again, atomically with the write. Failures of the object itself
 * throw (409/503 from withEventObject).
 */
export async function changeOrderStatus(scope: OrderScope, r: OrderRecord, change: StatusChange): Promise<StatusResult> {
  const stamp = await inventoryStamp(scope.db, scope.event.id);
  const decision = await withEventObject<Decision & { changed?: boolean }>(scope.env, scope.event.id, (s) =>
    s.changeOrderStatus(stamp, {
      orderId: r.order.id,
      code: r.order.code,
      from: change.from,
      to: change.to,
      demands: demandsOf(r),
      confirmPaymentId: change.confirmPaymentId ?? null,
      cancelPayments: change.cancelPayments ?? false,
      ignoreQuota: change.force ?? false,
      giftCard: change.giftCard ?? null,
    }),
  );
  if (!decision.ok) return { ok: false, reason: "refused", refusals: decision.refusals };
  if (!decision.changed) return { ok: false, reason: "unchanged" };
  return { ok: true };
}

/**
 * Queues a mail about an order that changed (after the change; a failure is logged, not fatal).
 * `settings`: the event's effective settings when the caller has them already.
 */
export async function notifyOrder(
  scope: OrderScope & { organizer: Pick<OrganizerRow, "id" | "name"> },
  kind: "order_paid" | "order_canceled",
  r: OrderRecord,
  url: string,
  known?: Record<string, unknown>,
): Promise<void> {
  if (!r.order.email) return;
  const { event, organizer: org, db } = scope;
  try {
    const [items, settings] = await Promise.all([itemNames(db, event.id), known ?? eventSettingsFor(db, org.id, event.id)]);
    const mail = orderMail(
      kind,
      {
        organizerId: org.id,
        organizerName: org.name,
        eventId: event.id,
        eventName: event.name,
        locale: r.order.locale,
        code: r.order.code,
        email: r.order.email,
        url,
        total: r.order.total,
        currency: event.currency,
        lines: r.positions.filter((p) => p.canceled !== 1).map((p) => ({ name: i18nText(items.get(p.item) ?? {}, r.order.locale), price: p.price })),
        fromName: (settings.mail_from_name as string | null) ?? null,
        replyTo: (settings.contact_mail as string | null) ?? null,
      },
      Date.now(),
    );
    const [row] = await mailInsertStatement(db, mail);
    await dispatchMail(scope.env, [row!.id]);
  } catch (e) {
    console.error(`mail about order ${r.order.code} could not be queued`, e);
  }
}
