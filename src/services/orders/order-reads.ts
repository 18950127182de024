/**
 * What the order routes read besides the order services' answers: a page of an event's orders
 * with the list's filter, an order's payments, the event's cart positions, with the row types
 * and list orderings the routes serialize and describe. Scoped by the context
 * (services/scoped-reads.ts) or, for a read in the credential's batch, by the event id the
 * route's scope hands over (http/tenancy.ts `readInScope`).
 */
import type { DB } from "../../db/client";
import * as carts from "../../db/carts";
import { type OrderListFilter, orderFilterConditions } from "../../db/order-filters";
import { listOrders, listPayments as paymentsOfOrder, type OrderFilter } from "../../db/orders";
import type { ListRequest } from "../../db/paging";
import { inEvent, withDb } from "../scoped-reads";

export type { FeeJson, OrderFilter, OrderRecord, PaymentJson, PositionJson, RefundJson } from "../../db/orders";
export type { OrderListFilter } from "../../db/order-filters";
export type { OrderPositionFilter } from "../../db/order-positions";
export type { CartRowRecord } from "../../db/carts";
export { ORDER_ORDERING } from "../../db/orders";
export { ORDER_POSITION_ORDERING } from "../../db/order-positions";
export { TRANSACTION_ORDERING } from "../../db/transactions";

/** The order list's column matches (`OrderFilter` without the further filters). */
export type OrderColumns = Omit<OrderFilter, "extra">;

/**
 * The list's filter: the column matches and the documented further filters `f`, of the event
 * with slug `eventSlug` (null: an organizer's orders, of any event).
 */
export function orderListFilter(eventSlug: string | null, columns: OrderColumns, f: OrderListFilter): OrderFilter {
  return { ...columns, extra: orderFilterConditions(eventSlug, f) };
}

/** A page of the event's orders, read with `db` (the route's credential batch, or its own db). */
export function listEventOrders(db: DB, eventId: number, filter: OrderFilter, req: ListRequest) {
  return listOrders(db, eventId, filter, req);
}

/** An order's payments: the route has loaded the order of the event (`loadOrder`). */
export const listPayments = withDb(paymentsOfOrder);
export const listCartPositions = inEvent(carts.listCartPositions);
export const findCartPosition = inEvent(carts.findCartPosition);
