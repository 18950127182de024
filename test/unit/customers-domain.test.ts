import { describe, expect, it } from "vitest";
import { generateCustomerIdentifier } from "../../src/services/organizers/customers";
import {
  defaultGiftCardExpiry,
  GIFT_CARD_SECRET_PATTERN,
  generateGiftCardSecret,
} from "../../src/services/payments/giftcards";
import { buildName, withScheme } from "../../src/rules/person-names";
import { hashPassword, verifyPassword } from "../../src/lib/password";

describe("gift card rules", () => {
  it("generates codes of the configured length from pretix's alphabet", () => {
    for (const length of [6, 12, 64]) {
      const code = generateGiftCardSecret(length);
      expect(code).toMatch(new RegExp(`^[ABCDEFGHJKLMNPQRSTUVWXYZ3789]{${length}}$`));
      expect(code).toMatch(GIFT_CARD_SECRET_PATTERN);
    }
    expect(new Set(Array.from({ length: 50 }, () => generateGiftCardSecret(12))).size).toBe(50);
  });

  it("expires at the end of the calendar year n years ahead, or never", () => {
    const now = Date.UTC(2026, 2, 15, 12, 0, 0);
    expect(defaultGiftCardExpiry(3, now)).toBe(Date.UTC(2029, 11, 31, 23, 59, 59));
    expect(defaultGiftCardExpiry(null, now)).toBeNull();
  });
});

describe("person names", () => {
  it("joins the parts as pretix's schemes do", () => {
    expect(buildName({ _scheme: "given_family", given_name: "John", family_name: "Doe" })).toBe("John Doe");
    expect(buildName({ _scheme: "given_family", family_name: "Doe" })).toBe("Doe");
    expect(buildName({ _scheme: "family_nospace_given", given_name: "泽东", family_name: "毛" })).toBe("毛泽东");
    expect(buildName({ _scheme: "family_comma_given", given_name: "John" })).toBe("John");
    expect(buildName({ _scheme: "calling_full", calling_name: "Jo", full_name: "John Doe" })).toBe("John Doe");
    expect(buildName({ _legacy: "Foo" })).toBe("Foo");
    expect(buildName({ full_name: "  " })).toBeNull();
    expect(buildName({})).toBeNull();
    expect(withScheme({ full_name: "A" })).toEqual({ full_name: "A", _scheme: "full" });
    expect(withScheme({})).toEqual({});
  });
});

describe("customer identifiers and passwords", () => {
  it("identifiers use pretix's alphabet and grow after collisions", () => {
    expect(generateCustomerIdentifier()).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{7}$/);
    expect(generateCustomerIdentifier(4)).toHaveLength(9);
  });

  it("hashes in Django's pbkdf2_sha256 form and verifies Django hashes", async () => {
    const hash = await hashPassword("pretix rocks", 1000);
    expect(hash).toMatch(/^pbkdf2_sha256\$1000\$/);
    expect(await verifyPassword("pretix rocks", hash)).toBe(true);
    // computed independently (Python hashlib.pbkdf2_hmac)
    const django = "pbkdf2_sha256$1000$Xy7saltsaltsalt$DKTom9eFb2w9h3E6ysE6EthDdDnjduZvuzBPzNRSdOI=";
    expect(await verifyPassword("pretix rocks", django)).toBe(true);
    expect(await verifyPassword("pretix rock", django)).toBe(false);
    for (const bad of [
      null,
      "",
      "!unusable",
      "md5$1$a$b",
      "pbkdf2_sha256$abc$salt$hash",
      "pbkdf2_sha256$9999999$salt$hash",
    ]) {
      expect(await verifyPassword("pretix rocks", bad)).toBe(false);
    }
  });
});
