/**
 * The pieces of signed ticket secrets (src/lib/ticket-signing.ts): the protobuf payload, the
 * secret's envelope, keys in `valid_keys` encoding, and sealing a private key with the
 * deployment secret.
 */
import { describe, expect, it } from "vitest";
import {
  decodeSig1Payload,
  encodeSig1Payload,
  encodeSig1Secret,
  generateSigningKey,
  importSigningKey,
  importVerifyKey,
  parseSig1Secret,
  seal,
  signSig1,
  unixSeconds,
  unseal,
  validKeyToPublicKey,
  verifySig1,
} from "../../src/lib/ticket-signing";

const ticket = {
  seed: "Ab3dEf9hZ",
  item: 300,
  variation: 0,
  subevent: 17,
  validFromUnixTime: 0,
  validUntilUnixTime: 1_900_000_000,
};

describe("payload", () => {
  it("writes pretix's bytes: seed, item, (no zero variation), subevent, both times, as varints", () => {
    const bytes = [...encodeSig1Payload(ticket)];
    expect(bytes).toEqual([
      0x0a,
      9,
      ...new TextEncoder().encode("Ab3dEf9hZ"),
      0x10,
      0xac,
      0x02,
      0x20,
      17,
      0x28,
      0,
      0x30,
      0x80,
      0xe6,
      0xfe,
      0x89,
      0x07,
    ]);
    expect(decodeSig1Payload(Uint8Array.from(bytes))).toEqual(ticket);
  });

  it("negative int64 (a time before 1970) as ten bytes, and back", () => {
    const t = { ...ticket, validFromUnixTime: -1 };
    const bytes = encodeSig1Payload(t);
    expect(bytes.length).toBe(encodeSig1Payload(ticket).length + 9);
    expect(decodeSig1Payload(bytes)).toEqual(t);
  });

  it("refuses garbage", () => {
    expect(decodeSig1Payload(Uint8Array.from([0x0a, 50, 1]))).toBeNull();
    expect(decodeSig1Payload(Uint8Array.from([0x10]))).toBeNull();
  });

  it("times: whole Unix seconds, truncated; none is 0", () => {
    expect(unixSeconds(null)).toBe(0);
    expect(unixSeconds(1_700_000_000_999)).toBe(1_700_000_000);
  });
});

describe("envelope, keys, signatures", () => {
  it("version, big-endian lengths, base64, reversed; parse gives the parts back", () => {
    const secret = encodeSig1Secret(Uint8Array.from([1, 2, 3]), Uint8Array.from([9, 8]));
    expect(secret).toBe(
      btoa(String.fromCharCode(1, 0, 3, 0, 2, 1, 2, 3, 9, 8))
        .split("")
        .reverse()
        .join(""),
    );
    const parts = parseSig1Secret(secret)!;
    expect([...parts.payload]).toEqual([1, 2, 3]);
    expect([...parts.signature]).toEqual([9, 8]);
    expect(parseSig1Secret("abcdefghjkmnpqrstuvwxyz234567892")).toBeNull();
    expect(parseSig1Secret(secret.slice(1))).toBeNull();
  });

  it("a key pair: signs, verifies its own, refuses another key's and a changed byte", async () => {
    const a = await generateSigningKey();
    const b = await generateSigningKey();
    expect(validKeyToPublicKey(a.validKey)).toHaveLength(44);
    const secret = await signSig1(await importSigningKey(a.privateKey), ticket);
    expect(await verifySig1((await importVerifyKey(a.validKey))!, secret)).toEqual(ticket);
    expect(await verifySig1((await importVerifyKey(b.validKey))!, secret)).toBeNull();
    const raw = Uint8Array.from(atob(secret.split("").reverse().join("")), (c) => c.charCodeAt(0));
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 1;
    const changed = btoa(String.fromCharCode(...raw))
      .split("")
      .reverse()
      .join("");
    expect(await verifySig1((await importVerifyKey(a.validKey))!, changed)).toBeNull();
  });

  it("sealing: opens with the same secret and context only", async () => {
    const data = Uint8Array.from([1, 2, 3, 4]);
    const sealed = await seal("a-deployment-secret-of-enough-length-123", data, "event:1:pretix_sig1");
    expect(sealed).toMatch(/^v1\./);
    expect([...(await unseal("a-deployment-secret-of-enough-length-123", sealed, "event:1:pretix_sig1"))!]).toEqual([
      1, 2, 3, 4,
    ]);
    expect(await unseal("another-deployment-secret-of-enough-length", sealed, "event:1:pretix_sig1")).toBeNull();
    expect(await unseal("a-deployment-secret-of-enough-length-123", sealed, "event:2:pretix_sig1")).toBeNull();
    expect(await unseal("a-deployment-secret-of-enough-length-123", "v2.x.y", "event:1:pretix_sig1")).toBeNull();
  });
});
