/**
 * The PDF of an invoice (A4): issuer and recipient, number, date, order, the lines with tax
 * rate, net and gross, a tax summary per rate, totals, the texts of the event settings and the
 * payment stamp, the footer on every page. Money in the event's currency and dates in the
 * event's timezone, written as the invoice's language writes them.
 */
import type { PDFPage } from "@cantoo/pdf-lib";
import type { InvoiceRecord, InvoiceRow } from "../../db/invoices";
import type { EventRow } from "../../db/tenancy";
import { countryName, formatDateFor, formatMoneyFor, formatNumberFor, formatYmdFor } from "../../lib/format";
import { i18nText } from "../../lib/i18n";
import { A4, type FontLoader, MM, PdfWriter, type Rgb, type TextStyle } from "../../lib/pdf/document";

type Texts = InvoiceRow["texts"];
type Line = InvoiceRow["lines"][number];

const MARGIN = 20 * MM;
const GREY: Rgb = [0.35, 0.35, 0.35];
const CONTENT_WIDTH = A4.width - 2 * MARGIN;
/** Nothing of the body is drawn below this y (the footer's room). */
const BOTTOM_LIMIT = MARGIN + 25 * MM;
/** The table's columns: the description's left edge, the right-aligned columns' boxes. */
const COLS = { desc: MARGIN, rate: MARGIN + 100 * MM, net: MARGIN + 125 * MM, gross: A4.width - MARGIN };
const SMALL: TextStyle = { size: 8, color: GREY };
const BODY: TextStyle = { size: 10 };
const BOLD: TextStyle = { size: 10, bold: true };

/** The drawing state: the writer (and its fonts), the pages so far, the page drawn on, the y of the pen. */
class Sheet {
  readonly pages: PDFPage[] = [];
  page: PDFPage;
  y = A4.height - MARGIN;

  constructor(
    readonly w: PdfWriter,
    readonly locale: string,
    private readonly currency: string,
  ) {
    this.page = this.w.doc.addPage([A4.width, A4.height]);
    this.pages.push(this.page);
  }

  /** Continues on a new page, at its top margin. */
  nextPage(): void {
    this.page = this.w.doc.addPage([A4.width, A4.height]);
    this.pages.push(this.page);
    this.y = A4.height - MARGIN;
  }

  /** Starts a new page unless `height` more points fit above the bottom limit. */
  keepRoom(height: number): boolean {
    if (this.y - height >= BOTTOM_LIMIT) return false;
    this.nextPage();
    return true;
  }

  money(cents: number): string {
    return formatMoneyFor(cents, this.currency, this.locale);
  }

  /** Lines of text from the top edge `top` downwards; returns the y below the last line. */
  async block(text: string, x: number, top: number, width: number, style: TextStyle, leading = 1.3): Promise<number> {
    let y = top;
    for (const line of await this.w.wrap(text, width, style)) {
      y -= style.size * leading;
      await this.w.drawLine(this.page, line, { x, y }, style);
    }
    return y;
  }
}

export async function renderInvoicePdf(inv: InvoiceRecord, event: EventRow, loadFont: FontLoader): Promise<Uint8Array> {
  const i = inv.invoice;
  const title = i.isCancellation ? "Cancellation" : "Invoice";
  const w = await PdfWriter.create(loadFont, {
    title: `${title} ${i.number}`,
    author: i.texts.invoice_from_name || i18nText(event.name, i.locale),
    language: i.locale,
  });
  const s = new Sheet(w, i.locale, event.currency);
  const yRight = await drawIssuer(s, i.texts);
  const yLeft = await drawRecipient(s, i.texts);
  await drawTitleAndFacts(s, inv, event, Math.min(yLeft, yRight) - 14 * MM);
  await drawLinesTable(s, i.lines);
  await drawTotals(s, i.lines, i.isCancellation);
  await drawPaymentAndTexts(s, i.texts);
  await drawFooters(s, i.number, formatDateFor(i.createdAt, event.timezone, s.locale, "date"), i.texts.footer_text);
  return w.save();
}

// ---- header: issuer (top right) and recipient (left) ----

/** The issuer's address and its tax ids, top right; returns the y below them. */
async function drawIssuer(s: Sheet, t: Texts): Promise<number> {
  const issuer = [
    t.invoice_from_name,
    t.invoice_from,
    `${t.invoice_from_zipcode} ${t.invoice_from_city}`.trim(),
    countryName(t.invoice_from_country, s.locale),
  ]
    .filter((l) => l.trim() !== "")
    .join("\n");
  const issuerIds = [
    t.invoice_from_tax_id ? `Tax ID: ${t.invoice_from_tax_id}` : "",
    t.invoice_from_vat_id ? `VAT ID: ${t.invoice_from_vat_id}` : "",
  ]
    .filter(Boolean)
    .join("\n");
  const rightX = A4.width - MARGIN - 70 * MM;
  const y = await s.block(issuer, rightX, A4.height - MARGIN, 70 * MM, BODY);
  return issuerIds ? await s.block(issuerIds, rightX, y - 4, 70 * MM, SMALL) : y;
}

