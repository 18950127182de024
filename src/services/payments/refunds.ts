/**
 * Refunds (pretix docs orders.rst "Order refund endpoints"): an order's refunds, and the refund of a
 * confirmed payment, sent to its provider with pretix's rules and messages (docs/payments.md). The
 * refund is recorded before it goes to Stripe, which gets its id as metadata and idempotency key:
 * Stripe's events find it, and a retried request refunds once. When money is due again (pretix's
 * `pending_sum`) the order is canceled or pending again, through the event object.
 */
import { z } from "zod";
import { type OrderRecord, type PaymentJson, type RefundJson, findOrder } from "../../db/orders";
import { changeRefund, createRefund, listRefunds, setPaidOrderExpiry } from "../../db/refunds";
import type { ListRequest } from "../../db/paging";
import { isFailure, notFound, validationError, badRequest } from "../../lib/failure";
import { log } from "../../lib/log";
import { formatMoney } from "../../lib/money";
import { money } from "../../rules/fields";
import { orderExpiry } from "../../rules/orders";
import { COUNTED_REFUND_STATES, pendingSum, refundStateOf, toStripeAmount } from "../../rules/stripe";
import type { EventContext } from "../context";
import { readAfterWrite } from "../faults";
import { markOrderCanceled } from "../orders/order-edits";
import { changeOrderStatus, loadOrder } from "../orders/order-status";
import { eventSettingsFor } from "../events/settings";
import { logStripeError, Stripe, stripeClient, stripeKeys } from "./stripe-client";

/** pretix's body of a payment's `refund`: `mark_refunded` is the older name of `mark_canceled`. */
export const refundInput = z.object({
  amount: money().optional(),
  mark_canceled: z.boolean().optional(),
  mark_refunded: z.boolean().optional(),
  comment: z.string().max(10_000).nullable().optional(),
});
export type RefundInput = z.output<typeof refundInput>;

/** A page of the order's refunds. */
export async function orderRefunds(ctx: EventContext, code: string, req: ListRequest) {
  const r = await loadOrder(ctx, code);
  return listRefunds(ctx.db, r.order.id, req);
}

/** One refund of the order, by its local id. */
export async function orderRefund(ctx: EventContext, code: string, localId: number): Promise<RefundJson> {
  const r = await loadOrder(ctx, code);
  const refund = r.refunds.find((x) => x.local_id === localId);
  if (!refund) throw notFound();
  return refund;
}

/** What the payment has left to refund (pretix: its amount minus `refunded_amount`). */
function leftOf(r: OrderRecord, y: PaymentJson): number {
  const back = r.refunds
    .filter((x) => x.payment === y.local_id && (COUNTED_REFUND_STATES as string[]).includes(x.state))
    .reduce((s, x) => s + x.amount, 0);
  return y.amount - back;
}

const tooMuch = (left: number) =>
  validationError({ amount: [`Invalid refund amount, only ${formatMoney(left)} are available to refund.`] });

/** Whether the payment's provider can send the money back: Stripe, for a payment whose PaymentIntent is known. */
function refundable(y: PaymentJson): string | null {
  return y.provider === "stripe" && typeof y.info.payment_intent === "string" ? y.info.payment_intent : null;
}

