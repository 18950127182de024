/**
 * The shop's checkout, `/{organizer}/{event}/checkout/` (docs/customer-pages.md "The shop's
 * checkout"): GET shows the visitor's cart with the form; POST places the order through the
 * same order creation as the API (services/shop/checkout-place.ts) and sends the buyer on to the
 * order's payment or order page. Errors come back as the form (400) with each message next to
 * its field; a cart that cannot become the order (sold out, expired) as a page of its own (409).
 */
import { SHOP_SCRIPT_PATH } from "../scripts";
import { Hono } from "hono";
import { type AppContext, type AppEnv, publicBase } from "../../http/context";
import { effectiveSettings, eventSettingsLevels } from "../../services/events/settings";
import { EVENT_SETTINGS } from "../../services/events/settings-keys";
import { organizerEventBySlugs } from "../../services/events/storefront-reads";
import { STRIPE_SECRET_KEY } from "../../services/payments/stripe-client";
import type { EventContext } from "../../services/context";
import { type CheckoutView, loadCheckout, type NoCheckout } from "../../services/shop/checkout";
import {
  type CheckoutErrors,
  type CheckoutForm,
  type CheckoutOutcome,
  placeCheckout,
} from "../../services/shop/checkout-place";
import { eventPublicUrl, orderUrl, paymentUrl, queuePageUrl } from "../../rules/urls";
import { textLanguage, type TextLanguage } from "../../rules/checkin-texts";
import { html, page, type Raw } from "../html";
import {
  legalFooter,
  type Nav,
  notFoundPage,
  pageError,
  RESERVED_SEGMENTS,
  readNav,
  seeOther,
  send,
  text,
  withNav,
} from "../storefront";
import { fill, LANGUAGE_TAGS, momentText, queueLanguage } from "../waiting-room-texts";
import { readShopSession, type ShopSession, shopLink } from "./session";
import { CHECKOUT_TEXTS, type CheckoutTexts } from "./checkout-texts";
import { cartTable, type FormState, invoiceFieldset, paymentFieldset, positionFieldsets } from "./checkout-view";

export const checkoutPages = new Hono<AppEnv>();
checkoutPages.onError(pageError);

/** The checkout's path; a series' date rides along as `?subevent=` (as the waiting page's does) for the way back. */
export const CHECKOUT_PATH = "/:organizer/:event/checkout";

/** Everything a checkout request works with. */
type Shop = {
  ctx: EventContext;
  settings: Record<string, unknown>;
  color: string;
  nav: Nav;
  session: ShopSession;
  language: TextLanguage;
  t: CheckoutTexts;
  stripeReady: boolean;
  /** The shop (the event's page) and this checkout, with the date when one was named. */
  shopUrl: string;
  checkoutUrl: string;
};

/** The page's language: `locale` (query or form) or the browser's, when the event has it; else the event's default. */
function languageOf(c: AppContext, settings: Record<string, unknown>, form: CheckoutForm): TextLanguage {
  const locales = ((settings.locales as string[] | undefined) ?? ["en"]).map((l) => textLanguage(l));
  const asked = queueLanguage(form.locale?.[0] ?? c.req.query("locale"), c.req.header("Accept-Language"));
  return locales.includes(asked) ? asked : textLanguage((settings.locale as string | undefined) ?? locales[0]);
}

async function loadShop(c: AppContext, form: CheckoutForm): Promise<Shop> {
  const orgSlug = c.req.param("organizer") ?? "";
  if (RESERVED_SEGMENTS.has(orgSlug)) return notFoundPage(c);
  const db = c.var.db;
  const found = await organizerEventBySlugs({ db }, orgSlug, c.req.param("event") ?? "");
  if (!found?.event.live) return notFoundPage(c, "event");
  const { organizer, event } = found;
  const levels = await eventSettingsLevels(db, organizer.id, event.id);
  const settings = effectiveSettings(levels.stored, EVENT_SETTINGS, levels.parent);
  const base = publicBase(c);
  const ctx: EventContext = { env: c.env, db, organizer, event, now: Date.now(), baseUrl: base };
  const language = languageOf(c, settings, form);
  const sub = c.req.query("subevent");
  const date: Record<string, string> = sub && /^[0-9]{1,9}$/.test(sub) ? { subevent: sub } : {};
  const eventUrl = eventPublicUrl(base, organizer.slug, event.slug);
  const flat = Object.fromEntries(Object.entries(form).map(([k, v]) => [k, v[0]]));
  return {
    ctx,
    settings,
    color: levels.parent.primary_color as string,
    nav: readNav(c),
    session: readShopSession(c, flat),
    language,
    t: CHECKOUT_TEXTS[language],
    stripeReady: levels.parent[STRIPE_SECRET_KEY] === true,
    shopUrl: withNav(eventUrl, { returnUrl: null, iframe: false }, date),
    checkoutUrl: withNav(`${eventUrl}checkout/`, { returnUrl: null, iframe: false }, date),
  };
}

