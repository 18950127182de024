/**
 * The cells the exporters' rows share: texts and amounts of stored values, dates and times in an
 * event's timezone, order statuses, payment providers, and an order's invoice address (with a
 * column per part of the event's name scheme, as pretix adds them).
 */
import type { Row } from "../../db/raw";
import { zonedParts } from "../../lib/datetime";
import { type I18n, i18nText } from "../../lib/i18n";
import { formatDecimal } from "../../lib/money";
import { buildName, NAME_SCHEMES } from "../../rules/person-names";
import type { ExportContext, ExportEvent } from "./exporter";
import { type Cell, decimal } from "./formats";

export const STATUS_LABEL: Record<string, string> = { n: "pending", p: "paid", e: "expired", c: "canceled" };
export const yesNo = (v: unknown) => (v ? "Yes" : "No");
export const money = (cents: unknown) => decimal(formatDecimal(Number(cents ?? 0)));
export const text = (v: unknown): string => (v === null || v === undefined ? "" : String(v));
const pad = (n: number) => String(n).padStart(2, "0");

export function localDate(ms: number, tz: string): string {
  const p = zonedParts(ms, tz);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}
export function localTime(ms: number, tz: string): string {
  const p = zonedParts(ms, tz);
  return `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}
export function localDateTime(ms: number | null, tz: string): string {
  return ms === null ? "" : `${localDate(ms, tz)} ${localTime(ms, tz)}`;
}
/** A stored JSON column: parsed when it comes as text. */
export function json<T>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}
export const i18n = (v: unknown, locale: string) => i18nText(json<I18n | null>(v), locale);

export type InvoiceAddress = {
  company?: string;
  name_parts?: Record<string, string>;
  street?: string;
  zipcode?: string;
  city?: string;
  country?: string;
  state?: string;
  vat_id?: string;
};

/** The name scheme's fields when it has more than one (pretix adds a column per part then). */
export function schemeParts(x: ExportContext): string[] {
  if (!x.eventLevel || !x.nameScheme) return [];
  const fields = NAME_SCHEMES[x.nameScheme]?.fields ?? [];
  return fields.length > 1 ? [...fields] : [];
}
const PART_LABELS: Record<string, string> = {
  given_name: "Given name",
  family_name: "Family name",
  middle_name: "Middle name",
  title: "Title",
  full_name: "Full name",
  calling_name: "Calling name",
  latin_transcription: "Latin transcription",
};
export const partLabel = (p: string) => PART_LABELS[p] ?? p;

/** The export's event of a row (its `event_id`). */
export function eventOf(x: ExportContext, id: unknown): ExportEvent {
  return x.events.find((e) => e.id === Number(id)) ?? x.events[0]!;
}

/** The payment providers of a row's `providers` (comma-separated), sorted, without `free`. */
export function providerList(v: unknown): string {
  return [...new Set(text(v).split(","))]
    .filter((p) => p && p !== "free")
    .sort()
    .join(", ");
}

export function invoiceColumns(x: ExportContext, withVat = true, withCompanyAndName = true): string[] {
  const parts = schemeParts(x);
  return [
    ...(withCompanyAndName ? ["Company", "Name"] : []),
    ...parts.map(partLabel),
    "Address",
    "ZIP code",
    "City",
    "Country",
    "State",
    ...(withVat ? ["VAT ID"] : []),
  ];
}

export function invoiceCells(x: ExportContext, raw: unknown, withVat = true, withCompanyAndName = true): Cell[] {
  const ia = json<InvoiceAddress | null>(raw);
  const parts = schemeParts(x);
  if (!ia) return Array.from({ length: invoiceColumns(x, withVat, withCompanyAndName).length }, () => "");
  return [
    ...(withCompanyAndName ? [text(ia.company), buildName(ia.name_parts) ?? ""] : []),
    ...parts.map((k) => text(ia.name_parts?.[k])),
    text(ia.street),
    text(ia.zipcode),
    text(ia.city),
    text(ia.country),
    text(ia.state),
    ...(withVat ? [text(ia.vat_id)] : []),
  ];
}

/** The first cells of an order's rows: its event's slug and its code. */
export function orderHead(x: ExportContext, r: Row): Cell[] {
  return [eventOf(x, r.event_id).slug, text(r.code)];
}
