/**
 * The one permission layer. Every route under an organizer or event declares its scope and
 * the permission it needs; this resolves the slugs of the URL tree and answers 403 when the
 * organizer or event does not exist, is not the caller's, or the permission is missing. It
 * runs before the handler, so no object is looked up for a caller without permission. The
 * slugs were usually resolved already, in the credential's round trip (http/auth.ts); slugs
 * the router reads differently from that (percent-encoded ones) are looked up here.
 */
import type { MiddlewareHandler } from "hono";
import { findTenancy, type TenancySlugs } from "../db/tenancy";
import { canAccessEvent, hasPermission, type Permission } from "../domain/permissions";
import type { AppContext, AppEnv } from "./context";
import { forbidden } from "../domain/failure";

export type ScopeMarker = { scope: "global" | "organizer" | "event"; permission: Permission | null };

function mark<T extends object>(fn: T, marker: ScopeMarker): T & { scopeMarker: ScopeMarker } {
  return Object.assign(fn, { scopeMarker: marker });
}

/** The organizer (and event) of these slugs: authentication's lookup when it matches, else a query. */
async function resolve(c: AppContext, slugs: TenancySlugs) {
  const prefetched = c.var.tenancy;
  if (prefetched && prefetched.slugs.organizer === slugs.organizer && (slugs.event === null || prefetched.slugs.event === slugs.event)) {
    return prefetched.row;
  }
  return findTenancy(c.var.db, slugs);
}

/** Organizer-level route: `/organizers/:organizer/...`. */
export function organizerScope(permission: Permission | null) {
  const handler: MiddlewareHandler<AppEnv> = async function organizerScope(c, next) {
    const principal = c.var.principal;
    const slug = c.req.param("organizer");
    if (!slug) throw forbidden();
    const row = await resolve(c, { organizer: slug, event: null });
    if (!row || row.organizer.id !== principal.organizerId || !hasPermission(principal, permission)) throw forbidden();
    c.set("organizer", row.organizer);
    await next();
  };
  return mark(handler, { scope: "organizer", permission });
}

/** Event-level route: `/organizers/:organizer/events/:event/...`. */
export function eventScope(permission: Permission | null) {
  const handler: MiddlewareHandler<AppEnv> = async function eventScope(c, next) {
    const principal = c.var.principal;
    const orgSlug = c.req.param("organizer");
    const eventSlug = c.req.param("event");
    if (!orgSlug || !eventSlug) throw forbidden();
    const row = await resolve(c, { organizer: orgSlug, event: eventSlug });
    if (
      !row ||
      row.organizer.id !== principal.organizerId ||
      !row.event ||
      !canAccessEvent(principal, row.event.id) ||
      !hasPermission(principal, permission)
    ) {
      throw forbidden();
    }
    c.set("organizer", row.organizer);
    c.set("event", row.event);
    await next();
  };
  return mark(handler, { scope: "event", permission });
}

/** Routes outside the tenancy tree that any authenticated caller may use. */
export function authenticatedScope() {
  const handler: MiddlewareHandler<AppEnv> = async function authenticatedScope(_c, next) {
    await next();
  };
  return mark(handler, { scope: "global", permission: null });
}