/** A page of the shop's look: the event's name and organizer, its color and legal links; bare when framed. */
function layout(s: Shop, title: string, body: Raw): string {
  return page(title, body, {
    color: s.color,
    heading: text(s.ctx.event.name, s.language),
    subheading: s.ctx.organizer.name,
    footer: legalFooter(s.settings, s.nav),
    lang: s.language,
    bare: s.nav.iframe,
    scripts: [SHOP_SCRIPT_PATH],
  });
}

const back = (s: Shop) =>
  html`<p><a class="button" href="${shopLink(s.shopUrl, s.nav, s.session)}">${s.t.backToShop}</a></p>`;

/** No cart, or an expired one: say so and lead back to the shop. */
function noCheckout(c: AppContext, s: Shop, why: NoCheckout["none"], status: 200 | 409): Response {
  const expired = why === "expired";
  const body = html`<p class="${expired ? "error" : "note"}">${expired ? s.t.expired : s.t.noCart}</p>${back(s)}`;
  return send(c, layout(s, expired ? s.t.expiredTitle : s.t.title, body), status, { private: true });
}

/** The time left of the cart, in words. */
function timeLeft(s: Shop, expires: number): Raw {
  const minutes = Math.floor((expires - s.ctx.now) / 60_000);
  const time = momentText(expires, s.language, s.ctx.event.timezone);
  return html`<p class="note" role="status">${minutes >= 1 ? fill(s.t.reserved, { time, minutes }) : fill(s.t.reservedSoon, { time })}</p>`;
}

/** Links to the checkout in the event's other languages (English and German). */
function languageLinks(s: Shop): Raw | string {
  const locales = ((s.settings.locales as string[] | undefined) ?? []).map((l) => textLanguage(l));
  const others = [...new Set(locales)].filter((l) => l !== s.language);
  if (!others.length) return "";
  const names: Record<TextLanguage, string> = { en: "English", de: "Deutsch" };
  return html`<p class="muted">${others.map(
    (l) =>
      html`<a href="${shopLink(withNav(s.checkoutUrl, { returnUrl: null, iframe: false }, { locale: l }), s.nav, s.session)}" lang="${LANGUAGE_TAGS[l]}" hreflang="${LANGUAGE_TAGS[l]}">${names[l]}</a> `,
  )}</p>`;
}

/** The checkout form with the values entered and the errors next to their fields. */
function checkoutPage(s: Shop, view: CheckoutView, values: CheckoutForm, errors: CheckoutErrors): string {
  const state: FormState = { t: s.t, locale: view.locale, currency: s.ctx.event.currency, values, errors };
  const general = errors[""]?.map((p) => ("message" in p ? p.message : s.t.required)) ?? [];
  const summary = Object.keys(errors).length
    ? html`<div class="error" role="alert"><p>${s.t.formErrors}</p>${general.length ? html`<ul>${general.map((m) => html`<li>${m}</li>`)}</ul>` : ""}</div>`
    : "";
  const email = "email";
  const body = html`${languageLinks(s)}${summary}
${timeLeft(s, view.expires)}
${cartTable(state, view)}
<form method="post" action="${shopLink(s.checkoutUrl, s.nav, s.session)}" novalidate>
<input type="hidden" name="locale" value="${s.language}">
<h2>${s.t.contact}</h2>
<label for="${email}">${s.t.email}</label><span class="muted" id="${email}-help">${s.t.emailHelp}</span>
<input type="email" id="${email}" name="${email}" value="${values.email?.[0] ?? ""}" required autocomplete="email"${
    errors.email?.length
      ? html` aria-describedby="${email}-help ${email}-error" aria-invalid="true"`
      : html` aria-describedby="${email}-help"`
  }>${errors.email?.length ? html`<p class="error" id="${email}-error">${errors.email.map((p) => ("message" in p ? p.message : s.t.required)).join(" ")}</p>` : ""}
${positionFieldsets(state, view)}
${invoiceFieldset(state, view)}
${paymentFieldset(state, view)}
<button type="submit">${view.total === 0 ? s.t.submitFree : s.t.submit}</button>
</form>
${back(s)}`;
  return layout(s, s.t.title, body);
}

