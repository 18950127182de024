/**
 * Writing PDFs with pdf-lib (@cantoo/pdf-lib, with fontkit 2 for embedding and subsetting):
 * text in any script the fonts cover (src/lib/pdf/fonts.ts), laid out in lines with bidi runs
 * (right-to-left names are drawn right to left; fontkit shapes and orders the glyphs of each
 * run), word wrapping, QR codes as vector modules, rectangles. Every face is embedded as a
 * subset of the glyphs the document uses, so a ticket with one Chinese name carries a few
 * glyphs of the large CJK font, not the font.
 */
import {
  degrees,
  fill,
  PDFDocument,
  type PDFFont,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  rgb,
  setFillingRgbColor,
} from "@cantoo/pdf-lib";
import * as fontkit from "fontkit";
import qrcode from "qrcode-generator";
import { breaksAfter, directionOf, faceOf, type FontFace, type FontFamily, familyOf, type FontStyle } from "./fonts";

/** Loads the bytes of a face (from R2 in the Worker). */
export type FontLoader = (face: FontFace) => Promise<Uint8Array>;

export const MM = 72 / 25.4;
export const A4 = { width: 210 * MM, height: 297 * MM };

/** An RGB color with components 0..1. */
export type Rgb = [number, number, number];

export type TextStyle = FontStyle & { size: number; color?: Rgb };

/** A piece of a line drawn with one face, in visual order. */
type Piece = { text: string; face: FontFace };

/**
 * fontkit for pdf-lib, keeping the parsed font of a font file for later documents: fontkit
 * parses a face's layout tables on its first layout (about half a second for Noto Sans), so a
 * warm Worker (fonts cached per isolate, src/services/tickets/documents.ts) renders without it. Fonts
 * are only read after parsing; each document makes its own subset.
 */
const parsedFonts = new WeakMap<Uint8Array, ReturnType<typeof fontkit.create>>();
const cachingFontkit: Parameters<PDFDocument["registerFontkit"]>[0] = {
  create(bytes: Uint8Array, postscriptName?: string) {
    if (postscriptName !== undefined) return withCodePoints(fontkit.create(bytes, postscriptName));
    let font = parsedFonts.get(bytes);
    if (!font) {
      font = withCodePoints(fontkit.create(bytes));
      parsedFonts.set(bytes, font);
    }
    return font;
  },
};

type Glyph = { codePoints: number[] };

/**
 * fontkit keeps a glyph as it first made it: a letter first met as a part of a composite glyph
 * ("Z" inside "Ž") has no code points, and the text layer (the subset's ToUnicode map) would
 * leave it out of every later text that uses it. A lookup that brings the code points gives
 * them to such a glyph.
 */
function withCodePoints<F>(font: F): F {
  if (typeof font !== "object" || font === null) return font;
  const f = font as F & { getGlyph?: (id: number, characters?: number[]) => Glyph | null };
  const original = f.getGlyph;
  if (typeof original !== "function") return font;
  f.getGlyph = function getGlyph(id: number, characters: number[] = []) {
    const glyph = original.call(this, id, characters);
    if (glyph && characters.length > 0 && glyph.codePoints.length === 0) glyph.codePoints = characters;
    return glyph;
  };
  return font;
}

// QR codes carry the content as UTF-8 (the library's default is Latin-1).
qrcode.stringToBytes = (s: string) => Array.from(new TextEncoder().encode(s));

/**
 * Splits one line into pieces in visual (left to right) order: runs of one direction (the
 * paragraph's direction is that of its first strong character; neutral characters between two
 * runs of the same direction join them, others take the paragraph's), each split by the family
 * that draws it. Right-to-left runs are laid out right to left: their pieces in reverse order,
 * and fontkit reverses the glyphs of a right-to-left piece itself.
 */
