/**
 * Order state operations and edits (pretix docs orders.rst "Order state operations", "Updating
 * order fields", "Sending e-mails", "Deleting orders"): approve, deny, extend, reactivate,
 * mark_pending, mark_refunded, resend_link, PATCH and DELETE of an order. The routes parse,
 * scope, call the services (services/orders/order-actions.ts, services/orders/order-edits.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  approveOrder,
  denyOrder,
  extendOrder,
  markOrderPending,
  markOrderRefunded,
  reactivateOrder,
} from "../services/orders/order-actions";
import { deleteTestOrder, orderPatchInput, patchOrder, resendLink } from "../services/orders/order-edits";
import { type AppContext, type AppEnv, eventContext, publicBase } from "../http/context";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody } from "../http/validation";
import { type OrderLocation, orderResponse, serializeOrder } from "./orders-serializers";

export const orderActionRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/orders/:code";
const write = eventScope("can_change_orders");
const doc = apiDocs("Orders");

function location(c: AppContext): OrderLocation {
  return { baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug, eventSlug: c.var.event.slug };
}
const code = (c: AppContext) => c.req.param("code")!;
const failures = ["unavailable", "changed"] as const;

orderActionRoutes.post(
  `${base}/approve`,
  write,
  doc.ok(orderResponse, {
    summary: "Approve an order",
    description: "An order pending approval may be paid now (`require_approval` false); a free one becomes paid.",
    failures: [...failures],
  }),
  jsonBody(z.object({ send_email: z.boolean().optional() })),
  async (c) => {
    const after = await approveOrder(eventContext(c), code(c), { sendEmail: c.req.valid("json").send_email });
    return c.json(serializeOrder(location(c), after));
  },
);

orderActionRoutes.post(
  `${base}/deny`,
  write,
  doc.ok(orderResponse, {
    summary: "Deny an order",
    description: "An order pending approval is canceled and frees its capacity; `require_approval` stays true.",
    failures: [...failures],
  }),
  jsonBody(z.object({ send_email: z.boolean().optional(), comment: z.string().max(10000).optional() })),
  async (c) => {
    const input = c.req.valid("json");
    const after = await denyOrder(eventContext(c), code(c), { sendEmail: input.send_email, comment: input.comment });
    return c.json(serializeOrder(location(c), after));
  },
);

orderActionRoutes.post(
  `${base}/extend`,
  write,
  doc.ok(orderResponse, {
    summary: "Extend an order's payment term",
    description:
      "`expires` is a date: the term ends at 23:59:59 of that day in the event's time zone. An expired order is pending again only if its capacity can be taken again (or with `force`).",
    failures: [...failures],
  }),
  jsonBody(z.object({ expires: z.string().max(40), force: z.boolean().optional() })),
  async (c) => {
    const after = await extendOrder(eventContext(c), code(c), c.req.valid("json"));
    return c.json(serializeOrder(location(c), after));
  },
);

orderActionRoutes.post(
  `${base}/reactivate`,
  write,
  doc.ok(orderResponse, {
    summary: "Reactivate a canceled order",
    description:
      "Pending again (paid, when its confirmed payments cover its total), only if its capacity can be taken again.",
    failures: [...failures],
  }),
  async (c) => c.json(serializeOrder(location(c), await reactivateOrder(eventContext(c), code(c)))),
);

orderActionRoutes.post(
  `${base}/mark_pending`,
  write,
  doc.ok(orderResponse, { summary: "Mark a paid order as unpaid", failures: [...failures] }),
  async (c) => c.json(serializeOrder(location(c), await markOrderPending(eventContext(c), code(c)))),
);

orderActionRoutes.post(
  `${base}/mark_refunded`,
  write,
  doc.ok(orderResponse, {
    summary: "Mark a paid order as refunded",
    description: "The order is canceled (pretix) and frees its capacity; no mail.",
    failures: [...failures],
  }),
  async (c) => c.json(serializeOrder(location(c), await markOrderRefunded(eventContext(c), code(c)))),
);

orderActionRoutes.post(
  `${base}/resend_link`,
  write,
  doc.noContent({ summary: "Send the link to the order's page again" }),
  async (c) => {
    await resendLink(eventContext(c), code(c));
    return c.body(null, 204);
  },
);

orderActionRoutes.patch(
  base,
  write,
  doc.ok(orderResponse, {
    summary: "Update an order's fields",
    description:
      "`email`, `phone`, `locale`, `comment`, `checkin_attention`, `invoice_address` (the whole object, or null) and `expires`.",
    failures: [...failures],
  }),
  jsonBody(orderPatchInput),
  async (c) => c.json(serializeOrder(location(c), await patchOrder(eventContext(c), code(c), c.req.valid("json")))),
);

orderActionRoutes.delete(
  base,
  write,
  doc.noContent({ summary: "Delete an order in test mode", failures: [...failures] }),
  async (c) => {
    await deleteTestOrder(eventContext(c), code(c));
    return c.body(null, 204);
  },
);
