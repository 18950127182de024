/**
 * The request context of the order pages (order `url`, `pay/change`, `payment_url`): the order
 * found by organizer, event, code and secret together — the secret in the URL is the
 * customer's only credential — the event's settings, and a checked `return_url`.
 */
import { readSettled } from "../services/orders/settled-reads";
import { eventSettingsLevels, effectiveSettings } from "../services/events/settings";
import { findOrderBySecret } from "../services/payments/shop-payments";
import type { OrderRecord } from "../services/orders/order-reads";
import { organizerEventBySlugs, type EventRecord, type OrganizerRecord } from "../services/events/storefront-reads";
import { lastPaymentTime } from "../rules/orders";
import { orderPaymentRefusal, PAYMENT_ERRORS, type PaymentError } from "../rules/payments";
import { EVENT_SETTINGS } from "../services/events/settings-keys";
import { STRIPE_SECRET_KEY } from "../services/payments/stripe-client";
import { orderUrl } from "../rules/urls";
import { publicBase, type AppContext } from "../http/context";
import { html, page, type Raw } from "./html";
import {
  legalFooter,
  type Nav,
  notFoundPage,
  RESERVED_SEGMENTS,
  readNav,
  returnTarget,
  returnUrlRefusal,
  seeOther,
  send,
  text,
  withNav,
} from "./storefront";

export type OrderPage = {
  org: OrganizerRecord;
  event: EventRecord;
  record: OrderRecord;
  /** The event's effective settings. */
  settings: Record<string, unknown>;
  color: string;
  nav: Nav;
  /** The order's `url` (ends with a slash). */
  url: string;
  /** The organizer set its Stripe secret key (card payments can be handed to Stripe). */
  stripeReady: boolean;
};

/** Loads the order of the request; a Response (404 or 400 page) when it cannot be shown. */
export async function loadOrderPage(c: AppContext): Promise<OrderPage | Response> {
  const orgSlug = c.req.param("organizer") ?? "";
  if (RESERVED_SEGMENTS.has(orgSlug)) return c.notFound();
  const db = c.var.db;
  const found = await organizerEventBySlugs({ db }, orgSlug, c.req.param("event") ?? "");
  if (!found) return notFoundPage(c, "order");
  const { organizer: org, event } = found;
  const code = c.req.param("code") ?? "";
  const secret = c.req.param("secret") ?? "";
  const [record, levels] = await Promise.all([
    // an order the event's object answered moments ago is found too (services/orders/settled-reads.ts)
    readSettled(
      { env: c.env, db },
      [event],
      (d) => findOrderBySecret({ db: d }, event.id, code, secret),
      (r) => r !== undefined,
    ),
    eventSettingsLevels(db, org.id, event.id),
  ]);
  if (!record) return notFoundPage(c, "order");
  const settings = effectiveSettings(levels.stored, EVENT_SETTINGS, levels.parent);
  const color = levels.parent.primary_color as string;
  const nav = readNav(c);
  const url = orderUrl(publicBase(c), org.slug, event.slug, record.order.code, record.order.secret);
  const refusal = returnUrlRefusal(nav, event.plugins, settings.returnurl_prefix);
  if (refusal) {
    // refused: explain, and send the customer nowhere
    const body = html`<p class="error">${refusal}</p>
<p class="muted">The site that sent you here needs to be allowed in the event's redirection settings. Your order itself is not affected.</p>
<p><a href="${withNav(url, { returnUrl: null, iframe: nav.iframe })}">View the order</a></p>`;
    return send(
      c,
      page("Return URL not allowed", body, { color, heading: text(event.name), subheading: org.name }),
      400,
      { private: true },
    );
  }
  const stripeReady = levels.parent[STRIPE_SECRET_KEY] === true;
  return { org, event, record, settings, color, nav, url, stripeReady };
}

/** A page of the order pages' look: event name and organizer in the header, legal links. */
export function orderLayout(ctx: OrderPage, title: string, body: Raw): string {
  return page(title, body, {
    color: ctx.color,
    heading: text(ctx.event.name),
    subheading: ctx.org.name,
    footer: legalFooter(ctx.settings, ctx.nav),
  });
}

/** Why the order cannot be paid now (null: it can, capacity permitting). */
export function paymentRefusal(ctx: OrderPage, now = Date.now()): PaymentError | null {
  return orderPaymentRefusal(ctx.record.order, ctx.settings, lastPaymentTime(ctx.event, ctx.settings), now);
}

/** What is left to pay: the total minus confirmed payments. */
export function amountDue(r: OrderRecord): number {
  const paid = r.payments.filter((y) => y.state === "confirmed").reduce((s, y) => s + y.amount, 0);
  return Math.max(0, r.order.total - paid);
}

/** Link to the order page, keeping the navigation parameters. */
export function orderLink(ctx: OrderPage, extra: Record<string, string> = {}): string {
  return withNav(ctx.url, ctx.nav, extra);
}

/**
 * Leaves for the `return_url` after a payment step, successful or not (`error` appended on
 * failure; integrators read the payment state through the API). Framed (`iframe=1`), a
 * redirect would load the integrator's page inside the frame: the page instead offers a
 * button that leaves the frame (target="_top"), pretix's new-window workaround.
 */
export function leaveToReturnUrl(c: AppContext, ctx: OrderPage, error: PaymentError | null, done: string): Response {
  const target = returnTarget(ctx.nav.returnUrl!, error);
  if (!ctx.nav.iframe) return seeOther(c, target);
  const body = html`${error ? html`<p class="error">${PAYMENT_ERRORS[error]}</p>` : html`<p class="ok">${done}</p>`}
<p><a class="button" href="${target}" target="_top">Continue</a></p>`;
  return send(c, orderLayout(ctx, error ? "Payment failed" : "Payment", body), 200, { private: true });
}
