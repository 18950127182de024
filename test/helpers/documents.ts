/**
 * Documents in tests: the PDF fonts put into R2 as `npm run fonts` does (from the FONTS
 * binding of test/vitest.config.ts), queue messages delivered to the worker's queue
 * handler directly (the same handler the documents queue calls), and PDFs read back: their
 * text layer (pdf.js through unpdf) and the QR modules drawn in their content stream.
 */
import type { DocumentMessage } from "../../src/lib/queues";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, type PDFRef } from "@cantoo/pdf-lib";
import jsQR from "jsqr";
import { extractText, getDocumentProxy } from "unpdf";
import { handleQueueBatch } from "../../src/jobs/queue";
import { BASE, type Client, HARNESS_GROUP, type Json } from "../harness";
import { checkFileContract } from "./contract";
import { FONT_FACES, type FontFace, fontObjectKey } from "../../src/lib/pdf/fonts";

/** The fonts' files, served from Node by the FONTS binding of test/vitest.config.ts. */
const fonts = (env as unknown as { FONTS: Fetcher }).FONTS;

/** A font file as `npm run fonts` puts it into R2. */
export async function fontBytes(face: FontFace): Promise<Uint8Array> {
  const res = await fonts.fetch(`http://fonts/${encodeURIComponent(FONT_FACES[face].file)}`);
  if (!res.ok) throw new Error(`font ${face}: ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** Puts the fonts into R2 (about 50 MB: give the hook time; `beforeAll(seedFonts, SEED_FONTS_TIMEOUT)`). */
export async function seedFonts(): Promise<void> {
  await Promise.all(
    (Object.keys(FONT_FACES) as FontFace[]).map(async (face) =>
      env.FILES.put(fontObjectKey(face), await fontBytes(face)),
    ),
  );
}
export const SEED_FONTS_TIMEOUT = 120_000;

let messageCounter = 0;

/**
 * Delivers messages to the worker's queue handler as the documents queue would (attempt
 * `attempts`); a message that names no organizer group is of the harness's.
 */
export async function deliver(messages: DocumentMessage[], attempts = 1) {
  const batch = createMessageBatch<DocumentMessage>(
    "ticketing-documents",
    messages.map((body) => ({
      id: `m${++messageCounter}`,
      timestamp: Date.now(),
      attempts,
      body: { group: HARNESS_GROUP, ...body },
    })),
  );
  const ctx = createExecutionContext();
  await handleQueueBatch(batch as MessageBatch<never>, env);
  return getQueueResult(batch, ctx);
}

/** Keys of the R2 objects below a prefix. */
export async function objectKeys(prefix: string): Promise<string[]> {
  const listed = await env.FILES.list({ prefix });
  return listed.objects.map((o) => o.key);
}

/** The PDF's text, pages joined; and its page count. */
export async function pdfText(bytes: Uint8Array): Promise<{ text: string; pages: number }> {
  const pdf = await getDocumentProxy(bytes.slice());
  const { text, totalPages } = await extractText(pdf, { mergePages: true });
  return { text, pages: totalPages };
}

/** The text items of a page (its text layer) with where each starts, in PDF points from the bottom left. */
export async function pdfTextItems(bytes: Uint8Array, pageIndex = 0): Promise<{ str: string; x: number; y: number }[]> {
  const pdf = await getDocumentProxy(bytes.slice());
  const content = await (await pdf.getPage(pageIndex + 1)).getTextContent();
  return (content.items as { str?: string; transform?: number[] }[])
    .filter((i) => typeof i.str === "string" && i.str.trim() !== "" && i.transform)
    .map((i) => ({ str: i.str!, x: i.transform![4]!, y: i.transform![5]! }));
}

/** A GET through the worker keeping the raw body (PDFs); the answer is held to the API description like every other. */
export async function rawGet(
  client: Client | null,
  path: string,
): Promise<{ status: number; headers: Headers; bytes: Uint8Array; json: Json }> {
  const headers: Record<string, string> = client?.authorization ? { Authorization: client.authorization } : {};
  const url = path.startsWith("http") ? path : `${BASE}${path}`;
  const res = await exports.default.fetch(new Request(url, { headers }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  await checkFileContract("GET", url, { status: res.status, headers: res.headers, bytes });
  let json: Json = null;
  if ((res.headers.get("Content-Type") ?? "").includes("json")) json = JSON.parse(new TextDecoder().decode(bytes));
  return { status: res.status, headers: res.headers, bytes, json };
}

/**
 * The filled rectangles of a page's content stream (the QR modules are drawn as `re` ... `f`),
 * in PDF points.
 */
export async function filledRects(
  bytes: Uint8Array,
  pageIndex = 0,
): Promise<{ x: number; y: number; w: number; h: number }[]> {
  const doc = await PDFDocument.load(bytes);
  const page = doc.getPage(pageIndex);
  const contents = page.node.Contents();
  const streams: PDFRawStream[] = [];
  const collect = (o: unknown) => {
    const obj = o && (o as PDFRef).tag !== undefined ? doc.context.lookup(o as PDFRef) : o;
    if (obj instanceof PDFRawStream) streams.push(obj);
    else if (obj instanceof PDFArray) for (let i = 0; i < obj.size(); i++) collect(obj.get(i));
  };
  collect(contents);
  const text = streams.map((s) => new TextDecoder("latin1").decode(decodePDFRawStream(s).decode())).join("\n");
  const out: { x: number; y: number; w: number; h: number }[] = [];
  let pending: { x: number; y: number; w: number; h: number }[] = [];
  const tokens = text.split(/\s+/);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === "re") {
      const [x, y, w, h] = tokens.slice(i - 4, i).map(Number) as [number, number, number, number];
      pending.push({ x, y, w, h });
    } else if (t === "f" || t === "f*") {
      out.push(...pending);
      pending = [];
    } else if (t === "n" || t === "S" || t === "Q") {
      pending = [];
    }
  }
  return out;
}

/**
 * Decodes the QR code drawn as filled rectangles inside the square (x, y, size) of the page:
 * the rectangles are rasterized (white background) and handed to jsQR.
 */
export async function decodeQr(
  bytes: Uint8Array,
  square: { x: number; y: number; size: number },
  pageIndex = 0,
): Promise<string | null> {
  const rects = (await filledRects(bytes, pageIndex)).filter(
    (r) =>
      r.x >= square.x - 0.01 &&
      r.y >= square.y - 0.01 &&
      r.x + r.w <= square.x + square.size + 0.01 &&
      r.y + r.h <= square.y + square.size + 0.01,
  );
  const px = 400;
  const scale = px / square.size;
  const data = new Uint8ClampedArray(px * px * 4).fill(255);
  for (const r of rects) {
    const x0 = Math.round((r.x - square.x) * scale);
    const x1 = Math.round((r.x + r.w - square.x) * scale);
    // PDF y grows upwards, image rows downwards
    const y0 = Math.round((square.y + square.size - (r.y + r.h)) * scale);
    const y1 = Math.round((square.y + square.size - r.y) * scale);
    for (let yy = Math.max(0, y0); yy < Math.min(px, y1); yy++) {
      for (let xx = Math.max(0, x0); xx < Math.min(px, x1); xx++) {
        const k = (yy * px + xx) * 4;
        data[k] = data[k + 1] = data[k + 2] = 0;
      }
    }
  }
  return jsQR(data, px, px)?.data ?? null;
}
