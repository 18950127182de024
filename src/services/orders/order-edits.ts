/**
 * Changing an order without changing what it sells (pretix docs orders.rst): `PATCH` of its own
 * fields, `resend_link`, deleting a test mode order, and the cancellation that keeps the order
 * with a fee (`mark_canceled` with `cancellation_fee`). Whatever the event object indexes or
 * holds for the order (check-in attention, language, capacity) changes through it, as a status
 * change that keeps the status (order-status.ts `transition`), in one step with the D1 write.
 */
import { offerFreedCapacity } from "../waitinglist/waitinglist-assign";
import { z } from "zod";
import type { InvoiceAddress, OrderStatus } from "../../db/schema/index";
import { orderInvoices } from "../../db/invoices";
import type { OrderFields } from "../../db/order-actions";
import { deleteTestOrderStatement } from "../../db/order-deletes";
import type { OrderRecord } from "../../db/orders";
import { ORDER_ACTIONS } from "../../db/webhooks";
import { dispatchWebhooks } from "../../lib/queues";
import { log } from "../../lib/log";
import { badRequest, changedMeanwhile, forbidden, Problems } from "../../lib/failure";
import { dateTime, email } from "../../rules/fields";
import type { EventContext } from "../context";
import { survivingD1Faults } from "../faults";
import { reissueInvoice } from "../invoices/invoice-actions";
import { liveInvoices } from "../invoices/invoices";
import { invoiceAddressErrors, invoiceAddressInput, invoiceAddressOf } from "./order-input";
import { checkStatus, loadOrder, notifyOrder, transition } from "./order-status";
import { eventSettingsFor } from "../events/settings";
import { cancellationChanges } from "../tickets/ticket-changes";

/** The fields pretix lets a `PATCH` change (orders.rst "Updating order fields") that the service keeps. */
export const orderPatchInput = z.object({
  email: email().nullable().optional(),
  phone: z.string().max(50).nullable().optional(),
  locale: z.string().max(20).optional(),
  comment: z.string().max(10000).optional(),
  checkin_attention: z.boolean().optional(),
  invoice_address: invoiceAddressInput.nullable().optional(),
  expires: dateTime().optional(),
});
export type OrderPatch = z.output<typeof orderPatchInput>;

/** The patch as the order's columns, checked as order creation checks them (the language, the address). */
async function patchFields(ctx: EventContext, r: OrderRecord, p: OrderPatch): Promise<OrderFields> {
  const problems = new Problems();
  if (p.locale !== undefined) {
    const settings = await eventSettingsFor(ctx.db, ctx.organizer.id, ctx.event.id);
    const locales = (settings.locales as string[] | undefined) ?? ["en"];
    if (!locales.includes(p.locale)) problems.add("locale", `"${p.locale}" is not a supported locale for this event.`);
  }
  if (p.invoice_address) {
    const errors = invoiceAddressErrors(p.invoice_address);
    if (errors) problems.nest("invoice_address", errors);
  }
  problems.throwIfAny();
  const f: OrderFields = {};
  if (p.email !== undefined) f.email = p.email;
  if (p.phone !== undefined) f.phone = p.phone;
  if (p.locale !== undefined) f.locale = p.locale;
  if (p.comment !== undefined) f.comment = p.comment;
  if (p.checkin_attention !== undefined) f.checkinAttention = p.checkin_attention;
  if (p.expires !== undefined) f.expires = p.expires;
  if (p.invoice_address !== undefined)
    f.invoiceAddress =
      p.invoice_address === null ? null : (invoiceAddressOf(p.invoice_address, ctx.now) as InvoiceAddress);
  // only what differs is written (and reported)
  for (const k of Object.keys(f) as (keyof OrderFields)[])
    if (JSON.stringify(f[k]) === JSON.stringify(r.order[k])) delete f[k];
  return f;
}

/**
 * `PATCH`: the order's fields; `pretix.event.order.contact.changed` when the email address
 * changed, `pretix.event.order.modified` otherwise. Nothing to change: the order as it is.
 */
export const patchOrder = survivingD1Faults(async function patchOrder(
  ctx: EventContext,
  code: string,
  p: OrderPatch,
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  const fields = await patchFields(ctx, r, p);
  if (Object.keys(fields).length === 0) return r;
  const actions = [...(fields.email !== undefined ? [ORDER_ACTIONS.contactChanged] : []), ORDER_ACTIONS.modified];
  return transition(ctx, r, {
    from: [r.order.status],
    to: r.order.status,
    extra: { fields, actions },
    keepInvoices: true,
  });
});

