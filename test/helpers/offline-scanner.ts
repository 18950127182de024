/**
 * An offline scanner for the signed-secret tests, written from the published format and from
 * what libpretixsync does without a connection (`AsyncCheckProvider.checkOfflineWithoutData`),
 * independently of the service's code: it imports nothing from src/.
 *
 * - decoding: the secret reversed, base64-decoded; version byte 0x01; payload length and
 *   signature length as 2-byte big-endian numbers; the payload a protobuf `Ticket` (seed = 1
 *   string, item = 2, variation = 3, subevent = 4, validFromUnixTime = 5, validUntilUnixTime = 6,
 *   int64 varints); the signature Ed25519 over the payload, checked with WebCrypto against each
 *   key of the event's `valid_keys.pretix_sig1` (base64 of a PEM SubjectPublicKeyInfo);
 * - the checks, in libpretixsync's order: not decodable → invalid; revoked list → revoked;
 *   blocked list → blocked; validity (not for exits) → invalid_time; product on the list →
 *   product; the list's date → invalid; already inside (the scanner's own queued scans) →
 *   already_redeemed; else admitted, and the scan is queued with a nonce for upload;
 * - uploading: each queued scan goes to the per-list redeem (URL-encoded secret) with `force`,
 *   the scan's `datetime` and its `nonce`, as libpretixsync's upload does.
 */
import type { Client, Json } from "../harness";

export type DecodedTicket = {
  seed: string;
  item: number;
  variation: number;
  subevent: number;
  validFrom: number | null;
  validUntil: number | null;
  hasValidFrom: boolean;
  hasValidUntil: boolean;
};

function bytesOfBase64(text: string): Uint8Array {
  const s = atob(text);
  return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
}

/** The parts of a secret (nothing verified); null when it does not have the scheme's shape. */
export function splitSecret(secret: string): { payload: Uint8Array; signature: Uint8Array } | null {
  let raw: Uint8Array;
  try {
    raw = bytesOfBase64(secret.split("").reverse().join(""));
  } catch {
    return null;
  }
  if (raw.length < 5 || raw[0] !== 0x01) return null;
  const payloadLength = raw[1]! * 256 + raw[2]!;
  const signatureLength = raw[3]! * 256 + raw[4]!;
  if (raw.length < 5 + payloadLength + signatureLength) return null;
  return {
    payload: raw.slice(5, 5 + payloadLength),
    signature: raw.slice(5 + payloadLength, 5 + payloadLength + signatureLength),
  };
}

/** A protobuf `Ticket` (only the wire types it uses). */
export function parseTicket(payload: Uint8Array): DecodedTicket {
  const t: DecodedTicket = {
    seed: "",
    item: 0,
    variation: 0,
    subevent: 0,
    validFrom: null,
    validUntil: null,
    hasValidFrom: false,
    hasValidUntil: false,
  };
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = payload[pos++];
      if (b === undefined) throw new Error("truncated varint");
      result += BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asIntN(64, result);
      shift += 7n;
    }
  };
  while (pos < payload.length) {
    const tag = Number(varint());
    const field = tag >> 3;
    const wire = tag & 7;
    if (wire === 2) {
      const len = Number(varint());
      const bytes = payload.slice(pos, pos + len);
      pos += len;
      if (field === 1) t.seed = new TextDecoder().decode(bytes);
    } else if (wire === 0) {
      const v = Number(varint());
      if (field === 2) t.item = v;
      if (field === 3) t.variation = v;
      if (field === 4) t.subevent = v;
      if (field === 5) {
        t.hasValidFrom = true;
        t.validFrom = v > 0 ? v * 1000 : null;
      }
      if (field === 6) {
        t.hasValidUntil = true;
        t.validUntil = v > 0 ? v * 1000 : null;
      }
    } else {
      throw new Error(`unexpected wire type ${wire}`);
    }
  }
  return t;
}

/** A `valid_keys` entry as a WebCrypto key (libpretixsync: base64 → PEM → the SubjectPublicKeyInfo). */
export async function verifyKey(validKey: string): Promise<CryptoKey> {
  const pem = atob(validKey);
  if (!pem.startsWith("-----BEGIN PUBLIC KEY-----\n") || !pem.endsWith("-----END PUBLIC KEY-----\n"))
    throw new Error(`not a PEM public key: ${pem}`);
  const body = pem
    .replace("-----BEGIN PUBLIC KEY-----\n", "")
    .replace("-----END PUBLIC KEY-----\n", "")
    .replace(/\s+/g, "");
  return crypto.subtle.importKey("spki", bytesOfBase64(body), { name: "Ed25519" }, false, ["verify"]);
}

