/**
 * What the invoice routes and the order page read: a page of the event's invoices and an
 * order's invoices, scoped by the context (services/scoped-reads.ts), with the row type and list
 * ordering the routes serialize and describe.
 */
import * as invoices from "../../db/invoices";
import { inEvent, withDb } from "../scoped-reads";

export type { InvoiceRecord } from "../../db/invoices";
export { INVOICE_ORDERING } from "../../db/invoices";

export const listInvoices = inEvent(invoices.listInvoices);
/** An order's invoices: the caller has found the order of the event. */
export const orderInvoices = withDb(invoices.orderInvoices);
