/**
 * Orders (docs/api.md; reading and state changes: pretix docs
 * orders.rst, docs/open-points.md rows 15, 16, 28). The routes parse, scope, call the order services
 * (services/orders/order-create.ts, services/orders/order-status.ts) and serialize (./orders-serializers.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { decimal } from "../rules/fields";
import { createOrder } from "../services/orders/order-create";
import { orderInput } from "../services/orders/order-input";
import { regenerateOrderSecrets } from "../services/tickets/ticket-changes";
import { loadOrder, markOrderExpired, markOrderPaid } from "../services/orders/order-status";
import { markOrderCanceled } from "../services/orders/order-edits";
import { listEventOrders, ORDER_ORDERING, type OrderColumns, orderListFilter } from "../services/orders/order-reads";
import { organizerOrders } from "../services/orders/order-lists";
import { setPageGenerated } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext, organizerContext, saleCaller, publicBase } from "../http/context";
import { readInScope, eventScope, organizerScope } from "../http/tenancy";
import { QUEUE_ANSWERS } from "../http/errors";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { jsonBody, type QueryValues, queryParams } from "../http/validation";
import {
  ORDER_LIST_PARAMS,
  ORDER_VIEW_PARAMS,
  orderDetailResponse,
  orderListItemResponse,
  orderListQuery,
  orderView,
  presentOrder,
} from "./orders-filters";
import { type OrderLocation, orderResponse, serializeOrder } from "./orders-serializers";

export * from "./orders-serializers";

/** Where the request's orders live (for their `url` and `payment_url`s). */
function location(c: AppContext): OrderLocation {
  return { baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug, eventSlug: c.var.event.slug };
}

export const orderRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/orders";
const read = eventScope("can_view_orders");
const readList = eventScope("can_view_orders", { pageWithCredential: true });
const write = eventScope("can_change_orders");

const doc = apiDocs("Orders");

/** The order list's column matches of the query (the documented further filters are `orderListQuery`'s). */
function columnFilter(f: QueryValues<typeof ORDER_LIST_PARAMS>): OrderColumns {
  return {
    code: f.code,
    status: f.status,
    testmode: f.testmode,
    email: f.email,
    locale: f.locale,
    modifiedSince: f.modified_since,
    customer: f.customer,
  };
}

orderRoutes.get(
  base,
  readList,
  doc.list(orderListItemResponse, { summary: "List orders", ordering: ORDER_ORDERING }),
  queryParams(ORDER_LIST_PARAMS),
  async (c) => {
    const req = listRequest(c);
    setPageGenerated(c, Date.now());
    const f = c.req.valid("query");
    const { filter, view } = orderListQuery(f);
    // the path's slug is the event's (slugs resolve exactly)
    const orderFilter = orderListFilter(c.req.param("event"), columnFilter(f), filter);
    const page = await readInScope(c, (db, eventId) => listEventOrders(db, eventId, orderFilter, req));
    const at = location(c);
    // `pdf_data` adds nothing here: tickets are printed from the PDFs the service renders (`downloads`)
    return respondPage(c, req, page, (r) => presentOrder(at, r, view));
  },
);

/** pretix's organizer-level orders list: the event's list's query and answer over the organizer's events. */
orderRoutes.get(
  "/organizers/:organizer/orders",
  organizerScope("can_view_orders", { perObject: true }),
  doc.list(orderListItemResponse, {
    summary: "List an organizer's orders",
    description:
      "The orders list of every event whose orders the credential may see (none without `can_view_orders`: an empty list), with the same query and answer; `event` names each order's event.",
    ordering: ORDER_ORDERING,
  }),
  queryParams(ORDER_LIST_PARAMS),
  async (c) => {
    const req = listRequest(c);
    setPageGenerated(c, Date.now());
    const f = c.req.valid("query");
    const { filter, view } = orderListQuery(f);
    const orderFilter = orderListFilter(null, columnFilter(f), filter);
    const page = await organizerOrders(organizerContext(c), c.var.principal, orderFilter, req);
    const base = { baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug };
    return respondPage(c, req, page, (r) => presentOrder({ ...base, eventSlug: r.eventSlug }, r, view));
  },
);

orderRoutes.get(
  `${base}/:code`,
  read,
  doc.ok(orderDetailResponse, { summary: "Order detail" }),
  queryParams(ORDER_VIEW_PARAMS),
  async (c) => {
    const r = await loadOrder(eventContext(c), c.req.param("code"));
    return c.json(presentOrder(location(c), r, orderView(c.req.valid("query"))));
  },
);

orderRoutes.post(
  base,
  write,
  doc.created(orderResponse, {
    summary: "Create an order",
    failures: ["unavailable", "insufficient_credit"],
    answers: QUEUE_ANSWERS,
  }),
  jsonBody(orderInput),
  async (c) => {
    const r = await createOrder(eventContext(c), c.req.valid("json"), saleCaller(c));
    return c.json(serializeOrder(location(c), r), 201);
  },
);

orderRoutes.post(
  `${base}/:code/mark_paid`,
  write,
  doc.ok(orderResponse, { summary: "Mark an order as paid", failures: ["unavailable", "changed"] }),
  jsonBody(z.object({ force: z.boolean().optional(), send_email: z.boolean().optional() })),
  async (c) => {
    const input = c.req.valid("json");
    const after = await markOrderPaid(eventContext(c), c.req.param("code"), {
      force: input.force,
      sendEmail: input.send_email,
    });
    return c.json(serializeOrder(location(c), after));
  },
);

orderRoutes.post(
  `${base}/:code/mark_canceled`,
  write,
  doc.ok(orderResponse, {
    summary: "Cancel an order",
    description:
      "A pending, paid or expired order is canceled. With a `cancellation_fee`, a pending or paid order keeps its status: its positions and fees are canceled and the fee becomes its total (pretix).",
    failures: ["unavailable", "changed"],
  }),
  jsonBody(
    z.object({
      send_email: z.boolean().optional(),
      comment: z.string().max(10000).optional().meta({ description: "pretix: shown to the customer in the mail" }),
      cancellation_fee: decimal({ min: 0 })
        .nullable()
        .optional()
        .meta({ description: "pretix: the order is kept with this fee as its total (at most the total)" }),
    }),
  ),
  async (c) => {
    const input = c.req.valid("json");
    const after = await markOrderCanceled(eventContext(c), c.req.param("code"), {
      sendEmail: input.send_email,
      cancellationFee: input.cancellation_fee,
      comment: input.comment,
    });
    return c.json(serializeOrder(location(c), after));
  },
);

/** pretix `regenerate_secrets`: new secrets for the order and its tickets (with signed secrets, the old ones revoked). */
orderRoutes.post(
  `${base}/:code/regenerate_secrets`,
  write,
  doc.ok(orderResponse, {
    summary: "Regenerate an order's secrets",
    description: "New secrets for the order and its tickets; with signed ticket secrets the old ones are revoked.",
    failures: ["unavailable", "changed"],
  }),
  async (c) => c.json(serializeOrder(location(c), await regenerateOrderSecrets(eventContext(c), c.req.param("code")))),
);

orderRoutes.post(
  `${base}/:code/mark_expired`,
  write,
  doc.ok(orderResponse, { summary: "Mark an order as expired", failures: ["unavailable", "changed"] }),
  async (c) => {
    return c.json(serializeOrder(location(c), await markOrderExpired(eventContext(c), c.req.param("code"))));
  },
);
