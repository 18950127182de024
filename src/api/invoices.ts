/**
 * Invoices (docs/api.md; pretix docs invoices.rst, orders.rst
 * `create_invoice`): list with filters and ordering, detail by number, the PDF (409 while it
 * is rendered on the documents queue), reissue and regenerate, and the order action that
 * creates an invoice. Reading needs can_view_orders, the actions can_change_orders (pretix's
 * order permissions). The rules are in services/invoices/invoices.ts and its invoice-* siblings.
 */
import { Hono } from "hono";
import { z } from "zod";
import { INVOICE_ORDERING, type InvoiceRecord, listInvoices } from "../services/invoices/invoice-reads";
import {
  createInvoiceForOrder,
  loadInvoice,
  regenerateInvoice,
  reissueInvoice,
} from "../services/invoices/invoice-actions";
import { invoicePdf } from "../services/invoices/invoice-files";
import { type AppEnv, eventContext } from "../http/context";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { date, dateTime, decimalString, id, money } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";
import { q, queryParams } from "../http/validation";

export const invoiceLineResponse = z
  .object({
    position: z.number().int(),
    description: z.string(),
    item: id().nullable(),
    variation: id().nullable(),
    subevent: id().nullable(),
    fee_type: z.string().nullable(),
    fee_internal_type: z.string().nullable(),
    event_date_from: dateTime().nullable(),
    event_date_to: dateTime().nullable(),
    event_location: z.string().nullable(),
    attendee_name: z.string().nullable(),
    gross_value: money(),
    tax_value: money(),
    tax_name: z.string(),
    tax_rate: decimalString(),
  })
  .meta({ id: "InvoiceLine" });

export const invoiceResponse = z
  .object({
    number: z.string(),
    order: z.string(),
    is_cancellation: z.boolean(),
    invoice_from_name: z.string(),
    invoice_from: z.string(),
    invoice_from_zipcode: z.string(),
    invoice_from_city: z.string(),
    invoice_from_country: z.string(),
    invoice_from_tax_id: z.string(),
    invoice_from_vat_id: z.string(),
    invoice_to: z.string(),
    invoice_to_company: z.string(),
    invoice_to_name: z.string(),
    invoice_to_street: z.string(),
    invoice_to_zipcode: z.string(),
    invoice_to_city: z.string(),
    invoice_to_state: z.string(),
    invoice_to_country: z.string(),
    invoice_to_vat_id: z.string(),
    invoice_to_beneficiary: z.string(),
    custom_field: z.string().nullable(),
    date: date(),
    refers: z.string().nullable(),
    locale: z.string(),
    introductory_text: z.string(),
    additional_text: z.string(),
    payment_provider_text: z.string(),
    payment_provider_stamp: z.string().nullable(),
    footer_text: z.string(),
    internal_reference: z.string(),
    foreign_currency_display: z.string().nullable(),
    foreign_currency_rate: decimalString().nullable(),
    foreign_currency_rate_date: date().nullable(),
    lines: z.array(invoiceLineResponse),
  })
  .meta({ id: "Invoice" });
export type InvoiceResponse = z.infer<typeof invoiceResponse>;

