/**
 * Signed ticket secrets (pretix "Ticket secret generators", scheme `pretix_sig1`): the setting
 * that chooses them, the event's key in `valid_keys`, secrets in pretix's exact format (decoded
 * here by an independent implementation, test/helpers/offline-scanner.ts), new secrets and the
 * revocation list when a ticket is re-issued or canceled, blocks, and what the redeem answers.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins, revokedSecrets, ticketSigningKeys } from "../../src/db/schema";
import { db, type Json, seedOrderPosition, seedOrderRow } from "../harness";
import { venue } from "../helpers/checkin";
import { decodeSigned, OfflineScanner, parseTicket, splitSecret, verifyKey } from "../helpers/offline-scanner";

type Venue = Awaited<ReturnType<typeof venue>>;

/** A venue whose event uses signed secrets; its valid_keys as the event detail shows them. */
async function signedVenue(opts: Parameters<typeof venue>[0] = {}): Promise<Venue & { keys: string[] }> {
  const v = await venue(opts);
  const set = await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig1" });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body.ticket_secret_generator).toBe("pretix_sig1");
  const keys = (await v.client.get(`${v.path}/`)).body.valid_keys.pretix_sig1 as string[];
  return { ...v, keys };
}

describe("the setting and the key", () => {
  it("random is the default: 32-character secrets and no keys", async () => {
    const v = await venue();
    expect((await v.client.get(`${v.path}/settings/`)).body.ticket_secret_generator).toBe("random");
    const pos = await v.sell();
    expect(pos.secret).toMatch(/^[abcdefghjkmnpqrstuvwxyz23456789]{32}$/);
    expect((await v.client.get(`${v.path}/`)).body.valid_keys).toEqual({});
  });

  it("pretix_sig1: the event gets one Ed25519 key, shown in valid_keys as base64 of its PEM text", async () => {
    const v = await signedVenue();
    expect(v.keys).toHaveLength(1);
    const pem = atob(v.keys[0]!);
    expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=\n-----END PUBLIC KEY-----\n$/);
    await verifyKey(v.keys[0]!);
    // switching again keeps the key; the private key is stored sealed, never in the clear
    expect((await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig1" })).status).toBe(200);
    const rows = await db().select().from(ticketSigningKeys).where(eq(ticketSigningKeys.eventId, v.eventId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ scheme: "pretix_sig1", publicKey: v.keys[0] });
    expect(rows[0]!.privateKeySealed).toMatch(/^v1\.[A-Za-z0-9+/=]+\.[A-Za-z0-9+/=]+$/);
    expect(rows[0]!.privateKeySealed).not.toContain("MC4CAQAwBQYDK2Vw");
    expect((await v.client.get(`${v.path}/`)).body.valid_keys).toEqual({ pretix_sig1: v.keys });
  });

  it("an unknown generator is refused with a field error", async () => {
    const v = await venue();
    const res = await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig2" });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(["ticket_secret_generator"]);
    expect((await v.client.get(`${v.path}/settings/`)).body.ticket_secret_generator).toBe("random");
  });
});

describe("secrets in pretix's format", () => {
  it("a sold ticket's secret decodes, independently, to its product, variation, date and validity, and verifies", async () => {
    const v = await signedVenue();
    const pos = await v.sell();
    expect(pos.secret).toMatch(/^[A-Za-z0-9+/=]+$/);
    const parts = splitSecret(pos.secret)!;
    expect(parts.signature).toHaveLength(64);
    const t = parseTicket(parts.payload);
    expect(t).toMatchObject({ item: v.ticket.id, variation: 0, subevent: 0, validFrom: null, validUntil: null, hasValidFrom: true, hasValidUntil: true });
    expect(t.seed).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(await decodeSigned(pos.secret, v.keys)).toEqual(t);
  });
});

/** The protobuf bytes pretix's runtime writes for a `Ticket` (fields in number order, zero item/variation/subevent left out, both times always). */
function expectedPayload(t: { seed: string; item: number; variation: number; subevent: number; validFrom: number; validUntil: number }): number[] {
  const varint = (n: number) => {
    const out: number[] = [];
    let v = BigInt(n);
    do {
      const b = Number(v & 127n);
      v >>= 7n;
      out.push(v ? b | 128 : b);
    } while (v);
    return out;
  };
  const seed = [...new TextEncoder().encode(t.seed)];
  return [
    0x0a, seed.length, ...seed,
    ...(t.item ? [0x10, ...varint(t.item)] : []),
    ...(t.variation ? [0x18, ...varint(t.variation)] : []),
    ...(t.subevent ? [0x20, ...varint(t.subevent)] : []),
    0x28, ...varint(t.validFrom),
    0x30, ...varint(t.validUntil),
  ];
}

describe("secrets in pretix's format: what they carry", () => {
  it("variation, date (series) and validity window are in the payload, byte for byte as pretix writes it", async () => {
    const v = await signedVenue({ series: true });
    const date = await v.subevent({ date_from: "2031-02-03T18:00:00Z" });
    const shirt = await v.item({ name: { en: "Day pass" }, has_variations: true, variations: [{ value: { en: "Adult" }, default_price: "20.00" }], validity_mode: "fixed", validity_fixed_from: "2031-02-03T08:00:00Z", validity_fixed_until: "2031-02-04T02:30:45.900Z" });
    await v.quota({ size: 10, subevent: date.id, items: [shirt.id], variations: [shirt.variations[0].id] });
    const order = await v.order({ positions: [{ item: shirt.id, variation: shirt.variations[0].id, subevent: date.id }] });
    const secret = order.positions[0].secret as string;
    const t = (await decodeSigned(secret, v.keys))!;
    expect(t).toMatchObject({ item: shirt.id, variation: shirt.variations[0].id, subevent: date.id, validFrom: Date.parse("2031-02-03T08:00:00Z"), validUntil: Date.parse("2031-02-04T02:30:45Z") });
    // the exact bytes: version 1, payload length, signature length 64, payload, signature; base64; reversed
    const raw = Uint8Array.from(atob(secret.split("").reverse().join("")), (c) => c.charCodeAt(0));
    const payload = expectedPayload({ seed: t.seed, item: shirt.id, variation: shirt.variations[0].id, subevent: date.id, validFrom: Date.parse("2031-02-03T08:00:00Z") / 1000, validUntil: Math.floor(Date.parse("2031-02-04T02:30:45.900Z") / 1000) });
    expect([...raw.slice(0, 5)]).toEqual([0x01, 0, payload.length, 0, 64]);
    expect([...raw.slice(5, 5 + payload.length)]).toEqual(payload);
    expect(raw.length).toBe(5 + payload.length + 64);
    expect(btoa(String.fromCharCode(...raw))).toBe(secret.split("").reverse().join(""));
  });

  it("no validity window: both times are written as 0 (pretix sets them), and a secret given in the order is kept as it is", async () => {
    const v = await signedVenue();
    const order = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id, secret: "givenSecretOfTheCaller1234" }] });
    const t = (await decodeSigned(order.positions[0].secret, v.keys))!;
    expect([...splitSecret(order.positions[0].secret)!.payload]).toEqual(expectedPayload({ seed: t.seed, item: v.ticket.id, variation: 0, subevent: 0, validFrom: 0, validUntil: 0 }));
    expect(order.positions[1].secret).toBe("givenSecretOfTheCaller1234");
    // every ticket its own seed
    const other = await v.sell();
    expect((await decodeSigned(other.secret, v.keys))!.seed).not.toBe(t.seed);
  });

  it("a tampered or forged secret does not verify: offline it is invalid, online the redeem answers 404 invalid", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    // a changed payload byte (the product): the signature no longer fits
    const raw = Uint8Array.from(atob(pos.secret.split("").reverse().join("")), (c) => c.charCodeAt(0));
    const tampered = raw.slice();
    // header (5) + seed field (0x0a, 9, nine characters) + item tag (0x10): the item's first byte
    expect(tampered[5 + 11]).toBe(0x10);
    tampered[5 + 12] = tampered[5 + 12]! ^ 0x01;
    const tamperedSecret = btoa(String.fromCharCode(...tampered)).split("").reverse().join("");
    expect(tamperedSecret).not.toBe(pos.secret);
    expect(splitSecret(tamperedSecret)).not.toBeNull();
    expect(await decodeSigned(tamperedSecret, v.keys)).toBeNull();
    // a forged one: a well-formed secret for the same product, signed by a key that is not the event's
    const forger = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const payload = Uint8Array.from(expectedPayload({ seed: "forgedabc", item: v.ticket.id, variation: 0, subevent: 0, validFrom: 0, validUntil: 0 }));
    const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, forger.privateKey, payload));
    const forged = btoa(String.fromCharCode(1, 0, payload.length, 0, sig.length, ...payload, ...sig)).split("").reverse().join("");
    expect(parseTicket(splitSecret(forged)!.payload).item).toBe(v.ticket.id);
    expect(await decodeSigned(forged, v.keys)).toBeNull();

    const scanner = new OfflineScanner(v.scanner, v.path, list.id);
    await scanner.sync();
    expect((await scanner.scan(tamperedSecret, new Date())).result).toBe("invalid");
    expect((await scanner.scan(forged, new Date())).result).toBe("invalid");
    expect((await scanner.scan(pos.secret, new Date())).result).toBe("valid");
    for (const secret of [tamperedSecret, forged]) {
      const res = await v.redeem({ secret, lists: [list.id] });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: "error", reason: "invalid" });
    }
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
  });
});

