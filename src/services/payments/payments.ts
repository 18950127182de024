/**
 * Payments as a resource (pretix docs orders.rst, "Order payment endpoints"): a payment recorded
 * by hand (`POST .../payments/`, `state: confirmed` confirms it at once), `confirm` and `cancel`.
 * A confirmed payment makes the order paid when the payments cover its total (pretix's
 * `OrderPayment.confirm`), through the event object, which takes capacity again for an expired
 * order; the coverage is part of the D1 write's condition, so payments confirmed at once never
 * mark an order twice, and the last of two parts marks it. Payments do not touch the ledger.
 */
import { z } from "zod";
import { findOrder, type OrderRecord, type PaymentJson } from "../../db/orders";
import { insertPayment, setPaymentState } from "../../db/payments";
import { PAYMENT_STATES } from "../../db/schema/index";
import { badRequest, changedMeanwhile, isFailure, notFound, validationError } from "../../lib/failure";
import { log } from "../../lib/log";
import { dateTime, decimal } from "../../rules/fields";
import { lastPaymentTime } from "../../rules/orders";
import { OPEN_PAYMENT_STATES, paymentAcceptanceRefusal } from "../../rules/payments";
import { refusalErrors } from "../../rules/refusals";
import { pendingSum } from "../../rules/stripe";
import type { EventContext } from "../context";
import { readAfterWrite, survivingD1Faults } from "../faults";
import { changeOrderStatus, loadOrder, notifyOrder } from "../orders/order-status";
import { eventSettingsFor } from "../events/settings";

/** pretix's body of `POST .../payments/` (`send_email` and `force` as its view reads them). */
export const paymentInput = z.object({
  state: z.enum(PAYMENT_STATES),
  amount: decimal({ min: 0 }),
  provider: z.string().trim().min(1).max(190),
  payment_date: dateTime().nullable().optional(),
  info: z.record(z.string(), z.unknown()).optional(),
  send_email: z.boolean().optional(),
  force: z.boolean().optional(),
});
export type PaymentInput = z.output<typeof paymentInput>;

export const confirmInput = z.object({ force: z.boolean().optional(), send_email: z.boolean().optional() });

const INVALID_STATE = "Invalid state of payment";

/** The order's payment of `localId`, or `not_found`. */
function paymentOf(r: OrderRecord, localId: number): PaymentJson {
  const y = r.payments.find((p) => p.local_id === localId);
  if (!y) throw notFound();
  return y;
}

/** What the order still owes once `y` counts as confirmed (pretix's `pending_sum`). */
function dueWith(r: OrderRecord, y: PaymentJson | null): number {
  const payments = r.payments.map((p) => (y && p.id === y.id ? { ...p, state: "confirmed" } : p));
  return pendingSum(r.order.total, payments, r.refunds);
}

/** The order as D1 has it after a write; `not_found` when it is gone meanwhile. */
async function reread(ctx: EventContext, code: string): Promise<OrderRecord> {
  const r = await readAfterWrite(() => findOrder(ctx.db, ctx.event.id, code));
  if (!r) throw notFound();
  return r;
}

type ConfirmOptions = { force?: boolean; sendEmail?: boolean };

/** Why the order may not become paid now (pretix's `_can_be_paid`), unless `force`. */
async function acceptance(ctx: EventContext, r: OrderRecord, force: boolean | undefined): Promise<string | null> {
  if (force) return null;
  const settings = await eventSettingsFor(ctx.db, ctx.organizer.id, ctx.event.id);
  return paymentAcceptanceRefusal(r.order, settings, lastPaymentTime(ctx.event, settings), ctx.now);
}

/**
 * One attempt to confirm `y`: when it completes the payments of a pending or expired order, the
 * payment and the order's status change together through the event object (refused for want of
 * capacity: 400, nothing changed); otherwise the payment alone. "again": the order or the
 * payment changed since they were read.
 */
async function confirmOnce(
  ctx: EventContext,
  r: OrderRecord,
  y: PaymentJson,
  opts: ConfirmOptions,
): Promise<"paid" | "confirmed" | "again"> {
  if (!OPEN_PAYMENT_STATES.includes(y.state)) throw badRequest(INVALID_STATE);
  const payable = r.order.status === "n" || r.order.status === "e";
  if (payable && dueWith(r, y) <= 0) {
    const refusal = await acceptance(ctx, r, opts.force);
    if (refusal) throw badRequest(refusal);
    const change = { from: ["n", "e"], to: "p", confirmPaymentId: y.id, force: opts.force, covered: true } as const;
    const result = await changeOrderStatus(ctx, r, { ...change, from: [...change.from] });
    if (result.ok) return "paid";
    if (result.reason === "refused") throw validationError(refusalErrors(result.refusals));
    return "again";
  }
  const facts = { paymentId: y.id, orderId: r.order.id, eventId: ctx.event.id, code: r.order.code };
  const changed = await setPaymentState(ctx.db, { ...facts, from: ["created", "pending"], to: "confirmed" }, ctx.now);
  if (!changed) return "again";
  return (await completeIfCovered(ctx, r.order.code, opts)) ? "paid" : "confirmed";
}

