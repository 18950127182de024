/**
 * "pretix signature scheme 1" (`pretix_sig1`): ticket secrets that carry what a scanner needs to admit
 * offline, signed with Ed25519, in the format pretix generates and its scanners (libpretixsync) verify
 * (docs/selling-and-checkin.md "Signed tickets"); and the sealing of the private key (AES-256-GCM under
 * a key derived with HKDF-SHA-256 from a deployment secret). WebCrypto and plain bytes only.
 */
import { randomString } from "./crypto";

export const SIG1_VERSION = 0x01;

/**
 * The payload of a signed secret: the protobuf message `Ticket` of pretix's `pretix_sig1.proto`
 * (`seed` = 1, `item` = 2, `variation` = 3, `subevent` = 4, optional `validFromUnixTime` = 5,
 * `validUntilUnixTime` = 6). Times are Unix seconds, 0 = none; pretix always writes both.
 */
export type Sig1Ticket = {
  seed: string;
  item: number;
  variation: number;
  subevent: number;
  validFromUnixTime: number;
  validUntilUnixTime: number;
};

/** Django's `get_random_string` alphabet, which pretix's seeds are drawn from. */
const SEED_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A new seed: 9 characters, as pretix draws them. */
export function newSeed(): string {
  return randomString(9, SEED_ALPHABET);
}

/** A datetime (epoch milliseconds, or null) as pretix encodes it: whole Unix seconds, 0 for none. */
export function unixSeconds(ms: number | null): number {
  return ms === null ? 0 : Math.trunc(ms / 1000);
}

// ---- protobuf (the few wire types the message uses) ----

/** A varint of an int64 (negative numbers as 64-bit two's complement: ten bytes). */
function varint(value: number): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

function key(field: number, wireType: number): number[] {
  return varint((field << 3) | wireType);
}

/** Serializes a `Ticket` as pretix's protobuf runtime does (fields in number order, proto3 defaults left out). */
export function encodeSig1Payload(t: Sig1Ticket): Uint8Array {
  const bytes: number[] = [];
  const seed = new TextEncoder().encode(t.seed);
  if (seed.length) bytes.push(...key(1, 2), ...varint(seed.length), ...seed);
  if (t.item !== 0) bytes.push(...key(2, 0), ...varint(t.item));
  if (t.variation !== 0) bytes.push(...key(3, 0), ...varint(t.variation));
  if (t.subevent !== 0) bytes.push(...key(4, 0), ...varint(t.subevent));
  // proto3 `optional`: present because pretix always sets them
  bytes.push(...key(5, 0), ...varint(t.validFromUnixTime));
  bytes.push(...key(6, 0), ...varint(t.validUntilUnixTime));
  return new Uint8Array(bytes);
}

/** Reads a `Ticket` (unknown fields skipped); null when the bytes are no such message. */
export function decodeSig1Payload(bytes: Uint8Array): Sig1Ticket | null {
  const t: Sig1Ticket = { seed: "", item: 0, variation: 0, subevent: 0, validFromUnixTime: 0, validUntilUnixTime: 0 };
  let i = 0;
  const readVarint = (): bigint | null => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (i >= bytes.length) return null;
      const b = bytes[i++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asIntN(64, result);
    }
    return null;
  };
  while (i < bytes.length) {
    const tag = readVarint();
    if (tag === null) return null;
    const field = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const v = readVarint();
      if (v === null) return null;
      const n = Number(v);
      if (field === 2) t.item = n;
      else if (field === 3) t.variation = n;
      else if (field === 4) t.subevent = n;
      else if (field === 5) t.validFromUnixTime = n;
      else if (field === 6) t.validUntilUnixTime = n;
    } else if (wire === 2) {
      const len = readVarint();
      if (len === null || len < 0n || i + Number(len) > bytes.length) return null;
      const chunk = bytes.subarray(i, i + Number(len));
      i += Number(len);
      if (field === 1) t.seed = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(chunk);
    } else if (wire === 1) {
      i += 8;
    } else if (wire === 5) {
      i += 4;
    } else {
      return null;
    }
  }
  return i === bytes.length ? t : null;
}

