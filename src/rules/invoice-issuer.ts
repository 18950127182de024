/**
 * The issuer an invoice names (pretix's event settings `invoice_address_from*`, printed as the
 * invoice's `invoice_from*` texts): which of its name, address and VAT or tax id are missing, and the
 * warning an organizer gets while invoices are issued without a name or an address (docs/documents.md).
 */

/** The issuer's parts an invoice lacks, as the settings that fill them. */
export function missingIssuer(settings: Record<string, unknown>): string[] {
  const blank = (key: string) => typeof settings[key] !== "string" || (settings[key] as string).trim() === "";
  const missing = ["invoice_address_from_name", "invoice_address_from"].filter(blank);
  if (blank("invoice_address_from_vat_id") && blank("invoice_address_from_tax_id"))
    missing.push("invoice_address_from_vat_id");
  return missing;
}

/** Whether an invoice with these settings names no issuer by name or address (a VAT id alone may be absent). */
export function issuerIncomplete(settings: Record<string, unknown>): boolean {
  return missingIssuer(settings).some((k) => k !== "invoice_address_from_vat_id");
}

/**
 * The warning for an event whose invoices are issued (`invoice_generate` other than "False")
 * without the issuer's name or address; null when there is none to give.
 */
export function issuerWarning(settings: Record<string, unknown>): string | null {
  const generating = typeof settings.invoice_generate === "string" && settings.invoice_generate !== "False";
  if (!generating || !issuerIncomplete(settings)) return null;
  return `Invoices are issued without the issuer's name or address: set ${missingIssuer(settings).join(", ")}`;
}
