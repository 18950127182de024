/**
 * A new invoice's row: its date (today in the event's timezone) and number prefix
 * (`invoice_numbers_prefix`, for cancellations `invoice_numbers_prefix_cancellations`; default
 * the event slug in capitals and a dash; %Y %y %m %d), with its content. The counter per
 * organizer and prefix is drawn in the statement that writes the invoice (db/invoices.ts), so
 * numbers are unique and without gaps however many orders are paid at once.
 */
import type { DB } from "../../db/client";
import type { InvoiceInsert } from "../../db/invoices";
import type { OrderRecord } from "../../db/orders";
import type { EventRow } from "../../db/tenancy";
import { randomString } from "../../lib/crypto";
import { formatDate, zonedDate } from "../../lib/datetime";
import type { Env } from "../../lib/env";
import type { InvoiceContent } from "./invoice-content";

/** What invoice services need: bindings, database, the event (its organizer by id), the time. */
export type InvoiceScope = { env: Env; db: DB; event: EventRow; now: number };

/** The invoice date: today in the event's timezone. */
function invoiceDate(event: EventRow, now: number): string {
  return formatDate(zonedDate(now, event.timezone));
}

/** The number prefix for an invoice of this date (strftime's %Y %y %m %d %% as pretix applies them). */
export function invoicePrefix(
  event: EventRow,
  settings: Record<string, unknown>,
  date: string,
  isCancellation: boolean,
): string {
  const regular = (settings.invoice_numbers_prefix as string) || `${event.slug.toUpperCase()}-`;
  const raw = isCancellation ? (settings.invoice_numbers_prefix_cancellations as string) || regular : regular;
  const [y, m, d] = date.split("-") as [string, string, string];
  return raw.replace(/%([Yymd%])/g, (_, c: string) => ({ Y: y, y: y.slice(2), m, d, "%": "%" })[c]!);
}

/** The row of a new invoice or cancellation of order `r` saying `content`, written only while `opts.when` holds. */
export function insertOf(
  scope: InvoiceScope,
  r: OrderRecord,
  settings: Record<string, unknown>,
  content: InvoiceContent,
  opts: { isCancellation: boolean; refers: InvoiceInsert["refers"]; when: InvoiceInsert["when"] },
): InvoiceInsert {
  const date = invoiceDate(scope.event, scope.now);
  return {
    organizerId: scope.event.organizerId,
    eventId: scope.event.id,
    orderId: r.order.id,
    orderCode: r.order.code,
    prefix: invoicePrefix(scope.event, settings, date, opts.isCancellation),
    consecutive: settings.invoice_numbers_consecutive !== false,
    counterLength: (settings.invoice_numbers_counter_length as number | undefined) ?? 5,
    isCancellation: opts.isCancellation,
    refers: opts.refers,
    date,
    locale: content.locale,
    texts: content.texts,
    lines: content.lines,
    creationKey: randomString(24),
    createdAt: scope.now,
    when: opts.when,
  };
}
