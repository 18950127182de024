/**
 * pretix's order state operations beyond paying and canceling (pretix docs orders.rst "Order
 * state operations"): `approve`, `deny`, `extend`, `reactivate`, `mark_pending`,
 * `mark_refunded`. Each is a status change through the event object (order-status.ts
 * `transition`): what takes capacity again (an expired order extended, a canceled one
 * reactivated) or frees it (a denial) is decided there, in one step with the D1 write, and the
 * ledger of transactions is booked in the same batch.
 */
import { ORDER_ACTIONS } from "../../db/webhooks";
import { createPayment, deleteOpenPayment } from "../../db/payments";
import type { OrderRecord } from "../../db/orders";
import { parseDate, zonedTimeToUtc } from "../../lib/datetime";
import { badRequest, changedMeanwhile, isFailure } from "../../lib/failure";
import type { EventContext } from "../context";
import { survivingD1Faults } from "../faults";
import { loadOrder, notifyOrder, transition } from "./order-status";
import { cancellationChanges } from "../tickets/ticket-changes";

const NOT_PENDING_APPROVAL = "This order is not pending approval.";

function checkPendingApproval(r: OrderRecord): void {
  if (!r.order.requireApproval || r.order.status !== "n") throw badRequest(NOT_PENDING_APPROVAL);
}

/**
 * `approve`: an order waiting for approval may be paid now (`require_approval` false, still
 * pending); a free one is paid at once with a `free` payment, as pretix does. It keeps the
 * capacity it held while it waited.
 */
export const approveOrder = survivingD1Faults(async function approveOrder(
  ctx: EventContext,
  code: string,
  opts: { sendEmail?: boolean },
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  checkPendingApproval(r);
  const extra = { requireApproval: false, whileRequireApproval: true };
  let after: OrderRecord;
  if (r.order.total === 0) {
    const payment = await createPayment(ctx.db, {
      orderId: r.order.id,
      provider: "free",
      amount: 0,
      now: ctx.now,
      cancelOpen: false,
    });
    if (payment === null) throw changedMeanwhile("The order changed its status meanwhile; read it again.");
    try {
      after = await transition(ctx, r, {
        from: ["n"],
        to: "p",
        confirmPaymentId: payment.id,
        extra: {
          ...extra,
          actions: [ORDER_ACTIONS.approved, ORDER_ACTIONS.paymentConfirmed, ORDER_ACTIONS.paid],
        },
      });
    } catch (e) {
      if (isFailure(e) && (e.code === "invalid" || e.code === "changed")) await deleteOpenPayment(ctx.db, payment.id);
      throw e;
    }
  } else {
    after = await transition(ctx, r, { from: ["n"], to: "n", extra: { ...extra, actions: [ORDER_ACTIONS.approved] } });
  }
  if (opts.sendEmail ?? true) await notifyOrder(ctx, "order_approved", after);
  return after;
});

/** `deny`: an order waiting for approval is canceled (`require_approval` stays true) and frees its capacity. */
export const denyOrder = survivingD1Faults(async function denyOrder(
  ctx: EventContext,
  code: string,
  opts: { sendEmail?: boolean; comment?: string },
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  checkPendingApproval(r);
  const tickets = await cancellationChanges(ctx, r);
  const after = await transition(ctx, r, {
    from: ["n"],
    to: "c",
    cancelPayments: true,
    tickets,
    extra: { whileRequireApproval: true, actions: [ORDER_ACTIONS.denied] },
  });
  if (opts.sendEmail ?? true)
    await notifyOrder(ctx, "order_denied", after, undefined, 0, opts.comment ? opts.comment : undefined);
  return after;
});

/** `mark_pending`: a paid order is unpaid again; it keeps its capacity. */
export const markOrderPending = survivingD1Faults(async function markOrderPending(
  ctx: EventContext,
  code: string,
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  if (r.order.status !== "p") throw badRequest("The order is not paid.");
  return transition(ctx, r, { from: ["p"], to: "n" });
});

/** `mark_refunded`: a paid order is canceled (pretix's `mark_order_refunded`: no mail) and frees its capacity. */
export const markOrderRefunded = survivingD1Faults(async function markOrderRefunded(
  ctx: EventContext,
  code: string,
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  if (r.order.status !== "p") throw badRequest("The order is not paid.");
  const tickets = await cancellationChanges(ctx, r);
  return transition(ctx, r, { from: ["p"], to: "c", cancelPayments: true, tickets });
});

/** pretix's `extend` takes a date: the term ends at 23:59:59 of that day in the event's time zone. */
export function endOfDay(text: string, timeZone: string): number | null {
  const d = parseDate(text);
  return d ? zonedTimeToUtc(timeZone, d[0], d[1], d[2], 23, 59, 59) : null;
}

/**
 * `extend`: a pending order gets a new payment term; an expired one is pending again with it,
 * only if the event object can give it its capacity again (or with `force`).
 */
export const extendOrder = survivingD1Faults(async function extendOrder(
  ctx: EventContext,
  code: string,
  input: { expires: string; force?: boolean },
): Promise<OrderRecord> {
  const expires = endOfDay(input.expires, ctx.event.timezone);
  if (expires === null) throw badRequest("New date is invalid.");
  if (expires < ctx.now) throw badRequest("The new expiry date needs to be in the future.");
  const r = await loadOrder(ctx, code);
  if (r.order.status !== "n" && r.order.status !== "e")
    throw badRequest("The order cannot be extended in its current status.");
  // the same term again: nothing to change
  if (r.order.status === "n" && r.order.expires === expires) return r;
  return transition(ctx, r, {
    from: [r.order.status],
    to: "n",
    force: input.force,
    extra: { expires, actions: [ORDER_ACTIONS.expiryChanged] },
  });
});

/**
 * `reactivate`: a canceled order is pending again (paid, when its confirmed payments less its
 * refunds cover its total), only if the event object can give it its capacity again.
 */
export const reactivateOrder = survivingD1Faults(async function reactivateOrder(
  ctx: EventContext,
  code: string,
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  if (r.order.status !== "c") throw badRequest("The order cannot be reactivated, as it is not canceled.");
  if (r.positions.every((p) => p.canceled))
    throw badRequest("The order cannot be reactivated, as it has no positions.");
  const to = paidAmount(r) >= r.order.total && !r.order.requireApproval ? "p" : "n";
  return transition(ctx, r, { from: ["c"], to, extra: { actions: [ORDER_ACTIONS.reactivated] } });
});

/** What the order's confirmed payments bring, less its refunds done (pretix `payment_refund_sum`). */
function paidAmount(r: OrderRecord): number {
  const paid = r.payments.filter((y) => y.state === "confirmed").reduce((s, y) => s + y.amount, 0);
  const refunded = r.refunds.filter((x) => x.state === "done").reduce((s, x) => s + x.amount, 0);
  return paid - refunded;
}
