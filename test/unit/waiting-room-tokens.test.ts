/**
 * The on-sale queue's tokens (src/lib/waiting-room-tokens.ts): both kinds round-trip, and a token that is
 * forged, of the other kind, truncated, altered or signed with another secret reads as null.
 */
import { describe, expect, it } from "vitest";
import {
  type Admission,
  newQueueNonce,
  type QueueTicket,
  readAdmission,
  readQueueTicket,
  signAdmission,
  signQueueTicket,
} from "../../src/lib/waiting-room-tokens";

const SECRET = "unit-test-deployment-secret-0123456789abcdef";
const OTHER = "another-deployment-secret-0123456789abcdefgh";
const ticket: QueueTicket = { q: 7, e: 3, j: 1_800_000_000_000, n: "AbCdEfGh12345678", s: 12 };
const admission: Admission = { q: 7, e: 3, s: null, a: "AbCdEfGh12345678", o: 2, x: 1_800_000_900_000 };

/** base64url of a JSON value, as the token's payload part. */
const b64url = (v: unknown) => btoa(JSON.stringify(v)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

describe("queue tokens", () => {
  it("a queue ticket and an admission read back as signed, in the compact form", async () => {
    const t = await signQueueTicket(SECRET, ticket);
    expect(t).toMatch(/^qt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await readQueueTicket(SECRET, t)).toEqual(ticket);
    const a = await signAdmission(SECRET, admission);
    expect(a).toMatch(/^qa1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await readAdmission(SECRET, a)).toEqual(admission);
    const dated = await signAdmission(SECRET, { ...admission, s: 41 });
    expect(await readAdmission(SECRET, dated)).toEqual({ ...admission, s: 41 });
  });

  it("the payload is base64url JSON with the contract's keys", async () => {
    const a = await signAdmission(SECRET, admission);
    expect(a.split(".")[1]).toBe(b64url({ q: 7, e: 3, s: null, a: "AbCdEfGh12345678", o: 2, x: 1_800_000_900_000 }));
  });

  it("the other kind is refused, even with the same payload", async () => {
    const t = await signQueueTicket(SECRET, ticket);
    const a = await signAdmission(SECRET, admission);
    expect(await readAdmission(SECRET, t)).toBeNull();
    expect(await readQueueTicket(SECRET, a)).toBeNull();
    // the kind is part of what is signed: relabeling does not help
    expect(await readAdmission(SECRET, `qa1.${t.slice(4)}`)).toBeNull();
  });

  it("another deployment secret does not read it", async () => {
    expect(await readQueueTicket(OTHER, await signQueueTicket(SECRET, ticket))).toBeNull();
    expect(await readAdmission(OTHER, await signAdmission(SECRET, admission))).toBeNull();
  });

  it("a forged payload (more orders, another event) is refused", async () => {
    const a = await signAdmission(SECRET, admission);
    const [kind, , mac] = a.split(".");
    expect(await readAdmission(SECRET, `${kind}.${b64url({ ...admission, o: 100 })}.${mac}`)).toBeNull();
    expect(await readAdmission(SECRET, `${kind}.${b64url({ ...admission, e: 4 })}.${mac}`)).toBeNull();
    expect(await readAdmission(SECRET, `${kind}.${b64url(admission)}.${"A".repeat(43)}`)).toBeNull();
  });

  it("truncated, altered or malformed tokens are refused", async () => {
    const a = await signAdmission(SECRET, admission);
    for (const cut of [a.length - 1, a.length - 10, a.lastIndexOf("."), 10, 3, 0]) {
      expect(await readAdmission(SECRET, a.slice(0, cut))).toBeNull();
    }
    const flip = a.slice(0, -2) + (a.at(-2) === "A" ? "B" : "A") + a.at(-1);
    expect(await readAdmission(SECRET, flip)).toBeNull();
    for (const bad of ["", "qa1", "qa1..", "qa1.e30.", `${a}.x`, `${a}=`, "x".repeat(5000), "qa1.!!!.???"]) {
      expect(await readAdmission(SECRET, bad)).toBeNull();
    }
  });

  it("a correctly signed payload of the wrong shape is refused", async () => {
    const bad = [
      { ...admission, o: 0 },
      { ...admission, q: "7" },
      { ...admission, a: "" },
      { ...admission, x: -1 },
      { q: 7, e: 3 },
    ];
    for (const p of bad) expect(await readAdmission(SECRET, await signAdmission(SECRET, p as Admission))).toBeNull();
    expect(await readQueueTicket(SECRET, await signQueueTicket(SECRET, { ...ticket, n: "a.b" }))).toBeNull();
  });

  it("nonces are 16 characters and differ", () => {
    const a = newQueueNonce();
    expect(a).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(newQueueNonce()).not.toBe(a);
  });
});
