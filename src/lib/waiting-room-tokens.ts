/**
 * The on-sale queue's tokens (docs/onsale-queue.md): a queue ticket (`qt1`, the visitor's place in
 * the queue) and an admission token (`qa1`, leave to buy). Compact form `<kind>.<payload>.<mac>`:
 * base64url JSON, HMAC-SHA-256 over `<kind>.<payload>` with a key derived by HKDF-SHA-256 from the
 * deployment secret. Reading checks form, kind and MAC; expiry is the caller's, with its `now`.
 */
import { randomString } from "./crypto";

export const QUEUE_TICKET_KIND = "qt1";
export const ADMISSION_KIND = "qa1";

/** A queue ticket: queue, event, when the visitor joined (epoch ms), its nonce, the shard it joined. */
export type QueueTicket = { q: number; e: number; j: number; n: string; s: number };

/**
 * An admission: queue, event, date (null: the whole event), the admission's id (the ticket's
 * nonce), the orders it may place, and when it expires (epoch ms).
 */
export type Admission = { q: number; e: number; s: number | null; a: string; o: number; x: number };

/** Longer than any token this module makes: anything longer is not read at all. */
const MAX_TOKEN_LENGTH = 1024;
const NONCE = /^[A-Za-z0-9_-]{1,64}$/;

const encoder = new TextEncoder();

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  try {
    const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** Derived keys per deployment secret (one secret per deployment; a few at most in tests). */
const keys = new Map<string, Promise<CryptoKey>>();

function macKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size > 16) keys.clear();
    key = (async () => {
      const ikm = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: encoder.encode("ticketing/onsale-queue"),
          info: encoder.encode("onsale-queue v1"),
        },
        ikm,
        { name: "HMAC", hash: "SHA-256", length: 256 },
        false,
        ["sign", "verify"],
      );
    })();
    keys.set(secret, key);
    key.catch(() => keys.delete(secret));
  }
  return key;
}

async function sign(secret: string, kind: string, payload: object): Promise<string> {
  const body = `${kind}.${toBase64Url(encoder.encode(JSON.stringify(payload)))}`;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await macKey(secret), encoder.encode(body)));
  return `${body}.${toBase64Url(mac)}`;
}

/** The payload of a token of `kind` whose MAC is right; null for anything else. */
async function read(secret: string, kind: string, token: string): Promise<unknown> {
  if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH) return null;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== kind) return null;
  const mac = fromBase64Url(parts[2]!);
  const payload = fromBase64Url(parts[1]!);
  if (!mac || !payload || mac.length !== 32) return null;
  const ok = await crypto.subtle.verify("HMAC", await macKey(secret), mac, encoder.encode(`${kind}.${parts[1]}`));
  if (!ok) return null;
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(payload));
  } catch {
    return null;
  }
}

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function asQueueTicket(v: unknown): QueueTicket | null {
  if (!isRecord(v)) return null;
  const { q, e, j, n, s } = v;
  if (!isId(q) || !isId(e) || !isCount(j) || typeof n !== "string" || !NONCE.test(n) || !isCount(s)) return null;
  return { q, e, j, n, s };
}

function asAdmission(v: unknown): Admission | null {
  if (!isRecord(v)) return null;
  const { q, e, s, a, o, x } = v;
  if (!isId(q) || !isId(e) || !(s === null || isId(s)) || typeof a !== "string" || !NONCE.test(a)) return null;
  if (!isId(o) || !isCount(x)) return null;
  return { q, e, s, a, o, x };
}

/** A ticket's nonce: 16 random characters (also the id of the admission it may earn). */
export function newQueueNonce(): string {
  return randomString(16, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
}

export function signQueueTicket(secret: string, payload: QueueTicket): Promise<string> {
  const { q, e, j, n, s } = payload;
  return sign(secret, QUEUE_TICKET_KIND, { q, e, j, n, s });
}

/** The ticket's payload; null when the token is malformed, of another kind or forged. */
export async function readQueueTicket(secret: string, token: string): Promise<QueueTicket | null> {
  return asQueueTicket(await read(secret, QUEUE_TICKET_KIND, token));
}

export function signAdmission(secret: string, payload: Admission): Promise<string> {
  const { q, e, s, a, o, x } = payload;
  return sign(secret, ADMISSION_KIND, { q, e, s, a, o, x });
}

/** The admission's payload; null when the token is malformed, of another kind or forged (expiry not checked). */
export async function readAdmission(secret: string, token: string): Promise<Admission | null> {
  return asAdmission(await read(secret, ADMISSION_KIND, token));
}
