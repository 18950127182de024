/**
 * Refunds of an order's payments (pretix docs orders.rst, "Order refund endpoints"): the list
 * and detail of an order's refunds (`can_view_orders`), and the refund of a confirmed payment
 * (`POST .../payments/{local_id}/refund/`, `can_change_orders`), which answers the refund
 * (services/refunds.ts).
 */
import { Hono } from "hono";
import { type AppEnv, eventContext } from "../http/context";
import { apiDocs, PATH_PARAMETERS } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { orderRefund, orderRefunds, refundInput, refundPayment } from "../services/refunds";
import { refundResponse, serializeRefund } from "./refunds-serializers";

export const refundRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/orders/:code";
const read = eventScope("can_view_orders");
const write = eventScope("can_change_orders");
const doc = apiDocs("Orders");
const refundLocal = { local: { schema: PATH_PARAMETERS.local!.schema, description: "The refund's `local_id`." } };

refundRoutes.get(
  `${base}/refunds`,
  read,
  doc.list(refundResponse, { summary: "List an order's refunds" }),
  async (c) => {
    const req = listRequest(c);
    return respondPage(c, req, await orderRefunds(eventContext(c), c.req.param("code"), req), serializeRefund);
  },
);

refundRoutes.get(
  `${base}/refunds/:local`,
  read,
  doc.ok(refundResponse, { summary: "Refund detail", pathParams: refundLocal }),
  async (c) => c.json(serializeRefund(await orderRefund(eventContext(c), c.req.param("code"), pathId(c, "local")))),
);

refundRoutes.post(
  `${base}/payments/:local/refund`,
  write,
  doc.ok(refundResponse, {
    summary: "Refund a payment",
    description:
      "Refunds a confirmed payment, all of it or `amount`, through its provider (Stripe); answers the refund. " +
      "When money is due again afterwards, `mark_canceled` cancels the order, else a paid order is pending again.",
  }),
  jsonBody(refundInput),
  async (c) => {
    const refund = await refundPayment(eventContext(c), c.req.param("code"), pathId(c, "local"), c.req.valid("json"));
    return c.json(serializeRefund(refund));
  },
);
