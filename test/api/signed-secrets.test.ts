/**
 * Signed ticket secrets (pretix "Ticket secret generators", scheme `pretix_sig1`): the setting
 * that chooses them, the event's key in `valid_keys`, secrets in pretix's exact format (decoded
 * here by an independent implementation, test/helpers/offline-scanner.ts), new secrets and the
 * revocation list when a ticket is re-issued or canceled, blocks, and what the redeem answers.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins, ticketSigningKeys } from "../../src/db/schema";
import { db, type Json } from "../harness";
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
