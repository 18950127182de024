/**
 * What a ticket is drawn from (the event's, order's and position's data) and pretix's layout
 * variables over it (`src/pretix/base/pdf.py` DEFAULT_VARIABLES, as far as this service has the
 * data): the text a layout element shows, its `content` variable or its own text with
 * {variable} placeholders.
 */
import type { InvoiceAddress } from "../../db/schema/index";
import { countryName, formatDateFor, formatMoneyFor, formatRangeFor } from "../../lib/format";
import { i18nText, type I18n } from "../../lib/i18n";
import { buildName, NAME_SCHEMES } from "../../rules/person-names";

// ---- what a ticket is rendered from ----

export type TicketEventData = {
  name: I18n;
  seriesName: I18n;
  dateFrom: number;
  dateTo: number | null;
  dateAdmission: number | null;
  location: I18n | null;
  timezone: string;
  currency: string;
  seating: boolean;
  organizer: string;
  organizerInfoText: I18n | null;
  nameScheme: string;
  meta: Record<string, string>;
};

export type TicketOrderData = {
  code: string;
  email: string | null;
  phone: string | null;
  datetime: number;
  locale: string;
  invoiceAddress: InvoiceAddress | null;
};

export type TicketPositionData = {
  id: number;
  positionid: number;
  secret: string;
  pseudonymizationId: string;
  price: number;
  priceWithAddons: number;
  attendeeName: string | null;
  attendeeNameParts: Record<string, string>;
  attendeeEmail: string | null;
  item: { name: I18n; description: I18n | null; category: I18n | null; meta: Record<string, string> };
  variation: { value: I18n; description: I18n | null; meta: Record<string, string> } | null;
  /** The position's date in a series (its name, dates and location override the event's). */
  subevent: {
    name: I18n;
    dateFrom: number;
    dateTo: number | null;
    dateAdmission: number | null;
    location: I18n | null;
  } | null;
  seat: { name: string; zone: string; row: string; number: string } | null;
  addons: { item: I18n; variation: I18n | null }[];
  /** Answers by question identifier. */
  answers: Record<string, string>;
};

// ---- variables ----

/** The text of a variable for a position (pretix's DEFAULT_VARIABLES as far as this service has the data). */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split pending by h-functions (issue 36)
export function variableValue(
  name: string,
  p: TicketPositionData,
  o: TicketOrderData,
  e: TicketEventData,
  locale: string,
  now: number,
): string {
  const t = (v: I18n | null | undefined) => i18nText(v, locale);
  const tz = e.timezone;
  const ev = p.subevent ? { ...p.subevent, name: p.subevent.name } : e;
  const date = (ms: number | null, style: "date" | "datetime" | "time" | "weekday") =>
    ms === null ? "" : formatDateFor(ms, tz, locale, style);
  const ia = o.invoiceAddress;
  if (name.startsWith("meta:")) return e.meta[name.slice(5)] ?? "";
  if (name.startsWith("itemmeta:")) return (p.variation?.meta[name.slice(9)] || p.item.meta[name.slice(9)]) ?? "";
  if (name.startsWith("question_")) return p.answers[name.slice(9)] ?? "";
  if (name.startsWith("attendee_name_") && name !== "attendee_name_for_salutation") {
    return nameVariables(p.attendeeNameParts, e.nameScheme).get(name.slice(14)) ?? "";
  }
  if (name.startsWith("invoice_name_") && name !== "invoice_name_for_salutation")
    return ia?.name_parts[name.slice(13)] ?? "";
  const itemName = t(p.item.name);
  const variation = p.variation ? t(p.variation.value) : "";
  switch (name) {
    case "secret":
      return p.secret;
    case "order":
      return o.code;
    case "positionid":
      return String(p.positionid);
    case "order_positionid":
      return `${o.code}-${p.positionid}`;
    case "item":
      return itemName;
    case "variation":
      return variation;
    case "item_description":
      return t(p.item.description);
    case "itemvar":
      return variation ? `${itemName} - ${variation}` : itemName;
    case "itemvar_description":
      return p.variation ? t(p.variation.description) : t(p.item.description);
    case "item_category":
      return t(p.item.category);
    case "price":
      return formatMoneyFor(p.price, e.currency, locale);
    case "price_with_addons":
      return formatMoneyFor(p.priceWithAddons, e.currency, locale);
    case "attendee_name":
      return p.attendeeName ?? "";
    case "attendee_name_for_salutation":
      return buildName(p.attendeeNameParts) ?? "";
    case "attendee_email":
      return p.attendeeEmail ?? "";
    case "pseudonymization_id":
      return p.pseudonymizationId;
    case "event_name":
      return t(ev.name);
    case "event_series_name":
      return t(e.seriesName);
    case "event_date":
      return date(ev.dateFrom, "date");
    case "event_date_range":
      return formatRangeFor(ev.dateFrom, ev.dateTo, tz, locale);
    case "event_begin":
      return date(ev.dateFrom, "datetime");
    case "event_begin_date":
      return date(ev.dateFrom, "date");
    case "event_begin_time":
      return date(ev.dateFrom, "time");
    case "event_begin_weekday":
      return date(ev.dateFrom, "weekday");
    case "event_end":
      return date(ev.dateTo, "datetime");
    case "event_end_date":
      return date(ev.dateTo, "date");
    case "event_end_time":
      return date(ev.dateTo, "time");
    case "event_end_weekday":
      return date(ev.dateTo, "weekday");
    case "event_admission":
      return date(ev.dateAdmission, "datetime");
    case "event_admission_time":
      return date(ev.dateAdmission, "time");
    case "event_location":
      return t(ev.location);
    case "event_timezone":
      // this service's own: the time zone the event's times are given in (not one of pretix's)
      return tz;
    case "telephone":
      return o.phone ?? "";
    case "email":
      return o.email ?? "";
    case "invoice_name":
      return ia ? (buildName(ia.name_parts) ?? "") : "";
    case "invoice_name_for_salutation":
      return ia ? (buildName(ia.name_parts) ?? "") : "";
    case "invoice_company":
      return ia?.company ?? "";
    case "invoice_street":
      return ia?.street ?? "";
    case "invoice_zipcode":
      return ia?.zipcode ?? "";
    case "invoice_city":
      return ia?.city ?? "";
    case "invoice_state":
      return ia?.state ?? "";
    case "invoice_country":
      return ia ? countryName(ia.country, locale) : "";
    case "addons": {
      const counts = new Map<string, number>();
      for (const a of p.addons) {
        const label = a.variation ? `${t(a.item)} - ${t(a.variation)}` : t(a.item);
        counts.set(label, (counts.get(label) ?? 0) + 1);
      }
      return [...counts].map(([label, n]) => (n > 1 ? `${n}x ${label}` : label)).join("\n");
    }
    case "organizer":
      return e.organizer;
    case "organizer_info_text":
      return t(e.organizerInfoText);
    case "now_date":
      return date(now, "date");
    case "now_datetime":
      return date(now, "datetime");
    case "now_time":
      return date(now, "time");
    case "purchase_date":
      return date(o.datetime, "date");
    case "purchase_datetime":
      return date(o.datetime, "datetime");
    case "purchase_time":
      return date(o.datetime, "time");
    case "seat":
      return p.seat ? p.seat.name : e.seating ? "General admission" : "";
    case "seat_zone":
      return p.seat ? p.seat.zone : e.seating ? "General admission" : "";
    case "seat_row":
      return p.seat?.row ?? "";
    case "seat_number":
      return p.seat?.number ?? "";
    default:
      // pretix's variables this service has no data for (attendee company and address, validity,
      // reusable media, first scan, gift cards, event info text) and unknown names: empty
      return "";
  }
}