export function linePieces(text: string, style: FontStyle): Piece[] {
  const cps = [...text];
  if (cps.length === 0) return [];
  const dirs = cps.map((c) => directionOf(c.codePointAt(0)!));
  const paragraph = dirs.find((d) => d !== "neutral") ?? "ltr";
  const resolved = dirs.slice() as ("rtl" | "ltr")[];
  for (let i = 0; i < cps.length; ) {
    if (dirs[i] !== "neutral") {
      i++;
      continue;
    }
    let j = i;
    while (j < cps.length && dirs[j] === "neutral") j++;
    const before = i > 0 ? resolved[i - 1] : paragraph;
    const after = j < cps.length ? dirs[j] : paragraph;
    const d = before === after ? before! : paragraph;
    for (let k = i; k < j; k++) resolved[k] = d as "rtl" | "ltr";
    i = j;
  }
  const runs: { dir: "rtl" | "ltr"; chars: string[] }[] = [];
  cps.forEach((c, i) => {
    const last = runs[runs.length - 1];
    if (last && last.dir === resolved[i]) last.chars.push(c);
    else runs.push({ dir: resolved[i]!, chars: [c] });
  });
  if (paragraph === "rtl") runs.reverse();
  const out: Piece[] = [];
  for (const run of runs) {
    const pieces: { family: FontFamily; chars: string[] }[] = [];
    let current: FontFamily | null = null;
    for (const c of run.chars) {
      const fam = familyOf(c.codePointAt(0)!);
      const family: FontFamily =
        fam ?? current ?? run.chars.map((x) => familyOf(x.codePointAt(0)!)).find((f) => f !== null) ?? "sans";
      const last = pieces[pieces.length - 1];
      if (last && last.family === family) last.chars.push(c);
      else pieces.push({ family, chars: [c] });
      current = family;
    }
    if (run.dir === "rtl") {
      pieces.reverse();
      for (const p of pieces) {
        // fontkit reverses pieces of a right-to-left script; neutral-only pieces are reversed here
        if (!p.chars.some((c) => directionOf(c.codePointAt(0)!) === "rtl")) p.chars.reverse();
      }
    }
    for (const p of pieces) out.push({ text: p.chars.join(""), face: faceOf(p.family, style) });
  }
  return out;
}

export class PdfWriter {
  private readonly fonts = new Map<FontFace, Promise<PDFFont>>();
  /** Widths at size 1 by face and text (fontkit shapes a string on every measurement). */
  private readonly widths = new Map<string, number>();

  private constructor(
    readonly doc: PDFDocument,
    private readonly loadFont: FontLoader,
  ) {}

  static async create(
    loadFont: FontLoader,
    meta: { title: string; author: string; language: string },
  ): Promise<PdfWriter> {
    const doc = await PDFDocument.create();
    doc.registerFontkit(cachingFontkit);
    doc.setTitle(meta.title);
    doc.setAuthor(meta.author);
    doc.setLanguage(meta.language);
    doc.setProducer("edge-ticketing");
    doc.setCreator("edge-ticketing");
    return new PdfWriter(doc, loadFont);
  }

  /** The embedded (subset) font of a face, loaded on first use. */
  font(face: FontFace): Promise<PDFFont> {
    let f = this.fonts.get(face);
    if (!f) {
      f = this.loadFont(face).then((bytes) => this.doc.embedFont(bytes, { subset: true }));
      this.fonts.set(face, f);
    }
    return f;
  }

  /** Width of one line of text (no line breaks) in points. */
  async width(text: string, style: TextStyle): Promise<number> {
    let w = 0;
    for (const p of linePieces(text, style)) w += await this.pieceWidth(p, style.size);
    return w;
  }

  private async pieceWidth(p: Piece, size: number): Promise<number> {
    const key = `${p.face}\u0000${p.text}`;
    let unit = this.widths.get(key);
    if (unit === undefined) {
      unit = (await this.font(p.face)).widthOfTextAtSize(p.text, 1);
      this.widths.set(key, unit);
    }
    return unit * size;
  }

  /** Ascent of the Latin face at a size (for placing the first baseline under a top edge). */
  async ascent(style: TextStyle): Promise<number> {
    const f = await this.font(faceOf("sans", style));
    return f.heightAtSize(style.size, { descender: false });
  }

