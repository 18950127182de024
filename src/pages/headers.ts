/**
 * The security headers of every customer-facing page (order and payment pages, organizer and
 * event pages, team invitations, customer activation), through hono/secure-headers. Pages refuse
 * to be framed (X-Frame-Options DENY, CSP frame-ancestors 'none') unless `iframe=1` asks for
 * embedding; the Referer stays on this site (order URLs carry the order's secret).
 */
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "../http/context";

const common = { referrerPolicy: "same-origin", xContentTypeOptions: "nosniff" } as const;

const standalone = secureHeaders({
  ...common,
  xFrameOptions: "DENY",
  contentSecurityPolicy: { frameAncestors: ["'none'"] },
});

/** Embedded by an integrator's site: no framing refusal, and the page may be loaded into another origin's frame. */
const framed = secureHeaders({
  ...common,
  xFrameOptions: false,
  crossOriginResourcePolicy: "cross-origin",
  crossOriginOpenerPolicy: false,
});

/** Paths that are the API's or stored files, never pages. */
const NOT_PAGES = /^\/(api|media)(\/|$)/;

export function pageSecurityHeaders(): MiddlewareHandler<AppEnv> {
  return async function pageSecurityHeaders(c, next) {
    if (NOT_PAGES.test(c.req.path)) return next();
    return c.req.query("iframe") === "1" ? framed(c, next) : standalone(c, next);
  };
}
