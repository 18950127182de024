/**
 * The one permission layer. Every route under an organizer or event declares its scope and
 * the permission it needs; this answers 403 when the organizer or event does not exist, is not
 * the caller's, or the permission is missing. It runs before the handler, so no object is
 * looked up for a caller without permission. The organizer and event rows come from the one
 * resolution of the path's slugs that authentication did in the credential's round trip
 * (http/auth.ts); nothing is looked up here.
 */
import type { MiddlewareHandler } from "hono";
import type { TenancyRow } from "../db/tenancy";
import { canAccessEvent, hasPermission, type Permission } from "../domain/permissions";
import { forbidden } from "../domain/failure";
import type { AppContext, AppEnv } from "./context";

export type ScopeMarker = { scope: "global" | "organizer" | "event"; permission: Permission | null };

function mark<T extends object>(fn: T, marker: ScopeMarker): T & { scopeMarker: ScopeMarker } {
  return Object.assign(fn, { scopeMarker: marker });
}

/** The organizer (and event) that authentication resolved for the route's own slugs. */
function resolved(c: AppContext, organizer: string | undefined, event: string | null): TenancyRow | undefined {
  const t = c.var.tenancy;
  if (!t || organizer === undefined || t.slugs.organizer !== organizer || (event !== null && t.slugs.event !== event)) return undefined;
  return t.row;
}

/** Organizer-level route: `/organizers/:organizer/...`. */
export function organizerScope(permission: Permission | null) {
  const handler: MiddlewareHandler<AppEnv> = async function organizerScope(c, next) {
    const principal = c.var.principal;
    const row = resolved(c, c.req.param("organizer"), null);
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
    const eventSlug = c.req.param("event");
    const row = eventSlug ? resolved(c, c.req.param("organizer"), eventSlug) : undefined;
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