/** `resend_link`: the mail with the link to the order's page. */
export const resendLink = survivingD1Faults(async function resendLink(ctx: EventContext, code: string): Promise<void> {
  const r = await loadOrder(ctx, code);
  if (!r.order.email) throw badRequest("There is no email address associated with this order.");
  await notifyOrder(ctx, "order_resend", r);
});

/**
 * `DELETE`: only an order in test mode goes (pretix: 403 otherwise). A pending or paid one is
 * canceled through the event object first (its capacity and voucher uses given back), then
 * its rows are deleted with `pretix.event.order.deleted` reported.
 */
export const deleteTestOrder = survivingD1Faults(async function deleteTestOrder(
  ctx: EventContext,
  code: string,
): Promise<void> {
  const r = await loadOrder(ctx, code);
  if (!r.order.testmode) throw forbidden("Only orders created in test mode can be deleted.");
  if (r.order.status === "n" || r.order.status === "p")
    await transition(ctx, r, { from: [r.order.status], to: "c", cancelPayments: true, extra: { actions: [] } });
  const [, deleted] = await ctx.db.batch(deleteTestOrderStatement(ctx.db, ctx.event.id, r.order.id, code, ctx.now));
  if ((deleted as { id: number }[]).length === 0) throw changedMeanwhile("The order changed meanwhile; read it again.");
  dispatchWebhooks(ctx.env, [{ eventId: ctx.event.id, code }]);
});

/**
 * `mark_canceled` of a pending, paid or expired order (pretix cancels expired orders too): open
 * payments are canceled with the order; with signed ticket secrets the tickets get new secrets
 * and the old ones are revoked, in the same transaction. With a `cancellation_fee`, pretix keeps
 * the order with the fee as its total (`cancelKeepingFee`).
 */
export const markOrderCanceled = survivingD1Faults(async function markOrderCanceled(
  ctx: EventContext,
  code: string,
  opts: { sendEmail?: boolean; cancellationFee?: number | null; comment?: string },
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  const from: OrderStatus[] = ["n", "p", "e"];
  checkStatus(r, from, "c");
  if (opts.cancellationFee) return cancelKeepingFee(ctx, r, opts.cancellationFee, opts);
  const tickets = await cancellationChanges(ctx, r);
  const after = await transition(ctx, r, { from, to: "c", cancelPayments: true, tickets });
  if (opts.sendEmail ?? true) await notifyOrder(ctx, "order_canceled", after, undefined, 0, opts.comment || undefined);
  return after;
});

const NOTHING_LEFT =
  "The order has no ticket left to cancel: cancel it without a fee, or change its fees with the order change.";
const FEE_ABOVE_TOTAL = "The cancellation fee cannot be higher than the total amount of this order.";

/**
 * `mark_canceled` with a `cancellation_fee` (pretix `cancel_order`): a pending or paid order
 * keeps its status, every position and fee is canceled (their capacity and voucher uses given
 * back through the event object), and a fee of type `cancellation` becomes its total. Its live
 * invoices are reissued (canceled, and a new one for the fee).
 */
export async function cancelKeepingFee(
  ctx: EventContext,
  r: OrderRecord,
  fee: number,
  opts: { sendEmail?: boolean; comment?: string },
): Promise<OrderRecord> {
  if (fee > r.order.total) throw badRequest(FEE_ABOVE_TOTAL);
  if (r.positions.every((p) => p.canceled)) throw badRequest(NOTHING_LEFT);
  if (r.order.status !== "n" && r.order.status !== "p")
    throw badRequest("Only a pending or paid order can be kept with a cancellation fee.");
  const tickets = await cancellationChanges(ctx, r);
  const after = await transition(ctx, r, {
    from: [r.order.status],
    to: r.order.status,
    tickets,
    extra: { cancellationFee: fee, actions: [ORDER_ACTIONS.canceled] },
    keepInvoices: true,
  });
  await reissueLiveInvoices(ctx, r.order.id);
  await offerFreedCapacity(ctx);
  if (opts.sendEmail ?? true) await notifyOrder(ctx, "order_canceled", after, undefined, 0, opts.comment || undefined);
  return (await loadOrder(ctx, r.order.code)) ?? after;
}

/** Cancels and recreates the order's live invoices (a failure is logged: the invoice sweep does not redo this). */
async function reissueLiveInvoices(ctx: EventContext, orderId: number): Promise<void> {
  try {
    for (const inv of liveInvoices(await orderInvoices(ctx.db, orderId))) await reissueInvoice(ctx, inv.number);
  } catch (e) {
    log.error("reissuing the invoices of an order kept with a cancellation fee failed", { order: orderId, error: e });
  }
}
