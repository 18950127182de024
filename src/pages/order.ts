/**
 * The customer's order page (the order's `url`) and `pay/change`, where the customer chooses
 * a payment method for an order without one (or replaces the open one): the choice creates a
 * payment in state `created` and leads to its payment page. Both accept `return_url` and
 * `iframe=1` (see storefront.ts) and keep them in their links and forms.
 */
import { Hono } from "hono";
import { paymentUrl } from "../rules/urls";
import { createPayment } from "../services/payments/shop-payments";
import { orderInvoices } from "../services/invoices/invoice-reads";
import { orderLabels } from "../services/events/storefront-reads";
import { orderInvoicePdf } from "../services/invoices/invoice-files";
import { PAYMENT_PROVIDERS, type PaymentProvider } from "../rules/orders";
import {
  OPEN_PAYMENT_STATES,
  ORDER_STATUS_WORDS,
  offeredProviders,
  PAYMENT_ERRORS,
  PAYMENT_STATE_WORDS,
  type PaymentError,
  providerName,
} from "../rules/payments";
import type { PaymentState } from "../services/stored-values";
import { isFailure } from "../lib/failure";
import {
  customerDownloadsEnabled,
  type Download,
  orderDownloads,
  pageDownloadUrls,
  ticketPdf,
} from "../services/tickets/tickets";
import type { AppContext, AppEnv } from "../http/context";
import { html, type Raw } from "./html";
import {
  amountDue,
  leaveToReturnUrl,
  loadOrderPage,
  orderLayout,
  orderLink,
  type OrderPage,
  paymentRefusal,
} from "./order-context";
import { money, notFoundPage, pageError, seeOther, send, text, when, withNav } from "./storefront";

export const orderPages = new Hono<AppEnv>();
orderPages.onError(pageError);

export const ORDER_PATH = "/:organizer/:event/order/:code/:secret";

const PROVIDER_TEXT: Record<PaymentProvider, string> = {
  giftcard: "Pay with a gift card of the organizer.",
  manual: "Pay as agreed with the organizer, who confirms the payment when it has arrived.",
  free: "Nothing to pay: confirm the order.",
  stripe: "Pay by card on Stripe's secure payment page.",
};

function statusText(ctx: OrderPage, refusal: PaymentError | null): Raw {
  const o = ctx.record.order;
  const tz = ctx.event.timezone;
  switch (o.status) {
    case "n":
      return refusal
        ? html`<p class="error">${PAYMENT_ERRORS[refusal]}</p>`
        : html`<p class="note">This order is pending. Please pay by ${when(o.expires, tz)}.</p>`;
    case "p":
      return html`<p class="ok">This order has been paid.</p>`;
    case "e":
      return html`<p class="error">This order has expired because it was not paid in time.${refusal ? ` ${PAYMENT_ERRORS[refusal]}` : " You can still pay it while its products are available."}</p>`;
    case "c":
      return html`<p class="error">This order has been canceled.</p>`;
  }
}

/** A paid order of an event without `ticket_download`: its tickets exist but are not offered on the page. */
export const TICKETS_NOT_OFFERED =
  "Your tickets cannot be downloaded on this page: the organizer has not made ticket downloads available. Please contact the organizer for your tickets.";

orderPages.get(ORDER_PATH, async (c) => {
  const ctx = await loadOrderPage(c);
  if (ctx instanceof Response) return ctx;
  const o = ctx.record.order;
  const positions = ctx.record.positions.filter((p) => p.canceled !== 1);
  const [labels, invoices] = await Promise.all([positionLabels(c, ctx, positions), orderInvoices(c.var, o.id)]);
  const refusal = paymentRefusal(ctx);
  const downloads = offeredDownloads(ctx);
  const body = html`${paymentNotice(c, ctx)}
<h2>Order ${o.code} <span class="status status-${o.status}">${ORDER_STATUS_WORDS[o.status]}</span></h2>
${eventLine(ctx)}
${statusText(ctx, refusal)}
<h2>Products</h2>
${productTable(ctx, positions, labels, downloads.positions)}
${downloads.order[0] ? html`<p><a class="button" href="${downloads.order[0].url}">Download your tickets (PDF)</a></p>` : ""}
${downloads.withheld ? html`<p class="note">${TICKETS_NOT_OFFERED}</p>` : ""}
${invoiceList(ctx, invoices)}
<h2>Payments</h2>
${paymentTable(ctx, refusal)}
${ctx.nav.returnUrl !== null ? html`<p><a href="${ctx.nav.returnUrl}"${ctx.nav.iframe ? html` target="_top"` : ""}>Return to the site you came from</a></p>` : ""}`;
  return send(c, orderLayout(ctx, `Order ${o.code}`, body), 200, { private: true });
});

