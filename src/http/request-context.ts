/**
 * The request context every request gets before the API's chain and the pages: named middleware,
 * one job each, in the order src/app.ts applies them (docs/architecture.md, "A request, end to end"):
 * its id, its access line, its log fields, its organizer's group, its D1 session.
 */
import type { MiddlewareHandler } from "hono";
import { createDb } from "../db/client";
import { BOOKMARK_HEADER, RequestSession, sessionStart, withRequestSession } from "../db/sessions";
import { groupEnv } from "../lib/data-groups";
import { log, withLogContext } from "../lib/log";
import type { AppEnv } from "./context";
import { requestLogFields } from "./logging";
import { requestGroupRoute } from "./organizer-group";

/** The request's id: on its log lines and in the answer's `X-Request-Id`. */
export const requestId: MiddlewareHandler<AppEnv> = async function requestId(c, next) {
  const id = crypto.randomUUID();
  c.set("requestId", id);
  await next();
  c.res.headers.set("X-Request-Id", id);
};

/** The access line: one per request, once answered (status, duration, how its D1 session started). */
export const accessLog: MiddlewareHandler<AppEnv> = async function accessLog(c, next) {
  const started = Date.now();
  await next();
  log.info("request", {
    ...requestLogFields(c),
    status: c.res.status,
    duration_ms: Date.now() - started,
    d1_session: c.get("session")?.start.kind ?? null,
  });
};

/** Every log line written while the request runs carries its fields (http/logging.ts). */
export const logFields: MiddlewareHandler<AppEnv> = async function logFields(c, next) {
  await withLogContext(() => requestLogFields(c), next);
};

/**
 * The organizer's group (http/organizer-group.ts): its database becomes the request's `DB`
 * (lib/data-groups.ts). `publicApiPaths`: API paths that take no credentials.
 */
export function organizerGroup(publicApiPaths: RegExp[]): MiddlewareHandler<AppEnv> {
  return async function organizerGroup(c, next) {
    const route = await requestGroupRoute(c, publicApiPaths);
    c.set("groupRoute", route);
    c.env = groupEnv(c.env, route?.group ?? 1);
    await next();
  };
}

/**
 * D1 read replication (db/sessions.ts): one session per request, started as the client's
 * bookmark allows; the answer carries the bookmark of what the request wrote or read.
 * `objectDecides`: the writes the event object decides, whose session starts like a read's.
 */
export function d1Session(objectDecides: RegExp): MiddlewareHandler<AppEnv> {
  return async function d1Session(c, next) {
    const start = sessionStart(c.req.method, c.req.header(BOOKMARK_HEADER), objectDecides.test(c.req.path));
    const session = new RequestSession(c.env.DB, start);
    c.set("session", session);
    c.set("db", createDb(session.session));
    await withRequestSession(session, next);
    const bookmark = session.bookmark();
    if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
  };
}