  /**
   * Breaks text into lines no wider than `width` (explicit line breaks kept): at spaces and
   * between CJK characters, and inside words that alone are too wide.
   */
  async wrap(text: string, width: number, style: TextStyle): Promise<string[]> {
    const out: string[] = [];
    for (const paragraph of text.replace(/\r\n?/g, "\n").split("\n")) {
      const cps = [...paragraph];
      let line = "";
      let token = "";
      const flush = async () => {
        if (token === "") return;
        const candidate = line + token;
        if (line !== "" && (await this.width(candidate.trimEnd(), style)) > width) {
          out.push(line.trimEnd());
          line = "";
        }
        if ((await this.width(token.trimEnd(), style)) > width) {
          // a token wider than the line: break it by characters
          for (const ch of token) {
            if (line !== "" && (await this.width((line + ch).trimEnd(), style)) > width) {
              out.push(line.trimEnd());
              line = "";
            }
            line += ch;
          }
        } else {
          line += token;
        }
        token = "";
      };
      for (const ch of cps) {
        token += ch;
        if (breaksAfter(ch.codePointAt(0)!)) await flush();
      }
      await flush();
      out.push(line.trimEnd());
    }
    return out;
  }

  /**
   * Draws one line with its left end at (x, y) on the baseline, rotated by `rotate` degrees
   * counter-clockwise around that point.
   */
  async drawLine(
    page: PDFPage,
    text: string,
    at: { x: number; y: number; rotate?: number },
    style: TextStyle,
  ): Promise<void> {
    const angle = ((at.rotate ?? 0) * Math.PI) / 180;
    const [r, g, b] = style.color ?? [0, 0, 0];
    let offset = 0;
    for (const p of linePieces(text, style)) {
      const font = await this.font(p.face);
      const skew = style.italic && !p.face.startsWith("sans") ? 12 : 0;
      page.drawText(p.text, {
        x: at.x + Math.cos(angle) * offset,
        y: at.y + Math.sin(angle) * offset,
        size: style.size,
        font,
        color: rgb(r, g, b),
        rotate: degrees(at.rotate ?? 0),
        ...(skew ? { xSkew: degrees(skew) } : {}),
      });
      offset += await this.pieceWidth(p, style.size);
    }
  }

  /** Draws a line aligned in a box of `width` starting at x. */
  async drawAligned(
    page: PDFPage,
    text: string,
    at: { x: number; y: number; width: number; align: "left" | "center" | "right"; rotate?: number },
    style: TextStyle,
  ): Promise<void> {
    const w = at.align === "left" ? 0 : await this.width(text, style);
    const shift = at.align === "center" ? (at.width - w) / 2 : at.align === "right" ? at.width - w : 0;
    const angle = ((at.rotate ?? 0) * Math.PI) / 180;
    await this.drawLine(
      page,
      text,
      { x: at.x + Math.cos(angle) * shift, y: at.y + Math.sin(angle) * shift, rotate: at.rotate },
      style,
    );
  }

  /**
   * A QR code of `content` in a square of `size` points with its lower left corner at (x, y):
   * dark modules as filled rectangles (runs of a row merged), `border` modules of quiet zone
   * inside the square. Error correction H up to 32 characters, M up to 128, L above (as
   * pretix chooses).
   */
  drawQr(page: PDFPage, content: string, at: { x: number; y: number; size: number; border: number }): void {
    const level = content.length > 128 ? "L" : content.length > 32 ? "M" : "H";
    const qr = qrcode(0, level);
    qr.addData(content, "Byte");
    qr.make();
    const n = qr.getModuleCount();
    const m = at.size / (n + 2 * at.border);
    const ops = [pushGraphicsState(), setFillingRgbColor(0, 0, 0)];
    for (let row = 0; row < n; row++) {
      const y = at.y + at.size - (at.border + row + 1) * m;
      let col = 0;
      while (col < n) {
        if (!qr.isDark(row, col)) {
          col++;
          continue;
        }
        let end = col;
        while (end < n && qr.isDark(row, end)) end++;
        ops.push(rectangle(at.x + (at.border + col) * m, y, (end - col) * m, m));
        col = end;
      }
    }
    ops.push(fill(), popGraphicsState());
    page.pushOperators(...ops);
  }

  rect(page: PDFPage, at: { x: number; y: number; width: number; height: number }, color: Rgb): void {
    page.drawRectangle({ ...at, color: rgb(...color), borderWidth: 0 });
  }

  line(
    page: PDFPage,
    from: { x: number; y: number },
    to: { x: number; y: number },
    color: Rgb = [0, 0, 0],
    thickness = 0.5,
  ): void {
    page.drawLine({ start: from, end: to, thickness, color: rgb(...color) });
  }

  save(): Promise<Uint8Array> {
    return this.doc.save({ useObjectStreams: true });
  }
}
