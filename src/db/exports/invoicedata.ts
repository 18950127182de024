/**
 * The reads of the `invoicedata` export: the events' invoices and their lines, a page at a time
 * by keyset in invoice number order, filtered by the date they were issued and a payment
 * provider of their order.
 */
import { type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { readRows, type Row } from "../raw";
import { after, and, countOf, eventIn, PROVIDERS } from "./common";

export type InvoiceFilter = {
  eventIds: readonly number[];
  /** The invoice date, `YYYY-MM-DD`, both inclusive. */
  dateFrom: string | null;
  dateTo: string | null;
  /** Orders with a payment attempt of this provider. */
  paymentProvider: string | null;
};

/** Conditions on invoices (alias `i`, their order `o`). */
function invoiceConditions(f: InvoiceFilter): SQL[] {
  const out: SQL[] = [eventIn(sql`i.event_id`, f.eventIds)];
  // invoice dates are stored as YYYY-MM-DD (in the event's timezone), so text comparison is date comparison
  if (f.dateFrom !== null) out.push(sql`i.date >= ${f.dateFrom}`);
  if (f.dateTo !== null) out.push(sql`i.date <= ${f.dateTo}`);
  if (f.paymentProvider !== null) {
    out.push(
      sql`EXISTS (SELECT 1 FROM order_payments pay WHERE pay.order_id = i.order_id AND pay.provider = ${f.paymentProvider}
                  AND pay.state IN ('confirmed', 'refunded', 'pending', 'created'))`,
    );
  }
  return out;
}

const INVOICE_FROM = sql`invoices i JOIN orders o ON o.id = i.order_id LEFT JOIN invoices r ON r.id = i.refers_id`;

export function countInvoices(db: DB, f: InvoiceFilter): Promise<number> {
  return countOf(db, sql`SELECT count(*) AS n FROM ${INVOICE_FROM} WHERE ${and(invoiceConditions(f))}`);
}

/** A page of invoices with the number they cancel, their order, their totals from the lines, and the order's providers. */
export function invoicePage(db: DB, f: InvoiceFilter, cursor: unknown, limit: number): Promise<Row[]> {
  return readRows(
    db,
    sql`SELECT i.id, i.number, i.date, i.locale, i.is_cancellation, i.texts, r.number AS refers_number, o.code, o.email,
               (SELECT coalesce(sum(json_extract(l.value, '$.gross_value')), 0) FROM json_each(i.lines) l) AS gross,
               (SELECT coalesce(sum(json_extract(l.value, '$.tax_value')), 0) FROM json_each(i.lines) l) AS tax,
               ${PROVIDERS} AS providers
        FROM ${INVOICE_FROM}
        WHERE ${and(invoiceConditions(f))} AND ${after(cursor, sql`i.number, i.id`)}
        ORDER BY i.number, i.id LIMIT ${limit}`,
  );
}

export function countInvoiceLines(db: DB, f: InvoiceFilter): Promise<number> {
  return countOf(
    db,
    sql`SELECT coalesce(sum(json_array_length(i.lines)), 0) AS n FROM ${INVOICE_FROM} WHERE ${and(invoiceConditions(f))}`,
  );
}

/** A page of invoice lines (`line_index`, the stored `line`) with their invoice's fields. */
export function invoiceLinePage(db: DB, f: InvoiceFilter, cursor: unknown, limit: number): Promise<Row[]> {
  return readRows(
    db,
    sql`SELECT i.id, i.event_id, i.number, i.date, i.is_cancellation, i.texts, r.number AS refers_number, o.code, o.email,
               l.key AS line_index, l.value AS line, ${PROVIDERS} AS providers
        FROM ${INVOICE_FROM} JOIN json_each(i.lines) l
        WHERE ${and(invoiceConditions(f))} AND ${after(cursor, sql`i.number, i.id, l.key`)}
        ORDER BY i.number, i.id, l.key LIMIT ${limit}`,
  );
}
