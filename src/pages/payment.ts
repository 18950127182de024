/**
 * The payment page (`payment_url` = order `url` + `pay/{local_id}/`) for the providers of
 * rules/orders.ts: `manual` (amount, order code as reference, the event's
 * `payment_manual_pending_description`), `free`, `giftcard`, and `stripe` (./payment-stripe.ts).
 * Afterwards the customer goes to the `return_url` or the order page (docs/customer-pages.md). A
 * payment in a final state only shows it; a paid, canceled or overdue order cannot be paid.
 */
import { Hono } from "hono";
import { findOrder, findGiftCard, giftCardForPayment, type GiftCardDebit } from "../services/payments/shop-payments";
import type { PaymentJson } from "../services/orders/order-reads";
import type { PaymentState } from "../services/stored-values";
import {
  GIFT_CARD_ATTEMPTS,
  giftCardRefusal,
  OPEN_PAYMENT_STATES,
  PAYMENT_ERRORS,
  PAYMENT_STATE_WORDS,
  type PaymentError,
  paymentFullId,
  manualPaymentText,
  providerName,
} from "../rules/payments";
import type { I18n } from "../lib/i18n";
import { type AppContext, type AppEnv, publicBase } from "../http/context";
import { isFailure } from "../lib/failure";
import { randomString } from "../lib/crypto";
import { changeOrderStatus, notifyOrder, type StatusChange } from "../services/orders/order-status";
import { paymentUrl } from "../rules/urls";
import { html, type Raw } from "./html";
import {
  leaveToReturnUrl,
  loadOrderPage,
  orderLayout,
  orderLink,
  type OrderPage,
  paymentRefusal,
} from "./order-context";
import { ORDER_PATH } from "./order";
import { stripeHandOff } from "./payment-stripe";
import { money, notFoundPage, pageError, returnTarget, seeOther, send, when, withNav } from "./storefront";

export const paymentPages = new Hono<AppEnv>();
paymentPages.onError(pageError);

const PAYMENT_PATH = `${ORDER_PATH}/pay/:payment`;
const PAID = "Thank you, your payment has been received.";

function findPaymentOf(c: AppContext, ctx: OrderPage): PaymentJson | undefined {
  const local = c.req.param("payment") ?? "";
  if (!/^[0-9]{1,9}$/.test(local)) return undefined;
  return ctx.record.payments.find((y) => y.local_id === Number(local));
}

const actionOf = (ctx: OrderPage, y: PaymentJson) => withNav(paymentUrl(ctx.url, y.local_id), ctx.nav);

/** The provider's part of the page for an open payment of an order that can be paid. */
function providerBody(ctx: OrderPage, y: PaymentJson): Raw {
  const amount = money(y.amount, ctx.event.currency);
  const order = ctx.record.order;
  switch (y.provider) {
    case "manual": {
      const proceed =
        ctx.nav.returnUrl === null
          ? html`<p><a href="${orderLink(ctx)}">View the order</a></p>`
          : ctx.nav.iframe
            ? html`<p><a class="button" href="${returnTarget(ctx.nav.returnUrl, null)}" target="_top">Continue</a></p>`
            : html`<form method="post" action="${actionOf(ctx, y)}"><button type="submit">Continue</button></form>`;
      // the organizer's instructions (pretix's pending_description of the manual payment), as plain text
      const instructions = manualPaymentText(
        ctx.settings.payment_manual_pending_description as I18n | null,
        order.locale,
        { code: order.code, total: order.total, currency: ctx.event.currency },
      );
      return html`<p>Please pay <strong>${amount}</strong> as agreed with the organizer, stating <strong>${order.code}</strong> as the payment reference.</p>
<table><tr><td>Amount</td><td class="amount">${amount}</td></tr><tr><td>Payment reference</td><td class="amount">${order.code}</td></tr></table>
${instructions ? html`<div class="instructions">${instructions}</div>` : ""}
<p class="muted">The organizer confirms the payment when it has arrived.${order.status === "n" ? ` Your order stays reserved until ${when(order.expires, ctx.event.timezone)}.` : ""}</p>
${proceed}`;
    }
    case "free":
      if (y.amount !== 0 || order.total !== 0) {
        return html`<p class="error">${PAYMENT_ERRORS.not_free}</p><p><a href="${withNav(`${ctx.url}pay/change`, ctx.nav)}">Choose a payment method</a></p>`;
      }
      return html`<p>This order is free of charge.</p>
<form method="post" action="${actionOf(ctx, y)}"><button type="submit">Confirm the order</button></form>`;
    case "giftcard":
      return html`<p>Pay <strong>${amount}</strong> with a gift card.</p>
<form method="post" action="${actionOf(ctx, y)}">
<label for="giftcard">Gift card code</label>
<input type="text" id="giftcard" name="giftcard" required maxlength="190" autocomplete="off" autocapitalize="off" spellcheck="false">
<button type="submit">Pay ${amount}</button>
</form>`;
    default:
      return html`<p class="error">${PAYMENT_ERRORS.provider}</p>`;
  }
}

