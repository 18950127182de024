/**
 * Ticket PDFs from pretix's layout format (the `layout` list of a ticket layout; pretix
 * `src/pretix/base/pdf.py` and its `pdf-layout.schema.json`; open point 12). Rendered:
 * `textarea` (content variable or `other` / `other_i18n` text with {variable} placeholders,
 * width, fontsize, lineheight, bold, italic, align, color, downward, rotation, locale, page),
 * `textcontainer` (the same in a box of `height`, with verticalalign and autoresize),
 * `barcodearea` (a QR code of the ticket secret or of any variable, size, nowhitespace),
 * `imagearea` (a grey placeholder box, as pretix draws an image variable without an image:
 * this service has no image variables). Ignored: `poweredby` (pretix's own logo), unknown
 * element types, `fontfamily` (the Noto fonts cover every script the fonts cover; see
 * src/lib/pdf/fonts.ts). Elements are placed in millimetres from the page's lower left
 * corner. The pages are those of the layout's background PDF (A4 without one).
 */
import { PDFDocument, type PDFPage } from "@cantoo/pdf-lib";
import type { InvoiceAddress } from "../db/schema";
import { countryName, formatDateFor, formatMoneyFor, formatRangeFor } from "../lib/format";
import { i18nText, type I18n } from "../lib/i18n";
import { A4, type FontLoader, MM, PdfWriter, type TextStyle } from "../lib/pdf/document";
import { Failure } from "../lib/failure";
import { buildName, NAME_SCHEMES } from "../rules/person-names";

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

export type TicketLayout = { name: string; elements: unknown[]; background: Uint8Array | null };

// ---- variables ----

/** The text of a variable for a position (pretix's DEFAULT_VARIABLES as far as this service has the data). */
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
function elementText(
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
  "secret order positionid order_positionid item variation item_description itemvar itemvar_description item_category price price_with_addons attendee_name attendee_name_for_salutation attendee_company attendee_address attendee_street attendee_zipcode attendee_city attendee_state attendee_country attendee_email pseudonymization_id event_name event_series_name event_date event_date_range event_begin event_begin_date event_begin_time event_begin_weekday event_end event_end_date event_end_time event_end_weekday event_admission event_admission_time event_location telephone email invoice_name invoice_name_for_salutation invoice_company invoice_street invoice_zipcode invoice_city invoice_state invoice_country addons organizer organizer_info_text event_info_text now_date now_datetime now_time purchase_date purchase_datetime purchase_time valid_from_date valid_from_datetime valid_from_time valid_until_date valid_until_datetime valid_until_time medium_identifier seat seat_zone seat_row seat_number first_scan giftcard_issuance_date giftcard_expiry_date".split(
    " ",
  ),
);

function isKnownVariable(v: string, e: TicketEventData): boolean {
  if (KNOWN.has(v) || v.startsWith("question_")) return true;
  const fields = NAME_SCHEMES[e.nameScheme]?.fields ?? [];
  if (v.startsWith("attendee_name_")) return nameVariables({}, e.nameScheme).has(v.slice(14));
  return v.startsWith("invoice_name_") && fields.includes(v.slice(13));
}

// ---- the layout ----

type Num = number;
type TextElement = {
  kind: "text";
  page: number;
  left: Num;
  bottom: Num;
  width: Num;
  height: Num | null;
  fontsize: Num;
  lineheight: Num | null;
  bold: boolean;
  italic: boolean;
  align: "left" | "center" | "right";
  color: [number, number, number];
  downward: boolean;
  rotation: Num;
  verticalalign: "top" | "middle" | "bottom";
  autoresize: boolean;
  locale: string | null;
  source: Record<string, unknown>;
};
type BarcodeElement = {
  kind: "barcode";
  page: number;
  left: Num;
  bottom: Num;
  size: Num;
  nowhitespace: boolean;
  source: Record<string, unknown>;
};
type BoxElement = { kind: "box"; page: number; left: Num; bottom: Num; width: Num; height: Num };
export type LayoutElement = TextElement | BarcodeElement | BoxElement;

