/**
 * Documents: invoices (pretix docs invoices.rst) with their number counters, and the marks of
 * the background sweeps. Ticket PDFs and invoice PDFs themselves live in R2.
 */
import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { organizers } from "./organizers";
import { orders } from "./sales";

/** An invoice line as created (pretix docs invoices.rst, `lines`); money in hundredths, rates in hundredths of a percent. */
export type InvoiceLine = {
  position: number;
  description: string;
  item: number | null;
  variation: number | null;
  subevent: number | null;
  fee_type: string | null;
  fee_internal_type: string | null;
  event_date_from: number | null;
  event_date_to: number | null;
  event_location: string | null;
  attendee_name: string | null;
  gross_value: number;
  tax_value: number;
  tax_name: string;
  tax_rate: number;
};

/** The texts and addresses of an invoice as created (the string fields of invoices.rst). */
export type InvoiceTexts = {
  invoice_from_name: string;
  invoice_from: string;
  invoice_from_zipcode: string;
  invoice_from_city: string;
  invoice_from_country: string;
  invoice_from_tax_id: string;
  invoice_from_vat_id: string;
  invoice_to: string;
  invoice_to_company: string;
  invoice_to_name: string;
  invoice_to_street: string;
  invoice_to_zipcode: string;
  invoice_to_city: string;
  invoice_to_state: string;
  invoice_to_country: string;
  invoice_to_vat_id: string;
  invoice_to_beneficiary: string;
  custom_field: string | null;
  introductory_text: string;
  additional_text: string;
  payment_provider_text: string;
  payment_provider_stamp: string | null;
  footer_text: string;
  internal_reference: string;
};

/**
 * Invoices. `number` is `prefix` + `invoice_no`; numbers are unique per organizer and prefix
 * (events sharing a prefix share its range) and drawn without gaps from `invoice_counters` in
 * the transaction that creates the invoice. A cancellation (`is_cancellation`) refers to the
 * invoice it cancels; an invoice with such a cancellation is canceled.
 */
export const invoices = sqliteTable(
  "invoices",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    invoiceNo: text("invoice_no").notNull(),
    number: text("number").notNull(),
    isCancellation: integer("is_cancellation", { mode: "boolean" }).notNull().default(false),
    refersId: integer("refers_id").references((): AnySQLiteColumn => invoices.id, { onDelete: "set null" }),
    /** YYYY-MM-DD in the event's timezone. */
    date: text("date").notNull(),
    locale: text("locale").notNull(),
    texts: text("texts", { mode: "json" }).$type<InvoiceTexts>().notNull(),
    lines: text("lines", { mode: "json" }).$type<InvoiceLine[]>().notNull(),
    /** Random key of the write that created the invoice (statements of the same batch find it by it). */
    creationKey: text("creation_key").notNull(),
    createdAt: integer("created_at").notNull(),
    /** Raised by every regeneration; the PDF of an older version is never taken for the current one. */
    version: integer("version").notNull().default(1),
    /** R2 key of the PDF of the current version, null while it is being rendered. */
    file: text("file"),
    /** Why the current version could not be rendered (null: not failed). */
    fileError: text("file_error"),
  },
  (t) => [
    uniqueIndex("invoices_organizer_number_uq").on(t.organizerId, t.prefix, t.invoiceNo),
    uniqueIndex("invoices_creation_key_uq").on(t.creationKey),
    index("invoices_event_number_idx").on(t.eventId, t.number),
    index("invoices_event_date_idx").on(t.eventId, t.date),
    index("invoices_order_idx").on(t.orderId),
    index("invoices_refers_idx").on(t.refersId),
    index("invoices_file_idx").on(t.file),
  ],
);

/** The last number drawn per organizer and prefix (consecutive numbering). */
export const invoiceCounters = sqliteTable(
  "invoice_counters",
  {
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    last: integer("last").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizerId, t.prefix] })],
);

/** How far a background sweep has looked (e.g. `invoices`: orders modified up to this time). */
export const sweepMarks = sqliteTable("sweep_marks", {
  name: text("name").primaryKey(),
  until: integer("until").notNull(),
});
