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

/** What a variable's text is computed from: the position, order and event, and helpers over them. */
type VariableContext = {
  p: TicketPositionData;
  o: TicketOrderData;
  e: TicketEventData;
  locale: string;
  now: number;
  /** The position's date in a series, or the event. */
  ev: Pick<TicketEventData, "name" | "dateFrom" | "dateTo" | "dateAdmission" | "location">;
  t: (v: I18n | null | undefined) => string;
  date: (ms: number | null, style: "date" | "datetime" | "time" | "weekday") => string;
};

type VariableFn = (c: VariableContext) => string;

/** The text of a variable for a position (pretix's DEFAULT_VARIABLES as far as this service has the data). */
export function variableValue(
  name: string,
  p: TicketPositionData,
  o: TicketOrderData,
  e: TicketEventData,
  locale: string,
  now: number,
): string {
  const prefixed = prefixedValue(name, p, o, e);
  if (prefixed !== undefined) return prefixed;
  const fn = VARIABLES.get(name);
  // pretix's variables this service has no data for (attendee company and address, validity,
  // reusable media, first scan, gift cards, event info text) and unknown names: empty
  if (!fn) return "";
  const t = (v: I18n | null | undefined) => i18nText(v, locale);
  const date = (ms: number | null, style: "date" | "datetime" | "time" | "weekday") =>
    ms === null ? "" : formatDateFor(ms, e.timezone, locale, style);
  return fn({ p, o, e, locale, now, ev: p.subevent ?? e, t, date });
}

/** The variables named with a prefix (event and product meta data, answers, name parts); undefined for others. */
function prefixedValue(
  name: string,
  p: TicketPositionData,
  o: TicketOrderData,
  e: TicketEventData,
): string | undefined {
  if (name.startsWith("meta:")) return e.meta[name.slice(5)] ?? "";
  if (name.startsWith("itemmeta:")) return (p.variation?.meta[name.slice(9)] || p.item.meta[name.slice(9)]) ?? "";
  if (name.startsWith("question_")) return p.answers[name.slice(9)] ?? "";
  if (name.startsWith("attendee_name_") && name !== "attendee_name_for_salutation") {
    return nameVariables(p.attendeeNameParts, e.nameScheme).get(name.slice(14)) ?? "";
  }
  if (name.startsWith("invoice_name_") && name !== "invoice_name_for_salutation")
    return o.invoiceAddress?.name_parts[name.slice(13)] ?? "";
  return undefined;
}

const itemName: VariableFn = ({ p, t }) => t(p.item.name);
const variationName: VariableFn = ({ p, t }) => (p.variation ? t(p.variation.value) : "");

/** The order's and the position's own variables (codes, product, price, attendee). */
const POSITION_VARIABLES: Record<string, VariableFn> = {
  secret: ({ p }) => p.secret,
  order: ({ o }) => o.code,
  positionid: ({ p }) => String(p.positionid),
  order_positionid: ({ o, p }) => `${o.code}-${p.positionid}`,
  item: itemName,
  variation: variationName,
  item_description: ({ p, t }) => t(p.item.description),
  itemvar: (c) => {
    const variation = variationName(c);
    return variation ? `${itemName(c)} - ${variation}` : itemName(c);
  },
  itemvar_description: ({ p, t }) => (p.variation ? t(p.variation.description) : t(p.item.description)),
  item_category: ({ p, t }) => t(p.item.category),
  price: ({ p, e, locale }) => formatMoneyFor(p.price, e.currency, locale),
  price_with_addons: ({ p, e, locale }) => formatMoneyFor(p.priceWithAddons, e.currency, locale),
  attendee_name: ({ p }) => p.attendeeName ?? "",
  attendee_name_for_salutation: ({ p }) => buildName(p.attendeeNameParts) ?? "",
  attendee_email: ({ p }) => p.attendeeEmail ?? "",
  pseudonymization_id: ({ p }) => p.pseudonymizationId,
  addons: addonsText,
  seat: ({ p, e }) => (p.seat ? p.seat.name : e.seating ? "General admission" : ""),
  seat_zone: ({ p, e }) => (p.seat ? p.seat.zone : e.seating ? "General admission" : ""),
  seat_row: ({ p }) => p.seat?.row ?? "",
  seat_number: ({ p }) => p.seat?.number ?? "",
};

