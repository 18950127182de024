/**
 * Refunds of an order's payments (pretix docs orders.rst, "Order refund endpoints"): the list
 * and detail of an order's refunds (`can_view_orders`); the refund of a confirmed payment through
 * its provider (`POST .../payments/{local_id}/refund/`, services/payments/refunds.ts), a refund recorded
 * directly (`POST .../refunds/`) and its `done`, `process` and `cancel` (services/payments/refund-actions.ts),
 * all `can_change_orders`, each answering the refund.
 */
import { Hono } from "hono";
import { type AppEnv, eventContext } from "../http/context";
import { apiDocs, PATH_PARAMETERS } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import {
  createDirectRefund,
  directRefundInput,
  processInput,
  refundCancel,
  refundDone,
  refundProcess,
} from "../services/payments/refund-actions";
import { orderRefund, orderRefunds, refundInput, refundPayment } from "../services/payments/refunds";
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

refundRoutes.post(
  `${base}/refunds`,
  write,
  doc.created(refundResponse, {
    summary: "Record a refund",
    description:
      "Records a refund made outside the service (nothing is sent to a provider; card refunds go through " +
      "`.../payments/{local_id}/refund/`). Of a `payment`, at most what it has left to refund. `mark_canceled` " +
      "(or `mark_refunded`) cancels the order; `mark_pending` makes a paid order that owes money again pending.",
    failures: ["unavailable"],
  }),
  jsonBody(directRefundInput),
  async (c) => {
    const refund = await createDirectRefund(eventContext(c), c.req.param("code"), c.req.valid("json"));
    return c.json(serializeRefund(refund), 201);
  },
);

refundRoutes.post(
  `${base}/refunds/:local/done`,
  write,
  doc.ok(refundResponse, {
    summary: "Mark a refund as done",
    description: "Only a refund in state created or transit.",
    pathParams: refundLocal,
    failures: ["unavailable"],
  }),
  async (c) => c.json(serializeRefund(await refundDone(eventContext(c), c.req.param("code"), pathId(c, "local")))),
);

refundRoutes.post(
  `${base}/refunds/:local/process`,
  write,
  doc.ok(refundResponse, {
    summary: "Process an external refund",
    description:
      "Only a refund in state external, which becomes done. `mark_canceled` (or `mark_refunded`) cancels the " +
      "order; otherwise a paid order that owes money again is pending again.",
    pathParams: refundLocal,
    failures: ["unavailable"],
  }),
  jsonBody(processInput),
  async (c) => {
    const refund = await refundProcess(eventContext(c), c.req.param("code"), pathId(c, "local"), c.req.valid("json"));
    return c.json(serializeRefund(refund));
  },
);

refundRoutes.post(
  `${base}/refunds/:local/cancel`,
  write,
  doc.ok(refundResponse, {
    summary: "Cancel a refund",
    description: "Only a refund in state created, transit or external.",
    pathParams: refundLocal,
    failures: ["unavailable"],
  }),
  async (c) => c.json(serializeRefund(await refundCancel(eventContext(c), c.req.param("code"), pathId(c, "local")))),
);
