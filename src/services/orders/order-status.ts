/**
 * Order status changes (pretix docs orders.rst: `mark_paid`, `mark_canceled`, `mark_expired`,
 * payment `confirm`; the customer paying on the payment page; automatic expiry) and the mails
 * they send. Every change goes through the event object, the one door for anything that
 * changes capacity: it checks the status before the change atomically with the D1 write, and
 * takes capacity again when an expired or canceled order comes back. The orders API, the
 * payment pages and the expiry job call these same functions.
 */
import { dispatchMail, dispatchWebhooks } from "../../lib/queues";
import type { DB } from "../../db/client";
import { eventById } from "../../db/invoices";
import { mailInsertStatement } from "../../db/mail";
import { findOrder, orderDemands, overdueOrders, type OrderRecord, type PositionDemand } from "../../db/orders";
import { createPayment, deleteOpenPayment, type GiftCardDebit } from "../../db/payments";
import type { EventClaim } from "../../db/stripe";
import type { StatusExtra } from "../../db/order-actions";
import type { TicketChange } from "../../db/ticket-secrets";
import type { OrderStatus } from "../../db/schema/index";
import { orderLabels } from "../../db/storefront";
import type { EventRow, OrganizerRow } from "../../db/tenancy";
import type { Env } from "../../lib/env";
import { log } from "../../lib/log";
import { inventoryStamp, withEventObject } from "../../objects/client";
import { offerFreedCapacity } from "../waitinglist/waitinglist-assign";
import type { Decision } from "../../objects/event/types";
import { readSettled } from "./settled-reads";
import type { EventContext } from "../context";
import { readAfterWrite, survivingD1Faults } from "../faults";
import { badRequest, changedMeanwhile, isFailure, notFound, validationError } from "../../lib/failure";
import type { Demand, Refusal } from "../../rules/inventory/index";
import { orderMail, type OrderMailKind } from "../mail/order-mails";
import { OPEN_PAYMENT_STATES, ORDER_STATUS_WORDS } from "../../rules/payments";
import { refusalErrors } from "../../rules/refusals";
import { invoicesAfterOrderChange, mailCarriesInvoice } from "../invoices/invoices";
import { eventSettingsFor } from "../events/settings";
import { orderUrl } from "../../rules/urls";

/** What a status change needs: the bindings, the database and the event. */
export type OrderScope = { env: Env; db: DB; event: EventRow };

/** The one derivation of what an order's positions demand of the event object: its positions that are not canceled. */
export function demandsOf(positions: readonly (PositionDemand & { canceled: number | boolean })[]): Demand[] {
  return positions
    .filter((p) => !p.canceled)
    .map((p) => ({
      itemId: p.itemId,
      variationId: p.variationId,
      subeventId: p.subeventId,
      seat: p.seat,
      voucherId: p.voucherId,
    }));
}

/** The positions of a read order as demands. */
export function orderRecordDemands(r: OrderRecord): Demand[] {
  return demandsOf(
    r.positions.map((p) => ({
      itemId: p.item,
      variationId: p.variation,
      subeventId: p.subevent,
      seat: p.seat,
      voucherId: p.voucher,
      canceled: p.canceled,
    })),
  );
}

export type StatusChange = {
  from: OrderStatus[];
  to: OrderStatus;
  confirmPaymentId?: number;
  cancelPayments?: boolean;
  force?: boolean;
  giftCard?: GiftCardDebit;
  /** A payment provider's event that brings the change, recorded with it (services/payments/stripe-events.ts). */
  eventClaim?: EventClaim;
  /** Ticket changes written with the status (a cancellation's new secrets). */
  tickets?: TicketChange[];
  /** What the change does besides the status (db/order-actions.ts). */
  extra?: StatusExtra;
  /** The invoices are the caller's to bring in line (a change that keeps the status). */
  keepInvoices?: boolean;
  /** Paid only if the payments cover the total (pretix's payment `confirm`). */
  covered?: boolean;
};

/**
 * `refused`: the event object has no capacity for an order that needs it again (expired or
 * canceled → pending or paid). `unchanged`: the order's status (or, for a gift card, the card
 * or the payment) changed meanwhile, so the conditional write did nothing.
 */
export type StatusResult =
  | { ok: true }
  | { ok: false; reason: "refused"; refusals: Refusal[] }
  | { ok: false; reason: "unchanged" };

/**
 * Moves an order through the event object. The caller checked that its status is one of
 * `from`; the object checks again, atomically with the write. An object that cannot serve
 * fails with `unavailable` (objects/client.ts).
 */