const revokedOf = async (v: Venue) => (await v.client.get(`${v.path}/revokedsecrets/`)).body;

describe("re-issue and cancellation: new secrets, the old ones revoked", () => {
  it("orderpositions/{id}/regenerate_secrets: a new secret for the same ticket; the old one is revoked and refused", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    const before = await decodeSigned(pos.secret, v.keys);
    const res = await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: pos.id, order: pos.order, item: v.ticket.id, blocked: null });
    const fresh = res.body.secret as string;
    expect(fresh).not.toBe(pos.secret);
    const after = (await decodeSigned(fresh, v.keys))!;
    expect(after).toMatchObject({ item: before!.item, variation: 0, subevent: 0 });
    expect(after.seed).not.toBe(before!.seed);
    // the old secret is on the revocation list, once
    const revoked = await revokedOf(v);
    expect(revoked).toMatchObject({ count: 1, next: null, previous: null });
    expect(revoked.results).toEqual([{ id: expect.any(Number), secret: pos.secret, created: expect.any(String) }]);
    // online: the old secret answers revoked (with its ticket), the new one admits
    const old = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(old.status).toBe(400);
    expect(old.body).toMatchObject({ status: "error", reason: "revoked", reason_explanation: null, require_attention: false, position: { id: pos.id, secret: fresh }, list: { id: list.id } });
    const [failed] = await db().select().from(checkins).where(eq(checkins.positionId, pos.id));
    expect(failed).toMatchObject({ successful: false, errorReason: "revoked", rawBarcode: pos.secret });
    const ok = await v.redeem({ secret: fresh, lists: [list.id] });
    expect(ok.status).toBe(201);
    expect(ok.body.position).toMatchObject({ id: pos.id, secret: fresh });
    // the order shows the new secret; its detail under orderpositions too
    expect((await v.client.get(`${v.path}/orders/${pos.order}/`)).body.positions[0].secret).toBe(fresh);
    expect((await v.client.get(`${v.path}/orderpositions/${pos.id}/`)).body.secret).toBe(fresh);
  });

  it("orders/{code}/regenerate_secrets: the order's secret and every ticket's; all old ones revoked", async () => {
    const v = await signedVenue();
    const order = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    const res = await v.client.post(`${v.path}/orders/${order.code}/regenerate_secrets/`);
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(order.code);
    expect(res.body.secret).not.toBe(order.secret);
    expect(res.body.url).not.toBe(order.url);
    expect(res.body.url).toContain(`/${res.body.secret}/`);
    const oldSecrets = order.positions.map((p: Json) => p.secret);
    for (const [i, p] of res.body.positions.entries()) {
      expect(p.secret).not.toBe(oldSecrets[i]);
      expect((await decodeSigned(p.secret, v.keys))!.item).toBe(v.ticket.id);
    }
    expect((await revokedOf(v)).results.map((r: Json) => r.secret).sort()).toEqual([...oldSecrets].sort());
    expect((await v.client.post(`${v.path}/orders/NOSUCHCODE/regenerate_secrets/`)).status).toBe(404);
  });

  it("mark_canceled: with signed secrets every ticket gets a new secret and the old ones are revoked; the new one answers canceled", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const order = await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    const res = await v.client.post(`${v.path}/orders/${order.code}/mark_canceled/`, { send_email: false });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("c");
    const now = res.body.positions.map((p: Json) => p.secret);
    const old = order.positions.map((p: Json) => p.secret);
    expect(now.filter((s: string) => old.includes(s))).toEqual([]);
    expect((await revokedOf(v)).results.map((r: Json) => r.secret).sort()).toEqual([...old].sort());
    expect((await v.redeem({ secret: old[0], lists: [list.id] })).body).toMatchObject({ status: "error", reason: "revoked" });
    expect((await v.redeem({ secret: now[0], lists: [list.id] })).body).toMatchObject({ status: "error", reason: "canceled" });
    // canceling again is refused and changes nothing
    expect((await v.client.post(`${v.path}/orders/${order.code}/mark_canceled/`, { send_email: false })).status).toBe(400);
    expect((await revokedOf(v)).count).toBe(2);
  });

  it("random secrets: a re-issued ticket's old secret is simply unknown (nothing revoked); canceling keeps the secrets", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const res = await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^[abcdefghjkmnpqrstuvwxyz23456789]{32}$/);
    expect(res.body.secret).not.toBe(pos.secret);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(404);
    expect((await v.redeem({ secret: res.body.secret, lists: [list.id] })).status).toBe(201);
    const order = await v.order();
    const canceled = await v.client.post(`${v.path}/orders/${order.code}/mark_canceled/`, { send_email: false });
    expect(canceled.body.positions[0].secret).toBe(order.positions[0].secret);
    expect(await revokedOf(v)).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it("a revoked secret the event object never saw is found in D1 (its fallback read)", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const o = await seedOrderRow(v.eventId, { status: "p" });
    const p = await seedOrderPosition(o, { itemId: v.ticket.id });
    await db().insert(revokedSecrets).values({ eventId: v.eventId, positionId: p.id, secret: "oldSecretOfASeededTicket", created: Date.now() });
    const res = await v.redeem({ secret: "oldSecretOfASeededTicket", lists: [list.id] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: "error", reason: "revoked", position: { id: p.id, secret: p.secret } });
    // forced (an offline scan uploaded later) it checks the ticket in, as forced
    const forced = await v.redeem({ secret: "oldSecretOfASeededTicket", lists: [list.id], force: true, nonce: "n-1" });
    expect(forced.status).toBe(201);
    const rows = await db().select().from(checkins).where(eq(checkins.positionId, p.id));
    expect(rows.filter((r) => r.successful)).toEqual([expect.objectContaining({ forced: true, forceSent: true, rawBarcode: "oldSecretOfASeededTicket" })]);
  });

  it("unknown positions: 404 for detail, re-issue and blocks", async () => {
    const v = await signedVenue();
    for (const r of [
      await v.client.get(`${v.path}/orderpositions/999999/`),
      await v.client.post(`${v.path}/orderpositions/999999/regenerate_secrets/`),
      await v.client.post(`${v.path}/orderpositions/999999/add_block/`, { name: "admin" }),
    ]) {
      expect(r.status).toBe(404);
    }
  });
});
