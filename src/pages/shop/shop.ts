/**
 * The hosted shop at the event's `public_url` (docs/customer-pages.md "The shop"): a series
 * first asks for the date (`?subevent=<id>`); the date's (or event's) products, the voucher
 * field and the cart; `POST …/cart` adds to the cart, `POST …/cart/remove` takes a position
 * out. Behind an active on-sale queue a visitor without a valid admission goes to the waiting
 * page. Forms post without scripts; the cart id and admission travel as pages/shop/session.ts says.
 */
import { Hono } from "hono";
import { type AppContext, type AppEnv, publicBase } from "../../http/context";
import { isFailure } from "../../lib/failure";
import { eventPublicUrl, queuePageUrl } from "../../rules/urls";
import { eventSettingsLevels, effectiveSettings } from "../../services/events/settings";
import { EVENT_SETTINGS } from "../../services/events/settings-keys";
import {
  organizerBySlug,
  organizerEventBySlugs,
  publicSubevent,
  publicSubevents,
  type EventRecord,
  type OrganizerRecord,
} from "../../services/events/storefront-reads";
import { loadShopCatalog } from "../../services/shop/shop-catalog";
import {
  addToShopCart,
  readShopCart,
  removeFromShopCart,
  shopQueueRequired,
  type ShopRefusal,
} from "../../services/shop/shop-cart";
import type { EventContext } from "../../services/context";
import type { TextLanguage } from "../../rules/checkin-texts";
import { html, page, type Raw } from "../html";
import { SHOP_SCRIPT_PATH, serveScript } from "../scripts";
import shopScript from "./shop.browser.js";
import {
  dateRange,
  legalFooter,
  type Nav,
  notFoundPage,
  pageError,
  RESERVED_SEGMENTS,
  readNav,
  seeOther,
  send,
  text,
} from "../storefront";
import { cartPanel, parseLines } from "./cart";
import { productsForm, voucherForm } from "./catalog";
import { keepShopSession, readShopSession, type ShopSession, shopLink } from "./session";
import { fill, SHOP_TEXTS, shopLanguage, type ShopTexts } from "./texts";

export const shopPages = new Hono<AppEnv>();
shopPages.onError(pageError);

/** A shop request: the event, its settings, the visitor's language, navigation, session and date. */
type Visit = {
  org: OrganizerRecord;
  event: EventRecord;
  ctx: EventContext;
  settings: Record<string, unknown>;
  color: string;
  lang: TextLanguage;
  t: ShopTexts;
  nav: Nav;
  session: ShopSession;
  subeventId: number | null;
  /** `locale` as asked for (kept in links), or null. */
  locale: string | null;
  /** The event's path (`/{organizer}/{event}/`), where the session's cookies live. */
  eventPath: string;
};

const ID = /^[0-9]{1,15}$/;

/** The visit of this request, or a 404 page; `form`: a posted form's fields. */
async function openVisit(c: AppContext, form: Record<string, unknown> = {}): Promise<Visit> {
  const orgSlug = c.req.param("organizer") ?? "";
  const db = c.var.db;
  const found = await organizerEventBySlugs({ db }, orgSlug, c.req.param("event") ?? "");
  if (!found?.event.live || !found.event.isPublic) {
    // an unknown organizer, an unknown event, or one customers may not see: all look alike
    return notFoundPage(c, found || (await organizerBySlug({ db }, orgSlug)) ? "event" : "organizer");
  }
  const { organizer: org, event } = found;
  const levels = await eventSettingsLevels(db, org.id, event.id);
  const settings = effectiveSettings(levels.stored, EVENT_SETTINGS, levels.parent);
  const field = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : c.req.query(name));
  const locale = field("locale") ?? null;
  const lang = shopLanguage(locale ?? undefined, c.req.header("Accept-Language"), settings.locales);
  const sub = field("subevent");
  const now = Date.now();
  // a date customers see (active, public, not over), of this series
  if (
    sub !== undefined &&
    sub !== "" &&
    (!event.hasSubevents || !ID.test(sub) || !(await publicSubevent({ db }, event.id, Number(sub), now)))
  )
    return notFoundPage(c, "date");
  const ctx: EventContext = { env: c.env, db, organizer: org, event, now, baseUrl: publicBase(c) };
  return {
    org,
    event,
    ctx,
    settings,
    color: levels.parent.primary_color as string,
    lang,
    t: SHOP_TEXTS[lang],
    nav: readNav(c),
    session: readShopSession(c, form),
    subeventId: sub ? Number(sub) : null,
    locale,
    eventPath: new URL(eventPublicUrl(publicBase(c), org.slug, event.slug)).pathname,
  };
}

