/**
 * The waiting page of an on-sale queue, `/{organizer}/{event}/queue/` (docs/onsale-queue.md,
 * "The waiting page"), and its script. The page is rendered here in the visitor's language;
 * the script (waiting-room.browser.js) joins or resumes, follows the place live and moves on to
 * the `return_url` with `admission=<token>` when admitted. 404 when no active queue applies.
 */
import { Hono } from "hono";
import { applicableQueue } from "../services/waiting-room/room-reads";
import { organizerEventBySlugs } from "../services/events/storefront-reads";
import { type AppEnv, publicBase } from "../http/context";
import { eventPublicUrl } from "../rules/urls";
import { effectiveSettings, eventSettingsLevels } from "../services/events/settings";
import { EVENT_SETTINGS } from "../services/events/settings-keys";
import { html, page } from "./html";
import queueScript from "./waiting-room.browser.js";
import { serveScript } from "./scripts";
import { fill, LANGUAGE_TAGS, momentText, QUEUE_TEXTS, queueLanguage } from "./waiting-room-texts";
import {
  legalFooter,
  notFoundPage,
  pageError,
  RESERVED_SEGMENTS,
  readNav,
  returnUrlRefusal,
  send,
  text,
  withNav,
} from "./storefront";

export const queuePages = new Hono<AppEnv>();
queuePages.onError(pageError);

/** Where the page loads its script from (a reserved first segment: never an organizer's). */
export const QUEUE_SCRIPT_PATH = "/static/queue-page.js";

queuePages.get(QUEUE_SCRIPT_PATH, (c) => serveScript(c, queueScript));

queuePages.get("/:organizer/:event/queue", async (c) => {
  const orgSlug = c.req.param("organizer");
  if (RESERVED_SEGMENTS.has(orgSlug)) return c.notFound();
  const language = queueLanguage(c.req.query("locale"), c.req.header("Accept-Language"));
  const t = QUEUE_TEXTS[language];
  const subeventParam = c.req.query("subevent");
  if (subeventParam !== undefined && !/^[0-9]{1,15}$/.test(subeventParam)) return notFoundPage(c, "queue");
  const subevent = subeventParam === undefined ? null : Number(subeventParam);

  const db = c.var.db;
  const found = await organizerEventBySlugs({ db }, orgSlug, c.req.param("event"));
  if (!found?.event.live) return notFoundPage(c, "queue");
  const { organizer: org, event } = found;
  const [queue, levels] = await Promise.all([
    applicableQueue({ db }, event.id, subevent),
    eventSettingsLevels(db, org.id, event.id),
  ]);
  // an inactive queue that applies means no queue for this event or date
  if (!queue?.active) return notFoundPage(c, "queue");

  const settings = effectiveSettings(levels.stored, EVENT_SETTINGS, levels.parent);
  const nav = readNav(c);
  const eventName = text(event.name, language);
  const layout = {
    color: levels.parent.primary_color as string,
    heading: eventName,
    subheading: org.name,
    footer: legalFooter(settings, nav),
    lang: language,
    bare: nav.iframe,
  };
  const eventUrl = withNav(eventPublicUrl(publicBase(c), org.slug, event.slug), {
    returnUrl: null,
    iframe: nav.iframe,
  });
  const refusal = returnUrlRefusal(nav, event.plugins, settings.returnurl_prefix);
  if (refusal) {
    const body = html`<p class="error">${fill(t.returnRefused, { reason: refusal })}</p>
<p><a href="${eventUrl}">${t.eventPage}</a></p>`;
    return send(c, page(t.title, body, layout), 400, { private: true });
  }

  const hostedShop = withNav(eventPublicUrl(publicBase(c), org.slug, event.slug), nav, {
    ...(subevent === null ? {} : { subevent: String(subevent) }),
    ...(c.req.query("locale") ? { locale: c.req.query("locale")! } : {}),
  });
  const api = `/api/v1/organizers/${org.slug}/events/${event.slug}/queue/`;
  const config = {
    join: `${api}join/`,
    status: `${api}status/`,
    live: `${api}live/`,
    subevent,
    storageKey: `onsale-queue:${org.slug}/${event.slug}/${subevent ?? ""}`,
    // where an admitted visitor goes on to: the shop's return_url, else the event's shop_url,
    // else the hosted shop (of the date) at the event's public_url
    returnUrl: nav.returnUrl ?? (typeof settings.shop_url === "string" ? settings.shop_url : hostedShop),
    iframe: nav.iframe,
    eventUrl,
    locale: LANGUAGE_TAGS[language],
    timeZone: event.timezone,
    texts: t,
  };
  const body = html`<div id="queue" data-config="${JSON.stringify(config)}">
<h2>${t.title}</h2>
<p id="queue-intro">${t.intro}</p>
<p id="queue-opens" class="muted">${fill(queue.opensAt > Date.now() ? t.opens : t.opened, { time: momentText(queue.opensAt, language, event.timezone) })}</p>
<p id="queue-status" class="note" role="status" aria-live="polite" aria-atomic="true">${t.joining}</p>
<dl class="facts" id="queue-facts" hidden>
<dt>${t.place}</dt><dd id="queue-place"></dd>
<dt>${t.ahead}</dt><dd id="queue-ahead"></dd>
<dt>${t.wait}</dt><dd id="queue-wait"></dd>
</dl>
<div id="queue-actions"></div>
<p id="queue-channel" class="muted"></p>
<noscript><p class="error">${t.noScript}</p><p><a href="${eventUrl}">${t.eventPage}</a></p></noscript>
</div>`;
  return send(c, page(`${t.title} – ${eventName}`, body, { ...layout, scripts: [QUEUE_SCRIPT_PATH] }), 200, {
    private: true,
  });
});