/**
 * After a payment was confirmed on its own: another payment confirmed at the same moment may
 * have completed the order's payments, so the order becomes paid where they now cover it (the
 * condition is checked again in the write). A refusal leaves the payment confirmed, as pretix.
 */
async function completeIfCovered(ctx: EventContext, code: string, opts: ConfirmOptions): Promise<boolean> {
  const after = await reread(ctx, code);
  if ((after.order.status !== "n" && after.order.status !== "e") || dueWith(after, null) > 0) return false;
  if (await acceptance(ctx, after, opts.force)) return false;
  const result = await changeOrderStatus(ctx, after, {
    from: ["n", "e"],
    to: "p",
    force: opts.force,
    covered: true,
  });
  if (!result.ok && result.reason === "refused")
    log.warn("a payment completed an order that could not be marked paid", { order: code });
  return result.ok;
}

/** Confirms the payment of id `paymentId` (retrying when the order changed meanwhile); the order afterwards. */
async function confirmById(ctx: EventContext, first: OrderRecord, paymentId: number, opts: ConfirmOptions) {
  let r = first;
  for (let attempt = 0; attempt < 4; attempt++) {
    const y = r.payments.find((p) => p.id === paymentId);
    if (!y) throw notFound();
    const outcome = await confirmOnce(ctx, r, y, opts);
    if (outcome !== "again") {
      const after = await reread(ctx, r.order.code);
      if (outcome === "paid" && (opts.sendEmail ?? true))
        await notifyOrder(ctx, "order_paid", after, undefined, r.invoicing.live);
      return after;
    }
    r = await reread(ctx, r.order.code);
  }
  throw changedMeanwhile("The order changed while the payment was confirmed; read it again.");
}

/** Payment `confirm` (pretix: only in state created or pending; `force`, `send_email`). The order afterwards. */
export const confirmPayment = survivingD1Faults(async function confirmPayment(
  ctx: EventContext,
  code: string,
  localId: number,
  opts: ConfirmOptions,
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  return confirmById(ctx, r, paymentOf(r, localId).id, opts);
});

/**
 * `POST .../payments/`: a payment recorded in any order status. `state: confirmed` records it
 * pending and confirms it at once; where that cannot make the order paid (no capacity for an
 * expired order, awaiting approval), it stays pending and the answer is still 201, as pretix's.
 * The payment as it is afterwards, with its order.
 */
export const createPayment = survivingD1Faults(async function createPayment(
  ctx: EventContext,
  code: string,
  input: PaymentInput,
): Promise<{ order: OrderRecord; payment: PaymentJson }> {
  const r = await loadOrder(ctx, code);
  const confirm = input.state === "confirmed";
  const created = await insertPayment(ctx.db, {
    orderId: r.order.id,
    state: confirm ? "pending" : input.state,
    amount: input.amount,
    provider: input.provider,
    paymentDate: input.payment_date ?? null,
    info: input.info ?? {},
    now: ctx.now,
  });
  if (!created) throw notFound();
  let after = await reread(ctx, code);
  if (confirm) {
    try {
      after = await confirmById(ctx, after, created.id, { force: input.force, sendEmail: input.send_email });
    } catch (e) {
      if (!isFailure(e, "invalid") && !isFailure(e, "changed")) throw e;
      after = await reread(ctx, code);
    }
  }
  return { order: after, payment: after.payments.find((p) => p.id === created.id)! };
});

/** Payment `cancel` (pretix: only in state created or pending). The order afterwards. */
export const cancelPayment = survivingD1Faults(async function cancelPayment(
  ctx: EventContext,
  code: string,
  localId: number,
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  const y = paymentOf(r, localId);
  if (!OPEN_PAYMENT_STATES.includes(y.state)) throw badRequest(INVALID_STATE);
  const facts = { paymentId: y.id, orderId: r.order.id, eventId: ctx.event.id, code: r.order.code };
  if (!(await setPaymentState(ctx.db, { ...facts, from: ["created", "pending"], to: "canceled" }, ctx.now)))
    throw badRequest(INVALID_STATE);
  return reread(ctx, code);
});
