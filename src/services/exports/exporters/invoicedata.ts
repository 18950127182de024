/**
 * `invoicedata` "Invoice data" (pretix's `InvoiceDataExporter`, `base/exporters/invoices.py`), event
 * and organizer level: a sheet of invoices and one of invoice lines, by invoice number. Inputs as
 * pretix's `InvoiceExporterMixin` (`date_from`, `date_to`: invoice date, inclusive; `payment_provider`).
 * Columns as pretix's where the invoices carry them: no reverse charge flag, no payment matching ids,
 * the foreign currency columns empty (the service converts no currencies).
 */
import {
  countInvoiceLines,
  countInvoices,
  type InvoiceFilter,
  invoiceLinePage,
  invoicePage,
} from "../../../db/exports/invoicedata";
import { formatDecimal } from "../../../lib/money";
import { eventOf, json, localDate, money, providerList, text } from "../cells";
import { type ExportContext, type ExporterDef, multiSheetFormats, multiSheetPlan, type Sheet } from "../exporter";
import { type Cell, decimal } from "../formats";

/** pretix's payment providers that are not meta providers (`free` is one), as the service has them. */
const INVOICE_PAYMENT_PROVIDERS = ["", "giftcard", "manual"] as const;

/** The invoice inputs of the export. */
function invoiceFilter(x: ExportContext): InvoiceFilter {
  const p = x.params;
  return {
    eventIds: x.events.map((e) => e.id),
    dateFrom: typeof p.date_from === "string" ? p.date_from : null,
    dateTo: typeof p.date_to === "string" ? p.date_to : null,
    paymentProvider: typeof p.payment_provider === "string" && p.payment_provider !== "" ? p.payment_provider : null,
  };
}

const SENDER_COLUMNS = ["Name", "Address", "ZIP code", "City", "Country", "Tax ID", "VAT ID"].map(
  (c) => `Invoice sender: ${c}`,
);
const RECIPIENT_COLUMNS = [
  "Company",
  "Name",
  "Street address",
  "ZIP code",
  "City",
  "Country",
  "State",
  "VAT ID",
  "Beneficiary",
  "Internal reference",
].map((c) => `Invoice recipient: ${c}`);

type StoredTexts = Partial<Record<string, string | null>>;

function senderCells(t: StoredTexts): Cell[] {
  return [
    text(t.invoice_from_name),
    text(t.invoice_from),
    text(t.invoice_from_zipcode),
    text(t.invoice_from_city),
    text(t.invoice_from_country),
    text(t.invoice_from_tax_id),
    text(t.invoice_from_vat_id),
  ];
}

function recipientCells(t: StoredTexts): Cell[] {
  return [
    text(t.invoice_to_company),
    text(t.invoice_to_name),
    text(t.invoice_to_street) || text(t.invoice_to),
    text(t.invoice_to_zipcode),
    text(t.invoice_to_city),
    text(t.invoice_to_country),
    text(t.invoice_to_state),
    text(t.invoice_to_vat_id),
    text(t.invoice_to_beneficiary),
    text(t.internal_reference),
  ];
}

const invoiceType = (v: unknown) => (v ? "Cancellation" : "Invoice");

const INVOICE_SHEET: Sheet = {
  key: "invoices",
  title: "Invoices",
  count: (x) => countInvoices(x.db, invoiceFilter(x)),
  header: () => [
    "Invoice number",
    "Date",
    "Order code",
    "Email address",
    "Invoice type",
    "Cancellation of",
    "Language",
    ...SENDER_COLUMNS,
    ...RECIPIENT_COLUMNS,
    "Shown foreign currency",
    "Foreign currency rate",
    "Total value (with taxes)",
    "Total value (without taxes)",
    "Payment providers",
  ],
  async page(x, _facts, cursor, limit) {
    const rows = await invoicePage(x.db, invoiceFilter(x), cursor, limit);
    const out = rows.map((r): Cell[] => {
      const t = json<StoredTexts>(r.texts) ?? {};
      const gross = Number(r.gross),
        tax = Number(r.tax);
      return [
        text(r.number),
        text(r.date),
        text(r.code),
        text(r.email),
        invoiceType(r.is_cancellation),
        text(r.refers_number),
        text(r.locale),
        ...senderCells(t),
        ...recipientCells(t),
        "",
        "",
        money(gross),
        money(gross - tax),
        providerList(r.providers),
      ];
    });
    const last = rows.at(-1);
    return { rows: out, after: last ? [text(last.number), Number(last.id)] : cursor };
  },
};

type StoredLine = {
  position?: number;
  description?: string;
  gross_value?: number;
  tax_value?: number;
  tax_rate?: number;
  tax_name?: string;
  event_date_from?: number | null;
  event_date_to?: number | null;
  event_location?: string | null;
};

const INVOICE_LINE_SHEET: Sheet = {
  key: "lines",
  title: "Invoice lines",
  count: (x) => countInvoiceLines(x.db, invoiceFilter(x)),
  header: () => [
    "Invoice number",
    "Line number",
    "Description",
    "Gross price",
    "Net price",
    "Tax value",
    "Tax rate",
    "Tax name",
    "Event start date",
    "Date",
    "Order code",
    "Email address",
    "Invoice type",
    "Cancellation of",
    ...SENDER_COLUMNS,
    ...RECIPIENT_COLUMNS,
    "Payment providers",
    "Event end date",
    "Location",
  ],
  async page(x, _facts, cursor, limit) {
    const rows = await invoiceLinePage(x.db, invoiceFilter(x), cursor, limit);
    const out = rows.map((r): Cell[] => {
      const t = json<StoredTexts>(r.texts) ?? {};
      const l = json<StoredLine>(r.line) ?? {};
      const tz = eventOf(x, r.event_id).timezone;
      const gross = Number(l.gross_value ?? 0),
        tax = Number(l.tax_value ?? 0);
      return [
        text(r.number),
        l.position ?? Number(r.line_index) + 1,
        text(l.description).replace(/\n/g, " - "),
        money(gross),
        money(gross - tax),
        money(tax),
        decimal(formatDecimal(Number(l.tax_rate ?? 0))),
        text(l.tax_name),
        l.event_date_from === null || l.event_date_from === undefined ? "" : localDate(Number(l.event_date_from), tz),
        text(r.date),
        text(r.code),
        text(r.email),
        invoiceType(r.is_cancellation),
        text(r.refers_number),
        ...senderCells(t),
        ...recipientCells(t),
        providerList(r.providers),
        l.event_date_to === null || l.event_date_to === undefined ? "" : localDate(Number(l.event_date_to), tz),
        text(l.event_location),
      ];
    });
    const last = rows.at(-1);
    return { rows: out, after: last ? [text(last.number), Number(last.id), Number(last.line_index)] : cursor };
  },
};

const INVOICE_SHEETS = [INVOICE_SHEET, INVOICE_LINE_SHEET];

export const invoicedata: ExporterDef = {
  identifier: "invoicedata",
  verboseName: "Invoice data",
  eventLevel: true,
  organizerLevel: true,
  inputs: () => [
    { name: "_format", kind: "choice", required: true, choices: multiSheetFormats(INVOICE_SHEETS) },
    { name: "date_from", kind: "date" },
    { name: "date_to", kind: "date" },
    { name: "payment_provider", kind: "choice", required: false, choices: INVOICE_PAYMENT_PROVIDERS },
  ],
  sheets: INVOICE_SHEETS,
  plan: (params) => multiSheetPlan(INVOICE_SHEETS, params),
  facts: async () => ({}),
  filename: (x) => `${x.eventLevel ? x.events[0]!.slug : x.organizer.slug}_invoices`,
};
