/**
 * The PDF writer (src/lib/pdf): text in any script the fonts cover, in visual order for
 * right-to-left runs, subset fonts, QR codes; the fonts' loader.
 */
import { describe, expect, it } from "vitest";
import { fontsMissing, loadFont } from "../../src/services/tickets/documents";
import { isFailure } from "../../src/lib/failure";
import type { Env } from "../../src/lib/env";
import { A4, linePieces, MM, PdfWriter } from "../../src/lib/pdf/document";
import { FONT_FACES, type FontFace } from "../../src/lib/pdf/fonts";
import { decodeQr, fontBytes, pdfText } from "../helpers/documents";

const loaded = new Map<FontFace, Promise<Uint8Array>>();
const bytesOf = (face: FontFace) => {
  if (!loaded.has(face)) loaded.set(face, fontBytes(face));
  return loaded.get(face)!;
};

async function writer() {
  return PdfWriter.create(bytesOf, { title: "Test", author: "Test", language: "en" });
}

describe("line pieces", () => {
  it("splits by family, keeps left-to-right runs in order and lays right-to-left runs out right to left", () => {
    expect(linePieces("Ζωή Łukasz 王小明 Олег שרה", {})).toEqual([
      { text: "Ζωή Łukasz ", face: "sans" },
      { text: "王小明 ", face: "cjk" },
      { text: "Олег ", face: "sans" },
      { text: "שרה", face: "hebrew" },
    ]);
    // a right-to-left paragraph: the runs from right to left (fontkit reverses the glyphs of each
    // Hebrew piece, spaces included); digits stay left to right
    expect(linePieces("שרה 12 כהן", { bold: true })).toEqual([
      { text: " כהן", face: "hebrew-bold" },
      { text: "12", face: "sans-bold" },
      { text: "שרה ", face: "hebrew-bold" },
    ]);
    expect(linePieces("Łukasz", { bold: true, italic: true })).toEqual([{ text: "Łukasz", face: "sans-bold-italic" }]);
    expect(linePieces("", {})).toEqual([]);
  });
});

describe("the writer", () => {
  it("writes text of every script into the text layer, with subset fonts", async () => {
    const w = await writer();
    const page = w.doc.addPage([A4.width, A4.height]);
    await w.drawLine(page, "Ζωή Łukasz 王小明 Олег שרה", { x: 40, y: 700 }, { size: 14 });
    await w.drawAligned(page, "مرحبا Łódź", { x: 40, y: 650, width: 300, align: "right" }, { size: 12, bold: true });
    const bytes = await w.save();
    const { text } = await pdfText(bytes);
    expect(text).toContain("Ζωή Łukasz 王小明 Олег שרה");
    expect(text).toContain("Łódź");
    expect(text).toContain("مرحبا");
    // the CJK font is 10 MB; its subset here a few kilobytes
    expect(bytes.length).toBeLessThan(80_000);
    expect((await bytesOf("cjk")).length).toBeGreaterThan(5_000_000);
  });

  it("a letter drawn after its accented form (a composite glyph), in that document or a later one, keeps its place in the text layer", async () => {
    for (const lines of [["Žofie Zeman"], ["Žaneta"], ["Zuzana Z. Zajíc"]]) {
      const w = await writer();
      const page = w.doc.addPage([A4.width, A4.height]);
      for (const [i, line] of lines.entries()) await w.drawLine(page, line, { x: 40, y: 700 - 20 * i }, { size: 14 });
      const { text } = await pdfText(await w.save());
      for (const line of lines) expect(text).toContain(line);
    }
  });

  it("draws Korean, Thai, Devanagari and Persian from their faces; a character no face has does not stop the document", async () => {
    expect(linePieces("김민준 สมชาย नमस्ते", {})).toEqual([
      { text: "김민준 ", face: "korean" },
      { text: "สมชาย ", face: "thai" },
      { text: "नमस्ते", face: "sans" },
    ]);
    const w = await writer();
    const page = w.doc.addPage([A4.width, A4.height]);
    await w.drawLine(page, "김민준 สมชาย नमस्ते", { x: 40, y: 700 }, { size: 14 });
    await w.drawLine(page, "پژوهش محمد عبدالله", { x: 40, y: 680 }, { size: 14, bold: true });
    await w.drawLine(page, "Anna 😀 Smith", { x: 40, y: 660 }, { size: 14 });
    const { text } = await pdfText(await w.save());
    for (const s of ["김민준", "สมชาย", "नमस्ते", "پژوهش محمد عبدالله", "Anna", "Smith"]) expect(text, s).toContain(s);
  });

  it("wraps at spaces, between CJK characters and inside words too long for the line", async () => {
    const w = await writer();
    const style = { size: 10 };
    expect(await w.wrap("one two three", 1000, style)).toEqual(["one two three"]);
    const narrow = await w.wrap("one two three", await w.width("one two", style), style);
    expect(narrow).toEqual(["one two", "three"]);
    const cjk = await w.wrap("王小明王小明", await w.width("王小明", style), style);
    expect(cjk).toEqual(["王小明", "王小明"]);
    expect((await w.wrap("Donaudampfschifffahrt", 30, style)).join("")).toBe("Donaudampfschifffahrt");
    expect(await w.wrap("a\nb", 1000, style)).toEqual(["a", "b"]);
  });

  it("draws QR codes that decode to their content, with and without quiet zone", async () => {
    for (const content of ["z3fsn8jyufm5kpk768q69gkbyr5f4h6w", "https://example.org/ticket/Ζωή", "x".repeat(200)]) {
      const w = await writer();
      const page = w.doc.addPage([A4.width, A4.height]);
      w.drawQr(page, content, { x: 50 * MM, y: 50 * MM, size: 60 * MM, border: 4 });
      expect(await decodeQr(await w.save(), { x: 50 * MM, y: 50 * MM, size: 60 * MM })).toBe(content);
    }
  });
});

describe("fonts", () => {
  it("lists fourteen faces; a face missing in R2 is a deployment failure that names the command", async () => {
    expect(Object.keys(FONT_FACES)).toHaveLength(14);
    const empty = { FILES: { get: async () => null } } as unknown as Env;
    const err = await loadFont(empty, "cjk").catch((e: unknown) => e);
    expect(isFailure(err, "unavailable")).toBe(true);
    expect((err as Error).message).toBe(fontsMissing("cjk").message);
    expect((err as Error).message).toContain('run "npm run fonts"');
  });
});
