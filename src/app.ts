/**
 * The application: error boundary, request context, and the middleware chain every API
 * request passes (route check → rate limit → JSON body check → authentication → idempotency),
 * then the resource routes, each with its tenancy/permission middleware.
 */
import { type ErrorHandler, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { LIVE_AVAILABILITY_PATH, liveAvailabilityRoutes } from "./api/availability-live";
import { customerRoutes } from "./api/customers";
import { deviceAuthRoutes } from "./api/device-auth";
import { deviceRoutes } from "./api/devices";
import { giftCardAcceptanceRoutes } from "./api/giftcard-acceptance";
import { giftCardRoutes } from "./api/giftcards";
import { invoiceRoutes } from "./api/invoices";
import { membershipRoutes } from "./api/memberships";
import { eventRoutes } from "./api/events";
import { eventMetaRoutes } from "./api/events-meta";
import { eventSettingsRoutes } from "./api/events-settings";
import { categoryRoutes } from "./api/categories";
import { itemRoutes } from "./api/items";
import { addonRoutes, bundleRoutes } from "./api/items-addons";
import { variationRoutes } from "./api/items-variations";
import { membershipTypeRoutes } from "./api/membership-types";
import { subeventRoutes } from "./api/subevents";
import { discountRoutes } from "./api/discounts";
import { exporterRoutes } from "./api/exporters";
import { organizerRoutes } from "./api/organizers";
import { questionOptionRoutes } from "./api/question-options";
import { questionRoutes } from "./api/questions";
import { seatingPlanRoutes } from "./api/seatingplans";
import { onsaleQueueRoutes } from "./api/onsale-queues";
import { sendmailRuleRoutes } from "./api/sendmail-rules";
import { taxRuleRoutes } from "./api/taxrules";
import { ticketLayoutRoutes } from "./api/ticketlayouts";
import { cartRoutes } from "./api/carts";
import { checkinRoutes } from "./api/checkin";
import { checkinListRoutes } from "./api/checkinlists";
import { deviceEventSelectionRoutes } from "./api/device-eventselection";
import { scannerCompatRoutes } from "./api/scanner-sync";
import { ticketSecretRoutes } from "./api/ticket-secrets";
import { orderChangeRoutes } from "./api/order-change";
import { orderPositionRoutes } from "./api/orderpositions";
import { orderRoutes } from "./api/orders";
import { orderActionRoutes } from "./api/order-actions";
import { paymentRoutes } from "./api/payments";
import { quotaRoutes } from "./api/quotas";
import { queueRoutes } from "./api/waiting-room";
import { teamRoutes } from "./api/teams";
import { ticketRoutes } from "./api/tickets";
import { voucherRoutes } from "./api/vouchers";
import { webhookRoutes } from "./api/webhooks";
import { refundRoutes } from "./api/refunds";
import { transactionRoutes } from "./api/transactions";
import { waitinglistRoutes } from "./api/waitinglist";
import { STRIPE_WEBHOOK_PATH, stripeWebhookRoutes } from "./api/stripe-webhooks";
import { createDb } from "./db/client";
import { isDatabaseFault } from "./db/constraints";
import {
  countRoundTripsInContext,
  newRoundTrips,
  ROUND_TRIP_HEADERS,
  roundTripsEnabled,
  withRoundTripCounting,
} from "./db/round-trips";
import { simulateRemotePrimary } from "./db/remote-primary";
import { BOOKMARK_HEADER, RequestSession, sessionStart, withRequestSession } from "./db/sessions";
import { groupEnv } from "./lib/data-groups";
import { readConfig } from "./lib/env";
import { refuseWritesWhileMoving, requestGroupRoute } from "./http/organizer-group";
import { log, withLogContext } from "./lib/log";
import { authenticate } from "./http/auth";
import type { AppEnv } from "./http/context";
import { isFailure, MESSAGES, notFound } from "./lib/failure";
import { D1_READ_FAILED, D1_UNCONFIRMED } from "./services/faults";
import { errorResponse } from "./http/errors";
import { handleUpload, serveMedia, uploadDoc } from "./http/files";
import { idempotency } from "./http/idempotency";
import { apiDocs, openApiHandler } from "./http/openapi";
import { requestLogFields } from "./http/logging";
import { rateLimit } from "./http/ratelimit";
import { mountReference } from "./http/reference";
import { RouteTable } from "./http/routing";
import { authenticatedScope, publicScope } from "./http/tenancy";
import { requireJsonBody } from "./http/validation";
import { customerActivationPages } from "./pages/customer-activation";
import { pageSecurityHeaders } from "./pages/headers";
import { invitePages } from "./pages/invite";
import { orderPages } from "./pages/order";
import { paymentPages } from "./pages/payment";
import { publicPages } from "./pages/public";
import { queuePages } from "./pages/waiting-room";

export const API_PREFIX = "/api/v1";

/** Paths that take no credentials (a Stripe webhook's signature is its credential). */

/**
 * The writes the event object decides and writes, whose session starts like a read's
 * (db/sessions.ts): the scans (`checkinrpc/redeem`, a list's `positions/{code}/redeem`) and
 * order creation (a POST to an event's `orders/`).
 */
const OBJECT_DECIDES =
  /^\/api\/v1\/organizers\/[^/]+\/(checkinrpc\/redeem|events\/[^/]+\/checkinlists\/\d+\/positions\/[^/]+\/redeem|events\/[^/]+\/orders)\/?$/;
const PUBLIC_API_PATHS: RegExp[] = [
  /^\/api\/v1\/device\/initialize\/?$/,
  /^\/api\/v1\/openapi\.json\/?$/,
  STRIPE_WEBHOOK_PATH,
  LIVE_AVAILABILITY_PATH,
  // the on-sale queue's join, status and live socket: the queue ticket is the visitor's identity
  /^\/api\/v1\/organizers\/[^/]+\/events\/[^/]+\/queue\/(join|status|live)\/?$/,
];

/** The description itself: loosely typed here (its own schema is OpenAPI's). */
const openApiDocumentResponse = z.looseObject({
  openapi: z.literal("3.1.0"),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
});

/** The error boundary: every failure leaves as the JSON error body of docs/api.md. */
export const errorBoundary: ErrorHandler<AppEnv> = (err, c) => {
  if (isFailure(err)) {
    const { status, body, headers } = errorResponse(err);
    return c.json(body, status, headers);
  }
  if (err instanceof HTTPException) {
    // what hono itself throws (a body it cannot parse, ...); the service throws Failures only
    return c.json({ detail: err.message || "Bad request." }, err.status as ContentfulStatusCode);
  }
  if (isDatabaseFault(err)) {
    // D1 unreachable where no service answered it itself: retryable; a read changed nothing,
    // a write may or may not have been applied (services that can tell answer before this)
    log.error("D1 fault", { error: err });
    const read = c.req.method === "GET" || c.req.method === "HEAD";
    return c.json({ detail: read ? D1_READ_FAILED : D1_UNCONFIRMED }, 503, { "Retry-After": "1" });
  }
  log.error("unhandled error", { error: err });
  return c.json({ detail: `Internal server error (request ${c.get("requestId")}).` }, 500);
};

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-rpc (issue 36)
export function createApp() {
  const app = new Hono<AppEnv>({ strict: false });
  const routes = new RouteTable(app, API_PREFIX);

  app.onError(errorBoundary);

  app.notFound((c) => {
    const methods = c.req.path.startsWith(API_PREFIX) ? routes.methodsFor(c.req.path) : [];
    if (methods.length) {
      return c.json({ detail: `Method "${c.req.method}" not allowed.` }, 405, { Allow: methods.join(", ") });
    }
    return c.json({ detail: MESSAGES.notFound }, 404);
  });

  app.use("*", async function requestContext(c, next) {
    const requestId = crypto.randomUUID();
    const started = Date.now();
    c.set("requestId", requestId);
    // Debugging aid (off by default): D1 as a remote primary (src/db/remote-primary.ts)
    c.env = simulateRemotePrimary(c.env);
    // Debugging aid (off by default): count this request's D1 round trips, unless it asks not to
    // be counted (the benchmark's latency samples: the counting costs time of its own)
    const counts =
      roundTripsEnabled(c.env) && c.req.header(ROUND_TRIP_HEADERS.total) !== "off" ? newRoundTrips() : null;
    const counted = <T>(fn: () => Promise<T>) => (counts ? withRoundTripCounting(counts, fn) : fn());
    if (counts) c.env = { ...c.env, DIRECTORY: countRoundTripsInContext(c.env.DIRECTORY) };
    // the organizer's group: its database becomes the request's DB (lib/data-groups.ts)
    const route = await counted(() => requestGroupRoute(c, PUBLIC_API_PATHS));
    c.set("groupRoute", route);
    c.env = groupEnv(c.env, route?.group ?? 1);
    if (counts) c.env = { ...c.env, DB: countRoundTripsInContext(c.env.DB) };
    // D1 read replication: one session per request, started as the client's bookmark allows.
    const session = new RequestSession(
      c.env.DB,
      sessionStart(c.req.method, c.req.header(BOOKMARK_HEADER), OBJECT_DECIDES.test(c.req.path)),
    );
    c.set("db", createDb(session.session));
    const rest = () => withRequestSession(session, () => counted(next));
    await withLogContext(() => requestLogFields(c), rest);
    c.res.headers.set("X-Request-Id", requestId);
    const bookmark = session.bookmark();
    if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
    // the access line: one per request
    log.info("request", {
      ...requestLogFields(c),
      status: c.res.status,
      duration_ms: Date.now() - started,
      d1_session: session.start.kind,
    });
    if (counts) {
      c.res.headers.set(ROUND_TRIP_HEADERS.total, String(counts.own.n + counts.object.n));
      c.res.headers.set(ROUND_TRIP_HEADERS.worker, String(counts.own.n));
      c.res.headers.set(ROUND_TRIP_HEADERS.object, String(counts.object.n));
      c.res.headers.set(ROUND_TRIP_HEADERS.time, String(counts.own.ms + counts.object.ms));
      c.res.headers.set(ROUND_TRIP_HEADERS.timeObject, String(counts.object.ms));
      const start = counts.objectStart;
      if (start)
        c.res.headers.set(
          ROUND_TRIP_HEADERS.objectStart,
          `rows_read=${start.rowsRead}; held_positions=${start.heldPositions}`,
        );
    }
  });

  app.use("*", refuseWritesWhileMoving);

  app.use(`${API_PREFIX}/*`, async function knownPath(c, next) {
    // Unknown paths are 404 whatever the credentials; known paths go through the chain.
    if (routes.methodsFor(c.req.path).length === 0) throw notFound();
    await next();
  });
  app.use(`${API_PREFIX}/*`, rateLimit());
  app.use(
    `${API_PREFIX}/*`,
    requireJsonBody({ except: [`${API_PREFIX}/upload`], maxBytes: (c) => readConfig(c.env).maxBodyBytes }),
  );
  // Authentication before idempotency: a stored response is only replayed to a credential that
  // is still valid (a rolled or revoked device key, a deactivated token get 401, not the replay).
  app.use(`${API_PREFIX}/*`, authenticate({ publicPaths: PUBLIC_API_PATHS }));
  app.use(`${API_PREFIX}/*`, idempotency());

  app.route(API_PREFIX, organizerRoutes);
  app.route(API_PREFIX, teamRoutes);
  app.route(API_PREFIX, deviceRoutes);
  app.route(API_PREFIX, deviceAuthRoutes);
  app.route(API_PREFIX, webhookRoutes);
  app.route(API_PREFIX, giftCardRoutes);
  app.route(API_PREFIX, giftCardAcceptanceRoutes);
  app.route(API_PREFIX, customerRoutes);
  app.route(API_PREFIX, membershipRoutes);
  app.route(API_PREFIX, eventRoutes);
  app.route(API_PREFIX, eventSettingsRoutes);
  app.route(API_PREFIX, eventMetaRoutes);
  app.route(API_PREFIX, subeventRoutes);
  app.route(API_PREFIX, liveAvailabilityRoutes);
  app.route(API_PREFIX, itemRoutes);
  app.route(API_PREFIX, variationRoutes);
  app.route(API_PREFIX, addonRoutes);
  app.route(API_PREFIX, bundleRoutes);
  app.route(API_PREFIX, categoryRoutes);
  app.route(API_PREFIX, membershipTypeRoutes);
  app.route(API_PREFIX, taxRuleRoutes);
  app.route(API_PREFIX, questionRoutes);
  app.route(API_PREFIX, questionOptionRoutes);
  app.route(API_PREFIX, discountRoutes);
  app.route(API_PREFIX, sendmailRuleRoutes);
  app.route(API_PREFIX, onsaleQueueRoutes);
  app.route(API_PREFIX, ticketLayoutRoutes);
  app.route(API_PREFIX, seatingPlanRoutes);
  app.route(API_PREFIX, quotaRoutes);
  app.route(API_PREFIX, voucherRoutes);
  app.route(API_PREFIX, cartRoutes);
  app.route(API_PREFIX, orderRoutes);
  app.route(API_PREFIX, orderActionRoutes);
  app.route(API_PREFIX, paymentRoutes);
  app.route(API_PREFIX, queueRoutes);
  app.route(API_PREFIX, refundRoutes);
  app.route(API_PREFIX, transactionRoutes);
  app.route(API_PREFIX, waitinglistRoutes);
  app.route(API_PREFIX, stripeWebhookRoutes);
  app.route(API_PREFIX, invoiceRoutes);
  app.route(API_PREFIX, ticketRoutes);
  app.route(API_PREFIX, checkinListRoutes);
  app.route(API_PREFIX, checkinRoutes);
  app.route(API_PREFIX, deviceEventSelectionRoutes);
  app.route(API_PREFIX, scannerCompatRoutes);
  app.route(API_PREFIX, ticketSecretRoutes);
  app.route(API_PREFIX, orderPositionRoutes);
  app.route(API_PREFIX, orderChangeRoutes);
  app.route(API_PREFIX, exporterRoutes);
  app.post(`${API_PREFIX}/upload`, authenticatedScope(), uploadDoc, handleUpload);
  app.get(
    `${API_PREFIX}/openapi.json`,
    publicScope(),
    apiDocs("API description").ok(openApiDocumentResponse, { summary: "This description (OpenAPI 3.1)" }),
    openApiHandler(app, API_PREFIX),
  );
  // The interactive reference of the description, served with its script by the service itself.
  mountReference(app, { title: "Edge ticketing API", descriptionUrl: `${API_PREFIX}/openapi.json` });

  app.get("/media/*", serveMedia);
  app.use("*", pageSecurityHeaders());
  app.route("/", invitePages);
  app.route("/", customerActivationPages);
  // Customer pages under organizer and event slugs: after every fixed path above, so they
  // never shadow /api/, /media/, /invite/, /customer/ (reserved first segments answer 404).
  // pay/change is registered before pay/{local_id}; the waiting page's script (/static/) before
  // the event page's two segments.
  app.route("/", queuePages);
  app.route("/", orderPages);
  app.route("/", paymentPages);
  app.route("/", publicPages);

  return app;
}