// ---- the secret's envelope ----

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array | null {
  try {
    const s = atob(text);
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

const reverse = (s: string) => [...s].reverse().join("");

/**
 * The secret of a payload and its signature: version `0x01`, the two lengths (2 bytes big-endian each),
 * payload, signature; standard base64, reversed (so that secrets do not all begin alike).
 */
export function encodeSig1Secret(payload: Uint8Array, signature: Uint8Array): string {
  const raw = new Uint8Array(5 + payload.length + signature.length);
  raw[0] = SIG1_VERSION;
  raw[1] = payload.length >> 8;
  raw[2] = payload.length & 0xff;
  raw[3] = signature.length >> 8;
  raw[4] = signature.length & 0xff;
  raw.set(payload, 5);
  raw.set(signature, 5 + payload.length);
  return reverse(toBase64(raw));
}

/** Splits a secret into payload and signature (nothing verified); null when it is not of this scheme. */
export function parseSig1Secret(secret: string): { payload: Uint8Array; signature: Uint8Array } | null {
  if (!/^[A-Za-z0-9+/=]+$/.test(secret)) return null;
  const raw = fromBase64(reverse(secret));
  if (!raw || raw.length < 5 || raw[0] !== SIG1_VERSION) return null;
  const payloadLength = (raw[1]! << 8) | raw[2]!;
  const signatureLength = (raw[3]! << 8) | raw[4]!;
  if (raw.length !== 5 + payloadLength + signatureLength) return null;
  return { payload: raw.slice(5, 5 + payloadLength), signature: raw.slice(5 + payloadLength) };
}

// ---- Ed25519 keys ----

const ED25519 = { name: "Ed25519" } as const;
const PEM_BEGIN = "-----BEGIN PUBLIC KEY-----\n";
const PEM_END = "-----END PUBLIC KEY-----\n";

/** A public key (SubjectPublicKeyInfo bytes) in pretix's `valid_keys` encoding: base64 of the PEM text. */
export function publicKeyToValidKey(spki: Uint8Array): string {
  const body = toBase64(spki)
    .replace(/(.{64})/g, "$1\n")
    .replace(/\n$/, "");
  return btoa(`${PEM_BEGIN}${body}\n${PEM_END}`);
}

/** The SubjectPublicKeyInfo bytes of a `valid_keys` entry; null when it is not one. */
export function validKeyToPublicKey(validKey: string): Uint8Array | null {
  let pem: string;
  try {
    pem = atob(validKey);
  } catch {
    return null;
  }
  if (!pem.startsWith(PEM_BEGIN) || !pem.trimEnd().endsWith(PEM_END.trimEnd())) return null;
  return fromBase64(pem.slice(PEM_BEGIN.length, pem.lastIndexOf("-----END")).replace(/\s+/g, ""));
}

/** A new key pair: the private key as PKCS #8 bytes, the public key in `valid_keys` encoding. */
export async function generateSigningKey(): Promise<{ privateKey: Uint8Array; validKey: string }> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const spki = new Uint8Array((await crypto.subtle.exportKey("spki", pair.publicKey)) as ArrayBuffer);
  return { privateKey: pkcs8, validKey: publicKeyToValidKey(spki) };
}

export function importSigningKey(pkcs8: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("pkcs8", pkcs8, ED25519, false, ["sign"]);
}

export function importVerifyKey(validKey: string): Promise<CryptoKey> | null {
  const spki = validKeyToPublicKey(validKey);
  return spki ? crypto.subtle.importKey("spki", spki, ED25519, false, ["verify"]) : null;
}

/** A signed secret of a payload. */
export async function signSig1(key: CryptoKey, ticket: Sig1Ticket): Promise<string> {
  const payload = encodeSig1Payload(ticket);
  const signature = new Uint8Array(await crypto.subtle.sign(ED25519, key, payload));
  return encodeSig1Secret(payload, signature);
}

/** The payload of a secret whose signature the key verifies; null otherwise. */
export async function verifySig1(key: CryptoKey, secret: string): Promise<Sig1Ticket | null> {
  const parts = parseSig1Secret(secret);
  if (!parts) return null;
  const ok = await crypto.subtle.verify(ED25519, key, parts.signature, parts.payload).catch(() => false);
  return ok ? decodeSig1Payload(parts.payload) : null;
}

// ---- sealing a private key with the deployment secret ----

const SEAL_VERSION = "v1";

async function sealingKey(deploymentSecret: string): Promise<CryptoKey> {
  const ikm = await crypto.subtle.importKey("raw", new TextEncoder().encode(deploymentSecret), "HKDF", false, [
    "deriveKey",
  ]);
  return crypto.subtle.deriveKey(
    {
      name: "HKDF",
      hash: "SHA-256",
      salt: new TextEncoder().encode("ticketing/ticket-signing-keys"),
      info: new TextEncoder().encode("aes-256-gcm"),
    },
    ikm,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/**
 * Seals `plaintext` (AES-256-GCM, random 96-bit nonce) bound to `context` (additional data: a
 * sealed key only opens for the event it was made for). Text form: `v1.<nonce>.<ciphertext>`.
 */
export async function seal(deploymentSecret: string, plaintext: Uint8Array, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
      await sealingKey(deploymentSecret),
      plaintext,
    ),
  );
  return `${SEAL_VERSION}.${toBase64(iv)}.${toBase64(ct)}`;
}

/** Opens what `seal` made; null when the secret, the context or the text do not fit. */
export async function unseal(deploymentSecret: string, sealed: string, context: string): Promise<Uint8Array | null> {
  const [version, ivText, ctText] = sealed.split(".");
  if (version !== SEAL_VERSION || !ivText || !ctText) return null;
  const iv = fromBase64(ivText);
  const ct = fromBase64(ctText);
  if (!iv || !ct) return null;
  try {
    const pt = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(context) },
      await sealingKey(deploymentSecret),
      ct,
    );
    return new Uint8Array(pt);
  } catch {
    return null;
  }
}