export async function changeOrderStatus(
  scope: OrderScope,
  r: OrderRecord,
  change: StatusChange,
): Promise<StatusResult> {
  const stamp = await inventoryStamp(scope.db, scope.event.id);
  const decision = await withEventObject<Decision & { changed?: boolean }>(scope.env, scope.event, (s, call) =>
    s.changeOrderStatus(call, stamp, {
      orderId: r.order.id,
      code: r.order.code,
      from: change.from,
      to: change.to,
      demands: orderRecordDemands(r),
      confirmPaymentId: change.confirmPaymentId ?? null,
      cancelPayments: change.cancelPayments ?? false,
      ignoreQuota: change.force ?? false,
      giftCard: change.giftCard ?? null,
      eventClaim: change.eventClaim ?? null,
      tickets: change.tickets ?? [],
      ...(change.extra ? { extra: change.extra } : {}),
      covered: change.covered ?? false,
    }),
  );
  if (!decision.ok) return { ok: false, reason: "refused", refusals: decision.refusals };
  if (!decision.changed) return { ok: false, reason: "unchanged" };
  // paid: the invoice of the automatic modes; canceled or expired: cancellations of its invoices
  if (!change.keepInvoices)
    await invoicesAfterOrderChange(
      { env: scope.env, db: scope.db, event: scope.event, now: Date.now() },
      r.order.code,
      change.to,
      { invoicing: r.invoicing },
    );
  // the change's webhook calls were written with it; the queue delivers them
  dispatchWebhooks(scope.env, [{ eventId: scope.event.id, code: r.order.code }]);
  // capacity freed: the waiting list's next entries may get vouchers
  if (change.to === "c" || change.to === "e") await offerFreedCapacity(scope);
  return { ok: true };
}

// ---- the order actions of the API ----

const CHANGED_MEANWHILE = "The order changed its status meanwhile; read it again.";

/**
 * The order of `code` in the context's event, or `not_found`; one the event's object answered
 * moments ago is found too (settled-reads.ts).
 */
export async function loadOrder(ctx: Pick<EventContext, "db" | "event" | "env">, code: string): Promise<OrderRecord> {
  const r = await readSettled(
    ctx,
    [ctx.event],
    (db) => findOrder(db, ctx.event.id, code),
    (x) => x !== undefined,
  );
  if (!r) throw notFound();
  return r;
}

export function checkStatus(r: OrderRecord, from: OrderStatus[], to: OrderStatus): void {
  if (!from.includes(r.order.status)) {
    throw badRequest(
      `The order cannot be marked as ${ORDER_STATUS_WORDS[to]} in its current status (${r.order.status}).`,
    );
  }
}

/** Moves an order from one of `from` to `to`; the order as it is afterwards. */
export async function transition(ctx: EventContext, r: OrderRecord, change: StatusChange): Promise<OrderRecord> {
  checkStatus(r, change.from, change.to);
  const result = await changeOrderStatus(ctx, r, change);
  if (!result.ok) {
    if (result.reason === "refused") throw validationError(refusalErrors(result.refusals));
    throw changedMeanwhile(CHANGED_MEANWHILE);
  }
  return (await readAfterWrite(() => findOrder(ctx.db, ctx.event.id, r.order.code)))!;
}

/** `mark_paid`: confirms the order's open payment, or records a manual one, and the order becomes paid. */
export const markOrderPaid = survivingD1Faults(async function markOrderPaid(
  ctx: EventContext,
  code: string,
  opts: { force?: boolean; sendEmail?: boolean },
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  checkStatus(r, ["n", "e"], "p");
  const open = r.payments.find((y) => OPEN_PAYMENT_STATES.includes(y.state))?.id;
  let created: number | null = null;
  if (open === undefined) {
    const payment = await createPayment(ctx.db, {
      orderId: r.order.id,
      provider: "manual",
      amount: r.order.total,
      now: ctx.now,
      cancelOpen: false,
    });
    if (payment === null) throw changedMeanwhile(CHANGED_MEANWHILE);
    created = payment.id;
  }
  let after: OrderRecord;
  try {
    after = await transition(ctx, r, {
      from: ["n", "e"],
      to: "p",
      confirmPaymentId: open ?? created!,
      force: opts.force,
    });
  } catch (e) {
    // Refused for good (no capacity, or the order changed meanwhile): the payment made for this
    // call goes again. Not when the event object could not answer: it may still confirm it.
    if (created !== null && isFailure(e) && (e.code === "invalid" || e.code === "changed"))
      await deleteOpenPayment(ctx.db, created);
    throw e;
  }
  if (opts.sendEmail ?? true) await notifyOrder(ctx, "order_paid", after, undefined, r.invoicing.live);
  return after;
});

