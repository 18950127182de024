/**
 * The security headers of every customer-facing page (order and payment pages, organizer and
 * event pages, team invitations, customer activation), through hono/secure-headers. Pages refuse
 * to be framed (X-Frame-Options DENY, CSP frame-ancestors 'none') unless `iframe=1` asks for
 * embedding; the Referer stays on this site (order URLs carry the order's secret). A page that
 * runs the service's own script (the waiting page, the shop) may load scripts and connect to this origin only.
 */
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../http/context";
import { RESERVED_SEGMENTS } from "../lib/reserved-segments";

const common = { referrerPolicy: "same-origin", xContentTypeOptions: "nosniff" } as const;

/** Scripts from this origin only (no inline ones), requests and WebSockets to it only; the style sheet is inline. */
const SCRIPT_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'unsafe-inline'"],
  imgSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
};

const standaloneOptions = { ...common, xFrameOptions: "DENY" } as const;

/** Embedded by an integrator's site: no framing refusal, and the page may be loaded into another origin's frame. */
const framedOptions = {
  ...common,
  xFrameOptions: false,
  crossOriginResourcePolicy: "cross-origin",
  crossOriginOpenerPolicy: false,
} as const;

const standalone = secureHeaders({ ...standaloneOptions, contentSecurityPolicy: { frameAncestors: ["'none'"] } });
const framed = secureHeaders(framedOptions);
/** The header pair (standalone, framed) of a page that runs the service's script under `policy`. */
function scripted(policy: Record<string, string[]>) {
  return {
    standalone: secureHeaders({
      ...standaloneOptions,
      contentSecurityPolicy: { ...policy, frameAncestors: ["'none'"] },
    }),
    framed: secureHeaders({ ...framedOptions, contentSecurityPolicy: policy }),
  };
}

/** The waiting page of an on-sale queue (pages/waiting-room.ts): its forms post here only. */
const QUEUE_PAGE = /^\/[^/]+\/[^/]+\/queue\/?$/;
const queueHeaders = scripted({ ...SCRIPT_POLICY, formAction: ["'self'"] });

/**
 * The shop, its cart's answers and its checkout (pages/shop/); not the pages whose first segment
 * is reserved (an invitation, an activation). No form-action: a placed order's payment may go
 * on to the card provider's page, a redirect the browser would check against it.
 */
const SHOP_PAGES = /^\/[^/]+\/[^/]+(\/|\/checkout\/?|\/cart(\/remove)?\/?)?$/;
const shopHeaders = scripted(SCRIPT_POLICY);

/** Paths that are the API's, stored files or the embed script and its JSON (pages/embed.ts), never pages. */
const NOT_PAGES = /^\/(api|media|widget)(\/|$)|^\/[^/]+\/[^/]+\/widget\//;

export function pageSecurityHeaders(): MiddlewareHandler<AppEnv> {
  return async function pageSecurityHeaders(c, next) {
    if (NOT_PAGES.test(c.req.path)) return next();
    const embedded = c.req.query("iframe") === "1";
    const own = QUEUE_PAGE.test(c.req.path)
      ? queueHeaders
      : SHOP_PAGES.test(c.req.path) && !RESERVED_SEGMENTS.has(c.req.path.split("/")[1] ?? "")
        ? shopHeaders
        : null;
    if (own) return embedded ? own.framed(c, next) : own.standalone(c, next);
    return embedded ? framed(c, next) : standalone(c, next);
  };
}