/** A URL of the shop with the date and the asked-for language, then navigation and session. */
function shopUrl(c: AppContext, v: Visit, path = "", extra: Record<string, string> = {}): string {
  const url = new URL(`${eventPublicUrl(publicBase(c), v.org.slug, v.event.slug)}${path}`);
  if (v.subeventId !== null) url.searchParams.set("subevent", String(v.subeventId));
  if (v.locale) url.searchParams.set("locale", v.locale);
  for (const [k, value] of Object.entries(extra)) url.searchParams.set(k, value);
  return shopLink(url.toString(), v.nav, v.session);
}

/** The hidden fields a GET form needs to keep what shopUrl keeps in the query. */
function keptFields(v: Visit): Raw {
  const fields: [string, string | null][] = [
    ["subevent", v.subeventId === null ? null : String(v.subeventId)],
    ["locale", v.locale],
    ["cart", v.session.cartId],
    ["admission", v.session.admission],
    ["return_url", v.nav.returnUrl],
    ["iframe", v.nav.iframe ? "1" : null],
  ];
  return html`${fields.filter(([, value]) => value !== null).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}

function layout(v: Visit) {
  return {
    color: v.color,
    subheading: v.org.name,
    footer: legalFooter(v.settings, v.nav),
    lang: v.lang,
    bare: v.nav.iframe,
    scripts: [SHOP_SCRIPT_PATH],
  };
}

/** The page around the shop's parts: the event's date and place, a notice, then the parts. */
function render(c: AppContext, v: Visit, parts: Raw, status: 200 | 400 | 409 = 200, notice: Raw = html``) {
  const location = text(v.event.location, v.lang);
  const body = html`<p><strong>${dateRange(v.event.dateFrom, v.event.dateTo, v.event.timezone)}</strong>${location ? html`<br>${location}` : ""}</p>
${notice}${parts}`;
  return send(c, page(text(v.event.name, v.lang), body, layout(v)), status, { private: true });
}

/** A series without a chosen date: its dates, each a link to its shop. */
async function datesPage(c: AppContext, v: Visit, cart: Raw) {
  const dates = await publicSubevents({ db: v.ctx.db }, v.event.id, v.ctx.now);
  const tz = v.event.timezone;
  const list = dates.length
    ? html`<ul class="plain">${dates.map((d) => html`<li><a href="${shopUrl(c, { ...v, subeventId: d.id })}"><strong>${text(d.name, v.lang)}</strong></a><br><span class="muted">${dateRange(d.dateFrom, d.dateTo, tz)}${text(d.location, v.lang) ? ` · ${text(d.location, v.lang)}` : ""}</span></li>`)}</ul>`
    : html`<p class="muted">${v.t.noDates}</p>`;
  return render(c, v, html`<h2>${v.t.chooseDate}</h2>${list}${cart}`);
}

/** Where the visitor waits for an admission: the waiting page of the queue (its default target is this shop). */
function waitingPage(c: AppContext, v: Visit): Response {
  const url = new URL(queuePageUrl(publicBase(c), v.org.slug, v.event.slug, v.subeventId));
  if (v.locale) url.searchParams.set("locale", v.locale);
  return seeOther(c, shopLink(url.toString(), v.nav, { cartId: null, admission: null }));
}

/** What the shop page shows after a request: the form's values and refusal, a notice. */
type Outcome = { values?: Record<string, string>; refusal?: ShopRefusal; notice?: string };

/** The shop of the event or of the visit's date, with the cart; a series without a date shows its dates. */
async function shopPage(c: AppContext, v: Visit, voucherCode: string | null, outcome: Outcome = {}) {
  const entries = await readShopCart(v.ctx, v.session.cartId);
  if (v.event.hasSubevents && v.subeventId === null) {
    const catalog = await loadShopCatalog(v.ctx, { subeventId: null, voucherCode: null });
    return datesPage(c, v, cartOf(c, v, entries, catalog.labels));
  }
  const catalog = await loadShopCatalog(v.ctx, { subeventId: v.subeventId, voucherCode });
  if ((await shopQueueRequired(v.ctx, catalog, v.session.admission)) !== null) return waitingPage(c, v);
  keepShopSession(c, v.eventPath, v.session);
  const errors = { ...(outcome.refusal?.messages ?? {}) };
  if (voucherCode && !catalog.voucher?.row) errors.voucher = [...(errors.voucher ?? []), "voucher_unknown"];
  const view = {
    t: v.t,
    lang: v.lang,
    catalog,
    currency: v.event.currency,
    values: outcome.values ?? {},
    errors,
    cartAction: shopUrl(c, v, "cart"),
    hidden: html``,
    voucherAction: new URL(eventPublicUrl(publicBase(c), v.org.slug, v.event.slug)).toString(),
    voucherHidden: keptFields(v),
  };
  const window = catalog.window;
  const presale =
    window === "before"
      ? html`<p class="note">${fill(v.t.presaleBefore, { time: dateRange((catalog.sales.subevents.get(v.subeventId ?? -1)?.presaleStart ?? v.event.presaleStart)!, null, v.event.timezone) })}</p>`
      : window === "after"
        ? html`<p class="note">${v.t.presaleAfter}</p>`
        : "";
  const date = v.subeventId === null ? null : catalog.sales.subevents.get(v.subeventId)!;
  const dateLine = date
    ? html`<h2>${text(date.name, v.lang)}</h2><p>${dateRange(date.dateFrom, date.dateTo, v.event.timezone)} · <a href="${shopUrl(c, { ...v, subeventId: null })}">${v.t.changeDate}</a></p>`
    : "";
  const notice = outcome.notice ? html`<p class="ok" role="status">${outcome.notice}</p>` : html``;
  const refusedNote = outcome.refusal ? html`<p class="error" role="alert">${v.t.notChanged}</p>` : html``;
  const parts = html`${dateLine}${presale}${refusedNote}${cartOf(c, v, entries, catalog.labels)}${voucherForm(view)}${productsForm(view)}`;
  return render(c, v, parts, outcome.refusal?.status ?? 200, notice);
}

function cartOf(
  c: AppContext,
  v: Visit,
  entries: Awaited<ReturnType<typeof readShopCart>>,
  labels: Parameters<typeof cartPanel>[0]["labels"],
): Raw {
  return cartPanel({
    t: v.t,
    lang: v.lang,
    entries,
    labels,
    currency: v.event.currency,
    timeZone: v.event.timezone,
    now: v.ctx.now,
    removeAction: shopUrl(c, v, "cart/remove"),
    hidden: html``,
    checkoutUrl: shopUrl(c, v, "checkout"),
  });
}

shopPages.get(SHOP_SCRIPT_PATH, (c) => serveScript(c, shopScript));

shopPages.get("/:organizer/:event", async (c) => {
  if (RESERVED_SEGMENTS.has(c.req.param("organizer"))) return c.notFound();
  const v = await openVisit(c);
  return shopPage(c, v, c.req.query("voucher")?.trim() || null);
});

shopPages.post("/:organizer/:event/cart", async (c) => {
  if (RESERVED_SEGMENTS.has(c.req.param("organizer"))) return c.notFound();
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const v = await openVisit(c, form);
  const voucherCode = typeof form.voucher === "string" && form.voucher.trim() ? form.voucher.trim() : null;
  const values = Object.fromEntries(
    Object.entries(form).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
  if (v.event.hasSubevents && v.subeventId === null) return seeOther(c, shopUrl(c, v));
  const catalog = await loadShopCatalog(v.ctx, { subeventId: v.subeventId, voucherCode });
  const result = await addToShopCart(v.ctx, catalog, {
    cartId: v.session.cartId,
    admission: v.session.admission,
    lines: parseLines(form),
  }).catch((e: unknown) => {
    if (isFailure(e, "queue_required")) return null;
    throw e;
  });
  if (result === null) return waitingPage(c, v);
  if ("messages" in result) return shopPage(c, v, voucherCode, { values, refusal: result });
  const session = { ...v.session, cartId: result.cartId };
  keepShopSession(c, v.eventPath, session);
  return seeOther(c, `${shopUrl(c, { ...v, session }, "", voucherCode ? { voucher: voucherCode } : {})}#cart`);
});

shopPages.post("/:organizer/:event/cart/remove", async (c) => {
  if (RESERVED_SEGMENTS.has(c.req.param("organizer"))) return c.notFound();
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const v = await openVisit(c, form);
  const position = typeof form.position === "string" && ID.test(form.position) ? Number(form.position) : null;
  if (v.session.cartId !== null && position !== null) await removeFromShopCart(v.ctx, v.session.cartId, position);
  return seeOther(c, `${shopUrl(c, v)}#cart`);
});
