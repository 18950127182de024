import { describe, expect, it } from "vitest";
import { readOrder } from "../helpers/pages";
import { paidByCard, stripeShop } from "../helpers/stripe";

describe("smoke", () => {
  it("pays", async () => {
    const s = await stripeShop();
    const o = await paidByCard(s);
    expect(o.status).toBe("p");
    expect(o.payments[0]).toMatchObject({ state: "confirmed", provider: "stripe" });
    const again = await readOrder(s, o.code);
    expect(again.refunds).toEqual([]);
  });
});
