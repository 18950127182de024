/**
 * What the customer-facing pages (organizer, event, order, payment) share: the slugs that are
 * never organizers, the `return_url` / `iframe=1` parameters, the framing and privacy headers,
 * the layout with the organizer's color and legal links, and display formatting.
 */
import type { ErrorHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { returnUrlAllowed, RETURNURL_PLUGIN } from "../rules/events";
import type { AppContext, AppEnv } from "../http/context";
import { isFailure, notFound } from "../lib/failure";
import { errorAnswer } from "../http/errors";
import { type I18n, i18nText } from "../lib/i18n";
import { formatMoney } from "../lib/money";
import { html, page, type Raw } from "./html";

export { RESERVED_SEGMENTS } from "../lib/reserved-segments";

// ---- return_url and iframe ----

/** The navigation parameters a customer page keeps through its links and forms. */
export type Nav = { returnUrl: string | null; iframe: boolean };

export function readNav(c: AppContext): Nav {
  const returnUrl = c.req.query("return_url");
  return {
    returnUrl: returnUrl === undefined || returnUrl === "" ? null : returnUrl,
    iframe: c.req.query("iframe") === "1",
  };
}

/**
 * Why the `return_url` of a request may not be used (null: no return_url, or allowed). It must
 * lie below a base URL of the event's redirection settings (`returnurl_prefix`) with the
 * redirection plugin enabled; it must be a plain absolute http(s) URL.
 */
export function returnUrlRefusal(nav: Nav, plugins: string[], prefix: unknown): string | null {
  const url = nav.returnUrl;
  if (url === null) return null;
  if (!plugins.includes(RETURNURL_PLUGIN)) {
    return "This event does not redirect customers to other sites after payment (the redirection plugin is not enabled), so the return_url parameter cannot be used.";
  }
  if (typeof prefix !== "string" || prefix.trim() === "") {
    return "This event has no base URL for redirection configured, so the return_url parameter cannot be used.";
  }
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (
    url.length > 2000 ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refuses control characters in a return URL
    /[\u0000-\u0020\u007f]/.test(url) ||
    !parsed ||
    (parsed.protocol !== "https:" && parsed.protocol !== "http:")
  ) {
    return "The return_url parameter is not a valid URL.";
  }
  if (!returnUrlAllowed(plugins, prefix, url))
    return "The return_url parameter does not lie below a base URL configured for this event.";
  return null;
}

/** `url` with the navigation parameters (and `extra`) in its query. */
export function withNav(url: string, nav: Nav, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (nav.returnUrl !== null) params.set("return_url", nav.returnUrl);
  if (nav.iframe) params.set("iframe", "1");
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const q = params.toString();
  return q ? `${url}${url.includes("?") ? "&" : "?"}${q}` : url;
}

/** The return_url with `error=<code>` appended on failure. */
export function returnTarget(returnUrl: string, error: string | null): string {
  if (error === null) return returnUrl;
  const u = new URL(returnUrl);
  u.searchParams.set("error", error);
  return u.toString();
}

/** Attributes of a link that leaves the service: a new window when framed (pretix's workaround). */
export function outward(nav: Nav): Raw {
  return html`${nav.iframe ? html` target="_blank" rel="noopener"` : ""}`;
}

// ---- responses ----

/**
 * Order pages carry the order's secret in their URL: no caching, no indexing. (The security
 * headers of every page, framing included, come from pages/headers.ts.)
 */
function applyHeaders(c: AppContext, opts: { private?: boolean }) {
  if (opts.private) {
    c.header("Cache-Control", "private, no-store");
    c.header("X-Robots-Tag", "noindex");
  }
}

export function send(
  c: AppContext,
  body: string,
  status: ContentfulStatusCode = 200,
  opts: { private?: boolean } = {},
): Response {
  applyHeaders(c, opts);
  return c.html(body, status);
}

export function seeOther(c: AppContext, location: string): Response {
  applyHeaders(c, { private: true });
  return c.redirect(location, 303);
}

/** A page that does not exist: the 404 leaves through the page family's error exit (`pageError`). */
export function notFoundPage(_c: AppContext, what = "page"): never {
  throw notFound(`This ${what} does not exist.`);
}

// ---- layout ----

/** Contact, imprint and privacy links from the (event or organizer) settings. */
export function legalFooter(settings: Record<string, unknown>, nav: Nav): Raw {
  const parts: Raw[] = [];
  const mail = settings.contact_mail;
  if (typeof mail === "string" && mail) parts.push(html`<a href="mailto:${mail}">Contact: ${mail}</a>`);
  if (typeof settings.imprint_url === "string" && settings.imprint_url)
    parts.push(html`<a href="${settings.imprint_url}"${outward(nav)}>Imprint</a>`);
  if (typeof settings.privacy_url === "string" && settings.privacy_url)
    parts.push(html`<a href="${settings.privacy_url}"${outward(nav)}>Privacy policy</a>`);
  return html`${parts}`;
}

// ---- formatting ----

export function money(cents: number, currency: string): string {
  return `${currency} ${formatMoney(cents)}`;
}

export function when(ms: number, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat("en-GB", {
      weekday: "short",
      day: "numeric",
      month: "long",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      timeZone,
      timeZoneName: "short",
    }).format(new Date(ms));
  } catch {
    return new Date(ms).toISOString();
  }
}

export function dateRange(from: number, to: number | null, timeZone: string): string {
  return to === null ? when(from, timeZone) : `${when(from, timeZone)} – ${when(to, timeZone)}`;
}

export function text(value: I18n | null | undefined, locale = "en"): string {
  return i18nText(value, locale);
}

/**
 * Errors on customer pages: the status and headers of the API's one exit (`errorAnswer`,
 * http/errors.ts), the body an HTML page: a failure's message; an overloaded event object or
 * database asks to retry; anything unexpected names the request id.
 */
export const pageError: ErrorHandler<AppEnv> = (err, c) => {
  const requestId = c.get("requestId");
  const { status, headers } = errorAnswer(err, { method: c.req.method, id: requestId });
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  const title = status === 404 ? "Not found" : status > 500 ? "Please try again" : "Error";
  const message = !isFailure(err)
    ? `Something went wrong (request ${requestId}). Please try again later.`
    : status < 500
      ? err.message
      : "The page could not be processed right now. Please try again in a moment.";
  return send(c, page(title, html`<p class="error">${message}</p>`), status, { private: true });
};