function paymentPage(ctx: OrderPage, y: PaymentJson, error?: PaymentError): string {
  const order = ctx.record.order;
  const head = html`<h2>Payment for order ${order.code}</h2>
<p class="muted">${providerName(y.provider)} · ${money(y.amount, ctx.event.currency)}</p>`;
  const back = html`<p><a href="${orderLink(ctx)}">Back to the order</a></p>`;
  let body: Raw;
  if (!OPEN_PAYMENT_STATES.includes(y.state)) {
    const state = PAYMENT_STATE_WORDS[y.state as PaymentState] ?? y.state;
    body = html`${head}<p class="${y.state === "confirmed" ? "ok" : "error"}">This payment is ${state}.</p>${back}`;
  } else {
    const refusal = paymentRefusal(ctx);
    body = refusal
      ? html`${head}<p class="error">${PAYMENT_ERRORS[refusal]}</p>${back}`
      : html`${head}${error ? html`<p class="error">${PAYMENT_ERRORS[error]}</p>` : ""}${providerBody(ctx, y)}${y.provider === "manual" ? "" : back}`;
  }
  return orderLayout(ctx, `Payment for order ${order.code}`, body);
}

paymentPages.get(PAYMENT_PATH, async (c) => {
  const ctx = await loadOrderPage(c);
  if (ctx instanceof Response) return ctx;
  const y = findPaymentOf(c, ctx);
  if (!y) return notFoundPage(c, "payment");
  if (y.provider === "stripe" && OPEN_PAYMENT_STATES.includes(y.state) && !paymentRefusal(ctx))
    return stripeHandOff(c, ctx, y);
  return send(c, paymentPage(ctx, y), 200, { private: true });
});

/**
 * Pays the order through the event object: from pending or expired to paid. An expired order
 * needs its capacity again, which the object decides first (refused → `sold_out`, nothing
 * written). Returns null on success, else why not.
 */
async function payOrder(
  c: AppContext,
  ctx: OrderPage,
  y: PaymentJson,
  change: Pick<StatusChange, "confirmPaymentId" | "giftCard">,
): Promise<PaymentError | null> {
  const scope = { env: c.env, db: c.var.db, event: ctx.event };
  let result: Awaited<ReturnType<typeof changeOrderStatus>>;
  try {
    // paid only where the payment covers what the order owes (pretix's OrderPayment.confirm)
    result = await changeOrderStatus(scope, ctx.record, { from: ["n", "e"], to: "p", ...change, covered: true });
  } catch (e) {
    // the event object could not serve in time: the customer is asked to retry
    if (isFailure(e, "unavailable") || isFailure(e, "busy")) return "busy";
    throw e;
  }
  if (!result.ok) {
    if (result.reason === "refused") return "sold_out";
    // The conditional write did nothing: something changed since the page read the order.
    const after = await findOrder(c.var, ctx.event.id, ctx.record.order.code);
    if (after?.order.status === "p") return "order_paid";
    if (after?.order.status === "c") return "order_canceled";
    const payment = after?.payments.find((p) => p.id === y.id);
    if (payment && !OPEN_PAYMENT_STATES.includes(payment.state)) return "payment_closed";
    const d = change.giftCard;
    if (d) {
      const card = await findGiftCard(c.var, ctx.org.id, d.cardId, true);
      if (!card) return "card_unknown";
      return (
        giftCardRefusal(card, { currency: d.currency, testmode: d.testmode, amount: d.amount }, Date.now()) ?? "changed"
      );
    }
    return "changed";
  }
  // the mail's facts (address, lines, total) are the order as the page read it: the status change did not touch them
  await notifyOrder(
    { ...scope, organizer: ctx.org, baseUrl: publicBase(c) },
    "order_paid",
    ctx.record,
    ctx.settings,
    ctx.record.invoicing.live,
  );
  return null;
}