/** A layout the renderer cannot use: 400 with the element and the reason. */
function unusable(layoutName: string, problems: string[]): Failure {
  return new Failure(
    "invalid",
    `The ticket layout "${layoutName}" cannot be rendered: ${problems.slice(0, 5).join("; ")}`,
  );
}

/**
 * Reads the layout's elements as pretix defines them; unknown types and `poweredby` are left
 * out. A known element with a missing or malformed field that places or sizes it (or a color,
 * alignment, page that is not one) makes the layout unusable: a `invalid` failure naming it.
 */
export function readLayout(name: string, elements: unknown[]): LayoutElement[] {
  const out: LayoutElement[] = [];
  const problems: string[] = [];
  elements.forEach((raw, k) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      problems.push(`layout[${k}] is not an object`);
      return;
    }
    const o = raw as Record<string, unknown>;
    const type = o.type;
    if (type !== "textarea" && type !== "textcontainer" && type !== "barcodearea" && type !== "imagearea") return;
    const where = `layout[${k}] (${type})`;
    const num = (field: string, opts: { required?: boolean; min?: number; fallback?: number } = {}): number => {
      const v = o[field];
      if (v === undefined || v === null) {
        if (opts.required ?? true) problems.push(`${where}: "${field}" is missing`);
        return opts.fallback ?? 0;
      }
      const n =
        typeof v === "number" ? v : typeof v === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(v.trim()) ? Number(v) : NaN;
      if (!Number.isFinite(n) || (opts.min !== undefined && n < opts.min)) {
        problems.push(
          `${where}: "${field}" must be a number${opts.min !== undefined ? ` of at least ${opts.min}` : ""}`,
        );
        return opts.fallback ?? 0;
      }
      return n;
    };
    const page = num("page", { required: false, min: 1, fallback: 1 });
    if (!Number.isInteger(page)) problems.push(`${where}: "page" must be a whole number`);
    const left = num("left");
    const bottom = num("bottom");
    if (type === "barcodearea") {
      out.push({
        kind: "barcode",
        page,
        left,
        bottom,
        size: num("size", { min: 1 }),
        nowhitespace: o.nowhitespace === true,
        source: o,
      });
      return;
    }
    if (type === "imagearea") {
      out.push({ kind: "box", page, left, bottom, width: num("width", { min: 0 }), height: num("height", { min: 0 }) });
      return;
    }
    const align = o.align ?? "left";
    if (align !== "left" && align !== "center" && align !== "right")
      problems.push(`${where}: "align" must be left, center or right`);
    let color: [number, number, number] = [0, 0, 0];
    if (o.color !== undefined) {
      const c = o.color;
      if (!Array.isArray(c) || c.length < 3 || c.slice(0, 3).some((x) => typeof x !== "number" || x < 0 || x > 255)) {
        problems.push(`${where}: "color" must be a list of three numbers from 0 to 255`);
      } else {
        color = [c[0] / 255, c[1] / 255, c[2] / 255];
      }
    }
    const valign = o.verticalalign ?? "top";
    if (valign !== "top" && valign !== "middle" && valign !== "bottom")
      problems.push(`${where}: "verticalalign" must be top, middle or bottom`);
    if (o.content !== undefined && typeof o.content !== "string") problems.push(`${where}: "content" must be a string`);
    out.push({
      kind: "text",
      page,
      left,
      bottom,
      width: num("width", { min: 0 }),
      height: type === "textcontainer" ? num("height", { min: 0 }) : null,
      fontsize: num("fontsize", { min: 0.5 }),
      lineheight: o.lineheight === undefined ? null : num("lineheight", { min: 0.1 }),
      bold: o.bold === true,
      italic: o.italic === true,
      align: align as TextElement["align"],
      color,
      downward: o.downward === true,
      rotation: o.rotation === undefined ? 0 : num("rotation"),
      verticalalign: valign as TextElement["verticalalign"],
      autoresize: o.autoresize === true,
      locale: typeof o.locale === "string" && o.locale !== "" ? o.locale : null,
      source: o,
    });
  });
  if (problems.length) throw unusable(name, problems);
  return out;
}