/** The event's (or the position's date's) variables, and the organizer's. */
const EVENT_VARIABLES: Record<string, VariableFn> = {
  event_name: ({ ev, t }) => t(ev.name),
  event_series_name: ({ e, t }) => t(e.seriesName),
  event_date: ({ ev, date }) => date(ev.dateFrom, "date"),
  event_date_range: ({ ev, e, locale }) => formatRangeFor(ev.dateFrom, ev.dateTo, e.timezone, locale),
  event_begin: ({ ev, date }) => date(ev.dateFrom, "datetime"),
  event_begin_date: ({ ev, date }) => date(ev.dateFrom, "date"),
  event_begin_time: ({ ev, date }) => date(ev.dateFrom, "time"),
  event_begin_weekday: ({ ev, date }) => date(ev.dateFrom, "weekday"),
  event_end: ({ ev, date }) => date(ev.dateTo, "datetime"),
  event_end_date: ({ ev, date }) => date(ev.dateTo, "date"),
  event_end_time: ({ ev, date }) => date(ev.dateTo, "time"),
  event_end_weekday: ({ ev, date }) => date(ev.dateTo, "weekday"),
  event_admission: ({ ev, date }) => date(ev.dateAdmission, "datetime"),
  event_admission_time: ({ ev, date }) => date(ev.dateAdmission, "time"),
  event_location: ({ ev, t }) => t(ev.location),
  // this service's own: the time zone the event's times are given in (not one of pretix's)
  event_timezone: ({ e }) => e.timezone,
  organizer: ({ e }) => e.organizer,
  organizer_info_text: ({ e, t }) => t(e.organizerInfoText),
};

/** The order's contact and invoice address. */
const ORDER_VARIABLES: Record<string, VariableFn> = {
  telephone: ({ o }) => o.phone ?? "",
  email: ({ o }) => o.email ?? "",
  invoice_name: ({ o }) => (o.invoiceAddress ? (buildName(o.invoiceAddress.name_parts) ?? "") : ""),
  invoice_name_for_salutation: ({ o }) => (o.invoiceAddress ? (buildName(o.invoiceAddress.name_parts) ?? "") : ""),
  invoice_company: ({ o }) => o.invoiceAddress?.company ?? "",
  invoice_street: ({ o }) => o.invoiceAddress?.street ?? "",
  invoice_zipcode: ({ o }) => o.invoiceAddress?.zipcode ?? "",
  invoice_city: ({ o }) => o.invoiceAddress?.city ?? "",
  invoice_state: ({ o }) => o.invoiceAddress?.state ?? "",
  invoice_country: ({ o, locale }) => (o.invoiceAddress ? countryName(o.invoiceAddress.country, locale) : ""),
};

/** The rendering's and the purchase's dates. */
const DATE_VARIABLES: Record<string, VariableFn> = {
  now_date: ({ now, date }) => date(now, "date"),
  now_datetime: ({ now, date }) => date(now, "datetime"),
  now_time: ({ now, date }) => date(now, "time"),
  purchase_date: ({ o, date }) => date(o.datetime, "date"),
  purchase_datetime: ({ o, date }) => date(o.datetime, "datetime"),
  purchase_time: ({ o, date }) => date(o.datetime, "time"),
};

/** Every variable by name (a Map: no inherited names such as `constructor`). */
const VARIABLES = new Map<string, VariableFn>(
  Object.entries({ ...POSITION_VARIABLES, ...EVENT_VARIABLES, ...ORDER_VARIABLES, ...DATE_VARIABLES }),
);

/** The add-ons, one line per product and variation, counted when more than one (pretix's `addons`). */
function addonsText({ p, t }: VariableContext): string {
  const counts = new Map<string, number>();
  for (const a of p.addons) {
    const label = a.variation ? `${t(a.item)} - ${t(a.variation)}` : t(a.item);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, n]) => (n > 1 ? `${n}x ${label}` : label)).join("\n");
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
