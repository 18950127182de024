/**
 * The one permission layer: every route declares its scope and permission, and this answers 403 before
 * the handler when the organizer or event is missing or not the caller's, the permission is missing,
 * or a device's call is outside its security profile (rules/permissions.ts). The organizer and event
 * rows come from authentication's one resolution of the path (http/auth.ts); nothing is looked up here.
 */
import type { MiddlewareHandler } from "hono";
import { matchedRoutes, routePath } from "hono/route";
import { findTargetHandler } from "hono/utils/handler";
import type { DB } from "../db/client";
import type { TenancyRow } from "../db/tenancy";
import {
  canAccessEvent,
  deviceProfileAllows,
  hasPermission,
  type Permission,
  type Principal,
} from "../rules/permissions";
import { Failure, forbidden, MESSAGES } from "../lib/failure";
import type { AppContext, AppEnv } from "./context";
import { rememberAdmission } from "./credential-batch";

export type ScopeMarker = {
  scope: "public" | "global" | "device" | "organizer" | "event";
  permission: Permission | null;
  /** The route reads its page with the credential, in one batch (http/credential-batch.ts). */
  pageWithCredential?: true;
  /**
   * The permission is checked by the handler on each object the request names (pretix's
   * check-in RPC: each list's event), not by the scope: any credential of the organizer gets in.
   */
  perObject?: true;
};

export const PROFILE_DENIED = "Request denied by device security profile.";

/** A device may only make the calls its security profile allows (pretix's answer: 403). */
function enforceSecurityProfile(c: AppContext): void {
  const principal = c.var.principal as Principal | undefined;
  if (principal?.kind !== "device") return;
  if (!deviceProfileAllows(principal.securityProfile ?? "full", c.req.method, routePath(c)))
    throw forbidden(PROFILE_DENIED);
}

function mark<T extends object>(fn: T, marker: ScopeMarker): T & { scopeMarker: ScopeMarker } {
  return Object.assign(fn, { scopeMarker: marker });
}

/** The scope a registered handler declares (undefined: it is no scope middleware). */
export function scopeMarkerOf(handler: Parameters<typeof findTargetHandler>[0]): ScopeMarker | undefined {
  return (findTargetHandler(handler) as { scopeMarker?: ScopeMarker }).scopeMarker;
}

/** Whether the request's route is a GET whose scope reads its page with the credential (http/credential-batch.ts). */
export function routeReadsWithCredential(c: AppContext): boolean {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return false;
  const markers = matchedRoutes(c)
    .filter((r) => r.method !== "ALL")
    .map((r) => scopeMarkerOf(r.handler))
    .filter((m) => m !== undefined);
  return markers.length > 0 && markers.every((m) => m.pageWithCredential === true);
}

/** The organizer (and event) that authentication resolved for the route's own slugs. */
function resolved(c: AppContext, organizer: string | undefined, event: string | null): TenancyRow | undefined {
  const t = c.var.tenancy;
  if (!t || organizer === undefined || t.slugs.organizer !== organizer || (event !== null && t.slugs.event !== event))
    return undefined;
  return t.row;
}

/**
 * Organizer-level route: `/organizers/:organizer/...`. With `perObject`, the permission is the
 * handler's to check on each object the request names (the scope admits any credential of the
 * organizer, and the description says what each object needs).
 */
export function organizerScope(permission: Permission | null, opts: { perObject?: true } = {}) {
  const enforced = opts.perObject ? null : permission;
  const handler: MiddlewareHandler<AppEnv> = async function organizerScope(c, next) {
    enforceSecurityProfile(c);
    const principal = c.var.principal;
    const row = resolved(c, c.req.param("organizer"), null);
    if (!row || row.organizer.id !== principal.organizerId || !hasPermission(principal, enforced)) throw forbidden();
    c.set("organizer", row.organizer);
    await next();
  };
  return mark(handler, { scope: "organizer", permission, ...(opts.perObject ? { perObject: true as const } : {}) });
}

/**
 * Event-level route: `/organizers/:organizer/events/:event/...`. With `pageWithCredential`, a
 * GET route whose handler reads through `readInScope` (http/credential-batch.ts): when
 * authentication left the check ahead, it runs on the results of the handler's first batch, and
 * here after the handler in any case, before the answer leaves.
 */
export function eventScope(permission: Permission | null, opts: { pageWithCredential?: true } = {}) {
  const check = (c: AppContext) => {
    enforceSecurityProfile(c);
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
    const tenancy = c.var.tenancy;
    if (opts.pageWithCredential && tenancy)
      rememberAdmission(principal.kind, principal.credentialHash, tenancy.slugs, row.event.id);
  };
  const handler: MiddlewareHandler<AppEnv> = async function eventScope(c, next) {
    const ahead = c.var.credentialAhead;
    if (!ahead) {
      check(c);
      return next();
    }
    ahead.check = () => check(c);
    await next();
    // whatever the handler did, the answer leaves only with the credential admitted
    await ahead.settle(c.var.db);
  };
  return mark(handler, {
    scope: "event",
    permission,
    ...(opts.pageWithCredential ? { pageWithCredential: true as const } : {}),
  });
}

/** Routes outside the tenancy tree that any authenticated caller may use. */
export function authenticatedScope() {
  const handler: MiddlewareHandler<AppEnv> = async function authenticatedScope(c, next) {
    enforceSecurityProfile(c);
    await next();
  };
  return mark(handler, { scope: "global", permission: null });
}

/**
 * The device's own routes (`/api/v1/device/...`): device keys only. Any other credential is
 * answered as pretix does, 401 (its device views authenticate devices only, so a team key
 * counts as no credentials).
 */
export function deviceScope() {
  const handler: MiddlewareHandler<AppEnv> = async function deviceScope(c, next) {
    if ((c.var.principal as Principal | undefined)?.kind !== "device")
      throw new Failure("unauthenticated", MESSAGES.noCredentials);
    enforceSecurityProfile(c);
    await next();
  };
  return mark(handler, { scope: "device", permission: null });
}

/** Routes that take no credentials (listed in the app's public paths), such as device initialization. */
export function publicScope() {
  const handler: MiddlewareHandler<AppEnv> = async function publicScope(_c, next) {
    await next();
  };
  return mark(handler, { scope: "public", permission: null });
}

/**
 * Runs a route's reads for its event: `read` gets a db and the event's id. Checked already
 * (no credential ahead): `c.var.db` and the checked event. Otherwise the remembered event id and
 * a db whose first batch carries the credential, checked before `read` gets its rows; when the
 * check found another event under the path, `read` runs again for it.
 */
export async function readInScope<T>(c: AppContext, read: (db: DB, eventId: number) => Promise<T>): Promise<T> {
  const ahead = c.var.credentialAhead;
  if (!ahead) return read(c.var.db, c.var.event.id);
  const result = await read(ahead.carriedBy(c.var.db), ahead.eventId);
  await ahead.settle(c.var.db);
  return c.var.event.id === ahead.eventId ? result : read(c.var.db, c.var.event.id);
}
