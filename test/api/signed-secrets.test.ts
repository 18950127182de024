/**
 * Signed ticket secrets (pretix "Ticket secret generators", scheme `pretix_sig1`): the setting
 * that chooses them, the event's key in `valid_keys`, secrets in pretix's exact format (decoded
 * here by an independent implementation, test/helpers/offline-scanner.ts), new secrets and the
 * revocation list when a ticket is re-issued or canceled, and what the redeem answers. A ticket's
 * blocks are tested in orderpositions.test.ts, the lists scanners download in ticket-secrets.test.ts.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { checkins, events, organizers, revokedSecrets, ticketSigningKeys } from "../../src/db/schema";
import { changeEventSettings } from "../../src/services/events/settings";
import { eventSecretGenerator } from "../../src/services/tickets/ticket-changes";
import { assignSecret } from "../../src/services/tickets/ticket-secrets";
import { db, type Json, seedOrderPosition, seedOrderRow } from "../harness";
import { signedVenue, venue } from "../helpers/checkin";
import { decodeSigned, OfflineScanner, parseTicket, splitSecret, verifyKey } from "../helpers/offline-scanner";

type Venue = Awaited<ReturnType<typeof venue>>;

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

  it("without a deployment secret (or one too short) signed secrets cannot be chosen: 400, nothing changes", async () => {
    const v = await venue();
    const [organizer] = await db().select().from(organizers).where(eq(organizers.id, v.org.id));
    const [event] = await db().select().from(events).where(eq(events.id, v.eventId));
    for (const secret of [undefined, "", "too-short-secret"]) {
      const ctx = {
        env: { ...env, TICKET_SIGNING_KEY_SECRET: secret },
        db: db(),
        organizer: organizer!,
        event: event!,
        now: Date.now(),
        baseUrl: "http://ticketing.test",
      };
      await expect(changeEventSettings(ctx, { ticket_secret_generator: "pretix_sig1" })).rejects.toMatchObject({
        code: "invalid",
        fields: { ticket_secret_generator: [expect.stringContaining("TICKET_SIGNING_KEY_SECRET")] },
      });
    }
    expect((await v.client.get(`${v.path}/settings/`)).body.ticket_secret_generator).toBe("random");
    expect(await db().select().from(ticketSigningKeys).where(eq(ticketSigningKeys.eventId, v.eventId))).toEqual([]);
  });

  it("a copy of a signed event (clone) signs with a key of its own", async () => {
    const v = await signedVenue();
    const res = await v.client.post(`${v.path}/clone/`, {
      name: { en: "Copy" },
      slug: `${v.eventSlug}-copy`,
      currency: "EUR",
      date_from: "2031-06-01T19:00:00Z",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.valid_keys.pretix_sig1).toHaveLength(1);
    expect(res.body.valid_keys.pretix_sig1[0]).not.toBe(v.keys[0]);
    const copyPath = `/api/v1/organizers/${v.orgSlug}/events/${v.eventSlug}-copy`;
    expect((await v.client.get(`${copyPath}/settings/`)).body.ticket_secret_generator).toBe("pretix_sig1");
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
    expect(t).toMatchObject({
      item: v.ticket.id,
      variation: 0,
      subevent: 0,
      validFrom: null,
      validUntil: null,
      hasValidFrom: true,
      hasValidUntil: true,
    });
    expect(t.seed).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(await decodeSigned(pos.secret, v.keys)).toEqual(t);
  });
});

/** The protobuf bytes pretix's runtime writes for a `Ticket` (fields in number order, zero item/variation/subevent left out, both times always). */
function expectedPayload(t: {
  seed: string;
  item: number;
  variation: number;
  subevent: number;
  validFrom: number;
  validUntil: number;
}): number[] {
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
    0x0a,
    seed.length,
    ...seed,
    ...(t.item ? [0x10, ...varint(t.item)] : []),
    ...(t.variation ? [0x18, ...varint(t.variation)] : []),
    ...(t.subevent ? [0x20, ...varint(t.subevent)] : []),
    0x28,
    ...varint(t.validFrom),
    0x30,
    ...varint(t.validUntil),
  ];
}

