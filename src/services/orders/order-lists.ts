/**
 * The lists of orders and tickets beyond one event's orders (pretix docs orders.rst): an event's
 * order positions, and an organizer's orders and order positions over the events whose orders
 * the credential may see (as the organizer's transactions, services/orders/transactions.ts). Reads only.
 */
import { listOrders, type OrderFilter } from "../../db/orders";
import { findOrderPosition, listOrderPositions, type OrderPositionFilter } from "../../db/order-positions";
import { notFound } from "../../lib/failure";
import type { ListRequest } from "../../db/paging";
import { hasPermission, type Principal } from "../../rules/permissions";
import type { EventContext, OrganizerContext } from "../context";

export function eventPositions(ctx: EventContext, f: OrderPositionFilter, req: ListRequest) {
  return listOrderPositions(ctx.db, { eventId: ctx.event.id }, f, req);
}

/**
 * The organizer's events whose orders `principal` may see: every event for a credential of all
 * events, its own events otherwise; none without `can_view_orders` (an empty list, as pretix
 * answers, not a refusal).
 */
function visibleEvents(ctx: OrganizerContext, principal: Principal) {
  return {
    organizerId: ctx.organizer.id,
    eventIds: !hasPermission(principal, "can_view_orders")
      ? []
      : principal.allEvents
        ? ("all" as const)
        : [...principal.eventIds],
  };
}

export function organizerOrders(ctx: OrganizerContext, principal: Principal, f: OrderFilter, req: ListRequest) {
  return listOrders(ctx.db, visibleEvents(ctx, principal), f, req);
}

export function organizerPositions(
  ctx: OrganizerContext,
  principal: Principal,
  f: OrderPositionFilter,
  req: ListRequest,
) {
  return listOrderPositions(ctx.db, visibleEvents(ctx, principal), f, req);
}

/** One position of an event the credential may see orders of (pretix: 404 otherwise, and when canceled unless asked). */
export async function organizerPosition(
  ctx: OrganizerContext,
  principal: Principal,
  id: number,
  includeCanceled: boolean,
) {
  const row = await findOrderPosition(ctx.db, visibleEvents(ctx, principal), id, includeCanceled);
  if (!row) throw notFound();
  return row;
}
