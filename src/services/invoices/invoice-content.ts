/**
 * What an invoice says (pretix's `build_invoice`): the issuer's and the customer's texts and one
 * line per position and fee of the order as it is now; a cancellation repeats its invoice's
 * lines negated.
 */
import type { InvoiceFacts, InvoiceRecord } from "../../db/invoices";
import type { OrderRecord } from "../../db/orders";
import type { InvoiceLine, InvoiceTexts } from "../../db/schema/index";
import type { EventRow } from "../../db/tenancy";
import { countryName, formatRangeFor } from "../../lib/format";
import { i18nText } from "../../lib/i18n";
import { log } from "../../lib/log";
import { feeName } from "../../rules/fees";
import { issuerIncomplete, missingIssuer } from "../../rules/invoice-issuer";
import { buildName } from "../../rules/person-names";

/** The texts and lines of an invoice for the order as it is now (pretix's build_invoice). */
export function buildInvoiceContent(
  event: EventRow,
  r: OrderRecord,
  facts: InvoiceFacts,
  settings: Record<string, unknown>,
): { locale: string; texts: InvoiceTexts; lines: InvoiceLine[] } {
  const locale = r.order.locale;
  if (issuerIncomplete(settings))
    log.warn("an invoice is issued without the issuer's name or address (event settings invoice_address_from*)", {
      order: r.order.code,
      missing: missingIssuer(settings),
    });
  const texts = invoiceTexts(r, settings, locale);
  const lines = positionLines(event, r, facts, settings, locale);
  lines.push(...feeLines(event, r, facts, locale, lines.length));
  return { locale, texts, lines };
}

/** The issuer, the recipient (the invoice address), the configured texts and the payment note. */
function invoiceTexts(r: OrderRecord, settings: Record<string, unknown>, locale: string): InvoiceTexts {
  const text = (key: string) => i18nText(settings[key] as Record<string, string> | null, locale);
  const ia = r.order.invoiceAddress;
  const name = ia ? (buildName(ia.name_parts) ?? "") : "";
  const country = ia ? countryName(ia.country, locale) : "";
  const toLines = ia
    ? [ia.company, name, ia.street, `${ia.zipcode} ${ia.city} ${ia.state}`, country]
        .map((l) => l.trim().replace(/\s+/g, " "))
        .filter(Boolean)
    : [];
  if (ia?.vat_id) toLines.push(`VAT-ID: ${ia.vat_id}`);
  const paid = r.order.status === "p";
  return {
    invoice_from_name: (settings.invoice_address_from_name as string) ?? "",
    invoice_from: (settings.invoice_address_from as string) ?? "",
    invoice_from_zipcode: (settings.invoice_address_from_zipcode as string) ?? "",
    invoice_from_city: (settings.invoice_address_from_city as string) ?? "",
    invoice_from_country: (settings.invoice_address_from_country as string) ?? "",
    invoice_from_tax_id: (settings.invoice_address_from_tax_id as string) ?? "",
    invoice_from_vat_id: (settings.invoice_address_from_vat_id as string) ?? "",
    invoice_to: toLines.join("\n"),
    invoice_to_company: ia?.company ?? "",
    invoice_to_name: name,
    invoice_to_street: ia?.street ?? "",
    invoice_to_zipcode: ia?.zipcode ?? "",
    invoice_to_city: ia?.city ?? "",
    invoice_to_state: ia?.state ?? "",
    invoice_to_country: ia?.country ?? "",
    invoice_to_vat_id: ia?.vat_id ?? "",
    invoice_to_beneficiary: "",
    custom_field: null,
    introductory_text: text("invoice_introductory_text"),
    additional_text: text("invoice_additional_text"),
    payment_provider_text: paid && r.payments.length ? "The payment for this invoice has already been received." : "",
    payment_provider_stamp: paid && r.payments.length ? "paid" : null,
    footer_text: text("invoice_footer_text"),
    internal_reference: ia?.internal_reference ?? "",
  };
}

