/**
 * A ZIP archive written in pieces that may be produced by different invocations: every piece
 * of output is returned as bytes to append to the file, and everything the next piece needs
 * (offsets, the running CRC-32 and sizes of the open entry, the entries written so far) is a
 * plain JSON-serializable state. Entries are deflated; each piece ends on a byte boundary (a
 * deflate sync flush), so pieces compressed by different invocations join into one valid
 * deflate stream. Archives below 4 GiB (no ZIP64).
 */
import { Deflate, Z_SYNC_FLUSH } from "pako";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (as ZIP uses it) of `data`, continuing from `crc` (0 to start). */
export function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

type EntryRecord = { name: string; crc: number; compressed: number; size: number; offset: number };

export type ZipState = {
  /** Bytes of the archive written so far. */
  offset: number;
  entries: EntryRecord[];
  /** The entry being written, if any. */
  open: EntryRecord | null;
  /** DOS date and time of the entries. */
  dosTime: number;
  dosDate: number;
};

export function newZip(now: number): ZipState {
  const d = new Date(now);
  const dosTime = (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2);
  const dosDate = ((d.getUTCFullYear() - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate();
  return { offset: 0, entries: [], open: null, dosTime, dosDate };
}

const encoder = new TextEncoder();

class Bytes {
  private readonly buf: Uint8Array;
  private readonly view: DataView;
  private pos = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
  }
  u16(v: number) {
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
  }
  u32(v: number) {
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
  }
  bytes(b: Uint8Array) {
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  get result() {
    return this.buf;
  }
}

/** General purpose flags: sizes in a data descriptor after the data (bit 3), UTF-8 names (bit 11). */
const FLAGS = 0x0808;
const DEFLATE = 8;

/** Starts an entry: its local header. */
export function beginEntry(z: ZipState, name: string): Uint8Array {
  if (z.open) throw new Error("zip: an entry is still open");
  const nameBytes = encoder.encode(name);
  const b = new Bytes(30 + nameBytes.length);
  b.u32(0x04034b50);
  b.u16(20);
  b.u16(FLAGS);
  b.u16(DEFLATE);
  b.u16(z.dosTime);
  b.u16(z.dosDate);
  b.u32(0);
  b.u32(0);
  b.u32(0);
  b.u16(nameBytes.length);
  b.u16(0);
  b.bytes(nameBytes);
  z.open = { name, crc: 0, compressed: 0, size: 0, offset: z.offset };
  z.offset += b.result.length;
  return b.result;
}

function deflatePiece(data: Uint8Array, final: boolean): Uint8Array {
  const d = new Deflate({ raw: true, level: 6 });
  const out: Uint8Array[] = [];
  d.onData = (chunk) => out.push(chunk);
  d.push(data, final ? true : Z_SYNC_FLUSH);
  return concatBytes(out);
}

/** Compressed bytes of `data` for the open entry (ends on a byte boundary). */
export function writeEntry(z: ZipState, data: Uint8Array): Uint8Array {
  const e = z.open;
  if (!e) throw new Error("zip: no entry is open");
  if (data.length === 0) return new Uint8Array(0);
  const compressed = deflatePiece(data, false);
  e.crc = crc32(data, e.crc);
  e.size += data.length;
  e.compressed += compressed.length;
  z.offset += compressed.length;
  return compressed;
}

/** Ends the open entry: the deflate stream's final block and the data descriptor. */
export function endEntry(z: ZipState): Uint8Array {
  const e = z.open;
  if (!e) throw new Error("zip: no entry is open");
  const tail = deflatePiece(new Uint8Array(0), true);
  e.compressed += tail.length;
  const b = new Bytes(tail.length + 16);
  b.bytes(tail);
  b.u32(0x08074b50);
  b.u32(e.crc);
  b.u32(e.compressed);
  b.u32(e.size);
  z.offset += b.result.length;
  z.entries.push(e);
  z.open = null;
  return b.result;
}

/** A whole entry at once. */
export function entry(z: ZipState, name: string, data: Uint8Array): Uint8Array {
  return concatBytes([beginEntry(z, name), writeEntry(z, data), endEntry(z)]);
}

/** The central directory and its end record: the archive's last bytes. */
export function finishZip(z: ZipState): Uint8Array {
  if (z.open) throw new Error("zip: an entry is still open");
  const names = z.entries.map((e) => encoder.encode(e.name));
  const size = names.reduce((n, name) => n + 46 + name.length, 0);
  const b = new Bytes(size + 22);
  z.entries.forEach((e, i) => {
    b.u32(0x02014b50);
    b.u16(20);
    b.u16(20);
    b.u16(FLAGS);
    b.u16(DEFLATE);
    b.u16(z.dosTime);
    b.u16(z.dosDate);
    b.u32(e.crc);
    b.u32(e.compressed);
    b.u32(e.size);
    b.u16(names[i]!.length);
    b.u16(0);
    b.u16(0);
    b.u16(0);
    b.u16(0);
    b.u32(0);
    b.u32(e.offset);
    b.bytes(names[i]!);
  });
  b.u32(0x06054b50);
  b.u16(0);
  b.u16(0);
  b.u16(z.entries.length);
  b.u16(z.entries.length);
  b.u32(size);
  b.u32(z.offset);
  b.u16(0);
  z.offset += b.result.length;
  return b.result;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}
