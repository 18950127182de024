/**
 * Conditional fetching. Object level: lists send `X-Page-Generated` (server time) which
 * clients pass back as `modified_since`. List level: lists send `Last-Modified` (the last
 * change of the resource family, deletions included); `If-Modified-Since` not older than it
 * answers 304 without a body.
 */
import { createDb } from "../db/client";
import { currentRequestSession } from "../db/sessions";
import { toHttpDate, toIso, parseHttpDate } from "../lib/datetime";
import type { AppContext } from "./context";
import { q } from "./validation";

/**
 * Sets `X-Page-Generated` (`now`, taken before the page's reads) and sends the request's
 * further reads (`c.var.db`) to the D1 primary: the client passes the time back as
 * `modified_since`, so the page must hold every change made before it, which a read replica
 * lagging behind does not guarantee (db/sessions.ts). Call it before building a context.
 */
export function setPageGenerated(c: AppContext, now: number): void {
  c.header("X-Page-Generated", toIso(now));
  const session = currentRequestSession();
  if (session) c.set("db", createDb(session.primary()));
}

/** The `modified_since` filter (declare it as `modified_since: modifiedSinceParam` in the route's `queryParams`). */
export const modifiedSinceParam = q.dateTime(
  "only objects changed since then (the X-Page-Generated of an earlier answer)",
);

/** The `modified_since` filter, or undefined. */
export function modifiedSince(c: AppContext): number | undefined {
  return modifiedSinceParam.read(c, "modified_since");
}

/**
 * Sets Last-Modified and returns a 304 response when the client's copy is current.
 * `lastModified` null means the list has never changed: no header, no 304.
 */
export function notModified(c: AppContext, lastModified: number | null | undefined): Response | null {
  if (lastModified === null || lastModified === undefined) return null;
  const seconds = Math.floor(lastModified / 1000) * 1000;
  c.header("Last-Modified", toHttpDate(seconds));
  const since = c.req.header("If-Modified-Since");
  if (since) {
    const t = parseHttpDate(since);
    if (t !== null && t >= seconds) {
      return c.body(null, 304);
    }
  }
  return null;
}