/** The sender in one small line above the recipient's address (left); returns the y below them. */
async function drawRecipient(s: Sheet, t: Texts): Promise<number> {
  const senderLine = [
    t.invoice_from_name,
    t.invoice_from.replace(/\n/g, ", "),
    `${t.invoice_from_zipcode} ${t.invoice_from_city}`.trim(),
  ]
    .filter(Boolean)
    .join(" · ");
  let y = A4.height - MARGIN - 25 * MM;
  if (senderLine) y = await s.block(senderLine, MARGIN, y, 85 * MM, { size: 7, color: GREY });
  return s.block(t.invoice_to || "", MARGIN, y - 4, 85 * MM, BODY);
}

// ---- the meta block: title, facts, introductory text ----

/** The facts under the title, label and value: number, what it refers to, date, order, event, references. */
function invoiceFacts(inv: InvoiceRecord, event: EventRow): [string, string][] {
  const i = inv.invoice;
  const t = i.texts;
  return [
    [i.isCancellation ? "Cancellation number" : "Invoice number", i.number],
    ...(inv.refersNumber
      ? ([[i.isCancellation ? "Cancels invoice" : "Refers to", inv.refersNumber]] as [string, string][])
      : []),
    ["Invoice date", formatYmdFor(i.date, i.locale)],
    ["Order code", inv.orderCode],
    ["Event", i18nText(event.name, i.locale)],
    ...(t.internal_reference ? ([["Your reference", t.internal_reference]] as [string, string][]) : []),
    ...(t.invoice_to_vat_id ? ([["Customer VAT ID", t.invoice_to_vat_id]] as [string, string][]) : []),
  ];
}

/** The title from `top` down, the facts and the introductory text. */
async function drawTitleAndFacts(s: Sheet, inv: InvoiceRecord, event: EventRow, top: number): Promise<void> {
  const i = inv.invoice;
  s.y = await s.block(i.isCancellation ? "Cancellation" : "Invoice", MARGIN, top, CONTENT_WIDTH, {
    size: 18,
    bold: true,
  });
  s.y -= 4;
  for (const [k, v] of invoiceFacts(inv, event)) {
    s.y -= 13;
    await s.w.drawLine(s.page, k, { x: MARGIN, y: s.y }, { ...BODY, color: GREY });
    await s.w.drawLine(s.page, v, { x: MARGIN + 45 * MM, y: s.y }, BODY);
  }
  const intro = i.texts.introductory_text;
  if (intro) s.y = await s.block(intro, MARGIN, s.y - 10, CONTENT_WIDTH, BODY);
}

// ---- the lines table, continued on new pages ----

/** The table's header row and its rule. */
async function drawTableHeader(s: Sheet): Promise<void> {
  s.y -= 20;
  const y = s.y;
  await s.w.drawLine(s.page, "Description", { x: COLS.desc, y }, BOLD);
  await s.w.drawAligned(s.page, "Tax rate", { x: COLS.rate, y, width: 20 * MM, align: "right" }, BOLD);
  await s.w.drawAligned(s.page, "Net", { x: COLS.net, y, width: 25 * MM, align: "right" }, BOLD);
  await s.w.drawAligned(s.page, "Gross", { x: COLS.gross - 25 * MM, y, width: 25 * MM, align: "right" }, BOLD);
  s.y -= 5;
  s.w.line(s.page, { x: MARGIN, y: s.y }, { x: A4.width - MARGIN, y: s.y });
}

/** The lines, each on the page it fits on (a new page repeats the header), and the closing rule. */
async function drawLinesTable(s: Sheet, lines: Line[]): Promise<void> {
  await drawTableHeader(s);
  for (const l of lines) {
    const descLines = await s.w.wrap(l.description, 95 * MM, BODY);
    if (s.keepRoom(descLines.length * 13 + 6)) await drawTableHeader(s);
    await drawTableRow(s, l, descLines);
  }
  s.w.line(s.page, { x: MARGIN, y: s.y }, { x: A4.width - MARGIN, y: s.y });
}

