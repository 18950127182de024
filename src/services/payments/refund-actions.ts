/**
 * Refunds the organizer records and moves on by hand (pretix docs orders.rst, "Order refund
 * endpoints"): `POST .../refunds/` (a refund made outside the service, nothing sent to a
 * provider), `done`, `process` and `cancel`, with pretix's states and refusals. Each change is one
 * conditional D1 write with its notification (db/refunds.ts), so two at once never both apply.
 * The order follows as pretix's views do, through order-status.ts; refunds do not touch the ledger.
 */
import { z } from "zod";
import { findOrder, type OrderRecord, type RefundJson } from "../../db/orders";
import { changeRefund, recordRefund } from "../../db/refunds";
import { REFUND_SOURCES, REFUND_STATES, type RefundState } from "../../db/schema/index";
import { badRequest, notFound, validationError } from "../../lib/failure";
import { log } from "../../lib/log";
import { formatMoney } from "../../lib/money";
import { dateTime, decimal } from "../../rules/fields";
import { COUNTED_REFUND_STATES, pendingSum } from "../../rules/stripe";
import type { EventContext } from "../context";
import { readAfterWrite, survivingD1Faults } from "../faults";
import { loadOrder } from "../orders/order-status";
import { markOrderCanceled } from "../orders/order-edits";
import { followFailed, pendingAgain } from "./refunds";

/** pretix's body of `POST .../refunds/` (`mark_refunded` the older name of `mark_canceled`). */
export const directRefundInput = z.object({
  state: z.enum(REFUND_STATES),
  source: z.enum(REFUND_SOURCES),
  amount: decimal({ min: 0 }),
  payment: z.number().int().nullable().optional(),
  execution_date: dateTime().nullable().optional(),
  provider: z.string().trim().min(1).max(190),
  info: z.record(z.string(), z.unknown()).optional(),
  comment: z.string().max(10_000).nullable().optional(),
  mark_canceled: z.boolean().optional(),
  mark_refunded: z.boolean().optional(),
  mark_pending: z.boolean().optional(),
});
export type DirectRefundInput = z.output<typeof directRefundInput>;

export const processInput = z.object({ mark_canceled: z.boolean().optional(), mark_refunded: z.boolean().optional() });

const INVALID_STATE = "Invalid state of refund";
const CANCELABLE = ["n", "p", "e"];

function refundOf(r: OrderRecord, localId: number): RefundJson {
  const x = r.refunds.find((f) => f.local_id === localId);
  if (!x) throw notFound();
  return x;
}

/** What the payment of `localId` has left to refund (its amount less the refunds that count). */
function leftOf(r: OrderRecord, localId: number, amount: number): number {
  const back = r.refunds
    .filter((x) => x.payment === localId && (COUNTED_REFUND_STATES as string[]).includes(x.state))
    .reduce((s, x) => s + x.amount, 0);
  return amount - back;
}

/** The order as D1 has it after a write; `not_found` when it is gone meanwhile. */
async function reread(ctx: EventContext, code: string): Promise<OrderRecord> {
  const r = await readAfterWrite(() => findOrder(ctx.db, ctx.event.id, code));
  if (!r) throw notFound();
  return r;
}

/** The order after a refund the organizer recorded: canceled (`mark_canceled`), or pending again (`mark_pending`). */
async function follow(ctx: EventContext, code: string, how: "cancel" | "pending" | null): Promise<void> {
  if (how === null) return;
  const r = await reread(ctx, code);
  try {
    if (how === "cancel" && CANCELABLE.includes(r.order.status)) {
      await markOrderCanceled(ctx, code, { sendEmail: false });
    } else if (how === "pending" && r.order.status === "p" && pendingSum(r.order.total, r.payments, r.refunds) > 0) {
      await pendingAgain(ctx, r);
    }
  } catch (e) {
    if (!followFailed(e)) throw e;
    log.error("the order could not follow its refund", { order: code, error: e });
  }
}

/**
 * `POST .../refunds/`: a refund recorded as made (pretix does not call the provider either). An
 * unknown `payment` → 400; more than the payment has left → 400 naming what is left (pretix
 * leaves this unchecked); `mark_canceled` of an order that cannot be canceled → 400, nothing
 * recorded. A refund created `done` without `execution_date` is executed now.
 */