type PagePosition = OrderPage["record"]["positions"][number];
type Labels = Awaited<ReturnType<typeof orderLabels>>;

/** The names of the positions' items, variations and dates. */
function positionLabels(c: AppContext, ctx: OrderPage, positions: PagePosition[]): Promise<Labels> {
  const ids = (xs: (number | null)[]) => [...new Set(xs.filter((x): x is number => x !== null))];
  return orderLabels(
    c.var,
    ctx.event.id,
    ids(positions.map((p) => p.item)),
    ids(positions.map((p) => p.variation)),
    ids(positions.map((p) => p.subevent)),
  );
}

/** The order's tickets; shown only with ticket_download, otherwise the page says they are not offered here. */
function offeredDownloads(ctx: OrderPage) {
  const available = orderDownloads(ctx.record, pageDownloadUrls(ctx.url));
  const offered = customerDownloadsEnabled(ctx.record);
  const downloads = offered ? available : { order: [], positions: new Map<number, Download[]>() };
  return { ...downloads, withheld: !offered && available.order.length > 0 };
}

/** Back from a card payment (`?paid=yes`): received, or being processed until Stripe confirms it. */
function paymentNotice(c: AppContext, ctx: OrderPage): Raw | string {
  if (c.req.query("paid") !== "yes") return "";
  const o = ctx.record.order;
  if (o.status === "p") return html`<p class="ok">Thank you! Your payment has been received.</p>`;
  const open = ctx.record.payments.filter((y) => OPEN_PAYMENT_STATES.includes(y.state));
  if (o.status === "n" && open.some((y) => y.provider === "stripe"))
    return html`<p class="note">Thank you! Your payment is being processed; this page shows the order as paid as soon as the payment is confirmed.</p>`;
  return "";
}

function eventLine({ event, record }: OrderPage): Raw {
  const location = text(event.location, record.order.locale);
  return html`<p>${text(event.name, record.order.locale)}<br><span class="muted">${
    event.hasSubevents ? "" : when(event.dateFrom, event.timezone)
  }${location ? `${event.hasSubevents ? "" : " · "}${location}` : ""}</span></p>`;
}

/** The positions (each with its ticket when offered), the fees and the total. */
function productTable(
  ctx: OrderPage,
  positions: PagePosition[],
  labels: Labels,
  tickets: Map<number, Download[]>,
): Raw {
  const { event, record: r } = ctx;
  const locale = r.order.locale;
  const cur = event.currency;
  const lines = positions.map((p) => {
    const variation = p.variation !== null ? labels.variations.get(p.variation) : undefined;
    const sub = p.subevent !== null ? labels.subevents.get(p.subevent) : undefined;
    const details = [
      sub ? `${text(sub.name, locale)}, ${when(sub.dateFrom, event.timezone)}` : "",
      p.attendee_name ?? "",
      p.seat_name ? `Seat: ${p.seat_name}` : "",
    ].filter(Boolean);
    const ticket = tickets.get(p.id)?.[0];
    return html`<tr><td>${p.addon_to !== null ? "+ " : ""}${text(labels.items.get(p.item), locale)}${variation ? ` – ${text(variation, locale)}` : ""}${
      details.length ? html`<br><span class="muted">${details.join(" · ")}</span>` : ""
    }${ticket ? html`<br><a href="${ticket.url}">Ticket (PDF)</a>` : ""}</td><td class="amount">${money(p.price, cur)}</td></tr>`;
  });
  const feeLines = r.fees
    .filter((f) => f.canceled !== 1)
    .map(
      (f) =>
        html`<tr><td>${f.description || `Fee (${f.fee_type})`}</td><td class="amount">${money(f.value, cur)}</td></tr>`,
    );
  return html`<table>${lines}${feeLines}<tr><th>Total</th><th class="amount">${money(r.order.total, cur)}</th></tr></table>`;
}

