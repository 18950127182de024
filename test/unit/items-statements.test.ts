import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { createItemStatements } from "../../src/db/items";

// Local SQLite does not enforce D1's limit of 100 bound parameters per statement: check the
// statements an item creation with long nested lists produces.
describe("item creation statements", () => {
  it("stay within 100 bound parameters each, however long the nested lists", () => {
    const db = createDb(env.DB);
    const types = Array.from({ length: 250 }, (_, i) => i + 1);
    const variation = {
      values: {
        value: { en: "V" },
        defaultPrice: 100,
        originalPrice: 200,
        active: true,
        description: { en: "d" },
        position: 1,
        checkinAttention: true,
        requireApproval: true,
        requireMembership: true,
        requireMembershipHidden: true,
        hideWithoutVoucher: true,
        salesChannels: ["web"],
        availableFrom: 1,
        availableUntil: 2,
        metaData: { a: "b" },
      },
      membershipTypeIds: types,
    };
    const statements = createItemStatements(
      db,
      1,
      1,
      { name: { en: "Item" }, defaultPrice: 100, salesChannels: ["web"], metaData: {} },
      types,
      Array.from({ length: 40 }, () => variation),
      Array.from({ length: 120 }, (_, i) => ({
        addonCategoryId: i + 1,
        minCount: 0,
        maxCount: 1,
        position: 0,
        priceIncluded: false,
        multiAllowed: false,
      })),
      Array.from({ length: 120 }, (_, i) => ({
        bundledItemId: i + 1,
        bundledVariationId: i + 2,
        count: 1,
        designatedPrice: 0,
      })),
      Date.now(),
    );
    expect(statements.length).toBeGreaterThan(40);
    for (const st of statements) expect(st.toSQL().params.length).toBeLessThanOrEqual(100);
  });
});