describe("secrets in pretix's format: what they carry", () => {
  it("variation, date (series) and validity window are in the payload, byte for byte as pretix writes it", async () => {
    const v = await signedVenue({ series: true });
    const date = await v.subevent({ date_from: "2031-02-03T18:00:00Z" });
    const shirt = await v.item({
      name: { en: "Day pass" },
      has_variations: true,
      variations: [{ value: { en: "Adult" }, default_price: "20.00" }],
      validity_mode: "fixed",
      validity_fixed_from: "2031-02-03T08:00:00Z",
      validity_fixed_until: "2031-02-04T02:30:45.900Z",
    });
    await v.quota({ size: 10, subevent: date.id, items: [shirt.id], variations: [shirt.variations[0].id] });
    const order = await v.order({
      positions: [{ item: shirt.id, variation: shirt.variations[0].id, subevent: date.id }],
    });
    const secret = order.positions[0].secret as string;
    const t = (await decodeSigned(secret, v.keys))!;
    expect(t).toMatchObject({
      item: shirt.id,
      variation: shirt.variations[0].id,
      subevent: date.id,
      validFrom: Date.parse("2031-02-03T08:00:00Z"),
      validUntil: Date.parse("2031-02-04T02:30:45Z"),
    });
    // the exact bytes: version 1, payload length, signature length 64, payload, signature; base64; reversed
    const raw = Uint8Array.from(atob(secret.split("").reverse().join("")), (c) => c.charCodeAt(0));
    const payload = expectedPayload({
      seed: t.seed,
      item: shirt.id,
      variation: shirt.variations[0].id,
      subevent: date.id,
      validFrom: Date.parse("2031-02-03T08:00:00Z") / 1000,
      validUntil: Math.floor(Date.parse("2031-02-04T02:30:45.900Z") / 1000),
    });
    expect([...raw.slice(0, 5)]).toEqual([0x01, 0, payload.length, 0, 64]);
    expect([...raw.slice(5, 5 + payload.length)]).toEqual(payload);
    expect(raw.length).toBe(5 + payload.length + 64);
    expect(btoa(String.fromCharCode(...raw))).toBe(secret.split("").reverse().join(""));
  });

  it("no validity window: both times are written as 0 (pretix sets them), and a secret given in the order is kept as it is", async () => {
    const v = await signedVenue();
    const order = await v.order({
      positions: [{ item: v.ticket.id }, { item: v.ticket.id, secret: "givenSecretOfTheCaller1234" }],
    });
    const t = (await decodeSigned(order.positions[0].secret, v.keys))!;
    expect([...splitSecret(order.positions[0].secret)!.payload]).toEqual(
      expectedPayload({ seed: t.seed, item: v.ticket.id, variation: 0, subevent: 0, validFrom: 0, validUntil: 0 }),
    );
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
    const tamperedSecret = btoa(String.fromCharCode(...tampered))
      .split("")
      .reverse()
      .join("");
    expect(tamperedSecret).not.toBe(pos.secret);
    expect(splitSecret(tamperedSecret)).not.toBeNull();
    expect(await decodeSigned(tamperedSecret, v.keys)).toBeNull();
    // a forged one: a well-formed secret for the same product, signed by a key that is not the event's
    const forger = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const payload = Uint8Array.from(
      expectedPayload({ seed: "forgedabc", item: v.ticket.id, variation: 0, subevent: 0, validFrom: 0, validUntil: 0 }),
    );
    const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, forger.privateKey, payload));
    const forged = btoa(String.fromCharCode(1, 0, payload.length, 0, sig.length, ...payload, ...sig))
      .split("")
      .reverse()
      .join("");
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

describe("what makes a secret change (pretix's assign_ticket_secret)", () => {
  it("the same product, variation, date and validity keep the secret; any of them changed, or a forced re-issue, give a new one to revoke", async () => {
    const v = await signedVenue();
    const pos = await v.sell();
    const [organizer] = await db().select().from(organizers).where(eq(organizers.id, v.org.id));
    const [event] = await db().select().from(events).where(eq(events.id, v.eventId));
    const gen = await eventSecretGenerator({
      env,
      db: db(),
      organizer: organizer!,
      event: event!,
      now: Date.now(),
      baseUrl: "http://ticketing.test",
    });
    const facts = { itemId: v.ticket.id, variationId: null, subeventId: null, validFrom: null, validUntil: null };
    expect(await assignSecret(gen, facts, pos.secret)).toEqual({ secret: pos.secret, changed: false, revoke: false });
    for (const changed of [
      { itemId: v.ticket.id + 1 },
      { variationId: 5 },
      { subeventId: 7 },
      { validFrom: Date.parse("2030-01-01T00:00:00Z") },
      { validUntil: Date.parse("2031-01-01T00:00:00Z") },
    ]) {
      const a = await assignSecret(gen, { ...facts, ...changed }, pos.secret);
      expect(a, JSON.stringify(changed)).toMatchObject({ changed: true, revoke: true });
      const t = (await decodeSigned(a.secret, v.keys))!;
      expect(t.item).toBe(changed.itemId ?? v.ticket.id);
    }
    expect(await assignSecret(gen, facts, pos.secret, { forceInvalidate: true })).toMatchObject({
      changed: true,
      revoke: true,
    });
    expect(await assignSecret(gen, facts, pos.secret, { forceIfRevocationList: true })).toMatchObject({
      changed: true,
      revoke: true,
    });
    // a random secret of an event that switched to signing: replaced when it must change
    expect(await assignSecret(gen, facts, "abcdefghjkmnpqrstuvwxyz23456789a")).toMatchObject({
      changed: true,
      revoke: true,
    });
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
    expect(old.body).toMatchObject({
      status: "error",
      reason: "revoked",
      reason_explanation: null,
      require_attention: false,
      position: { id: pos.id, secret: fresh },
      list: { id: list.id },
    });
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
    expect((await v.redeem({ secret: old[0], lists: [list.id] })).body).toMatchObject({
      status: "error",
      reason: "revoked",
    });
    expect((await v.redeem({ secret: now[0], lists: [list.id] })).body).toMatchObject({
      status: "error",
      reason: "canceled",
    });
    // canceling again is refused and changes nothing
    expect((await v.client.post(`${v.path}/orders/${order.code}/mark_canceled/`, { send_email: false })).status).toBe(
      400,
    );
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
    await db()
      .insert(revokedSecrets)
      .values({ eventId: v.eventId, positionId: p.id, secret: "oldSecretOfASeededTicket", created: Date.now() });
    const res = await v.redeem({ secret: "oldSecretOfASeededTicket", lists: [list.id] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: "error", reason: "revoked", position: { id: p.id, secret: p.secret } });
    // forced (an offline scan uploaded later) it checks the ticket in, as forced
    const forced = await v.redeem({ secret: "oldSecretOfASeededTicket", lists: [list.id], force: true, nonce: "n-1" });
    expect(forced.status).toBe(201);
    const rows = await db().select().from(checkins).where(eq(checkins.positionId, p.id));
    expect(rows.filter((r) => r.successful)).toEqual([
      expect.objectContaining({ forced: true, forceSent: true, rawBarcode: "oldSecretOfASeededTicket" }),
    ]);
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

const statusOf = async (v: Venue, listId: number) =>
  (await v.client.get(`${v.path}/checkinlists/${listId}/status/`)).body;

describe("a scanner without connection", () => {
  it("admits tickets sold after its last sync, refuses forged and revoked ones, and its scans count once when uploaded", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const early = await v.sell();
    const reissued = await v.sell();
    const fresh = (await v.client.post(`${v.path}/orderpositions/${reissued.id}/regenerate_secrets/`)).body
      .secret as string;
    const scanner = new OfflineScanner(v.scanner, v.path, list.id);
    await scanner.sync();
    expect(scanner.validKeys).toEqual(v.keys);
    expect(scanner.revoked).toEqual(new Set([reissued.secret]));
    // the connection is gone; a ticket is sold meanwhile (the scanner never saw it)
    const late = await v.sell();
    const at = new Date();
    expect((await scanner.scan(late.secret, at)).result).toBe("valid");
    expect((await scanner.scan(early.secret, at)).result).toBe("valid");
    expect((await scanner.scan(reissued.secret, at)).result).toBe("revoked");
    expect((await scanner.scan(fresh, at)).result).toBe("valid");
    expect((await scanner.scan(early.secret, at)).result).toBe("already_redeemed");
    expect(scanner.queue).toHaveLength(3);
    // the connection is back: the queued scans go up (forced, with their time and nonce); a retry of the upload changes nothing
    expect(await scanner.upload()).toEqual([201, 201, 201]);
    expect(await scanner.upload()).toEqual([201, 201, 201]);
    const rows = await db().select().from(checkins).where(eq(checkins.listId, list.id));
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.successful && r.forceSent && !r.forced && r.datetime === at.getTime())).toBe(true);
    expect(new Set(rows.map((r) => r.positionId))).toEqual(new Set([late.id, early.id, reissued.id]));
    expect(await statusOf(v, list.id)).toMatchObject({
      checkin_count: 3,
      inside_count: 3,
      scans: { online: 0, uploaded: 3, automatic: 0, failed_online: 0, failed_uploaded: 0 },
    });
    // an online scan afterwards: already inside; counted as a refused online scan
    expect((await v.redeem({ secret: late.secret, lists: [list.id] })).body.reason).toBe("already_redeemed");
    expect((await statusOf(v, list.id)).scans).toEqual({
      online: 0,
      uploaded: 3,
      automatic: 0,
      failed_online: 1,
      failed_uploaded: 0,
    });
  });

  it("an offline scan of a ticket re-issued before the upload: the upload admits its ticket (forced), as pretix does", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    const scanner = new OfflineScanner(v.scanner, v.path, list.id);
    await scanner.sync();
    expect((await scanner.scan(pos.secret, new Date())).result).toBe("valid");
    await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    expect(await scanner.upload()).toEqual([201]);
    const [row] = await db().select().from(checkins).where(eq(checkins.positionId, pos.id));
    expect(row).toMatchObject({ successful: true, forced: true, forceSent: true, rawBarcode: pos.secret });
    // its next sync knows the revocation
    await scanner.sync();
    expect((await scanner.scan(pos.secret, new Date())).result).toBe("revoked");
  });

  it("validity and product offline: a ticket outside its window or of a product not on the list is refused", async () => {
    const v = await signedVenue();
    const other = await v.item({ name: { en: "Parking" }, admission: false });
    const later = await v.item({
      name: { en: "Next year" },
      validity_mode: "fixed",
      validity_fixed_from: "2040-01-01T00:00:00Z",
      validity_fixed_until: "2040-01-02T00:00:00Z",
    });
    await v.quota({ size: 10, items: [other.id, later.id] });
    const list = await v.list({ all_products: false, limit_products: [v.ticket.id, later.id] });
    const parking = (await v.order({ positions: [{ item: other.id }] })).positions[0];
    const future = (await v.order({ positions: [{ item: later.id }] })).positions[0];
    const scanner = new OfflineScanner(v.scanner, v.path, list.id);
    await scanner.sync();
    expect((await scanner.scan(parking.secret, new Date())).result).toBe("product");
    expect((await scanner.scan(future.secret, new Date())).result).toBe("invalid_time");
    expect((await scanner.scan(future.secret, new Date("2040-01-01T12:00:00Z"))).result).toBe("valid");
  });

  it("the per-list redeem finds a signed secret with + and / in the path (URL-encoded, as scanners send it)", async () => {
    const v = await signedVenue();
    const list = await v.list();
    let pos: Json = null;
    for (let i = 0; i < 20 && !pos; i++) {
      const p = await v.sell();
      if (p.secret.includes("+") && p.secret.includes("/")) pos = p;
    }
    expect(pos).not.toBeNull();
    const res = await v.scanner.post(
      `${v.path}/checkinlists/${list.id}/positions/${encodeURIComponent(pos.secret)}/redeem/`,
      {},
    );
    expect(res.status).toBe(201);
    expect(res.body.position.id).toBe(pos.id);
  });
});

describe("concurrency", () => {
  it("one signed ticket scanned at 20 gates at once: exactly one ok, one check-in", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => v.redeem({ secret: pos.secret, lists: [list.id] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).map((r) => r.body.reason)).toEqual(
      Array(19).fill("already_redeemed"),
    );
    const rows = await db().select().from(checkins).where(eq(checkins.positionId, pos.id));
    expect(rows.filter((r) => r.successful)).toHaveLength(1);
  });

  it("the same offline scan uploaded 10 times at once (same nonce): one check-in", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    const body = { force: true, datetime: "2030-06-01T19:30:00Z", nonce: "upload-nonce-1", questions_supported: false };
    const url = `${v.path}/checkinlists/${list.id}/positions/${encodeURIComponent(pos.secret)}/redeem/`;
    const results = await Promise.all(Array.from({ length: 10 }, () => v.scanner.post(url, body)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const rows = await db().select().from(checkins).where(eq(checkins.positionId, pos.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      successful: true,
      nonce: "upload-nonce-1",
      forceSent: true,
      datetime: Date.parse("2030-06-01T19:30:00Z"),
    });
    expect((await statusOf(v, list.id)).scans).toMatchObject({ uploaded: 1, online: 0 });
  });

  it("a re-issue racing scans of the old secret: once it has answered, the old secret is refused everywhere; at most one scan admitted", async () => {
    const v = await signedVenue();
    const list = await v.list();
    const pos = await v.sell();
    const [reissue, ...scans] = await Promise.all([
      v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`),
      ...Array.from({ length: 15 }, () => v.redeem({ secret: pos.secret, lists: [list.id] })),
    ]);
    expect(reissue!.status).toBe(200);
    expect(scans.filter((r) => r.status === 201).length).toBeLessThanOrEqual(1);
    for (const r of scans.filter((x) => x.status !== 201))
      expect(["already_redeemed", "revoked"]).toContain(r.body.reason);
    const after = await Promise.all(
      Array.from({ length: 5 }, () => v.redeem({ secret: pos.secret, lists: [list.id] })),
    );
    expect(after.map((r) => r.body.reason)).toEqual(Array(5).fill("revoked"));
    expect((await revokedOf(v)).results.map((r: Json) => r.secret)).toEqual([pos.secret]);
  });

  it("simultaneous re-issues of one ticket: every secret handed out but the current one is revoked; refused ones change nothing", async () => {
    const v = await signedVenue();
    const pos = await v.sell();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`)),
    );
    const ok = results.filter((r) => r.status === 200);
    // the losers saw a secret that was no longer the ticket's: refused, nothing changed by them
    for (const r of results.filter((x) => x.status !== 200))
      expect(r).toMatchObject({
        status: 400,
        body: { detail: "A ticket of this order changed meanwhile; read it again." },
      });
    expect(ok.length).toBeGreaterThanOrEqual(1);
    const current = (await v.client.get(`${v.path}/orderpositions/${pos.id}/`)).body.secret;
    const revoked = new Set((await revokedOf(v)).results.map((r: Json) => r.secret));
    expect(revoked.has(pos.secret)).toBe(true);
    expect(revoked.has(current)).toBe(false);
    expect(revoked.size).toBe(ok.length);
  });
});
