import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { extractText, getDocumentProxy } from "unpdf";
import { A4, PdfWriter } from "../../src/lib/pdf/document";
import { FONT_FACES, type FontFace } from "../../src/lib/pdf/fonts";

const fontBytes = (face: FontFace) => new Uint8Array((env as any)[`FONT_${face.replace(/-/g, "_").toUpperCase()}`] as ArrayBuffer);

describe("probe", () => {
  it("renders and extracts", async () => {
    const t0 = Date.now();
    const w = await PdfWriter.create(async (f) => fontBytes(f), { title: "t", author: "a", language: "en" });
    const page = w.doc.addPage([A4.width, A4.height]);
    await w.drawLine(page, "Ζωή Łukasz 王小明 Олег שרה", { x: 40, y: 700 }, { size: 14 });
    w.drawQr(page, "abcdefghijklmnopqrstuvwxyz123456", { x: 40, y: 400, size: 150, border: 4 });
    const bytes = await w.save();
    const t1 = Date.now();
    const pdf = await getDocumentProxy(bytes);
    const { text } = await extractText(pdf, { mergePages: true });
    console.log(bytes.length, t1 - t0, JSON.stringify(text), Object.keys(FONT_FACES).length);
    expect(text).toContain("王小明");
  });
});
