/**
 * The public organizer page (`/{organizer}/`): the organizer's `public_url`. Customers see only
 * live, public events (as in pretix), each linked to its shop at the event's `public_url`
 * (pages/shop/shop.ts). Styled with the organizer's `primary_color`; the footer shows the
 * contact address and the imprint and privacy links.
 */
import { Hono } from "hono";
import { effectiveSettings } from "../services/events/settings";
import { storedOrganizerSettings, organizerBySlug, publicEvents } from "../services/events/storefront-reads";
import { type AppContext, type AppEnv, publicBase } from "../http/context";
import { eventPublicUrl } from "../rules/urls";
import { html, page, type Raw } from "./html";
import {
  dateRange,
  legalFooter,
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
