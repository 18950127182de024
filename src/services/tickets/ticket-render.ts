/**
 * Ticket PDFs from pretix's layout format (pretix `src/pretix/base/pdf.py`, `pdf-layout.schema.json`;
 * open point 12): which elements and properties are drawn and which ignored is docs/open-points.md;
 * positions in millimetres from the page's lower left corner, on the pages of the layout's background
 * PDF (A4 without one). Variables: ticket-variables.ts; the default layout: ticket-default-layout.ts.
 */
import { PDFDocument, type PDFPage } from "@cantoo/pdf-lib";
import { A4, type FontLoader, MM, PdfWriter, type TextStyle } from "../../lib/pdf/document";
import { Failure } from "../../lib/failure";
import { elementText, type TicketEventData, type TicketOrderData, type TicketPositionData } from "./ticket-variables";

export type TicketLayout = { name: string; elements: unknown[]; background: Uint8Array | null };

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
    out.push(readElement(type, o, new FieldReader(o, `layout[${k}] (${type})`, problems)));
  });
  if (problems.length) throw unusable(name, problems);
  return out;
}

/** An element's fields, each problem noted (with the element named) and a harmless value given instead. */
class FieldReader {
  constructor(
    readonly o: Record<string, unknown>,
    private readonly where: string,
    private readonly problems: string[],
  ) {}

  problem(text: string): void {
    this.problems.push(`${this.where}: ${text}`);
  }

  num(field: string, opts: { required?: boolean; min?: number; fallback?: number } = {}): number {
    const v = this.o[field];
    if (v === undefined || v === null) {
      if (opts.required ?? true) this.problem(`"${field}" is missing`);
      return opts.fallback ?? 0;
    }
    const n =
      typeof v === "number" ? v : typeof v === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isFinite(n) || (opts.min !== undefined && n < opts.min)) {
      this.problem(`"${field}" must be a number${opts.min !== undefined ? ` of at least ${opts.min}` : ""}`);
      return opts.fallback ?? 0;
    }
    return n;
  }

  /** A color as pretix writes it (three numbers 0–255), as fractions; black when not given. */
  color(): [number, number, number] {
    const c = this.o.color;
    if (c === undefined) return [0, 0, 0];
    if (!Array.isArray(c) || c.length < 3 || c.slice(0, 3).some((x) => typeof x !== "number" || x < 0 || x > 255)) {
      this.problem(`"color" must be a list of three numbers from 0 to 255`);
      return [0, 0, 0];
    }
    return [c[0] / 255, c[1] / 255, c[2] / 255];
  }
}

function readElement(
  type: "textarea" | "textcontainer" | "barcodearea" | "imagearea",
  o: Record<string, unknown>,
  f: FieldReader,
): LayoutElement {
  const page = f.num("page", { required: false, min: 1, fallback: 1 });
  if (!Number.isInteger(page)) f.problem(`"page" must be a whole number`);
  const left = f.num("left");
  const bottom = f.num("bottom");
  if (type === "barcodearea") {
    const size = f.num("size", { min: 1 });
    return { kind: "barcode", page, left, bottom, size, nowhitespace: o.nowhitespace === true, source: o };
  }
  if (type === "imagearea")
    return { kind: "box", page, left, bottom, width: f.num("width", { min: 0 }), height: f.num("height", { min: 0 }) };
  return readText(type, o, f, { page, left, bottom });
}

function readText(
  type: "textarea" | "textcontainer",
  o: Record<string, unknown>,
  f: FieldReader,
  at: { page: number; left: number; bottom: number },
): TextElement {
  const align = o.align ?? "left";
  if (align !== "left" && align !== "center" && align !== "right") f.problem(`"align" must be left, center or right`);
  const color = f.color();
  const valign = o.verticalalign ?? "top";
  if (valign !== "top" && valign !== "middle" && valign !== "bottom")
    f.problem(`"verticalalign" must be top, middle or bottom`);
  if (o.content !== undefined && typeof o.content !== "string") f.problem(`"content" must be a string`);
  return {
    kind: "text",
    ...at,
    width: f.num("width", { min: 0 }),
    height: type === "textcontainer" ? f.num("height", { min: 0 }) : null,
    fontsize: f.num("fontsize", { min: 0.5 }),
    lineheight: o.lineheight === undefined ? null : f.num("lineheight", { min: 0.1 }),
    bold: o.bold === true,
    italic: o.italic === true,
    align: align as TextElement["align"],
    color,
    downward: o.downward === true,
    rotation: o.rotation === undefined ? 0 : f.num("rotation"),
    verticalalign: valign as TextElement["verticalalign"],
    autoresize: o.autoresize === true,
    locale: typeof o.locale === "string" && o.locale !== "" ? o.locale : null,
    source: o,
  };
}

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
