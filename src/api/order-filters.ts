/**
 * The query of the orders list as pretix documents it (orders.rst, "List of all orders"),
 * beyond the parameters the list route reads itself (page, ordering, code, status, email,
 * locale, testmode, customer, modified_since): the filters of src/db/order-filters.ts, and
 * how each order is shown — `include_canceled_positions` / `include_canceled_fees` (then every
 * position carries `canceled`), and `include` / `exclude` (repeatable field names, dotted for
 * nested fields such as `positions.downloads`; `include` is applied first, `exclude` wins).
 * Parameters pretix does not document are ignored, as pretix (Django REST framework) does.
 */
import { z } from "zod";
import type { OrderRecord } from "../db/orders";
import type { OrderListFilter } from "../db/order-filters";
import type { AppContext } from "../http/context";
import { queryBool, queryDateTime, queryInt, queryString } from "../http/validation";
import { type OrderLocation, orderResponse, positionResponse, serializeFee, serializeOrder, serializePosition } from "./orders-serializers";

export type OrderView = { includeCanceledPositions: boolean; includeCanceledFees: boolean; include: string[]; exclude: string[] };

/** The filters and the view of an orders list request; malformed values are field errors (400). */
export function orderListQuery(c: AppContext): { filter: OrderListFilter; view: OrderView } {
  return {
    filter: {
      search: queryString(c, "search"),
      item: queryInt(c, "item"),
      variation: queryInt(c, "variation"),
      subevent: queryInt(c, "subevent"),
      requireApproval: queryBool(c, "require_approval"),
      createdSince: queryDateTime(c, "created_since"),
      createdBefore: queryDateTime(c, "created_before"),
      subeventAfter: queryDateTime(c, "subevent_after"),
      subeventBefore: queryDateTime(c, "subevent_before"),
      salesChannel: queryString(c, "sales_channel"),
      paymentProvider: queryString(c, "payment_provider"),
    },
    view: {
      includeCanceledPositions: queryBool(c, "include_canceled_positions") ?? false,
      includeCanceledFees: queryBool(c, "include_canceled_fees") ?? false,
      include: fieldPaths(c, "include"),
      exclude: fieldPaths(c, "exclude"),
    },
  };
}

function fieldPaths(c: AppContext, name: string): string[] {
  return (c.req.queries(name) ?? []).filter((v) => v !== "");
}

/** An order of the list: the order resource, its positions with `canceled` when canceled ones are shown, and only the fields asked for. */
export const orderListItem = orderResponse
  .extend({ positions: z.array(positionResponse.extend({ canceled: z.boolean().optional() })) })
  .partial();
export type OrderListItem = z.infer<typeof orderListItem>;

export function presentOrder(at: OrderLocation, r: OrderRecord, view: OrderView): OrderListItem {
  const order: OrderListItem = serializeOrder(at, r);
  if (view.includeCanceledPositions) {
    order.positions = r.positions.map((p) => ({ ...serializePosition(p, r.order.code), canceled: p.canceled === 1 }));
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
