/**
 * An order's payments (pretix docs orders.rst, "Order payment endpoints"): list and detail
 * (`can_view_orders`); a payment recorded by hand, `confirm` and `cancel` (`can_change_orders`),
 * answering the payment (services/payments/payments.ts). The refund of a payment is in ./refunds.ts.
 */
import { Hono } from "hono";
import { listPayments, type OrderRecord } from "../services/orders/order-reads";
import { type AppContext, type AppEnv, eventContext, publicBase } from "../http/context";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { notFound } from "../lib/failure";
import { loadOrder } from "../services/orders/order-status";
import {
  cancelPayment,
  confirmInput,
  confirmPayment,
  createPayment,
  paymentInput,
} from "../services/payments/payments";
import { orderUrlAt, paymentResponse, serializePayment } from "./orders-serializers";

export const paymentRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/orders/:code/payments";
const read = eventScope("can_view_orders");
const write = eventScope("can_change_orders");
const doc = apiDocs("Orders");

/** The order's page URL, which gives open payments their `payment_url`. */
function orderPage(c: AppContext, r: OrderRecord): string {
  return orderUrlAt({ baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug, eventSlug: c.var.event.slug }, r);
}

/** The payment of `local` in the order as it is afterwards, serialized. */
function answer(c: AppContext, r: OrderRecord, local: number) {
  const y = r.payments.find((p) => p.local_id === local);
  if (!y) throw notFound();
  return serializePayment(y, orderPage(c, r));
}

paymentRoutes.get(base, read, doc.list(paymentResponse, { summary: "List an order's payments" }), async (c) => {
  const req = listRequest(c);
  const r = await loadOrder(eventContext(c), c.req.param("code"));
  const url = orderPage(c, r);
  return respondPage(c, req, await listPayments(eventContext(c), r.order.id, req), (y) => serializePayment(y, url));
});

paymentRoutes.get(`${base}/:local`, read, doc.ok(paymentResponse, { summary: "Payment detail" }), async (c) => {
  const r = await loadOrder(eventContext(c), c.req.param("code"));
  return c.json(answer(c, r, pathId(c, "local")));
});

paymentRoutes.post(
  base,
  write,
  doc.created(paymentResponse, {
    summary: "Record a payment",
    description:
      "Records a payment made outside the service (the provider is not called). With `state` `confirmed` it is " +
      "confirmed at once: the order becomes paid when its payments cover the total, unless that is refused " +
      "(no capacity for an expired order, awaiting approval, late; none with `force`), in which case it stays pending.",
    failures: ["unavailable"],
  }),
  jsonBody(paymentInput),
  async (c) => {
    const { order, payment } = await createPayment(eventContext(c), c.req.param("code"), c.req.valid("json"));
    return c.json(serializePayment(payment, orderPage(c, order)), 201);
  },
);

paymentRoutes.post(
  `${base}/:local/confirm`,
  write,
  doc.ok(paymentResponse, {
    summary: "Confirm a payment",
    description:
      "Only a payment in state created or pending. The order becomes paid when its payments cover the total " +
      "(an expired order needs its capacity again, unless `force`); the paid mail unless `send_email` is false.",
    failures: ["unavailable", "changed"],
  }),
  jsonBody(confirmInput),
  async (c) => {
    const local = pathId(c, "local");
    const input = c.req.valid("json");
    const after = await confirmPayment(eventContext(c), c.req.param("code"), local, {
      force: input.force,
      sendEmail: input.send_email,
    });
    return c.json(answer(c, after, local));
  },
);

paymentRoutes.post(
  `${base}/:local/cancel`,
  write,
  doc.ok(paymentResponse, {
    summary: "Cancel a payment",
    description: "Only a payment in state created or pending; the order's status stays as it is.",
    failures: ["unavailable"],
  }),
  async (c) => {
    const local = pathId(c, "local");
    return c.json(answer(c, await cancelPayment(eventContext(c), c.req.param("code"), local), local));
  },
);