function invoiceList(ctx: OrderPage, invoices: Awaited<ReturnType<typeof orderInvoices>>): Raw | string {
  if (!invoices.length) return "";
  return html`<h2>Invoices</h2>
<ul class="invoices">${invoices.map(
    (i) =>
      html`<li><a href="${`${ctx.url}invoice/${i.id}`}">${i.isCancellation ? "Cancellation" : "Invoice"} ${i.number}</a> <span class="muted">${i.date}</span></li>`,
  )}</ul>`;
}

/** The payments with a way to pay the open ones, and the way to choose or change the method. */
function paymentTable(ctx: OrderPage, refusal: PaymentError | null): Raw {
  const { record: r, nav } = ctx;
  const cur = ctx.event.currency;
  const open = r.payments.filter((y) => OPEN_PAYMENT_STATES.includes(y.state));
  const payments = r.payments.map(
    (y) =>
      html`<tr><td>${providerName(y.provider)}</td><td>${PAYMENT_STATE_WORDS[y.state as PaymentState] ?? y.state}</td><td class="amount">${money(y.amount, cur)}</td><td class="amount">${
        OPEN_PAYMENT_STATES.includes(y.state) && refusal === null
          ? html`<a href="${withNav(paymentUrl(ctx.url, y.local_id), nav)}">Pay now</a>`
          : ""
      }</td></tr>`,
  );
  const change =
    refusal === null
      ? html`<p><a class="button" href="${withNav(`${ctx.url}pay/change`, nav)}">${open.length ? "Change payment method" : "Choose a payment method"}</a></p>`
      : "";
  return html`${r.payments.length ? html`<table>${payments}</table>` : html`<p class="muted">No payment has been started yet.</p>`}
${change}`;
}

// ---- ticket downloads (event setting ticket_download) ----

/** The PDF of the order's tickets, or of one position's; a page that reloads itself while it is being prepared. */
async function ticketDownload(c: AppContext, positionId: number | null): Promise<Response> {
  const ctx = await loadOrderPage(c);
  if (ctx instanceof Response) return ctx;
  if (!customerDownloadsEnabled(ctx.record)) return notFoundPage(c, "download");
  try {
    const file = await ticketPdf(c.env, c.var.db, ctx.event, ctx.record, positionId);
    c.header("Cache-Control", "private, no-store");
    return c.body(file.body, 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${file.filename}"`,
    });
  } catch (e) {
    if (!isFailure(e, "not_ready")) throw e;
    c.header("Refresh", "2");
    const body = html`<p class="note">Your ticket is being prepared. This page reloads by itself in a moment.</p><p><a href="${orderLink(ctx)}">Back to the order</a></p>`;
    return send(c, orderLayout(ctx, "Preparing your ticket", body), 409, { private: true });
  }
}

orderPages.get(`${ORDER_PATH}/download/pdf`, (c) => ticketDownload(c, null));
orderPages.get(`${ORDER_PATH}/download/pdf/:position{[0-9]+}`, (c) =>
  ticketDownload(c, Number(c.req.param("position"))),
);

// ---- invoices (pretix: listed on the order page with their download) ----

/** The PDF of one of the order's invoices; a page that reloads itself while it is being prepared. */
orderPages.get(`${ORDER_PATH}/invoice/:invoice{[0-9]+}`, async (c) => {
  const ctx = await loadOrderPage(c);
  if (ctx instanceof Response) return ctx;
  try {
    const file = await orderInvoicePdf(
      c.env,
      c.var.db,
      { id: ctx.record.order.id, eventId: ctx.event.id },
      Number(c.req.param("invoice")),
    );
    c.header("Cache-Control", "private, no-store");
    return c.body(file.bytes, 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${file.filename.replace(/[^\w.-]/g, "_")}"`,
    });
  } catch (e) {
    if (isFailure(e, "not_found")) return notFoundPage(c, "invoice");
    if (!isFailure(e, "not_ready")) throw e;
    c.header("Refresh", "2");
    const body = html`<p class="note">Your invoice is being prepared. This page reloads by itself in a moment.</p><p><a href="${orderLink(ctx)}">Back to the order</a></p>`;
    return send(c, orderLayout(ctx, "Preparing your invoice", body), 409, { private: true });
  }
});

