/**
 * The fields a request puts on every log line (src/lib/log.ts): its id, method, the route
 * pattern it matched (never the raw path: order and payment page URLs carry secrets), and the
 * organizer and event once the permission layer has resolved them.
 */
import { matchedRoutes } from "hono/route";
import type { LogFields } from "../lib/log";
import type { AppContext } from "./context";

/** The registered pattern of the route that serves the request (null: no route, a 404 or 405). */
export function routePattern(c: AppContext): string | null {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const r = routes[i]!;
    // middleware is registered for every method; the route itself for its own
    if (r.method !== "ALL") return r.path;
  }
  return null;
}

export function requestLogFields(c: AppContext): LogFields {
  return {
    request_id: c.get("requestId"),
    method: c.req.method,
    route: routePattern(c),
    organizer: c.get("organizer")?.slug ?? null,
    event: c.get("event")?.slug ?? null,
  };
}
