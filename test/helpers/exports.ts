/**
 * Driving the exports queue by hand: the producer is replaced by a spy that keeps the messages
 * (so nothing runs in the background), and each message is delivered to the worker's queue
 * handler through the pool's `createMessageBatch` / `getQueueResult`.
 */
import type { ExportMessage } from "../../src/lib/queues";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import type { Env } from "../../src/lib/env";
import worker from "../../src/index";
import { HARNESS_GROUP } from "../harness";

export function captureExportMessages(): ExportMessage[] {
  const sent: ExportMessage[] = [];
  vi.spyOn(env.EXPORTS_QUEUE, "send").mockImplementation(async (body) => {
    sent.push(body as ExportMessage);
    return undefined as never;
  });
  return sent;
}

/**
 * Leaves in `sent` only the messages of one export. The cron sends again for every stopped
 * export of the database, the other test files' too (the files of a project share it): theirs
 * are dropped.
 */
export function keepMessagesOf(sent: ExportMessage[], exportId: string): void {
  const mine = sent.filter((m) => m.exportId === exportId);
  sent.splice(0, sent.length, ...mine);
}

/** The environment with other export settings (small steps and parts for the tests). */
export function exportEnv(
  vars: Partial<Record<"EXPORT_STEP_ROWS" | "EXPORT_PART_BYTES" | "EXPORT_RETENTION_HOURS", string>>,
): Env {
  return { ...(env as unknown as Env), ...vars };
}

/** Delivers one message; the batch's ack / retry outcome. */
export async function deliver(body: ExportMessage, to: Env = env as unknown as Env, attempts = 1) {
  const batch = createMessageBatch<ExportMessage>("ticketing-exports", [
    { id: crypto.randomUUID(), timestamp: Date.now(), attempts, body: { group: HARNESS_GROUP, ...body } },
  ]);
  const ctx = createExecutionContext();
  const queue = worker.queue as (b: MessageBatch<never>, e: Env, c: ExecutionContext) => Promise<void>;
  await queue(batch as MessageBatch<never>, to, ctx);
  return getQueueResult(batch, ctx);
}

/** Delivers every message (and the ones they send) until none is left; how many were delivered. */
export async function drain(sent: ExportMessage[], to?: Env): Promise<number> {
  let n = 0;
  while (sent.length) {
    await deliver(sent.shift()!, to);
    n++;
  }
  return n;
}

/** The files of a ZIP archive (XLSX), inflated. */
export async function unzip(bytes: Uint8Array): Promise<Map<string, string>> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = bytes.length - 22;
  while (eocd >= 0 && view.getUint32(eocd, true) !== 0x06054b50) eocd--;
  if (eocd < 0) throw new Error("not a zip archive");
  const count = view.getUint16(eocd + 10, true);
  let pos = view.getUint32(eocd + 16, true);
  const files = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    if (view.getUint32(pos, true) !== 0x02014b50) throw new Error("bad central directory");
    const method = view.getUint16(pos + 10, true);
    const crc = view.getUint32(pos + 16, true);
    const compressed = view.getUint32(pos + 20, true);
    const size = view.getUint32(pos + 24, true);
    const nameLength = view.getUint16(pos + 28, true);
    const extra = view.getUint16(pos + 30, true);
    const comment = view.getUint16(pos + 32, true);
    const offset = view.getUint32(pos + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(pos + 46, pos + 46 + nameLength));
    const localName = view.getUint16(offset + 26, true);
    const localExtra = view.getUint16(offset + 28, true);
    const start = offset + 30 + localName + localExtra;
    const data = bytes.subarray(start, start + compressed);
    const inflated =
      method === 8
        ? new Uint8Array(
            await new Response(
              new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw")),
            ).arrayBuffer(),
          )
        : data;
    if (inflated.length !== size) throw new Error(`${name}: size ${inflated.length}, expected ${size}`);
    const { crc32 } = await import("../../src/lib/zip");
    if (crc32(inflated) !== crc) throw new Error(`${name}: CRC mismatch`);
    files.set(name, new TextDecoder().decode(inflated));
    pos += 46 + nameLength + extra + comment;
  }
  return files;
}

/** The cell texts of a sheet, row by row ("" for empty cells). */
export function sheetRows(xml: string): string[][] {
  const rows: string[][] = [];
  for (const row of xml.matchAll(/<row [^>]*>(.*?)<\/row>/g)) {
    const cells: string[] = [];
    for (const m of row[1]!.matchAll(
      /<c r="([A-Z]+)\d+"(?: t="inlineStr")?>(?:<is><t xml:space="preserve">(.*?)<\/t><\/is>|<v>(.*?)<\/v>)<\/c>/g,
    )) {
      let col = 0;
      for (const ch of m[1]!) col = col * 26 + (ch.charCodeAt(0) - 64);
      while (cells.length < col - 1) cells.push("");
      cells.push(
        (m[2] ?? m[3]!)
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, "&"),
      );
    }
    rows.push(cells);
  }
  return rows;
}