/** The form as posted: every field's values. */
async function readForm(c: AppContext): Promise<CheckoutForm> {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}) as Record<string, unknown>);
  const form: CheckoutForm = {};
  for (const [k, v] of Object.entries(body)) {
    const list = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
    if (list.length) form[k] = list.map((x) => x.slice(0, 10_000));
  }
  return form;
}

checkoutPages.get(CHECKOUT_PATH, async (c) => {
  const s = await loadShop(c, {});
  if (s.session.cartId === null) return noCheckout(c, s, "empty", 200);
  const view = await loadCheckout(s.ctx, s.session.cartId, { stripeReady: s.stripeReady, language: s.language });
  if ("none" in view) return noCheckout(c, s, view.none, 200);
  return send(c, checkoutPage(s, view, {}, {}), 200, { private: true });
});

checkoutPages.post(CHECKOUT_PATH, async (c) => {
  const form = await readForm(c);
  const s = await loadShop(c, form);
  if (s.session.cartId === null) return noCheckout(c, s, "empty", 409);
  const view = await loadCheckout(s.ctx, s.session.cartId, { stripeReady: s.stripeReady, language: s.language });
  if ("none" in view) return noCheckout(c, s, view.none, 409);
  const caller = { kind: "token" as const, teamId: null, admission: s.session.admission };
  const outcome = await placeCheckout(s.ctx, view, form, caller);
  return answer(c, s, view, form, outcome);
});

/** Where the buyer goes after placing the order: its payment page while a payment is open, else the order page. */
function placedTarget(s: Shop, outcome: Extract<CheckoutOutcome, { placed: unknown }>): string {
  const { order, payments } = outcome.placed;
  const url = orderUrl(s.ctx.baseUrl, s.ctx.organizer.slug, s.ctx.event.slug, order.code, order.secret);
  const open = payments.find((y) => y.state === "created" || y.state === "pending");
  return withNav(order.status === "n" && open ? paymentUrl(url, open.local_id) : url, s.nav);
}

function answer(c: AppContext, s: Shop, view: CheckoutView, form: CheckoutForm, outcome: CheckoutOutcome): Response {
  if ("placed" in outcome) return seeOther(c, placedTarget(s, outcome));
  if ("invalid" in outcome) return send(c, checkoutPage(s, view, form, outcome.invalid), 400, { private: true });
  if ("gone" in outcome) {
    const body = html`<p class="error">${s.t.gone}</p>${back(s)}`;
    return send(c, layout(s, s.t.expiredTitle, body), 409, { private: true });
  }
  if ("queue" in outcome) {
    const sub = view.lines[0]?.row.subeventId ?? null;
    const queue = queuePageUrl(s.ctx.baseUrl, s.ctx.organizer.slug, s.ctx.event.slug, sub);
    const body = html`<p class="error">${s.t.queue}</p><p><a class="button" href="${withNav(queue, s.nav)}">${s.t.queueLink}</a></p>`;
    return send(c, layout(s, s.t.queueTitle, body), 403, { private: true });
  }
  const body = html`<div class="error" role="alert"><p>${s.t.refused}</p><ul>${outcome.refused.map((r) => {
    const line = r.line === null ? undefined : view.lines[r.line];
    return html`<li>${line ? html`<strong>${text(line.itemName, view.locale)}</strong>: ` : ""}${r.message}</li>`;
  })}</ul></div>
<p>${s.t.refusedHint}</p>${back(s)}`;
  return send(c, layout(s, s.t.refusedTitle, body), 409, { private: true });
}