/** The layout of tickets when the event has none (pretix format, A4 portrait). */
export const DEFAULT_LAYOUT: Record<string, unknown>[] = [
  {
    type: "textarea",
    left: 15,
    bottom: 270,
    width: 180,
    fontsize: 22,
    lineheight: 1,
    bold: true,
    italic: false,
    align: "left",
    color: [0, 0, 0, 1],
    content: "event_name",
    downward: true,
  },
  {
    type: "textarea",
    left: 15,
    bottom: 255,
    width: 115,
    fontsize: 14,
    lineheight: 1,
    bold: false,
    italic: false,
    align: "left",
    color: [0, 0, 0, 1],
    content: "itemvar",
    downward: true,
  },
  {
    type: "textarea",
    left: 15,
    bottom: 243,
    width: 115,
    fontsize: 16,
    lineheight: 1,
    bold: true,
    italic: false,
    align: "left",
    color: [0, 0, 0, 1],
    content: "attendee_name",
    downward: true,
  },
  {
    type: "textarea",
    left: 15,
    bottom: 230,
    width: 115,
    fontsize: 11,
    lineheight: 1,
    bold: false,
    italic: false,
    align: "left",
    color: [60, 60, 60, 1],
    content: "event_date_range",
    downward: true,
  },
  {
    type: "textarea",
    left: 15,
    bottom: 223,
    width: 115,
    fontsize: 11,
    lineheight: 1,
    bold: false,
    italic: false,
    align: "left",
    color: [60, 60, 60, 1],
    content: "event_location",
    downward: true,
  },
  {
    type: "textarea",
    left: 15,
    bottom: 216,
    width: 115,
    fontsize: 11,
    lineheight: 1,
    bold: false,
    italic: false,
    align: "left",
    color: [60, 60, 60, 1],
    content: "seat",
    downward: true,
  },
  {
    type: "textarea",
    left: 15,
    bottom: 205,
    width: 115,
    fontsize: 10,
    lineheight: 1,
    bold: false,
    italic: false,
    align: "left",
    color: [60, 60, 60, 1],
    content: "other",
    text: "Order {order_positionid} · {price}",
    downward: true,
  },
  { type: "barcodearea", left: 140, bottom: 195, size: 55, content: "secret" },
  {
    type: "textarea",
    left: 140,
    bottom: 193,
    width: 55,
    fontsize: 6.5,
    lineheight: 1,
    bold: false,
    italic: false,
    align: "center",
    color: [90, 90, 90, 1],
    content: "secret",
    downward: true,
  },
  {
    type: "textarea",
    left: 15,
    bottom: 20,
    width: 180,
    fontsize: 9,
    lineheight: 1,
    bold: false,
    italic: false,
    align: "left",
    color: [90, 90, 90, 1],
    content: "organizer",
    downward: true,
  },
];

/** Where text starts relative to the element's anchor, rotated around it. */
function place(anchorX: number, anchorY: number, dx: number, dy: number, rotation: number) {
  const a = (-rotation * Math.PI) / 180;
  return { x: anchorX + dx * Math.cos(a) - dy * Math.sin(a), y: anchorY + dx * Math.sin(a) + dy * Math.cos(a) };
}

