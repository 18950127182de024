/**
 * Embedding the shop in an organizer's own site (docs/embedding.md): the script they paste
 * (`GET /widget/v1.js`, embed.browser.js), which shows a buy button or the product list and
 * opens the shop framed (`iframe=1`) or in a new window; and the product list it reads
 * (`GET /{organizer}/{event}/widget/product_list`, as pretix names it), public JSON for any
 * origin: the products the event page lists, with prices and live availability.
 */
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { type AppEnv, publicBase } from "../http/context";
import { errorAnswer } from "../http/errors";
import { isFailure, notFound } from "../lib/failure";
import { toIso } from "../lib/datetime";
import { formatDecimal } from "../lib/money";
import { log } from "../lib/log";
import { type LiveState, liveAvailability } from "../services/events/availability-live";
import { organizerEventBySlugs, type ShopItem, shopItems } from "../services/events/storefront-reads";
import { eventPublicUrl } from "../rules/urls";
import embedScript from "./embed.browser.js";
import { serveScript } from "./scripts";
import { RESERVED_SEGMENTS, text } from "./storefront";

export const embedPages = new Hono<AppEnv>();

/** Where organizers load the script from (a reserved first segment: never an organizer's). */
export const EMBED_SCRIPT_PATH = "/widget/v1.js";

/** The product list's path below an event's public URL. */
export const PRODUCT_LIST_PATH = "/:organizer/:event/widget/product_list";

const ANY_ORIGIN = { "Access-Control-Allow-Origin": "*" } as const;

/** Errors leave as the API's JSON body (http/errors.ts), readable by any origin. */
embedPages.onError((err, c) => {
  const { status, body, headers } = errorAnswer(err, { method: c.req.method, id: c.get("requestId") });
  return c.json(body, status, { ...headers, ...ANY_ORIGIN });
});

embedPages.get(EMBED_SCRIPT_PATH, (c) =>
  serveScript(c, embedScript, {
    "X-Content-Type-Options": "nosniff",
    // loaded by other sites' pages (a no-cors request): their origin may read it, and with
    // `crossorigin` and an integrity attribute too
    "Cross-Origin-Resource-Policy": "cross-origin",
    ...ANY_ORIGIN,
  }),
);

embedPages.use(PRODUCT_LIST_PATH, cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"], maxAge: 86400 }));

/** One product or variation's price and availability as the list shows it. */
type Offer = { price: string; availability_state: number | null; available_number: number | null };

function offer(
  price: number,
  live: Map<string, { availability_state: number; available_number: number | null }> | null,
  key: string,
): Offer | null {
  const state = live?.get(key);
  // on one date, a product the date does not sell is left out
  if (live && !state) return null;
  return {
    price: formatDecimal(price),
    availability_state: state?.availability_state ?? null,
    available_number: state?.available_number ?? null,
  };
}

/** The products by category, in the event page's order. */
function byCategory(items: ShopItem[], locale: string, live: Parameters<typeof offer>[1]) {
  const groups: { id: number | null; name: string | null; items: unknown[] }[] = [];
  for (const i of items) {
    const variations = i.variations
      .map((v) => {
        const o = offer(v.price, live, `${i.id}:${v.id}`);
        return o && { id: v.id, value: text(v.value, locale), ...o };
      })
      .filter((v) => v !== null);
    const own = i.variations.length ? null : offer(i.price, live, `${i.id}:`);
    if (i.variations.length ? variations.length === 0 : own === null) continue;
    const id = i.category?.id ?? null;
    let group = groups.at(-1);
    if (!group || group.id !== id) {
      group = { id, name: i.category ? text(i.category.name, locale) : null, items: [] };
      groups.push(group);
    }
    group.items.push({
      id: i.id,
      name: text(i.name, locale),
      description: text(i.description, locale) || null,
      free_price: i.freePrice,
      require_voucher: i.requireVoucher,
      ...(own ?? { price: formatDecimal(i.price), availability_state: null, available_number: null }),
      variations,
    });
  }
  return groups;
}

/** The live state of one date (the event itself, or `subevent` of a series); null when it cannot be read. */
async function liveOf(c: Context<AppEnv>, organizer: string, event: string, subevent: number | undefined) {
  try {
    const res = await liveAvailability(
      { env: c.env, db: c.var.db, now: Date.now() },
      { organizer, event, subevent, stream: false },
    );
    const state = (await res.json()) as LiveState;
    const date = state.dates[0];
    return new Map((date?.products ?? []).map((p) => [`${p.item}:${p.variation ?? ""}`, p]));
  } catch (e) {
    // a date customers do not see is the request's fault; the hub failing is not: no numbers then
    if (!isFailure(e, "unavailable")) throw e;
    log.warn("product list: no live availability", { error: e });
    return null;
  }
}

embedPages.get(PRODUCT_LIST_PATH, async (c) => {
  const orgSlug = c.req.param("organizer");
  const eventSlug = c.req.param("event");
  if (RESERVED_SEGMENTS.has(orgSlug)) throw notFound();
  const subeventParam = c.req.query("subevent");
  if (subeventParam !== undefined && !/^[0-9]{1,15}$/.test(subeventParam)) throw notFound();
  const subevent = subeventParam === undefined ? undefined : Number(subeventParam);
  const locale = c.req.query("locale") || "en";
  const db = c.var.db;
  const found = await organizerEventBySlugs({ db }, orgSlug, eventSlug);
  // an unknown, unpublished or private event: all look alike, as on the event page
  if (!found?.event.live || !found.event.isPublic) throw notFound();
  const { event } = found;
  // a series' products are counted per date: without one, the list has prices but no numbers
  const [items, live] = await Promise.all([
    shopItems({ db }, event.id, Date.now(), event.hasSubevents),
    event.hasSubevents && subevent === undefined ? Promise.resolve(null) : liveOf(c, orgSlug, eventSlug, subevent),
  ]);
  c.header("Cache-Control", "public, max-age=10");
  return c.json({
    name: text(event.name, locale),
    public_url: eventPublicUrl(publicBase(c), found.organizer.slug, event.slug),
    currency: event.currency,
    date_from: toIso(event.dateFrom),
    date_to: toIso(event.dateTo),
    has_subevents: event.hasSubevents,
    subevent: subevent ?? null,
    items_by_category: byCategory(items, locale, live),
  });
});
