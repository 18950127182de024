/**
 * The organizer group a request works on, chosen before its D1 session starts: from the
 * organizer its credential names (API token, device key), else from the organizer of its path
 * (`/api/v1/organizers/{slug}/`, a customer page `/{slug}/`), from the organizer a link's token
 * names (team invitation, customer activation), or from the initialization token of a device
 * being set up. Everything else (and an organizer the directory does not know) works on group 1.
 */
import type { MiddlewareHandler } from "hono";
import { Failure } from "../lib/failure";
import { secretOrganizer } from "../lib/organizer-credentials";
import { RESERVED_SEGMENTS } from "../lib/reserved-segments";
import { type GroupRoute, type OrganizerKey, organizerRoute } from "../services/organizers/organizer-groups";
import type { AppContext, AppEnv } from "./context";

const API_ORGANIZER = /^\/api\/v1\/organizers\/([^/]+)/;
const LINK_TOKEN = /^\/(?:invite|customer\/activate)\/([^/]+)/;
const DEVICE_INITIALIZE = /^\/api\/v1\/device\/initialize\/?$/;
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function named(secret: string | undefined | null): OrganizerKey | null {
  const id = typeof secret === "string" ? secretOrganizer(secret) : null;
  return id === null ? null : { organizerId: id };
}

/** The initialization token of a device-setup body (read once; the route reads it again from hono's cache). */
async function initializationToken(c: AppContext): Promise<string | null> {
  // a setup body is a few hundred bytes; anything far larger is left to the route's checks
  if (Number(c.req.header("Content-Length") ?? "0") > 65_536) return null;
  try {
    const body = JSON.parse(await c.req.text()) as { token?: unknown };
    return typeof body?.token === "string" ? body.token : null;
  } catch {
    return null;
  }
}

/**
 * Which organizers the request is about, as far as the request itself tells, first what decides.
 * An API route that takes credentials goes by the credential (another organizer's path is then
 * refused there as ever), then by its path; a public one (`publicApiPaths`) and a customer page go
 * by their path.
 */
async function organizersOfRequest(c: AppContext, publicApiPaths: RegExp[]): Promise<OrganizerKey[]> {
  const path = c.req.path;
  const keys: OrganizerKey[] = [];
  const [scheme, credential, ...rest] = (c.req.header("Authorization") ?? "").trim().split(/\s+/);
  const takesCredentials = path.startsWith("/api/") && !publicApiPaths.some((re) => re.test(path));
  if (takesCredentials && credential && rest.length === 0 && /^(token|device)$/i.test(scheme ?? "")) {
    const key = named(credential);
    if (key) keys.push(key);
  }
  const api = API_ORGANIZER.exec(path);
  if (api) keys.push({ slug: decoded(api[1]!) });
  else if (DEVICE_INITIALIZE.test(path) && c.req.method === "POST") {
    const key = named(await initializationToken(c));
    if (key) keys.push(key);
  } else if (!path.startsWith("/api/")) {
    const link = LINK_TOKEN.exec(path);
    const first = decoded(path.split("/")[1] ?? "");
    const key = link ? named(decoded(link[1]!)) : first === "" || RESERVED_SEGMENTS.has(first) ? null : { slug: first };
    if (key) keys.push(key);
  }
  return keys;
}

/** The group route of the request's organizer: the first the directory knows (null: group 1). */
export async function requestGroupRoute(c: AppContext, publicApiPaths: RegExp[]): Promise<GroupRoute | null> {
  for (const key of await organizersOfRequest(c, publicApiPaths)) {
    const route = await organizerRoute(c.env, key);
    if (route) return route;
  }
  return null;
}

/** Refuses writes to an organizer that is being moved to another group (503, retry shortly). */
export const refuseWritesWhileMoving: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.var.groupRoute?.moving && !READS.has(c.req.method))
    throw new Failure("unavailable", "This organizer is being moved to another database. Retry in a moment.");
  await next();
};