/** `mark_expired`: a pending order expires and frees its capacity. */
export const markOrderExpired = survivingD1Faults(async function markOrderExpired(
  ctx: EventContext,
  code: string,
): Promise<OrderRecord> {
  return transition(ctx, await loadOrder(ctx, code), { from: ["n"], to: "e" });
});

// ---- mails ----

/**
 * Queues a mail about an order that changed (after the change; a failure is logged, not fatal).
 * `settings`: the event's effective settings when the caller has them already;
 * `liveInvoicesBefore`: the order's live invoices before the change (a paid mail carries the
 * invoice the payment created, with `invoice_email_attachment`).
 */
export async function notifyOrder(
  ctx: OrderScope & { organizer: Pick<OrganizerRow, "id" | "name" | "slug">; baseUrl: string },
  kind: OrderMailKind,
  r: OrderRecord,
  known?: Record<string, unknown>,
  liveInvoicesBefore = 0,
  comment?: string,
): Promise<void> {
  if (!r.order.email) return;
  const { event, organizer: org, db } = ctx;
  try {
    const positions = r.positions.filter((p) => p.canceled !== 1);
    const ids = (xs: (number | null)[]) => [...new Set(xs.filter((x): x is number => x !== null))];
    const [labels, settings] = await Promise.all([
      orderLabels(db, event.id, ids(positions.map((p) => p.item)), ids(positions.map((p) => p.variation)), []),
      known ?? eventSettingsFor(db, org.id, event.id),
    ]);
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
        url: orderUrl(ctx.baseUrl, org.slug, event.slug, r.order.code, r.order.secret),
        total: r.order.total,
        currency: event.currency,
        lines: positions.map((p) => ({
          item: labels.items.get(p.item) ?? {},
          variation: p.variation !== null ? (labels.variations.get(p.variation) ?? null) : null,
          price: p.price,
        })),
        fromName: (settings.mail_from_name as string | null) ?? null,
        replyTo: (settings.contact_mail as string | null) ?? null,
        attachInvoice: kind === "order_paid" && mailCarriesInvoice(settings, r.order, "p", liveInvoicesBefore),
        paid: r.order.status === "p",
        comment,
      },
      Date.now(),
    );
    const [row] = await mailInsertStatement(db, mail);
    await dispatchMail(ctx.env, [row!.id]);
  } catch (e) {
    log.error("order mail could not be queued", { order: r.order.code, mail_kind: kind, error: e });
  }
}

// ---- automatic expiry ----

/**
 * Pending orders past their payment term expire (event setting payment_term_expire_automatically,
 * default on) and free their capacity, through the event object like every status change.
 * Returns how many expired. An event object that cannot serve is left for the next run.
 */
export async function expireOverdueOrders(env: Env, db: DB, now: number): Promise<number> {
  const overdue = await overdueOrders(db, now);
  if (overdue.length === 0) return 0;
  const byEvent = Map.groupBy(overdue, (o) => o.eventId);
  const positions = await orderDemands(
    db,
    overdue.map((o) => o.id),
  );
  const changed: { eventId: number; code: string }[] = [];
  for (const [eventId, list] of byEvent) {
    const settings = await eventSettingsFor(db, list[0]!.organizerId, eventId);
    if (settings.payment_term_expire_automatically === false) continue;
    const stamp = await inventoryStamp(db, eventId);
    let event: EventRow | undefined;
    for (const o of list) {
      try {
        const r = await withEventObject<{ ok: boolean; changed?: boolean }>(env, eventId, (s, call) =>
          s.changeOrderStatus(call, stamp, {
            orderId: o.id,
            code: o.code,
            from: ["n"],
            to: "e",
            demands: demandsOf(positions.get(o.id)!),
            cancelPayments: false,
          }),
        );
        if (r.ok && r.changed) {
          changed.push({ eventId, code: o.code });
          event ??= await eventById(db, eventId);
          if (event) await invoicesAfterOrderChange({ env, db, event, now }, o.code, "e");
        }
      } catch (e) {
        log.error("expiring an order failed; the next run retries", { event_id: eventId, order: o.code, error: e });
      }
    }
  }
  // the expiries' webhook calls were written with them; the queue delivers them
  dispatchWebhooks(env, changed);
  // capacity freed: the waiting lists' next entries may get vouchers
  for (const eventId of new Set(changed.map((c) => c.eventId))) {
    const event = await eventById(db, eventId);
    if (event) await offerFreedCapacity({ env, db, event });
  }
  return changed.length;
}