paymentPages.post(PAYMENT_PATH, async (c) => {
  const ctx = await loadOrderPage(c);
  if (ctx instanceof Response) return ctx;
  const y = findPaymentOf(c, ctx);
  if (!y) return notFoundPage(c, "payment");
  const fail = (error: PaymentError): Response =>
    ctx.nav.returnUrl !== null
      ? leaveToReturnUrl(c, ctx, error, "")
      : send(c, paymentPage(ctx, y, error), error === "busy" ? 503 : 400, { private: true });
  const succeed = (): Response =>
    ctx.nav.returnUrl !== null ? leaveToReturnUrl(c, ctx, null, PAID) : seeOther(c, orderLink(ctx, { paid: "yes" }));

  if (!OPEN_PAYMENT_STATES.includes(y.state)) return fail("payment_closed");
  const refusal = paymentRefusal(ctx);
  if (refusal) return fail(refusal);
  const order = ctx.record.order;

  switch (y.provider) {
    case "manual":
      // Nothing to do here: the organizer confirms the payment. The step is over.
      return ctx.nav.returnUrl !== null
        ? leaveToReturnUrl(
            c,
            ctx,
            null,
            "Your order is reserved. The organizer confirms the payment when it has arrived.",
          )
        : seeOther(c, orderLink(ctx));
    case "free": {
      if (y.amount !== 0 || order.total !== 0) return fail("not_free");
      const error = await payOrder(c, ctx, y, { confirmPaymentId: y.id });
      return error ? fail(error) : succeed();
    }
    case "giftcard": {
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const secret = typeof form.giftcard === "string" ? form.giftcard.trim() : "";
      if (secret === "" || secret.length > 190) return fail("card_unknown");
      const wait = await c.env.RATE_LIMITER.getByName(`giftcard-attempts:${order.id}`).hit(
        GIFT_CARD_ATTEMPTS.perOrder,
        GIFT_CARD_ATTEMPTS.windowSeconds,
      );
      if (wait > 0) return fail("too_many_attempts");
      const now = Date.now();
      const card = await giftCardForPayment(c.var, ctx.org.id, secret);
      if (!card) return fail("card_unknown");
      const cardRefusal = giftCardRefusal(
        card,
        { currency: ctx.event.currency, testmode: order.testmode, amount: y.amount },
        now,
      );
      if (cardRefusal) return fail(cardRefusal);
      // Money and tickets never diverge: the event object first takes the capacity decision
      // (only an expired order needs capacity again; refused → nothing was written, nothing
      // debited). Then ONE D1 batch claims the payment, debits the card, records the
      // transaction and marks the order paid, every statement guarded by the same conditions
      // (order still payable, payment still open, card still covering the amount): all of it
      // happens or none does. Capacity taken for a batch that changed nothing is given back by
      // the object; a batch interrupted by a restart is replayed from the object's outbox and
      // applies at most once (see db/payments.ts).
      const debit: GiftCardDebit = {
        cardId: card.id,
        amount: y.amount,
        paymentId: y.id,
        reference: randomString(24),
        organizerId: ctx.org.id,
        currency: ctx.event.currency,
        testmode: order.testmode,
        text: paymentFullId(order.code, y.local_id),
      };
      const error = await payOrder(c, ctx, y, { giftCard: debit });
      return error ? fail(error) : succeed();
    }
    case "stripe":
      return stripeHandOff(c, ctx, y);
    default:
      return fail("provider");
  }
});
