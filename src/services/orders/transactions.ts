/**
 * Reading the transactions ledger (pretix docs transactions.rst): an event's transactions, one by
 * id, and an organizer's over the events the caller may see orders of. The ledger is written with
 * every change of an order (db/transactions.ts `reconcileTransactions`); nothing here writes.
 */
import type { ListRequest } from "../../db/paging";
import {
  listTransactions,
  type TransactionFilter,
  type TransactionRow,
  type TransactionScope,
  transactionOfEvent,
} from "../../db/transactions";
import { notFound } from "../../lib/failure";
import { hasPermission, type Principal } from "../../rules/permissions";
import type { EventContext, OrganizerContext } from "../context";

export type { TransactionFilter, TransactionRow } from "../../db/transactions";

export function eventTransactions(ctx: EventContext, f: TransactionFilter, req: ListRequest) {
  return listTransactions(ctx.db, { eventId: ctx.event.id }, f, req);
}

export async function eventTransaction(ctx: EventContext, id: number): Promise<TransactionRow> {
  const row = await transactionOfEvent(ctx.db, ctx.event.id, id);
  if (!row) throw notFound();
  return row;
}

/**
 * The organizer's transactions of the events whose orders `principal` may see: every event
 * for a credential of all events, its own events otherwise; none without `can_view_orders`
 * (an empty list, as pretix answers, not a refusal).
 */
export async function organizerTransactions(
  ctx: OrganizerContext,
  principal: Principal,
  f: TransactionFilter,
  req: ListRequest,
) {
  const scope: TransactionScope = {
    organizerId: ctx.organizer.id,
    eventIds: !hasPermission(principal, "can_view_orders") ? [] : principal.allEvents ? "all" : [...principal.eventIds],
  };
  return listTransactions(ctx.db, scope, f, req);
}