/** Creates and executes a refund of a confirmed payment; the refund as it is afterwards. */
export async function refundPayment(
  ctx: EventContext,
  code: string,
  localId: number,
  input: RefundInput,
): Promise<RefundJson> {
  const r = await loadOrder(ctx, code);
  const y = r.payments.find((p) => p.local_id === localId);
  if (!y) throw notFound();
  const amount = input.amount ?? y.amount;
  if (y.state !== "confirmed") throw badRequest("Invalid state of payment.");
  if (amount <= 0) throw validationError({ amount: ["Invalid refund amount."] });
  const left = leftOf(r, y);
  if (amount > left) throw tooMuch(left);
  const intent = refundable(y);
  if (!intent) {
    const kind = amount === y.amount ? "Full" : "Partial";
    throw validationError({ amount: [`${kind} refund not available for this payment method.`] });
  }
  const { secretKey } = await stripeKeys(ctx.env, ctx.db, ctx.organizer.id);
  if (!secretKey) throw badRequest("External error: the organizer's Stripe secret key is not set.");
  const created = await createRefund(ctx.db, {
    orderId: r.order.id,
    eventId: ctx.event.id,
    code: r.order.code,
    paymentId: y.id,
    amount,
    provider: y.provider,
    comment: input.comment ?? null,
    now: ctx.now,
  });
  if (!created) {
    // another refund took the payment's rest meanwhile
    const now = await findOrder(ctx.db, ctx.event.id, code);
    const again = now?.payments.find((p) => p.id === y.id);
    if (!now || !again || again.state !== "confirmed") throw badRequest("Invalid state of payment.");
    throw tooMuch(leftOf(now, again));
  }
  const facts = { id: created.id, orderId: r.order.id, eventId: ctx.event.id, code: r.order.code, paymentId: y.id };
  const sent = await sendRefund(ctx, secretKey, intent, amount, created.id, r.order.code);
  if (!sent.ok) {
    logStripeError("a Stripe refund failed", sent.error, { order: r.order.code, payment: y.local_id });
    await changeRefund(ctx.db, facts, { from: ["created"], to: "failed", reference: null, now: Date.now() }, null);
    throw badRequest(`External error: ${externalError(sent.error)}`);
  }
  const refund = sent.refund;
  await changeRefund(
    ctx.db,
    facts,
    { from: ["created"], to: refundStateOf(refund.status), reference: refund.id, now: Date.now() },
    null,
  );
  if (refundStateOf(refund.status) !== "failed") await afterRefund(ctx, code, input);
  const after = await readAfterWrite(() => findOrder(ctx.db, ctx.event.id, code));
  return after!.refunds.find((x) => x.id === created.id)!;
}

/** The refund sent to Stripe: its refund, or why not (Stripe refused, or could not be reached). */
async function sendRefund(
  ctx: EventContext,
  secretKey: string,
  intent: string,
  amount: number,
  refundId: number,
  code: string,
): Promise<{ ok: true; refund: Stripe.Refund } | { ok: false; error: unknown }> {
  try {
    const refund = await stripeClient(ctx.env, secretKey).refunds.create(
      {
        payment_intent: intent,
        amount: toStripeAmount(amount, ctx.event.currency),
        metadata: { refund: String(refundId), event: String(ctx.event.id), order: code },
      },
      { idempotencyKey: `refund-${refundId}` },
    );
    return { ok: true, refund };
  } catch (e) {
    return { ok: false, error: e };
  }
}

/** What the refund's answer says of Stripe's refusal: its message, never anything of a key. */
function externalError(e: unknown): string {
  if (e instanceof Stripe.errors.StripeAuthenticationError || e instanceof Stripe.errors.StripePermissionError)
    return "Stripe did not accept the organizer's secret key.";
  if (e instanceof Stripe.errors.StripeConnectionError || e instanceof Stripe.errors.StripeAPIError)
    return "Stripe could not be reached. Please try again later.";
  if (e instanceof Stripe.errors.StripeError) return e.message;
  return "The refund could not be sent to Stripe.";
}

/**
 * pretix's order after a refund: when money is due again, `mark_canceled` cancels the order
 * (without mail); otherwise a paid order is pending again with a new payment term. The refund
 * stands whatever happens here: a failure is logged, not answered.
 */
async function afterRefund(ctx: EventContext, code: string, input: RefundInput): Promise<void> {
  const r = await findOrder(ctx.db, ctx.event.id, code);
  if (!r || pendingSum(r.order.total, r.payments, r.refunds) <= 0) return;
  const cancel = input.mark_refunded ?? input.mark_canceled ?? false;
  try {
    if (cancel && (r.order.status === "n" || r.order.status === "p")) {
      await markOrderCanceled(ctx, code, { sendEmail: false });
    } else if (!cancel && r.order.status === "p") {
      await pendingAgain(ctx, r);
    }
  } catch (e) {
    if (!followFailed(e)) throw e;
    log.error("the order could not follow its refund", { order: code, error: e });
  }
}

/** The failures after which a refund stands and its order is left as it is (logged). */
export function followFailed(e: unknown): boolean {
  return isFailure(e, "unavailable") || isFailure(e, "busy") || isFailure(e, "changed") || isFailure(e, "invalid");
}

/** A paid order that owes money again after a refund is pending again, with a new payment term (pretix). */
export async function pendingAgain(ctx: EventContext, r: OrderRecord): Promise<void> {
  const settings = await eventSettingsFor(ctx.db, ctx.organizer.id, ctx.event.id);
  // the new term first, while the order is still paid (an expiry in the past would end it at once)
  await setPaidOrderExpiry(ctx.db, r.order.id, orderExpiry(ctx.event, settings, ctx.now));
  await changeOrderStatus(ctx, r, { from: ["p"], to: "n" });
}
