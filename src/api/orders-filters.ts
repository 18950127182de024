/**
 * The query of the orders list and of the order detail as pretix documents them (orders.rst), declared
 * once (ORDER_LIST_PARAMS, ORDER_VIEW_PARAMS) for the routes and the API description: the list's
 * column matches and filters (src/db/order-filters.ts), and how each order is shown
 * (`include_canceled_positions` / `_fees`, `include` / `exclude`: `include` first, `exclude` wins).
 * Parameters pretix does not document are ignored, as pretix (Django REST framework) does.
 */
import { z } from "zod";
import type { OrderRecord, OrderListFilter } from "../services/orders/order-reads";
import { ORDER_STATUSES } from "../services/stored-values";
import { modifiedSinceParam } from "../http/conditional";
import { q, type QueryValues } from "../http/validation";
import {
  type OrderLocation,
  orderResponse,
  positionResponse,
  serializeFee,
  serializeOrder,
  serializePosition,
} from "./orders-serializers";

export type OrderView = {
  includeCanceledPositions: boolean;
  includeCanceledFees: boolean;
  include: string[];
  exclude: string[];
};

/**
 * How each order is shown, on the list and on the detail alike (pretix docs orders.rst): the
 * canceled positions and fees, and the fields kept or left out.
 */
export const ORDER_VIEW_PARAMS = {
  include_canceled_positions: q.bool("also the canceled positions, each with `canceled`"),
  include_canceled_fees: q.bool("also the canceled fees"),
  include: q.list(
    "a field to keep in each order (repeatable, dotted for nested fields: `positions.secret`); the others are left out",
    { keepsFields: true },
  ),
  exclude: q.list("a field to leave out of each order (repeatable); `positions.downloads` reaches into the positions", {
    omitsFields: true,
  }),
  pdf_data: q.ignored({ type: "boolean" }, "the service renders the ticket PDFs itself (`downloads`, open point 12)."),
};

/** The query parameters of the orders list (pretix docs orders.rst), read and described by `queryParams`. */
export const ORDER_LIST_PARAMS = {
  status: q.choice(ORDER_STATUSES, "n pending, p paid, e expired, c canceled"),
  code: q.string("order code"),
  testmode: q.bool(),
  email: q.string(),
  locale: q.string(),
  modified_since: modifiedSinceParam,
  customer: q.string("customer identifier"),
  search: q.string(
    "order code (also `<event slug>-<code>`), email, invoice name and company, comment, attendee names and emails, start of a ticket secret; matched literally",
  ),
  item: q.int("orders with a position of this product"),
  variation: q.int("orders with a position of this variation"),
  subevent: q.int("orders with a position of this date (event series)"),
  require_approval: q.bool(),
  created_since: q.dateTime("orders placed at or after then"),
  created_before: q.dateTime("orders placed before then"),
  subevent_after: q.dateTime("orders with a ticket for a date ending after then"),
  subevent_before: q.dateTime("orders with a ticket for a date starting before then"),
  sales_channel: q.string(),
  payment_provider: q.string("orders with a payment (in any state) of this provider"),
  ...ORDER_VIEW_PARAMS,
};

/** How the orders of a request are shown (parsed by `queryParams(ORDER_VIEW_PARAMS)`, or the list's). */
export function orderView(f: QueryValues<typeof ORDER_VIEW_PARAMS>): OrderView {
  return {
    includeCanceledPositions: f.include_canceled_positions ?? false,
    includeCanceledFees: f.include_canceled_fees ?? false,
    include: f.include ?? [],
    exclude: f.exclude ?? [],
  };
}

/** The filters and the view of an orders list request (parsed by `queryParams(ORDER_LIST_PARAMS)`). */
export function orderListQuery(f: QueryValues<typeof ORDER_LIST_PARAMS>): { filter: OrderListFilter; view: OrderView } {
  return {
    filter: {
      search: f.search,
      item: f.item,
      variation: f.variation,
      subevent: f.subevent,
      requireApproval: f.require_approval,
      createdSince: f.created_since,
      createdBefore: f.created_before,
      subeventAfter: f.subevent_after,
      subeventBefore: f.subevent_before,
      salesChannel: f.sales_channel,
      paymentProvider: f.payment_provider,
    },
    view: orderView(f),
  };
}

/** An order as the list and the detail show it: the order resource, its positions with `canceled` when canceled ones are shown. */
const shownOrder = orderResponse.extend({
  positions: z.array(
    positionResponse
      .extend({ canceled: z.boolean().optional().meta({ description: "only with `include_canceled_positions`" }) })
      .meta({ id: "OrderPositionInList" }),
  ),
});

export const orderListItemResponse = shownOrder.meta({
  id: "OrderInList",
  description:
    "An order of the orders list: the Order, its positions with `canceled` when `include_canceled_positions` asks for the canceled ones too.",
});

export const orderDetailResponse = shownOrder.meta({
  id: "OrderDetail",
  description:
    "An order's detail: the Order, its positions with `canceled` when `include_canceled_positions` asks for the canceled ones too.",
});

/** An order of the list with only the fields asked for (`include`, `exclude`). */
export const orderListItem = orderListItemResponse.partial();
export type OrderListItem = z.infer<typeof orderListItem>;

export function presentOrder(at: OrderLocation, r: OrderRecord, view: OrderView): OrderListItem {
  const shown = serializeOrder(at, r);
  const order: OrderListItem = shown;
  if (view.includeCanceledPositions) {
    // the positions not canceled as the order shows them (with their downloads), the canceled ones among them
    const live = new Map(shown.positions.map((p) => [p.id, p]));
    order.positions = r.positions.map((p) => {
      const kept = live.get(p.id);
      return kept ? { ...kept, canceled: false } : { ...serializePosition(p, r.order.code), canceled: true };
    });
  }
  if (view.includeCanceledFees) order.fees = r.fees.map(serializeFee);
  return project(order, view);
}

type Tree = Map<string, Tree>;

function tree(paths: string[]): Tree {
  const root: Tree = new Map();
  for (const p of paths) {
    let node = root;
    for (const part of p.split(".")) {
      let next = node.get(part);
      if (!next) node.set(part, (next = new Map()));
      node = next;
    }
  }
  return root;
}

/** Keeps the fields of `include` (a node without children keeps the whole value). */
function keep(value: unknown, t: Tree): unknown {
  if (Array.isArray(value)) return value.map((v) => keep(v, t));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, sub] of t) {
    if (!(k in value)) continue;
    const v = (value as Record<string, unknown>)[k];
    out[k] = sub.size ? keep(v, sub) : v;
  }
  return out;
}

/** Drops the fields of `exclude` (a node without children drops the whole value). */
function drop(value: unknown, t: Tree): unknown {
  if (Array.isArray(value)) return value.map((v) => drop(v, t));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const sub = t.get(k);
    if (sub === undefined) out[k] = v;
    else if (sub.size) out[k] = drop(v, sub);
  }
  return out;
}

function project(order: OrderListItem, view: OrderView): OrderListItem {
  let out: unknown = order;
  if (view.include.length) out = keep(out, tree(view.include));
  if (view.exclude.length) out = drop(out, tree(view.exclude));
  return out as OrderListItem;
}