// ---- pay/change ----

function changeForm(ctx: OrderPage, offered: PaymentProvider[], error?: string): Raw {
  const open = ctx.record.payments.filter((y) => OPEN_PAYMENT_STATES.includes(y.state));
  const due = amountDue(ctx.record);
  return html`${error ? html`<p class="error">${error}</p>` : ""}
<h2>Choose a payment method</h2>
<p>Order ${ctx.record.order.code}: ${money(due, ctx.event.currency)} to pay.</p>
${open.length ? html`<p class="muted">Current payment method: ${open.map((y) => providerName(y.provider)).join(", ")}. Choosing a method here replaces it.</p>` : ""}
<form method="post" action="${withNav(`${ctx.url}pay/change`, ctx.nav)}">
${offered.map(
  (p, i) =>
    html`<label><input type="radio" name="provider" value="${p}"${i === 0 ? " checked" : ""}> <strong>${PAYMENT_PROVIDERS[p].name}</strong><br><span class="muted">${PROVIDER_TEXT[p]}</span></label>`,
)}
<button type="submit">Continue</button>
</form>
<p><a href="${orderLink(ctx)}">Back to the order</a></p>`;
}

/** Card payments are offered while the order is reserved (pending), never for an expired one. */
const stripeOffered = (ctx: OrderPage) => ctx.stripeReady && ctx.record.order.status === "n";

/** The order cannot be paid: leave for the return_url with the error, or say so. */
function cannotPay(c: AppContext, ctx: OrderPage, error: PaymentError, status: 200 | 400): Response {
  if (ctx.nav.returnUrl !== null && status === 400) return leaveToReturnUrl(c, ctx, error, "");
  const body = html`<p class="error">${PAYMENT_ERRORS[error]}</p><p><a href="${orderLink(ctx)}">Back to the order</a></p>`;
  return send(c, orderLayout(ctx, "Payment", body), status, { private: true });
}

orderPages.get(`${ORDER_PATH}/pay/change`, async (c) => {
  const ctx = await loadOrderPage(c);
  if (ctx instanceof Response) return ctx;
  const refusal = paymentRefusal(ctx);
  if (refusal) return cannotPay(c, ctx, refusal, 200);
  const offered = offeredProviders(ctx.event.plugins, amountDue(ctx.record), stripeOffered(ctx));
  return send(c, orderLayout(ctx, "Choose a payment method", changeForm(ctx, offered)), 200, { private: true });
});

orderPages.post(`${ORDER_PATH}/pay/change`, async (c) => {
  const ctx = await loadOrderPage(c);
  if (ctx instanceof Response) return ctx;
  const refusal = paymentRefusal(ctx);
  if (refusal) return cannotPay(c, ctx, refusal, 400);
  const due = amountDue(ctx.record);
  const offered = offeredProviders(ctx.event.plugins, due, stripeOffered(ctx));
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const provider = typeof form.provider === "string" ? form.provider : "";
  if (!(offered as string[]).includes(provider)) {
    return send(
      c,
      orderLayout(
        ctx,
        "Choose a payment method",
        changeForm(ctx, offered, "Please choose one of the payment methods."),
      ),
      400,
      { private: true },
    );
  }
  const created = await createPayment(c.var, {
    orderId: ctx.record.order.id,
    provider,
    amount: due,
    now: Date.now(),
    cancelOpen: true,
  });
  if (created === null) return cannotPay(c, ctx, "changed", 400);
  return seeOther(c, withNav(paymentUrl(ctx.url, created.localId), ctx.nav));
});