async function drawText(w: PdfWriter, page: PDFPage, el: TextElement, text: string): Promise<void> {
  if (text === "") return;
  const width = el.width * MM;
  let size = el.fontsize;
  const leading = () => size * (el.lineheight !== null ? el.lineheight * 1.15 : 1.15);
  const styleAt = (): TextStyle => ({ size, bold: el.bold, italic: el.italic, color: el.color });
  let lines = await w.wrap(text, width, styleAt());
  if (el.height !== null && el.autoresize) {
    // textcontainer with autoresize: shrink until the text fits the box
    while (
      size > 1 &&
      (lines.length * leading() > el.height * MM ||
        (await Promise.all(lines.map((l) => w.width(l, styleAt())))).some((x) => x > width))
    ) {
      size = Math.max(1, size - Math.max(0.25, size * 0.05));
      lines = await w.wrap(text, width, styleAt());
    }
  }
  const style = styleAt();
  const ascent = await w.ascent(style);
  const blockHeight = lines.length * leading();
  const x0 = el.left * MM;
  const y0 = el.bottom * MM;
  // offset of the first baseline from the anchor (el.left, el.bottom), before rotation
  let firstBaseline: number;
  if (el.height !== null) {
    const boxTop = el.height * MM;
    const top =
      el.verticalalign === "top" ? boxTop : el.verticalalign === "middle" ? (boxTop + blockHeight) / 2 : blockHeight;
    firstBaseline = top - ascent;
  } else if (el.downward) {
    firstBaseline = -ascent;
  } else {
    firstBaseline = blockHeight - ascent;
  }
  for (const [k, line] of lines.entries()) {
    const lw = el.align === "left" ? 0 : await w.width(line, style);
    const dx = el.align === "center" ? (width - lw) / 2 : el.align === "right" ? width - lw : 0;
    const at = place(x0, y0, dx, firstBaseline - k * leading(), el.rotation);
    await w.drawLine(page, line, { x: at.x, y: at.y, rotate: -el.rotation }, style);
  }
}

export type TicketDocument = {
  positions: TicketPositionData[];
  order: TicketOrderData;
  event: TicketEventData;
  /** The layout of each position (by position id). */
  layouts: Map<number, TicketLayout>;
};

/**
 * Renders the tickets of the positions into one PDF, each with its layout (the pages of its
 * background, or one A4 page). Fails with `invalid` when a layout or its background cannot
 * be used.
 */
export async function renderTicketPdf(doc: TicketDocument, loadFont: FontLoader, now: number): Promise<Uint8Array> {
  const locale = doc.order.locale;
  const w = await PdfWriter.create(loadFont, {
    title: `Ticket ${doc.order.code}`,
    author: doc.event.organizer,
    language: locale,
  });
  const backgrounds = new Map<Uint8Array, PDFDocument>();
  for (const p of doc.positions) {
    const layout = doc.layouts.get(p.id)!;
    const elements = readLayout(layout.name, layout.elements);
    let pages: PDFPage[];
    if (layout.background) {
      try {
        let bg = backgrounds.get(layout.background);
        if (!bg) {
          bg = await PDFDocument.load(layout.background);
          backgrounds.set(layout.background, bg);
        }
        if (bg.getPageCount() === 0) throw new Error("it has no pages");
        const copied = await w.doc.copyPages(bg, bg.getPageIndices());
        pages = copied.map((c) => w.doc.addPage(c));
      } catch (e) {
        throw unusable(layout.name, [
          `its background is not a PDF that can be read (${e instanceof Error ? e.message : String(e)})`,
        ]);
      }
    } else {
      pages = [w.doc.addPage([A4.width, A4.height])];
    }
    for (const el of elements) {
      const page = pages[el.page - 1];
      if (!page) continue; // pretix draws only on the background's pages
      if (el.kind === "box") {
        w.rect(
          page,
          { x: el.left * MM, y: el.bottom * MM, width: el.width * MM, height: el.height * MM },
          [0.8, 0.8, 0.8],
        );
      } else if (el.kind === "barcode") {
        const content =
          typeof el.source.content === "string" && el.source.content !== "secret" && el.source.content !== ""
            ? elementText(el.source, p, doc.order, doc.event, locale, now)
            : p.secret;
        if (content === "") continue;
        try {
          w.drawQr(page, content, {
            x: el.left * MM,
            y: el.bottom * MM,
            size: el.size * MM,
            border: el.nowhitespace ? 0 : 4,
          });
        } catch {
          // the QR encoder refuses content beyond a QR code's capacity (about 2,900 bytes)
          throw unusable(layout.name, [
            `the content of a barcode (${new TextEncoder().encode(content).length} bytes) is too long for a QR code`,
          ]);
        }
      } else {
        await drawText(w, page, el, elementText(el.source, p, doc.order, doc.event, el.locale ?? locale, now));
      }
    }
  }
  return w.save();
}
