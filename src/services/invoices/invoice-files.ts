/**
 * An invoice's PDF: rendered on the documents queue into R2, downloaded through the API and the
 * order page, and attached to the order's mails.
 */
import type { DB } from "../../db/client";
import {
  eventById,
  findInvoiceById,
  type InvoiceRecord,
  orderInvoices,
  setInvoiceFile,
  setInvoiceFileError,
} from "../../db/invoices";
import { findOrder } from "../../db/orders";
import type { Env } from "../../lib/env";
import { Failure, isFailure, notFound } from "../../lib/failure";
import type { EventContext } from "../context";
import { loadFont, notReady } from "../tickets/documents";
import { loadInvoice } from "./invoice-actions";
import { renderInvoicePdf } from "./invoice-render";
import { ensureOrderInvoices, liveInvoices, renderLater } from "./invoices";

/**
 * The PDF of an invoice: its bytes when rendered; otherwise the rendering is (re)queued and
 * the caller gets `not_ready` (409), or `unavailable` (503) when rendering failed for a reason
 * the deployment must fix (the message says which).
 */
export async function invoicePdf(
  ctx: Pick<EventContext, "env" | "db" | "event">,
  number: string,
): Promise<{ bytes: ReadableStream; filename: string }> {
  return invoiceFile(ctx.env, await loadInvoice(ctx, number));
}

/**
 * The PDF of one invoice of an order (the order page: the holder of the order's secret link
 * gets the order's invoices and no other). Not found unless the invoice belongs to the order;
 * otherwise as `invoicePdf`.
 */
export async function orderInvoicePdf(
  env: Env,
  db: DB,
  order: { id: number; eventId: number },
  invoiceId: number,
): Promise<{ bytes: ReadableStream; filename: string }> {
  const inv = await findInvoiceById(db, invoiceId);
  if (!inv || inv.invoice.orderId !== order.id || inv.invoice.eventId !== order.eventId) throw notFound();
  return invoiceFile(env, inv);
}

async function invoiceFile(env: Env, inv: InvoiceRecord): Promise<{ bytes: ReadableStream; filename: string }> {
  if (inv.invoice.file) {
    const object = await env.FILES.get(inv.invoice.file);
    if (object) return { bytes: object.body, filename: `${inv.invoice.number}.pdf` };
  }
  await renderLater(env, [inv]);
  if (inv.invoice.fileError) throw new Failure("unavailable", inv.invoice.fileError);
  throw notReady("invoice file");
}

/**
 * The invoice a mail about order `code` carries (`order_invoice` attachments): the order's
 * newest invoice that is neither canceled nor a cancellation, with its PDF. Brings the order's
 * invoices up to date first (the mail may be delivered before the order's hook created the
 * invoice; idempotent) and renders a missing PDF on the spot. Null when the order has no such
 * invoice (any more). Throws when the PDF cannot be had now (the mail is retried).
 */
export async function invoiceForMail(
  env: Env,
  db: DB,
  eventId: number,
  code: string,
  now: number,
): Promise<{ key: string; filename: string } | null> {
  const event = await eventById(db, eventId);
  if (!event) return null;
  const r = await findOrder(db, eventId, code);
  if (!r) return null;
  await ensureOrderInvoices({ env, db, event, now }, code, r);
  const live = liveInvoices(await orderInvoices(db, r.order.id));
  const newest = live.at(-1);
  if (!newest) return null;
  let inv = await findInvoiceById(db, newest.id);
  if (inv && !inv.invoice.file) {
    await renderInvoiceFile(env, db, inv.invoice.id, inv.invoice.version, false);
    inv = await findInvoiceById(db, newest.id);
  }
  // not rendered (e.g. the fonts are missing: the reason is on the invoice): the mail is retried, then fails with it
  if (!inv?.invoice.file)
    throw new Error(`invoice ${newest.number}: ${inv?.invoice.fileError ?? "the PDF could not be rendered"}`);
  return { key: inv.invoice.file, filename: `${inv.invoice.number}.pdf` };
}

/**
 * Renders the PDF of an invoice's current version into R2 and records it. Idempotent: a
 * version that has its file, or is no longer current, is left alone. Fonts missing, or a last
 * attempt that failed, are recorded on the invoice (downloads then answer 503 with the reason).
 */
export async function renderInvoiceFile(
  env: Env,
  db: DB,
  invoiceId: number,
  version: number,
  lastAttempt: boolean,
): Promise<void> {
  const inv = await findInvoiceById(db, invoiceId);
  if (!inv || inv.invoice.version !== version || inv.invoice.file) return;
  const event = await eventById(db, inv.invoice.eventId);
  if (!event) return;
  try {
    const bytes = await renderInvoicePdf(inv, event, (face) => loadFont(env, face));
    const key = `invoices/${event.id}/${invoiceId}/v${version}.pdf`;
    await env.FILES.put(key, bytes, { httpMetadata: { contentType: "application/pdf" } });
    await setInvoiceFile(db, invoiceId, version, key);
  } catch (e) {
    if (isFailure(e, "unavailable")) {
      await setInvoiceFileError(db, invoiceId, version, e.message);
      return;
    }
    if (lastAttempt)
      await setInvoiceFileError(
        db,
        invoiceId,
        version,
        `The invoice PDF could not be rendered: ${e instanceof Error ? e.message : String(e)}`,
      );
    throw e;
  }
}
