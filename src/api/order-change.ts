/**
 * Changing an order's contents (pretix docs orders.rst "Changing order contents") and canceling
 * one ticket (a position's DELETE, "Manipulating individual positions"). The routes parse,
 * scope, call services/orders/order-change.ts and answer the order as it is afterwards.
 */
import { Hono } from "hono";
import { type AppContext, type AppEnv, eventContext, publicBase } from "../http/context";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { cancelPosition, changeOrderContents, changePosition } from "../services/orders/order-change";
import { orderChangeInput, positionPatchBody } from "../services/orders/order-change-input";
import { loadPosition } from "../services/tickets/ticket-changes";
import {
  type OrderLocation,
  orderResponse,
  positionResponse,
  serializeOrder,
  serializePosition,
} from "./orders-serializers";

export const orderChangeRoutes = new Hono<AppEnv>();
const write = eventScope("can_change_orders");
const doc = apiDocs("Orders");

function location(c: AppContext): OrderLocation {
  return { baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug, eventSlug: c.var.event.slug };
}

const checkQuotas = q.bool("false: the change may exceed quotas (pretix `check_quotas`, default true)");

orderChangeRoutes.post(
  "/organizers/:organizer/events/:event/orders/:code/change",
  write,
  doc.ok(orderResponse, {
    summary: "Change an order's contents",
    description:
      "Patches, cancels and creates positions (add-ons by `addon_to`), creates, patches and cancels fees, " +
      "recalculates taxes; the event object decides the whole change at once. A change of an order changed " +
      "meanwhile is refused (400). `split_positions` is not offered (400).",
    failures: ["unavailable", "changed"],
  }),
  queryParams({ check_quotas: checkQuotas }),
  jsonBody(orderChangeInput),
  async (c) => {
    const after = await changeOrderContents(eventContext(c), c.req.param("code"), c.req.valid("json"), {
      checkQuotas: c.req.valid("query").check_quotas ?? true,
    });
    return c.json(serializeOrder(location(c), after));
  },
);

orderChangeRoutes.delete(
  "/organizers/:organizer/events/:event/orderpositions/:id",
  write,
  doc.noContent({
    summary: "Cancel a ticket",
    description: "The position (and its add-ons) is canceled; the order's last position cannot be (400).",
    failures: ["unavailable", "changed"],
  }),
  async (c) => {
    const ctx = eventContext(c);
    const { record } = await loadPosition(ctx, pathId(c, "id"));
    await cancelPosition(ctx, record, pathId(c, "id"));
    return c.body(null, 204);
  },
);

orderChangeRoutes.patch(
  "/organizers/:organizer/events/:event/orderpositions/:id",
  write,
  doc.ok(positionResponse, {
    summary: "Change a ticket",
    description:
      "Product, variation, date, seat, price, tax rule, validity, attendee and answers, as one entry of " +
      "`patch_positions` of the order change; a new product, date or seat is decided by the event object.",
    failures: ["unavailable", "changed"],
  }),
  queryParams({ check_quotas: checkQuotas }),
  jsonBody(positionPatchBody),
  async (c) => {
    const ctx = eventContext(c);
    const id = pathId(c, "id");
    const { record } = await loadPosition(ctx, id);
    const after = await changePosition(ctx, record, id, c.req.valid("json"), {
      checkQuotas: c.req.valid("query").check_quotas ?? true,
    });
    return c.json(serializePosition(after.positions.find((p) => p.id === id)!, after.order.code));
  },
);
