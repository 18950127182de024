/**
 * Human-readable money and dates for documents (ticket and invoice PDFs): money in its
 * currency with the currency's places, dates and times in a timezone, both in the document's
 * language (Intl; an unknown language falls back to English).
 */
import { currencyPlaces } from "./money";

function safeLocale(locale: string): string {
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? "en";
  } catch {
    return "en";
  }
}

/** "€12.50" (en), "12,50 €" (de): hundredths in the currency, as the language writes it. */
export function formatMoneyFor(cents: number, currency: string, locale: string): string {
  const places = currencyPlaces(currency);
  try {
    return new Intl.NumberFormat(safeLocale(locale), {
      style: "currency",
      currency,
      minimumFractionDigits: places,
      maximumFractionDigits: places,
    }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(places)} ${currency}`;
  }
}

/** A decimal number with two places ("19.00" in en, "19,00" in de). */
export function formatNumberFor(hundredths: number, locale: string): string {
  return new Intl.NumberFormat(safeLocale(locale), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(
    hundredths / 100,
  );
}

type DateStyle = "date" | "datetime" | "time" | "weekday" | "long-date";

const OPTIONS: Record<DateStyle, Intl.DateTimeFormatOptions> = {
  date: { dateStyle: "medium" },
  "long-date": { dateStyle: "long" },
  datetime: { dateStyle: "medium", timeStyle: "short" },
  time: { timeStyle: "short" },
  weekday: { weekday: "long" },
};

/** An instant as a date, date and time, time or weekday in `timeZone`, in the language. */
export function formatDateFor(ms: number, timeZone: string, locale: string, style: DateStyle = "date"): string {
  try {
    return new Intl.DateTimeFormat(safeLocale(locale), { ...OPTIONS[style], timeZone }).format(new Date(ms));
  } catch {
    return new Intl.DateTimeFormat("en", { ...OPTIONS[style], timeZone: "UTC" }).format(new Date(ms));
  }
}

/** A calendar date (YYYY-MM-DD) in the language. */
export function formatYmdFor(ymd: string, locale: string): string {
  const [y, m, d] = ymd.split("-").map(Number) as [number, number, number];
  return formatDateFor(Date.UTC(y, m - 1, d, 12), "UTC", locale, "date");
}

/** A range of two instants ("May 31 – Jun 4, 2027"); the start alone without an end. */
export function formatRangeFor(from: number, to: number | null, timeZone: string, locale: string): string {
  if (to === null) return formatDateFor(from, timeZone, locale, "date");
  try {
    return new Intl.DateTimeFormat(safeLocale(locale), { dateStyle: "medium", timeZone }).formatRange(
      new Date(from),
      new Date(to),
    );
  } catch {
    return `${formatDateFor(from, timeZone, locale)} – ${formatDateFor(to, timeZone, locale)}`;
  }
}

/** The name of a country (ISO code) in the language, or the code. */
export function countryName(code: string, locale: string): string {
  if (!code) return "";
  try {
    return new Intl.DisplayNames([safeLocale(locale)], { type: "region" }).of(code) ?? code;
  } catch {
    return code;
  }
}