/** A line per position (free ones only when configured, or when they carry add-ons). */
function positionLines(
  event: EventRow,
  r: OrderRecord,
  facts: InvoiceFacts,
  settings: Record<string, unknown>,
  locale: string,
): InvoiceLine[] {
  const positions = r.positions.filter((p) => p.canceled !== 1).sort((a, b) => a.positionid - b.positionid);
  const hasAddons = new Set(positions.filter((p) => p.addon_to !== null).map((p) => p.addon_to));
  const eventLocation = i18nText(event.location, locale) || null;
  const lines: InvoiceLine[] = [];
  for (const p of positions) {
    if (settings.invoice_include_free === false && p.price === 0 && !hasAddons.has(p.id)) continue;
    let desc = i18nText(facts.items.get(p.item), locale);
    if (p.variation !== null) desc += ` - ${i18nText(facts.variations.get(p.variation), locale)}`;
    if (p.addon_to !== null) desc = `  + ${desc}`;
    const attendee = settings.invoice_attendee_name !== false ? p.attendee_name : null;
    if (attendee) desc += `\nAttendee: ${attendee}`;
    for (const a of p.answers) {
      const q = facts.printedQuestions.get(a.question);
      if (q && a.answer !== "") desc += `\n${i18nText(q.question, locale)}: ${a.answer}`;
    }
    const sub = p.subevent !== null ? facts.subevents.get(p.subevent) : undefined;
    if (event.hasSubevents && sub)
      desc += `\nDate: ${formatRangeFor(sub.dateFrom, sub.dateTo, event.timezone, locale)}`;
    lines.push({
      position: lines.length + 1,
      description: desc,
      item: p.item,
      variation: p.variation,
      subevent: p.subevent,
      fee_type: null,
      fee_internal_type: null,
      event_date_from: sub ? sub.dateFrom : event.dateFrom,
      event_date_to: sub ? sub.dateTo : event.dateTo,
      event_location: sub ? i18nText(sub.location, locale) || null : eventLocation,
      attendee_name: attendee || null,
      gross_value: p.price,
      tax_value: p.tax_value,
      tax_name: p.tax_rule !== null ? i18nText(facts.taxRules.get(p.tax_rule), locale) : "",
      tax_rate: p.tax_rate,
    });
  }
  return lines;
}

/** A line per fee that is not canceled, numbered after the `before` position lines. */
function feeLines(event: EventRow, r: OrderRecord, facts: InvoiceFacts, locale: string, before: number): InvoiceLine[] {
  const eventLocation = i18nText(event.location, locale) || null;
  const lines: InvoiceLine[] = [];
  for (const f of r.fees.filter((x) => x.canceled !== 1)) {
    const title =
      f.fee_type === "other" && f.description
        ? f.description
        : `${feeName(f.fee_type)}${f.description ? ` - ${f.description}` : ""}`;
    lines.push({
      position: before + lines.length + 1,
      description: title,
      item: null,
      variation: null,
      subevent: null,
      fee_type: f.fee_type,
      fee_internal_type: f.internal_type || null,
      event_date_from: event.hasSubevents ? null : event.dateFrom,
      event_date_to: event.hasSubevents ? null : event.dateTo,
      event_location: event.hasSubevents ? null : eventLocation,
      attendee_name: null,
      gross_value: f.value,
      tax_value: f.tax_value,
      tax_name: f.tax_rule !== null ? i18nText(facts.taxRules.get(f.tax_rule), locale) : "",
      tax_rate: f.tax_rate,
    });
  }
  return lines;
}

/** The content of a cancellation of `inv`: its texts without payment information, its lines negated. */
export function cancellationContent(inv: Pick<InvoiceRecord["invoice"], "locale" | "texts" | "lines">): {
  locale: string;
  texts: InvoiceTexts;
  lines: InvoiceLine[];
} {
  return {
    locale: inv.locale,
    texts: { ...inv.texts, payment_provider_text: "", payment_provider_stamp: null },
    lines: inv.lines.map((l) => ({ ...l, gross_value: -l.gross_value, tax_value: -l.tax_value })),
  };
}

/** What an invoice says: its locale, texts and lines. */
export type InvoiceContent = ReturnType<typeof buildInvoiceContent>;