/**
 * The name part variables of a scheme as pretix defines them: each field (`given_name`), and
 * every combination of two or more fields in the scheme's order (`given_name_family_name`),
 * the values joined by spaces.
 */
function nameVariables(parts: Record<string, string>, scheme: string): Map<string, string> {
  const fields = NAME_SCHEMES[scheme]?.fields ?? [];
  const out = new Map<string, string>();
  const n = fields.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    const comb = fields.filter((_, k) => mask & (1 << k));
    out.set(
      comb.join("_"),
      comb
        .map((f) => parts[f] ?? "")
        .filter(Boolean)
        .join(" "),
    );
  }
  return out;
}

/** The text of an element: its variable, or its own text with {variable} placeholders (pretix's rules). */
export function elementText(
  o: Record<string, unknown>,
  p: TicketPositionData,
  order: TicketOrderData,
  e: TicketEventData,
  locale: string,
  now: number,
): string {
  const content = typeof o.content === "string" ? o.content : "";
  if (content === "other" || content === "other_i18n") {
    const raw =
      content === "other_i18n"
        ? i18nText((o.text_i18n as I18n | undefined) ?? {}, locale)
        : typeof o.text === "string"
          ? o.text
          : "";
    return raw.replace(/\{([a-zA-Z0-9:_]+)\}/g, (whole, v: string) =>
      v.startsWith("meta:") || v.startsWith("itemmeta:") || isKnownVariable(v, e)
        ? variableValue(v, p, order, e, locale, now)
        : whole,
    );
  }
  return variableValue(content, p, order, e, locale, now);
}

const KNOWN = new Set(
  "secret order positionid order_positionid item variation item_description itemvar itemvar_description item_category price price_with_addons attendee_name attendee_name_for_salutation attendee_company attendee_address attendee_street attendee_zipcode attendee_city attendee_state attendee_country attendee_email pseudonymization_id event_name event_series_name event_date event_date_range event_begin event_begin_date event_begin_time event_begin_weekday event_end event_end_date event_end_time event_end_weekday event_admission event_admission_time event_location event_timezone telephone email invoice_name invoice_name_for_salutation invoice_company invoice_street invoice_zipcode invoice_city invoice_state invoice_country addons organizer organizer_info_text event_info_text now_date now_datetime now_time purchase_date purchase_datetime purchase_time valid_from_date valid_from_datetime valid_from_time valid_until_date valid_until_datetime valid_until_time medium_identifier seat seat_zone seat_row seat_number first_scan giftcard_issuance_date giftcard_expiry_date".split(
    " ",
  ),
);

function isKnownVariable(v: string, e: TicketEventData): boolean {
  if (KNOWN.has(v) || v.startsWith("question_")) return true;
  const fields = NAME_SCHEMES[e.nameScheme]?.fields ?? [];
  if (v.startsWith("attendee_name_")) return nameVariables({}, e.nameScheme).has(v.slice(14));
  return v.startsWith("invoice_name_") && fields.includes(v.slice(13));
}