export const createDirectRefund = survivingD1Faults(async function createDirectRefund(
  ctx: EventContext,
  code: string,
  input: DirectRefundInput,
): Promise<RefundJson> {
  const r = await loadOrder(ctx, code);
  const y = input.payment ? r.payments.find((p) => p.local_id === input.payment) : null;
  if (y === undefined) throw validationError({ payment: ["Unknown payment ID."] });
  const cancel = input.mark_refunded ?? input.mark_canceled ?? false;
  if (cancel && !CANCELABLE.includes(r.order.status)) throw badRequest("You cannot cancel this order.");
  const tooMuch = (left: number) =>
    validationError({ amount: [`Invalid refund amount, only ${formatMoney(left)} are available to refund.`] });
  const counts = (COUNTED_REFUND_STATES as string[]).includes(input.state);
  if (y && counts && input.amount > leftOf(r, y.local_id, y.amount)) throw tooMuch(leftOf(r, y.local_id, y.amount));
  const created = await recordRefund(ctx.db, {
    orderId: r.order.id,
    eventId: ctx.event.id,
    code: r.order.code,
    paymentId: y?.id ?? null,
    amount: input.amount,
    provider: input.provider,
    source: input.source,
    state: input.state,
    comment: input.comment ?? null,
    reference: null,
    executionDate: input.execution_date ?? (input.state === "done" ? ctx.now : null),
    now: ctx.now,
  });
  if (!created) {
    // another refund of the payment took its rest meanwhile
    const now = await reread(ctx, code);
    throw tooMuch(leftOf(now, y!.local_id, y!.amount));
  }
  await follow(ctx, code, cancel ? "cancel" : input.mark_pending ? "pending" : null);
  return refundOf(await reread(ctx, code), created.localId);
});

/** Moves the refund of `localId` from one of `from` to `to`, or 400 pretix's "Invalid state of refund". */
async function moveRefund(
  ctx: EventContext,
  r: OrderRecord,
  localId: number,
  from: RefundState[],
  to: RefundState,
): Promise<void> {
  const x = refundOf(r, localId);
  if (!(from as string[]).includes(x.state)) throw badRequest(INVALID_STATE);
  const paymentId = x.payment === null ? null : (r.payments.find((p) => p.local_id === x.payment)?.id ?? null);
  const facts = { id: x.id, orderId: r.order.id, eventId: ctx.event.id, code: r.order.code, paymentId };
  const changed = await changeRefund(ctx.db, facts, { from, to, reference: null, now: ctx.now }, null);
  if (!changed) throw badRequest(INVALID_STATE);
}

/** Refund `done` (pretix: only from created or transit). The refund afterwards. */
export const refundDone = survivingD1Faults(async function refundDone(
  ctx: EventContext,
  code: string,
  localId: number,
) {
  await moveRefund(ctx, await loadOrder(ctx, code), localId, ["created", "transit"], "done");
  return refundOf(await reread(ctx, code), localId);
});

/** Refund `cancel` (pretix: only from created, transit or external). The refund afterwards. */
export const refundCancel = survivingD1Faults(async function refundCancel(
  ctx: EventContext,
  code: string,
  localId: number,
) {
  await moveRefund(ctx, await loadOrder(ctx, code), localId, ["created", "transit", "external"], "canceled");
  return refundOf(await reread(ctx, code), localId);
});

/**
 * Refund `process` (pretix: only an external refund, which becomes done): `mark_canceled`
 * cancels the order; otherwise a paid order that owes money again is pending again.
 */
export const refundProcess = survivingD1Faults(async function refundProcess(
  ctx: EventContext,
  code: string,
  localId: number,
  input: z.output<typeof processInput>,
) {
  await moveRefund(ctx, await loadOrder(ctx, code), localId, ["external"], "done");
  const cancel = input.mark_refunded ?? input.mark_canceled ?? false;
  await follow(ctx, code, cancel ? "cancel" : "pending");
  return refundOf(await reread(ctx, code), localId);
});
