/**
 * The PDF of an invoice (A4): issuer and recipient, number, date, order, the lines with tax
 * rate, net and gross, a tax summary per rate, totals, the texts of the event settings and the
 * payment stamp, the footer on every page. Money in the event's currency and dates in the
 * event's timezone, written as the invoice's language writes them.
 */
import type { PDFPage } from "@cantoo/pdf-lib";
import type { InvoiceRecord } from "../../db/invoices";
import type { EventRow } from "../../db/tenancy";
import { countryName, formatDateFor, formatMoneyFor, formatNumberFor, formatYmdFor } from "../../lib/format";
import { i18nText } from "../../lib/i18n";
import { A4, type FontLoader, MM, PdfWriter, type TextStyle } from "../../lib/pdf/document";

const MARGIN = 20 * MM;
const GREY: [number, number, number] = [0.35, 0.35, 0.35];

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split pending by h-functions (issue 36)
export async function renderInvoicePdf(inv: InvoiceRecord, event: EventRow, loadFont: FontLoader): Promise<Uint8Array> {
  const i = inv.invoice;
  const t = i.texts;
  const locale = i.locale;
  const money = (cents: number) => formatMoneyFor(cents, event.currency, locale);
  const title = i.isCancellation ? "Cancellation" : "Invoice";
  const w = await PdfWriter.create(loadFont, {
    title: `${title} ${i.number}`,
    author: t.invoice_from_name || i18nText(event.name, locale),
    language: locale,
  });
  const small: TextStyle = { size: 8, color: GREY };
  const body: TextStyle = { size: 10 };
  const bold: TextStyle = { size: 10, bold: true };
  const contentWidth = A4.width - 2 * MARGIN;

  const pages: PDFPage[] = [];
  const newPage = () => {
    const p = w.doc.addPage([A4.width, A4.height]);
    pages.push(p);
    return p;
  };
  let page = newPage();

  /** Lines of text from the top edge `top` downwards; returns the y below the last line. */
  const block = async (
    text: string,
    x: number,
    top: number,
    width: number,
    style: TextStyle,
    leading = 1.3,
  ): Promise<number> => {
    let y = top;
    for (const line of await w.wrap(text, width, style)) {
      y -= style.size * leading;
      await w.drawLine(page, line, { x, y }, style);
    }
    return y;
  };

  // issuer (top right) and recipient (left)
  const issuer = [
    t.invoice_from_name,
    t.invoice_from,
    `${t.invoice_from_zipcode} ${t.invoice_from_city}`.trim(),
    countryName(t.invoice_from_country, locale),
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
  let yRight = await block(issuer, rightX, A4.height - MARGIN, 70 * MM, body);
  if (issuerIds) yRight = await block(issuerIds, rightX, yRight - 4, 70 * MM, small);
  const senderLine = [
    t.invoice_from_name,
    t.invoice_from.replace(/\n/g, ", "),
    `${t.invoice_from_zipcode} ${t.invoice_from_city}`.trim(),
  ]
    .filter(Boolean)
    .join(" · ");
  let yLeft = A4.height - MARGIN - 25 * MM;
  if (senderLine) yLeft = await block(senderLine, MARGIN, yLeft, 85 * MM, { size: 7, color: GREY });
  yLeft = await block(t.invoice_to || "", MARGIN, yLeft - 4, 85 * MM, body);

  // title and facts
  let y = Math.min(yLeft, yRight) - 14 * MM;
  y = await block(title, MARGIN, y, contentWidth, { size: 18, bold: true });
  const facts: [string, string][] = [
    [i.isCancellation ? "Cancellation number" : "Invoice number", i.number],
    ...(inv.refersNumber
      ? ([[i.isCancellation ? "Cancels invoice" : "Refers to", inv.refersNumber]] as [string, string][])
      : []),
    ["Invoice date", formatYmdFor(i.date, locale)],
    ["Order code", inv.orderCode],
    ["Event", i18nText(event.name, locale)],
    ...(t.internal_reference ? ([["Your reference", t.internal_reference]] as [string, string][]) : []),
    ...(t.invoice_to_vat_id ? ([["Customer VAT ID", t.invoice_to_vat_id]] as [string, string][]) : []),
  ];
  y -= 4;
  for (const [k, v] of facts) {
    y -= 13;
    await w.drawLine(page, k, { x: MARGIN, y }, { ...body, color: GREY });
    await w.drawLine(page, v, { x: MARGIN + 45 * MM, y }, body);
  }
  if (t.introductory_text) y = await block(t.introductory_text, MARGIN, y - 10, contentWidth, body);

  // the lines
  const cols = { desc: MARGIN, rate: MARGIN + 100 * MM, net: MARGIN + 125 * MM, gross: A4.width - MARGIN };
  const header = async () => {
    y -= 20;
    await w.drawLine(page, "Description", { x: cols.desc, y }, bold);
    await w.drawAligned(page, "Tax rate", { x: cols.rate, y, width: 20 * MM, align: "right" }, bold);
    await w.drawAligned(page, "Net", { x: cols.net, y, width: 25 * MM, align: "right" }, bold);
    await w.drawAligned(page, "Gross", { x: cols.gross - 25 * MM, y, width: 25 * MM, align: "right" }, bold);
    y -= 5;
    w.line(page, { x: MARGIN, y }, { x: A4.width - MARGIN, y });
  };
  const bottomLimit = MARGIN + 25 * MM;
  await header();
  for (const l of i.lines) {
    const descLines = await w.wrap(l.description, 95 * MM, body);
    if (y - descLines.length * 13 - 6 < bottomLimit) {
      page = newPage();
      y = A4.height - MARGIN;
      await header();
    }
    y -= 14;
    await w.drawAligned(
      page,
      `${formatNumberFor(l.tax_rate, locale)} %`,
      { x: cols.rate, y, width: 20 * MM, align: "right" },
      body,
    );
    await w.drawAligned(
      page,
      money(l.gross_value - l.tax_value),
      { x: cols.net, y, width: 25 * MM, align: "right" },
      body,
    );
    await w.drawAligned(
      page,
      money(l.gross_value),
      { x: cols.gross - 25 * MM, y, width: 25 * MM, align: "right" },
      body,
    );
    for (let k = 0; k < descLines.length; k++) {
      if (k > 0) y -= 12;
      await w.drawLine(page, descLines[k]!, { x: cols.desc, y }, k === 0 ? body : { size: 9, color: GREY });
    }
    y -= 4;
  }
  w.line(page, { x: MARGIN, y }, { x: A4.width - MARGIN, y });

  // totals and taxes by rate
  const gross = i.lines.reduce((s, l) => s + l.gross_value, 0);
  const tax = i.lines.reduce((s, l) => s + l.tax_value, 0);
  const byRate = new Map<string, { rate: number; name: string; net: number; tax: number }>();
  for (const l of i.lines) {
    if (l.tax_rate === 0 && l.tax_value === 0) continue;
    const key = `${l.tax_rate}|${l.tax_name}`;
    const e = byRate.get(key) ?? { rate: l.tax_rate, name: l.tax_name, net: 0, tax: 0 };
    e.net += l.gross_value - l.tax_value;
    e.tax += l.tax_value;
    byRate.set(key, e);
  }
  const needed = (3 + byRate.size) * 14 + 30;
  if (y - needed < bottomLimit) {
    page = newPage();
    y = A4.height - MARGIN;
  }
  const total = async (label: string, value: string, style: TextStyle) => {
    y -= 14;
    await w.drawAligned(page, label, { x: cols.rate - 40 * MM, y, width: 95 * MM, align: "right" }, style);
    await w.drawAligned(page, value, { x: cols.gross - 30 * MM, y, width: 30 * MM, align: "right" }, style);
  };
  await total("Net total", money(gross - tax), body);
  for (const r of byRate.values()) {
    await total(`${r.name || "Tax"} ${formatNumberFor(r.rate, locale)} % of ${money(r.net)}`, money(r.tax), body);
  }
  await total(i.isCancellation ? "Total (cancelled)" : "Total", money(gross), { size: 11, bold: true });

  if (t.payment_provider_stamp) {
    y -= 26;
    const stamp = t.payment_provider_stamp.toUpperCase();
    const sw = await w.width(stamp, { size: 14, bold: true });
    w.rect(page, { x: MARGIN - 3, y: y - 5, width: sw + 6, height: 20 }, [0.85, 0.95, 0.85]);
    await w.drawLine(page, stamp, { x: MARGIN, y }, { size: 14, bold: true, color: [0.1, 0.45, 0.15] });
  }
  for (const text of [t.payment_provider_text, t.additional_text]) {
    if (!text) continue;
    const lines = await w.wrap(text, contentWidth, body);
    if (y - lines.length * 13 - 10 < bottomLimit) {
      page = newPage();
      y = A4.height - MARGIN;
    }
    y = await block(text, MARGIN, y - 10, contentWidth, body);
  }

  // footer and page numbers on every page
  const generated = formatDateFor(inv.invoice.createdAt, event.timezone, locale, "date");
  for (const [k, p] of pages.entries()) {
    page = p;
    let fy = MARGIN + 8 * MM;
    if (t.footer_text) {
      for (const line of (await w.wrap(t.footer_text, contentWidth, small)).slice(0, 3)) {
        await w.drawAligned(p, line, { x: MARGIN, y: fy, width: contentWidth, align: "center" }, small);
        fy -= 10;
      }
    }
    await w.drawAligned(
      p,
      `${i.number} · ${generated} · Page ${k + 1} of ${pages.length}`,
      { x: MARGIN, y: MARGIN - 4 * MM, width: contentWidth, align: "right" },
      small,
    );
  }
  return w.save();
}