/** One line: rate, net and gross on the description's first line, its further lines smaller below. */
async function drawTableRow(s: Sheet, l: Line, descLines: string[]): Promise<void> {
  s.y -= 14;
  const y = s.y;
  const rate = `${formatNumberFor(l.tax_rate, s.locale)} %`;
  await s.w.drawAligned(s.page, rate, { x: COLS.rate, y, width: 20 * MM, align: "right" }, BODY);
  const net = s.money(l.gross_value - l.tax_value);
  await s.w.drawAligned(s.page, net, { x: COLS.net, y, width: 25 * MM, align: "right" }, BODY);
  const gross = s.money(l.gross_value);
  await s.w.drawAligned(s.page, gross, { x: COLS.gross - 25 * MM, y, width: 25 * MM, align: "right" }, BODY);
  for (let k = 0; k < descLines.length; k++) {
    if (k > 0) s.y -= 12;
    await s.w.drawLine(s.page, descLines[k]!, { x: COLS.desc, y: s.y }, k === 0 ? BODY : { size: 9, color: GREY });
  }
  s.y -= 4;
}

// ---- the tax summary and totals ----

type TaxByRate = { rate: number; name: string; net: number; tax: number };

/** Net and tax per tax rate and name, in the order of their first line; untaxed lines left out. */
function taxesByRate(lines: Line[]): TaxByRate[] {
  const byRate = new Map<string, TaxByRate>();
  for (const l of lines) {
    if (l.tax_rate === 0 && l.tax_value === 0) continue;
    const key = `${l.tax_rate}|${l.tax_name}`;
    const e = byRate.get(key) ?? { rate: l.tax_rate, name: l.tax_name, net: 0, tax: 0 };
    e.net += l.gross_value - l.tax_value;
    e.tax += l.tax_value;
    byRate.set(key, e);
  }
  return [...byRate.values()];
}

/** Net total, the tax of each rate, the total: kept together (on a new page if they do not fit). */
async function drawTotals(s: Sheet, lines: Line[], isCancellation: boolean): Promise<void> {
  const gross = lines.reduce((sum, l) => sum + l.gross_value, 0);
  const tax = lines.reduce((sum, l) => sum + l.tax_value, 0);
  const rates = taxesByRate(lines);
  s.keepRoom((3 + rates.length) * 14 + 30);
  await drawTotalRow(s, "Net total", s.money(gross - tax), BODY);
  for (const r of rates) {
    const label = `${r.name || "Tax"} ${formatNumberFor(r.rate, s.locale)} % of ${s.money(r.net)}`;
    await drawTotalRow(s, label, s.money(r.tax), BODY);
  }
  await drawTotalRow(s, isCancellation ? "Total (cancelled)" : "Total", s.money(gross), { size: 11, bold: true });
}

async function drawTotalRow(s: Sheet, label: string, value: string, style: TextStyle): Promise<void> {
  s.y -= 14;
  await s.w.drawAligned(s.page, label, { x: COLS.rate - 40 * MM, y: s.y, width: 95 * MM, align: "right" }, style);
  await s.w.drawAligned(s.page, value, { x: COLS.gross - 30 * MM, y: s.y, width: 30 * MM, align: "right" }, style);
}

// ---- payment stamp, payment and additional texts ----

/** The payment provider's stamp, its text and the additional text (each on a new page if it does not fit). */
async function drawPaymentAndTexts(s: Sheet, t: Texts): Promise<void> {
  if (t.payment_provider_stamp) {
    s.y -= 26;
    const stamp = t.payment_provider_stamp.toUpperCase();
    const sw = await s.w.width(stamp, { size: 14, bold: true });
    s.w.rect(s.page, { x: MARGIN - 3, y: s.y - 5, width: sw + 6, height: 20 }, [0.85, 0.95, 0.85]);
    await s.w.drawLine(s.page, stamp, { x: MARGIN, y: s.y }, { size: 14, bold: true, color: [0.1, 0.45, 0.15] });
  }
  for (const text of [t.payment_provider_text, t.additional_text]) {
    if (!text) continue;
    const lines = await s.w.wrap(text, CONTENT_WIDTH, BODY);
    s.keepRoom(lines.length * 13 + 10);
    s.y = await s.block(text, MARGIN, s.y - 10, CONTENT_WIDTH, BODY);
  }
}

// ---- the footer on every page ----

/** On every page: up to three lines of the footer text, then number, date and "Page k of n". */
async function drawFooters(s: Sheet, number: string, generated: string, footerText: string): Promise<void> {
  const footer = footerText ? (await s.w.wrap(footerText, CONTENT_WIDTH, SMALL)).slice(0, 3) : [];
  for (const [k, p] of s.pages.entries()) {
    let fy = MARGIN + 8 * MM;
    for (const line of footer) {
      await s.w.drawAligned(p, line, { x: MARGIN, y: fy, width: CONTENT_WIDTH, align: "center" }, SMALL);
      fy -= 10;
    }
    await s.w.drawAligned(
      p,
      `${number} · ${generated} · Page ${k + 1} of ${s.pages.length}`,
      { x: MARGIN, y: MARGIN - 4 * MM, width: CONTENT_WIDTH, align: "right" },
      SMALL,
    );
  }
}
