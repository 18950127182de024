/**
 * The application: error boundary, request context, and the middleware chain every API
 * request passes (route check → rate limit → JSON body check → authentication → idempotency),
 * then the resource routes, each with its tenancy/permission middleware.
 */
import { type ErrorHandler, Hono } from "hono";
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
import { readConfig } from "./lib/env";
import { refuseWritesWhileMoving } from "./http/organizer-group";
import { accessLog, d1Session, logFields, organizerGroup, requestId } from "./http/request-context";
import { authenticate } from "./http/auth";
import type { AppEnv } from "./http/context";
import { notFound } from "./lib/failure";
import { errorAnswer, methodNotAllowed } from "./http/errors";
import { handleUpload, serveMedia, uploadDoc } from "./http/files";
import { idempotency } from "./http/idempotency";
import { apiDocs, openApiHandler } from "./http/openapi";
import { rateLimit } from "./http/ratelimit";
import { mountReference } from "./http/reference";
import { RouteTable } from "./http/routing";
import { authenticatedScope, publicScope } from "./http/tenancy";
import { requireJsonBody } from "./http/validation";
import { customerActivationPages } from "./pages/customer-activation";
import { embedPages } from "./pages/embed";
import { pageSecurityHeaders } from "./pages/headers";
import { invitePages } from "./pages/invite";
import { orderPages } from "./pages/order";
import { paymentPages } from "./pages/payment";
import { checkoutPages } from "./pages/shop/checkout";
import { publicPages } from "./pages/public";
import { queuePages } from "./pages/waiting-room";
import { shopPages } from "./pages/shop/shop";

export const API_PREFIX = "/api/v1";

/**
 * The writes the event object decides and writes, whose session starts like a read's
 * (db/sessions.ts): the scans (`checkinrpc/redeem`, a list's `positions/{code}/redeem`) and
 * order creation (a POST to an event's `orders/`).
 */
const OBJECT_DECIDES =
  /^\/api\/v1\/organizers\/[^/]+\/(checkinrpc\/redeem|events\/[^/]+\/checkinlists\/\d+\/positions\/[^/]+\/redeem|events\/[^/]+\/orders)\/?$/;
/** Paths that take no credentials (a Stripe webhook's signature is its credential). */
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

/** The error boundary: whatever a request throws leaves as the JSON error body of docs/api.md (http/errors.ts). */
export const errorBoundary: ErrorHandler<AppEnv> = (err, c) => {
  const { status, body, headers } = errorAnswer(err, { method: c.req.method, id: c.get("requestId") });
  return c.json(body, status, headers);
};

/** The resource routes, each module's routes under the API prefix (docs/architecture.md). */
const API_ROUTES = [
  organizerRoutes,
  teamRoutes,
  deviceRoutes,
  deviceAuthRoutes,
  webhookRoutes,
  giftCardRoutes,
  giftCardAcceptanceRoutes,
  customerRoutes,
  membershipRoutes,
  eventRoutes,
  eventSettingsRoutes,
  eventMetaRoutes,
  subeventRoutes,
  liveAvailabilityRoutes,
  itemRoutes,
  variationRoutes,
  addonRoutes,
  bundleRoutes,
  categoryRoutes,
  membershipTypeRoutes,
  taxRuleRoutes,
  questionRoutes,
  questionOptionRoutes,
  discountRoutes,
  sendmailRuleRoutes,
  onsaleQueueRoutes,
  ticketLayoutRoutes,
  seatingPlanRoutes,
  quotaRoutes,
  voucherRoutes,
  cartRoutes,
  orderRoutes,
  orderActionRoutes,
  paymentRoutes,
  queueRoutes,
  refundRoutes,
  transactionRoutes,
  waitinglistRoutes,
  stripeWebhookRoutes,
  invoiceRoutes,
  ticketRoutes,
  checkinListRoutes,
  checkinRoutes,
  deviceEventSelectionRoutes,
  scannerCompatRoutes,
  ticketSecretRoutes,
  orderPositionRoutes,
  orderChangeRoutes,
  exporterRoutes,
];

/** The chain every API request passes before its route: known path (404 / 405), rate limit, JSON body, credential, idempotency. */
function apiChain(app: Hono<AppEnv>, routes: RouteTable): void {
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
}

/** The API's routes: the resource modules, uploads, the description and its reference. */
function apiRoutes(app: Hono<AppEnv>): void {
  for (const routes of API_ROUTES) app.route(API_PREFIX, routes);
  app.post(`${API_PREFIX}/upload`, authenticatedScope(), uploadDoc, handleUpload);
  app.get(
    `${API_PREFIX}/openapi.json`,
    publicScope(),
    apiDocs("API description").ok(openApiDocumentResponse, { summary: "This description (OpenAPI 3.1)" }),
    openApiHandler(app, API_PREFIX),
  );
  // The interactive reference of the description, served with its script by the service itself.
  mountReference(app, { title: "Edge ticketing API", descriptionUrl: `${API_PREFIX}/openapi.json` });
}

/** Media and the HTML pages, after every API path. */
function pages(app: Hono<AppEnv>): void {
  app.get("/media/*", serveMedia);
  app.use("*", pageSecurityHeaders());
  app.route("/", invitePages);
  app.route("/", customerActivationPages);
  // Customer pages under organizer and event slugs: after every fixed path above, so they
  // never shadow /api/, /media/, /invite/, /customer/ (reserved first segments answer 404).
  // pay/change is registered before pay/{local_id}; the waiting page's script (/static/) before
  // the event page's two segments.
  app.route("/", queuePages);
  app.route("/", embedPages);
  app.route("/", orderPages);
  app.route("/", paymentPages);
  app.route("/", checkoutPages);
  app.route("/", shopPages);
  app.route("/", publicPages);
}

export function createApp() {
  const app = new Hono<AppEnv>({ strict: false });
  const routes = new RouteTable(app, API_PREFIX);

  app.onError(errorBoundary);
  app.notFound((c) => {
    // no route: a known API path asked with another method is a 405, anything else a 404
    const methods = c.req.path.startsWith(API_PREFIX) ? routes.methodsFor(c.req.path) : [];
    if (methods.length === 0) return errorBoundary(notFound(), c);
    const { status, body, headers } = methodNotAllowed(c.req.method, methods);
    return c.json(body, status, headers);
  });

  // the request context (http/request-context.ts), one job each
  app.use("*", requestId, accessLog, logFields, organizerGroup(PUBLIC_API_PATHS), d1Session(OBJECT_DECIDES));
  app.use("*", refuseWritesWhileMoving);
  apiChain(app, routes);
  apiRoutes(app);
  pages(app);
  return app;
}