/** The ticket of a secret signed by one of the keys; null when none verifies it. */
export async function decodeSigned(secret: string, validKeys: string[]): Promise<DecodedTicket | null> {
  const parts = splitSecret(secret);
  if (!parts) return null;
  for (const k of validKeys) {
    if (await crypto.subtle.verify({ name: "Ed25519" }, await verifyKey(k), parts.signature, parts.payload))
      return parseTicket(parts.payload);
  }
  return null;
}

export type OfflineResult = {
  result: "valid" | "invalid" | "revoked" | "blocked" | "invalid_time" | "product" | "already_redeemed";
  ticket?: DecodedTicket;
};

type QueuedScan = { secret: string; nonce: string; datetime: string; type: "entry" | "exit" };

/** A scanner that synced once (event, list, revoked and blocked secrets) and then lost its connection. */
export class OfflineScanner {
  validKeys: string[] = [];
  revoked = new Set<string>();
  blocked = new Set<string>();
  list: Json = null;
  queue: QueuedScan[] = [];

  constructor(
    readonly client: Client,
    readonly eventPath: string,
    readonly listId: number,
  ) {}

  /** What the sync downloads (libpretixsync: the event detail, the check-in lists, revokedsecrets, blockedsecrets). */
  async sync(): Promise<void> {
    const event = await this.client.get(`${this.eventPath}/`);
    if (event.status !== 200) throw new Error(`event: ${event.status}`);
    this.validKeys = event.body.valid_keys?.pretix_sig1 ?? [];
    this.list = (await this.client.get(`${this.eventPath}/checkinlists/${this.listId}/`)).body;
    for (const s of await this.all(`${this.eventPath}/revokedsecrets/`)) this.revoked.add(s.secret);
    for (const s of await this.all(`${this.eventPath}/blockedsecrets/`)) {
      if (s.blocked) this.blocked.add(s.secret);
      else this.blocked.delete(s.secret);
    }
  }

  private async all(url: string): Promise<Json[]> {
    const out: Json[] = [];
    for (let next: string | null = url; next; ) {
      const page = await this.client.get(next);
      if (page.status !== 200) throw new Error(`${url}: ${page.status}`);
      out.push(...page.body.results);
      next = page.body.next;
    }
    return out;
  }

  /** A scan without connection. */
  async scan(secret: string, now: Date, type: "entry" | "exit" = "entry"): Promise<OfflineResult> {
    const ticket = await decodeSigned(secret, this.validKeys);
    if (!ticket) return { result: "invalid" };
    if (this.revoked.has(secret)) return { result: "revoked", ticket };
    if (this.blocked.has(secret)) return { result: "blocked", ticket };
    if (type !== "exit") {
      if (ticket.validFrom !== null && ticket.validFrom > now.getTime()) return { result: "invalid_time", ticket };
      if (ticket.validUntil !== null && ticket.validUntil < now.getTime()) return { result: "invalid_time", ticket };
    }
    if (!this.list.all_products && !this.list.limit_products.includes(ticket.item))
      return { result: "product", ticket };
    if (this.list.subevent && this.list.subevent !== ticket.subevent) return { result: "invalid", ticket };
    const mine = this.queue.filter((q) => q.secret === secret);
    const entryAllowed =
      type === "exit" ||
      this.list.allow_multiple_entries ||
      mine.length === 0 ||
      mine.every((q) => q.type === "exit") ||
      (this.list.allow_entry_after_exit && mine.at(-1)!.type === "exit");
    if (!entryAllowed) return { result: "already_redeemed", ticket };
    this.queue.push({ secret, nonce: crypto.randomUUID().replaceAll("-", ""), datetime: now.toISOString(), type });
    return { result: "valid", ticket };
  }

  /** Uploads the queued scans (per-list redeem, forced, with the scan's time and nonce); returns the answers' statuses. */
  async upload(): Promise<number[]> {
    const statuses: number[] = [];
    for (const q of this.queue) {
      const res = await this.client.post(
        `${this.eventPath}/checkinlists/${this.listId}/positions/${encodeURIComponent(q.secret)}/redeem/`,
        {
          force: true,
          type: q.type,
          datetime: q.datetime,
          nonce: q.nonce,
          questions_supported: false,
          canceled_supported: true,
        },
      );
      statuses.push(res.status);
    }
    return statuses;
  }
}