export function serializeInvoice({ invoice: i, orderCode, refersNumber }: InvoiceRecord): InvoiceResponse {
  const t = i.texts;
  return {
    number: i.number,
    order: orderCode,
    is_cancellation: i.isCancellation,
    invoice_from_name: t.invoice_from_name,
    invoice_from: t.invoice_from,
    invoice_from_zipcode: t.invoice_from_zipcode,
    invoice_from_city: t.invoice_from_city,
    invoice_from_country: t.invoice_from_country,
    invoice_from_tax_id: t.invoice_from_tax_id,
    invoice_from_vat_id: t.invoice_from_vat_id,
    invoice_to: t.invoice_to,
    invoice_to_company: t.invoice_to_company,
    invoice_to_name: t.invoice_to_name,
    invoice_to_street: t.invoice_to_street,
    invoice_to_zipcode: t.invoice_to_zipcode,
    invoice_to_city: t.invoice_to_city,
    invoice_to_state: t.invoice_to_state,
    invoice_to_country: t.invoice_to_country,
    invoice_to_vat_id: t.invoice_to_vat_id,
    invoice_to_beneficiary: t.invoice_to_beneficiary,
    custom_field: t.custom_field,
    date: i.date,
    refers: refersNumber,
    locale: i.locale,
    introductory_text: t.introductory_text,
    additional_text: t.additional_text,
    payment_provider_text: t.payment_provider_text,
    payment_provider_stamp: t.payment_provider_stamp,
    footer_text: t.footer_text,
    internal_reference: t.internal_reference,
    // the service converts no currencies (no exchange rates)
    foreign_currency_display: null,
    foreign_currency_rate: null,
    foreign_currency_rate_date: null,
    lines: i.lines.map((l) => ({
      position: l.position,
      description: l.description,
      item: l.item,
      variation: l.variation,
      subevent: l.subevent,
      fee_type: l.fee_type,
      fee_internal_type: l.fee_internal_type,
      event_date_from: toIso(l.event_date_from),
      event_date_to: toIso(l.event_date_to),
      event_location: l.event_location,
      attendee_name: l.attendee_name,
      gross_value: formatMoney(l.gross_value),
      tax_value: formatMoney(l.tax_value),
      tax_name: l.tax_name,
      tax_rate: formatDecimal(l.tax_rate),
    })),
  };
}

export const invoiceRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/invoices";
const read = eventScope("can_view_orders");
const write = eventScope("can_change_orders");
const doc = apiDocs("Invoices");

const invoiceFilters = queryParams({
  is_cancellation: q.bool("only cancellations (`true`) or only invoices (`false`)"),
  order: q.string("the order's code"),
  refers: q.string("the number of the invoice a cancellation refers to"),
  locale: q.string("the invoice's language"),
});

invoiceRoutes.get(
  base,
  read,
  doc.list(invoiceResponse, { summary: "List invoices", ordering: INVOICE_ORDERING }),
  invoiceFilters,
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const page = await listInvoices(
      eventContext(c),
      { isCancellation: f.is_cancellation, order: f.order, refers: f.refers, locale: f.locale },
      req,
    );
    return respondPage(c, req, page, serializeInvoice);
  },
);

invoiceRoutes.get(`${base}/:number`, read, doc.ok(invoiceResponse, { summary: "Invoice detail" }), async (c) => {
  return c.json(serializeInvoice(await loadInvoice(eventContext(c), c.req.param("number"))));
});

invoiceRoutes.get(
  `${base}/:number/download`,
  read,
  doc.file({
    summary: "Download an invoice's PDF",
    description:
      "409 (`Retry-After`) while the PDF is rendered on the documents queue; 503 when rendering failed for a reason the deployment must fix.",
    contentType: "application/pdf",
    failures: ["not_ready", "unavailable"],
  }),
  async (c) => {
    const pdf = await invoicePdf(eventContext(c), c.req.param("number"));
    return c.body(pdf.bytes, 200, {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${pdf.filename.replace(/[^\w.-]/g, "_")}"`,
    });
  },
);

invoiceRoutes.post(
  `${base}/:number/reissue`,
  write,
  doc.ok(invoiceResponse, {
    summary: "Reissue an invoice",
    description:
      "Cancels the invoice and creates a new one from the order as it is now (only the cancellation when the order is canceled or expired); answers the new invoice (or the cancellation). 400 when it is already canceled.",
  }),
  async (c) => c.json(serializeInvoice(await reissueInvoice(eventContext(c), c.req.param("number")))),
);

invoiceRoutes.post(
  `${base}/:number/regenerate`,
  write,
  doc.ok(invoiceResponse, {
    summary: "Regenerate an invoice",
    description:
      "The same invoice (number, date) rebuilt from the order's current data, its PDF rendered anew. 400 when it is already canceled.",
  }),
  async (c) => c.json(serializeInvoice(await regenerateInvoice(eventContext(c), c.req.param("number")))),
);

invoiceRoutes.post(
  "/organizers/:organizer/events/:event/orders/:code/create_invoice",
  write,
  doc.ok(invoiceResponse, {
    summary: "Create an order's invoice",
    description:
      "400 when invoicing is off, the order does not qualify, or it already has an invoice. A canceled or expired order gets the invoice and its cancellation; the answer is the invoice.",
  }),
  async (c) => c.json(serializeInvoice(await createInvoiceForOrder(eventContext(c), c.req.param("code")))),
);
