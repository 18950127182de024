/**
 * The payment page of a `stripe` payment: a 303 to Stripe's hosted checkout (services/payments/stripe-checkout.ts),
 * framed (`iframe=1`) a button that leaves the frame (pretix's new-window workaround: Stripe's page
 * cannot be framed). Only a pending order is offered it: an expired one lost its reservation, and the
 * money would be taken before the quota is decided (docs/customer-pages.md, docs/payments.md).
 */
import type { PaymentJson } from "../services/orders/order-reads";
import type { AppContext } from "../http/context";
import { PAYMENT_ERRORS, type PaymentError } from "../rules/payments";
import { paymentUrl } from "../rules/urls";
import { startCheckout } from "../services/payments/stripe-checkout";
import { html } from "./html";
import { orderLayout, orderLink, type OrderPage } from "./order-context";
import { money, returnTarget, seeOther, send, withNav } from "./storefront";

function stripePage(c: AppContext, ctx: OrderPage, y: PaymentJson, error: PaymentError, status: 200 | 400 | 409 | 503) {
  const order = ctx.record.order;
  const retry = error === "stripe_unavailable" || error === "changed";
  const body = html`<h2>Payment for order ${order.code}</h2>
<p class="muted">Credit card (Stripe) · ${money(y.amount, ctx.event.currency)}</p>
<p class="error">${PAYMENT_ERRORS[error]}</p>
${retry ? html`<p><a class="button" href="${withNav(paymentUrl(ctx.url, y.local_id), ctx.nav)}">Try again</a></p>` : ""}
<p><a href="${orderLink(ctx)}">Back to the order</a></p>
${ctx.nav.returnUrl !== null ? html`<p><a href="${returnTarget(ctx.nav.returnUrl, error)}"${ctx.nav.iframe ? html` target="_top"` : ""}>Return to the site you came from</a></p>` : ""}`;
  return send(c, orderLayout(ctx, `Payment for order ${order.code}`, body), status, { private: true });
}

/** The hand-off of an open payment of an order the caller found payable. */
export async function stripeHandOff(c: AppContext, ctx: OrderPage, y: PaymentJson): Promise<Response> {
  const order = ctx.record.order;
  if (order.status !== "n") return stripePage(c, ctx, y, "expired", 400);
  if (!ctx.stripeReady) return stripePage(c, ctx, y, "provider", 400);
  const unframed = { returnUrl: ctx.nav.returnUrl, iframe: false };
  const here = withNav(paymentUrl(ctx.url, y.local_id), unframed);
  if (ctx.nav.iframe) {
    const body = html`<h2>Payment for order ${order.code}</h2>
<p>Pay <strong>${money(y.amount, ctx.event.currency)}</strong> by card on Stripe's secure payment page, which opens outside this frame.</p>
<p><a class="button" href="${here}" target="_top">Pay by card</a></p>
<p><a href="${orderLink(ctx)}">Back to the order</a></p>`;
    return send(c, orderLayout(ctx, `Payment for order ${order.code}`, body), 200, { private: true });
  }
  const returnUrl = ctx.nav.returnUrl;
  const urls = {
    success: returnUrl !== null ? returnTarget(returnUrl, null) : withNav(ctx.url, unframed, { paid: "yes" }),
    cancel: returnUrl !== null ? returnTarget(returnUrl, "payment_aborted") : withNav(ctx.url, unframed),
  };
  const started = await startCheckout(
    { env: c.env, db: c.var.db, organizerId: ctx.org.id, event: ctx.event },
    { code: order.code, email: order.email, locale: order.locale, expires: order.expires },
    y,
    urls,
    Date.now(),
  );
  if (started.ok) return seeOther(c, started.url);
  if (started.reason === "not_configured") return stripePage(c, ctx, y, "provider", 400);
  if (started.reason === "changed") return stripePage(c, ctx, y, "changed", 409);
  return stripePage(c, ctx, y, "stripe_unavailable", 503);
}
