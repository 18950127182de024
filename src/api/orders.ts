/**
 * Orders (docs/api.md; reading and state changes: pretix docs
 * orders.rst, docs/open-points.md rows 15, 16, 28). The routes parse, scope, call the order services
 * (services/order-create.ts, services/order-status.ts) and serialize (./orders-serializers.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { orderFilterConditions } from "../db/order-filters";
import { notFound } from "../lib/failure";
import { decimal } from "../rules/fields";
import { createOrder } from "../services/order-create";
import { orderInput } from "../services/order-input";
import { regenerateOrderSecrets } from "../services/ticket-changes";
import {
  confirmPayment,
  loadOrder,
  markOrderCanceled,
  markOrderExpired,
  markOrderPaid,
} from "../services/order-status";
import { listOrders, listPayments, ORDER_ORDERING } from "../db/orders";
import { setPageGenerated } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext, saleCaller } from "../http/context";
import { readInScope } from "../http/tenancy";
import { QUEUE_ANSWERS } from "../http/errors";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { publicBase } from "../http/context";
import { jsonBody, pathId, queryParams } from "../http/validation";
import {
  ORDER_LIST_PARAMS,
  ORDER_VIEW_PARAMS,
  orderDetailResponse,
  orderListItemResponse,
  orderListQuery,
  orderView,
  presentOrder,
} from "./orders-filters";
import {
  type OrderLocation,
  orderResponse,
  orderUrlAt,
  paymentResponse,
  serializeOrder,
  serializePayment,
} from "./orders-serializers";

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
    const extra = orderFilterConditions(c.req.param("event"), filter);
    const page = await readInScope(c, (db, eventId) =>
      listOrders(
        db,
        eventId,
        {
          code: f.code,
          status: f.status,
          testmode: f.testmode,
          email: f.email,
          locale: f.locale,
          modifiedSince: f.modified_since,
          customer: f.customer,
          extra,
        },
        req,
      ),
    );
    const at = location(c);
    // `pdf_data` adds nothing here: tickets are printed from the PDFs the service renders (`downloads`)
    return respondPage(c, req, page, (r) => presentOrder(at, r, view));
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

orderRoutes.get(
  `${base}/:code/payments`,
  read,
  doc.list(paymentResponse, { summary: "List an order's payments" }),
  async (c) => {
    const req = listRequest(c);
    const r = await loadOrder(eventContext(c), c.req.param("code"));
    const url = orderUrlAt(location(c), r);
    return respondPage(c, req, await listPayments(c.var.db, r.order.id, req), (y) => serializePayment(y, url));
  },
);

orderRoutes.get(
  `${base}/:code/payments/:local`,
  read,
  doc.ok(paymentResponse, { summary: "Payment detail" }),
  async (c) => {
    const r = await loadOrder(eventContext(c), c.req.param("code"));
    const local = pathId(c, "local");
    const y = r.payments.find((p) => p.local_id === local);
    if (!y) throw notFound();
    return c.json(serializePayment(y, orderUrlAt(location(c), r)));
  },
);

orderRoutes.post(
  `${base}/:code/payments/:local/confirm`,
  write,
  doc.ok(paymentResponse, { summary: "Confirm a payment", failures: ["unavailable", "changed"] }),
  jsonBody(z.object({ force: z.boolean().optional(), send_email: z.boolean().optional() })),
  async (c) => {
    const local = pathId(c, "local");
    const input = c.req.valid("json");
    const after = await confirmPayment(eventContext(c), c.req.param("code"), local, {
      force: input.force,
      sendEmail: input.send_email,
    });
    return c.json(serializePayment(after.payments.find((p) => p.local_id === local)!, orderUrlAt(location(c), after)));
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
      "A pending, paid or expired order is canceled completely; a `cancellation_fee` other than zero is refused (400).",
    failures: ["unavailable", "changed"],
  }),
  jsonBody(
    z.object({
      send_email: z.boolean().optional(),
      cancellation_fee: decimal({ min: 0 })
        .nullable()
        .optional()
        .meta({ description: "pretix keeps the order with this fee; here only none or zero is accepted" }),
    }),
  ),
  async (c) => {
    const input = c.req.valid("json");
    const after = await markOrderCanceled(eventContext(c), c.req.param("code"), {
      sendEmail: input.send_email,
      cancellationFee: input.cancellation_fee,
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
