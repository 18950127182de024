/**
 * The API's invoice actions (pretix docs invoices.rst, orders.rst `create_invoice`): an invoice
 * for an order on request, reissue (cancel and create anew) and regenerate (the same number
 * rebuilt), and the lookup by number.
 */
import type { DB } from "../../db/client";
import {
  findInvoice,
  findInvoiceById,
  type InvoiceRecord,
  insertInvoices,
  invoiceConditions as when,
  invoiceFacts,
  orderInvoices,
  replaceInvoiceContent,
} from "../../db/invoices";
import { findOrder } from "../../db/orders";
import { badRequest, notFound } from "../../lib/failure";
import type { EventContext } from "../context";
import { buildInvoiceContent, cancellationContent, type InvoiceContent } from "./invoice-content";
import { type InvoiceScope, insertOf } from "./invoice-numbers";
import { invoiceQualified, invoiceSettings, liveInvoices, renderLater, subeventsOf } from "./invoices";

const ALREADY_CANCELED = "The invoice has already been canceled.";

/** POST .../orders/{code}/create_invoice/: 400 when invoicing is off, the order does not qualify, or it has an invoice. */
export async function createInvoiceForOrder(ctx: EventContext, code: string): Promise<InvoiceRecord> {
  const scope: InvoiceScope = { env: ctx.env, db: ctx.db, event: ctx.event, now: ctx.now };
  const r = await findOrder(ctx.db, ctx.event.id, code);
  if (!r) throw notFound();
  const facts = await invoiceFacts(ctx.db, ctx.event.organizerId, ctx.event.id, r.order.id, subeventsOf(r));
  const existing = facts.orderInvoices;
  const settings = invoiceSettings(facts);
  if (
    !["admin", "user", "paid", "True"].includes(settings.invoice_generate as string) ||
    !invoiceQualified(r.order, settings)
  ) {
    throw badRequest("You cannot generate an invoice for this order.");
  }
  if (liveInvoices(existing).length > 0) throw badRequest("An invoice for this order already exists.");
  const invoice = insertOf(scope, r, settings, buildInvoiceContent(ctx.event, r, facts, settings), {
    isCancellation: false,
    refers: null,
    when: when.noLiveInvoice(r.order.id),
  });
  const writes = [invoice];
  // an order that is canceled or expired gets the invoice and its cancellation (pretix's generate_invoice)
  if (r.order.status === "c" || r.order.status === "e") {
    writes.push(
      insertOf(scope, r, settings, cancellationContent(invoice), {
        isCancellation: true,
        refers: { creationKey: invoice.creationKey },
        when: when.created(invoice.creationKey),
      }),
    );
  }
  const created = await insertInvoices(ctx.db, writes);
  if (created.length === 0) throw badRequest("An invoice for this order already exists.");
  await renderLater(ctx.env, created);
  return created[0]!;
}

/** An invoice of the event by number; not found otherwise. */
export async function loadInvoice(ctx: Pick<EventContext, "db" | "event">, number: string): Promise<InvoiceRecord> {
  const inv = await findInvoice(ctx.db, ctx.event.id, number);
  if (!inv) throw notFound();
  return inv;
}

async function assertNotCanceled(db: DB, inv: InvoiceRecord): Promise<void> {
  if (inv.invoice.isCancellation) throw badRequest("A cancellation invoice cannot be canceled.");
  const all = await orderInvoices(db, inv.invoice.orderId);
  if (all.some((c) => c.isCancellation && c.refersId === inv.invoice.id)) throw badRequest(ALREADY_CANCELED);
}

/**
 * POST .../invoices/{number}/reissue/: cancels the invoice and creates a new one from the
 * order as it is now (only the cancellation when the order is canceled or expired), in one
 * transaction. Returns the new invoice (or the cancellation). 400 when already canceled.
 */
export async function reissueInvoice(ctx: EventContext, number: string): Promise<InvoiceRecord> {
  const scope: InvoiceScope = { env: ctx.env, db: ctx.db, event: ctx.event, now: ctx.now };
  const inv = await loadInvoice(ctx, number);
  await assertNotCanceled(ctx.db, inv);
  const r = (await findOrder(ctx.db, ctx.event.id, inv.orderCode))!;
  const facts = await invoiceFacts(ctx.db, ctx.event.organizerId, ctx.event.id, r.order.id, subeventsOf(r));
  const settings = invoiceSettings(facts);
  const cancel = insertOf(scope, r, settings, cancellationContent(inv.invoice), {
    isCancellation: true,
    refers: inv.invoice.id,
    when: when.notCanceled(inv.invoice.id),
  });
  const writes = [cancel];
  if (r.order.status === "n" || r.order.status === "p") {
    writes.push(
      insertOf(scope, r, settings, buildInvoiceContent(ctx.event, r, facts, settings), {
        isCancellation: false,
        refers: null,
        when: when.all(
          when.created(cancel.creationKey),
          when.noLiveInvoice(r.order.id),
          when.orderStatusIn(r.order.id, ["n", "p"]),
        ),
      }),
    );
  }
  const created = await insertInvoices(ctx.db, writes);
  if (created.length === 0) throw badRequest(ALREADY_CANCELED);
  await renderLater(ctx.env, created);
  return created[created.length - 1]!;
}

/**
 * POST .../invoices/{number}/regenerate/: the same invoice (number, date) rebuilt from the
 * order's current data (a cancellation: from the invoice it cancels), and its PDF rendered
 * anew. 400 when already canceled.
 */
export async function regenerateInvoice(ctx: EventContext, number: string): Promise<InvoiceRecord> {
  const inv = await loadInvoice(ctx, number);
  let content: InvoiceContent;
  if (inv.invoice.isCancellation) {
    const original = inv.invoice.refersId !== null ? await findInvoiceById(ctx.db, inv.invoice.refersId) : undefined;
    content = original
      ? cancellationContent(original.invoice)
      : { locale: inv.invoice.locale, texts: inv.invoice.texts, lines: inv.invoice.lines };
  } else {
    await assertNotCanceled(ctx.db, inv);
    const r = (await findOrder(ctx.db, ctx.event.id, inv.orderCode))!;
    const facts = await invoiceFacts(ctx.db, ctx.event.organizerId, ctx.event.id, r.order.id, subeventsOf(r));
    content = buildInvoiceContent(ctx.event, r, facts, invoiceSettings(facts));
  }
  const after = await replaceInvoiceContent(
    ctx.db,
    inv.invoice.id,
    content,
    inv.invoice.isCancellation ? when.all() : when.notCanceled(inv.invoice.id),
  );
  if (!after) throw badRequest(ALREADY_CANCELED);
  await renderLater(ctx.env, [after]);
  return after;
}
