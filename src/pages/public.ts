/**
 * The public organizer page (`/{organizer}/`) and event page (`/{organizer}/{event}/`): the
 * `public_url`s the API returns. Customers see only live, public events (as in pretix); the
 * event page lists the items on sale with their prices. Styled with the organizer's
 * `primary_color`; the footer shows the contact address and the imprint and privacy links.
 */
import { Hono } from "hono";
import { eventSettingsLevels, effectiveSettings } from "../services/events/settings";
import {
  storedOrganizerSettings,
  organizerBySlug,
  organizerEventBySlugs,
  publicEvents,
  publicSubevents,
  shopItems,
  type ShopItem,
} from "../services/events/storefront-reads";
import { EVENT_SETTINGS } from "../services/events/settings-keys";
import { type AppContext, type AppEnv, publicBase } from "../http/context";
import { eventPublicUrl } from "../rules/urls";
import { html, page, type Raw } from "./html";
import {
  dateRange,
  legalFooter,
  money,
  notFoundPage,
  pageError,
  RESERVED_SEGMENTS,
  readNav,
  send,
  text,
  withNav,
} from "./storefront";

export const publicPages = new Hono<AppEnv>();
publicPages.onError(pageError);

function eventLine(
  c: AppContext,
  orgSlug: string,
  e: {
    slug: string;
    name: Record<string, string>;
    dateFrom: number;
    dateTo: number | null;
    timezone: string;
    location: Record<string, string> | null;
  },
  nav = readNav(c),
): Raw {
  const location = text(e.location);
  return html`<li><a href="${withNav(eventPublicUrl(publicBase(c), orgSlug, e.slug), { returnUrl: null, iframe: nav.iframe })}"><strong>${text(e.name)}</strong></a><br>
<span class="muted">${dateRange(e.dateFrom, e.dateTo, e.timezone)}${location ? ` · ${location}` : ""}</span></li>`;
}

publicPages.get("/:organizer", async (c) => {
  const slug = c.req.param("organizer");
  if (RESERVED_SEGMENTS.has(slug)) return c.notFound();
  const db = c.var.db;
  const org = await organizerBySlug({ db }, slug);
  if (!org) return notFoundPage(c, "organizer");
  const [stored, list] = await Promise.all([
    storedOrganizerSettings({ db }, org.id),
    publicEvents({ db }, org.id, Date.now()),
  ]);
  const settings = effectiveSettings(stored);
  const nav = readNav(c);
  const info = text(settings.organizer_info_text as Record<string, string> | null);
  const body = html`${info ? html`<p>${info}</p>` : ""}
<h2>Upcoming events</h2>
${list.upcoming.length ? html`<ul class="plain">${list.upcoming.map((e) => eventLine(c, org.slug, e, nav))}</ul>` : html`<p class="muted">No upcoming events.</p>`}
${list.past.length ? html`<h2>Past events</h2><ul class="plain">${list.past.map((e) => eventLine(c, org.slug, e, nav))}</ul>` : ""}`;
  return send(c, page(org.name, body, { color: settings.primary_color as string, footer: legalFooter(settings, nav) }));
});

function priceText(i: ShopItem, price: number, currency: string): string {
  return i.freePrice ? `from ${money(price, currency)}` : money(price, currency);
}

function itemRows(items: ShopItem[], currency: string): Raw {
  let category: number | null | undefined;
  const rows: Raw[] = [];
  for (const i of items) {
    const cat = i.category?.id ?? null;
    if (cat !== category && i.category) rows.push(html`<tr><th colspan="2">${text(i.category.name)}</th></tr>`);
    category = cat;
    const note = i.requireVoucher ? html`<br><span class="muted">Only with a voucher.</span>` : "";
    const description = text(i.description);
    if (i.variations.length) {
      rows.push(
        html`<tr><td colspan="2"><strong>${text(i.name)}</strong>${note}${description ? html`<br><span class="muted">${description}</span>` : ""}</td></tr>`,
      );
      for (const v of i.variations)
        rows.push(
          html`<tr><td>&nbsp;&nbsp;${text(v.value)}</td><td class="amount">${priceText(i, v.price, currency)}</td></tr>`,
        );
    } else {
      rows.push(
        html`<tr><td><strong>${text(i.name)}</strong>${note}${description ? html`<br><span class="muted">${description}</span>` : ""}</td><td class="amount">${priceText(i, i.price, currency)}</td></tr>`,
      );
    }
  }
  return html`<table>${rows}</table>`;
}

/** Where the event's tickets are sold: the shop (event setting `shop_url`), else who to ask. */
function whereToBuy(settings: Record<string, unknown>) {
  const shop = typeof settings.shop_url === "string" ? settings.shop_url : null;
  if (shop) return html`<p><a class="button" href="${shop}">Buy tickets</a></p>`;
  const contact = typeof settings.contact_mail === "string" ? settings.contact_mail : null;
  return html`<p class="note">${WHERE_TO_BUY}${contact ? html` Questions: <a href="${`mailto:${contact}`}">${contact}</a>` : ""}</p>`;
}

/** The event page without a shop URL: tickets are not sold on it. */
export const WHERE_TO_BUY = "Tickets are sold through the organizer's own shop, not on this page.";

publicPages.get("/:organizer/:event", async (c) => {
  const orgSlug = c.req.param("organizer");
  if (RESERVED_SEGMENTS.has(orgSlug)) return c.notFound();
  const db = c.var.db;
  const found = await organizerEventBySlugs({ db }, orgSlug, c.req.param("event"));
  if (!found?.event.live || !found.event.isPublic) {
    // an unknown organizer, an unknown event, or one customers may not see: all look alike
    return notFoundPage(c, found || (await organizerBySlug({ db }, orgSlug)) ? "event" : "organizer");
  }
  const { organizer: org, event } = found;
  const now = Date.now();
  const [levels, items, dates] = await Promise.all([
    eventSettingsLevels(db, org.id, event.id),
    shopItems({ db }, event.id, now, event.hasSubevents),
    event.hasSubevents ? publicSubevents({ db }, event.id, now) : Promise.resolve([]),
  ]);
  const settings = effectiveSettings(levels.stored, EVENT_SETTINGS, levels.parent);
  const nav = readNav(c);
  const location = text(event.location);
  const tz = event.timezone;
  const presale =
    event.presaleStart !== null || event.presaleEnd !== null
      ? html`<p class="muted">Sale ${event.presaleStart !== null ? `from ${dateRange(event.presaleStart, null, tz)}` : ""}${event.presaleEnd !== null ? ` until ${dateRange(event.presaleEnd, null, tz)}` : ""}</p>`
      : "";
  const body = html`<p><strong>${dateRange(event.dateFrom, event.dateTo, tz)}</strong>${location ? html`<br>${location}` : ""}</p>
${presale}
${
  event.hasSubevents
    ? html`<h2>Dates</h2>${dates.length ? html`<ul class="plain">${dates.map((d) => html`<li><strong>${text(d.name)}</strong><br><span class="muted">${dateRange(d.dateFrom, d.dateTo, tz)}${text(d.location) ? ` · ${text(d.location)}` : ""}</span></li>`)}</ul>` : html`<p class="muted">No upcoming dates.</p>`}`
    : ""
}
<h2>Tickets and products</h2>
${items.length ? itemRows(items, event.currency) : html`<p class="muted">Nothing is on sale at the moment.</p>`}
${whereToBuy(settings)}`;
  return send(
    c,
    page(text(event.name), body, {
      color: levels.parent.primary_color as string,
      subheading: org.name,
      footer: legalFooter(settings, nav),
    }),
  );
});
