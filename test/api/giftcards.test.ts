import { describe, expect, it } from "vitest";
import { seedDevice, seedEventRow, seedOrganizer, seedTeam } from "../harness";
import {
  cardRow,
  cardsOf,
  cardTransactions,
  createCard,
  giftCardCount,
  seedAcceptance,
  seedOrder,
} from "../helpers/customers";
import { db } from "../harness";
import { giftCardTransactions } from "../../src/db/schema";
import { eq } from "drizzle-orm";

const sumCents = (rows: { value: number }[]) => rows.reduce((s, r) => s + r.value, 0);

describe("gift cards: create", () => {
  it("creates a card with the spec's fields and records the initial value as a transaction", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(`${cardsOf(org)}/`, {
      secret: "HLBYVELFRC77NCQY",
      currency: "EUR",
      value: "13.37",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      secret: "HLBYVELFRC77NCQY",
      value: "13.37",
      currency: "EUR",
      testmode: false,
      expires: null,
      conditions: null,
    });
    const tx = await org.client.get(`${cardsOf(org)}/${res.body.id}/transactions/`);
    expect(tx.status).toBe(200);
    expect(tx.body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [
        {
          id: expect.any(Number),
          datetime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          value: "13.37",
          event: null,
          order: null,
          text: null,
        },
      ],
    });
    expect(await cardRow(res.body.id)).toMatchObject({ value: 1337, issuerId: org.id });
  });

  it("takes testmode, expires and conditions", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, {
      testmode: true,
      expires: "2031-05-01T10:00:00+02:00",
      conditions: "Only valid for workshops",
      value: 0,
    });
    expect(card).toMatchObject({
      testmode: true,
      expires: "2031-05-01T08:00:00Z",
      conditions: "Only valid for workshops",
      value: "0.00",
    });
    // a zero initial value is still a transaction, as in pretix
    expect((await cardTransactions(card.id)).map((t) => t.value)).toEqual([0]);
  });

  it("applies the organizer's giftcard_expiry_years when expires is not sent, and not when it is null", async () => {
    const org = await seedOrganizer();
    const set = await org.client.patch(`/api/v1/organizers/${org.slug}/settings/`, { giftcard_expiry_years: 2 });
    expect(set.status).toBe(200);
    const year = new Date().getUTCFullYear() + 2;
    expect((await createCard(org)).expires).toBe(`${year}-12-31T23:59:59Z`);
    expect((await createCard(org, { expires: null })).expires).toBeNull();
    expect((await createCard(org, { expires: "2040-01-01T00:00:00Z" })).expires).toBe("2040-01-01T00:00:00Z");
  });

  it("answers 400 with field errors for invalid input and creates nothing", async () => {
    const org = await seedOrganizer();
    const url = `${cardsOf(org)}/`;
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        {},
        {
          secret: ["This field is required."],
          currency: ["This field is required."],
          value: ["This field is required."],
        },
      ],
      [
        { secret: "AB CD", currency: "EUR", value: "1.00" },
        { secret: ["The gift card code may only contain letters, numbers, dots and dashes."] },
      ],
      [
        { secret: "-ABC", currency: "EUR", value: "1.00" },
        { secret: ["The gift card code may only contain letters, numbers, dots and dashes."] },
      ],
      [
        { secret: "A", currency: "EUR", value: "1.00" },
        { secret: ["The gift card code may only contain letters, numbers, dots and dashes."] },
      ],
      [
        { secret: "A".repeat(191), currency: "EUR", value: "1.00" },
        { secret: ["Ensure this field has no more than 190 characters."] },
      ],
      [{ secret: "ABCD", currency: "EURO", value: "1.00" }, { currency: ["Enter a valid ISO 4217 currency code."] }],
      [{ secret: "ABCD", currency: "eur", value: "1.00" }, { currency: ["Enter a valid ISO 4217 currency code."] }],
      [{ secret: "ABCD", currency: "XQQ", value: "1.00" }, { currency: ["Enter a valid ISO 4217 currency code."] }],
      [
        { secret: "ABCD", currency: "EUR", value: "-1.00" },
        { value: ["Ensure this value is greater than or equal to 0.00."] },
      ],
      [
        { secret: "ABCD", currency: "EUR", value: "1.001" },
        { value: ["Ensure that there are no more than 2 decimal places."] },
      ],
      [
        { secret: "ABCD", currency: "EUR", value: "100000000000.00" },
        { value: ["Ensure this value is less than or equal to 99999999999.99."] },
      ],
      [{ secret: "ABCD", currency: "EUR", value: "1e400" }, { value: ["A valid number is required."] }],
      [{ secret: "ABCD", currency: "EUR", value: "1.00", testmode: "yes" }, { testmode: ["Must be a valid boolean."] }],
      [
        { secret: "ABCD", currency: "EUR", value: "1.00", expires: "tomorrow" },
        { expires: [expect.stringContaining("Datetime has wrong format")] },
      ],
      [{ secret: 12345, currency: "EUR", value: "1.00" }, { secret: ["Not a valid string."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await org.client.post(url, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toEqual(errors);
    }
    expect(await giftCardCount(org.id)).toBe(0);
  });

  it("keeps secrets unique within the issuer and the organizers whose cards it accepts", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await createCard(org, { secret: "SAME-CODE" });
    const dup = await org.client.post(`${cardsOf(org)}/`, { secret: "SAME-CODE", currency: "EUR", value: "5.00" });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({
      secret: ["A gift card with the same secret already exists in your or an affiliated organizer account."],
    });
    expect(await giftCardCount(org.id)).toBe(1);
    // another organizer may use the same code for its own cards ...
    await createCard(other, { secret: "SAME-CODE" });
    // ... but once org accepts other's cards, a code of other's cannot be issued by org
    await createCard(other, { secret: "OTHER-ONLY" });
    await seedAcceptance(other.id, org.id);
    const affiliated = await org.client.post(`${cardsOf(org)}/`, {
      secret: "OTHER-ONLY",
      currency: "EUR",
      value: "5.00",
    });
    expect(affiliated.status).toBe(400);
    expect(affiliated.body).toEqual({
      secret: ["A gift card with the same secret already exists in your or an affiliated organizer account."],
    });
  });

  it("never creates two cards with one secret under parallel requests", async () => {
    const org = await seedOrganizer();
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        org.client.post(`${cardsOf(org)}/`, { secret: "RACE-CODE", currency: "EUR", value: "1.00" }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(7);
    expect(await giftCardCount(org.id)).toBe(1);
  });
});

describe("gift cards: list and detail", () => {
  it("lists the organizer's cards with secret and testmode filters", async () => {
    const org = await seedOrganizer();
    const a = await createCard(org, { secret: "Alpha-1" });
    const b = await createCard(org, { secret: "Beta-2", testmode: true });
    const other = await seedOrganizer();
    await createCard(other, { secret: "Alpha-1" });

    const all = await org.client.get(`${cardsOf(org)}/`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ count: 2, next: null, previous: null, results: [a, b] });

    expect((await org.client.get(`${cardsOf(org)}/?secret=alpha-1`)).body.results).toEqual([a]);
    expect((await org.client.get(`${cardsOf(org)}/?secret=nothing`)).body.count).toBe(0);
    expect((await org.client.get(`${cardsOf(org)}/?testmode=true`)).body.results).toEqual([b]);
    expect((await org.client.get(`${cardsOf(org)}/?testmode=false`)).body.results).toEqual([a]);
    const bad = await org.client.get(`${cardsOf(org)}/?testmode=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ testmode: ["Select a valid choice. Use true or false."] });
  });

  it("paginates", async () => {
    const org = await seedOrganizer();
    for (let i = 0; i < 3; i++) await createCard(org);
    const first = await org.client.get(`${cardsOf(org)}/?page_size=2`);
    expect(first.body.count).toBe(3);
    expect(first.body.results).toHaveLength(2);
    expect(first.body.next).toContain("page=2");
    const second = await org.client.get(first.body.next);
    expect(second.body.results).toHaveLength(1);
  });

  it("shows one card; unknown, malformed and other organizers' ids are 404", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    const card = await createCard(org);
    const foreign = await createCard(other);
    const res = await org.client.get(`${cardsOf(org)}/${card.id}/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(card);
    expect((await org.client.get(`${cardsOf(org)}/99999999/`)).status).toBe(404);
    expect((await org.client.get(`${cardsOf(org)}/abc/`)).status).toBe(404);
    for (const path of [`${foreign.id}/`, `${foreign.id}/transactions/`]) {
      const r = await org.client.get(`${cardsOf(org)}/${path}`);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Not found." });
    }
    const transact = await org.client.post(`${cardsOf(org)}/${foreign.id}/transact/`, { value: "-1.00" });
    expect(transact.status).toBe(404);
    const patch = await org.client.patch(`${cardsOf(org)}/${foreign.id}/`, { conditions: "mine" });
    expect(patch.status).toBe(404);
    expect(await cardRow(foreign.id)).toMatchObject({ value: 1000, conditions: null });
  });

  it("cannot be deleted (405)", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org);
    const res = await org.client.delete(`${cardsOf(org)}/${card.id}/`);
    expect(res.status).toBe(405);
    expect(await cardRow(card.id)).toBeDefined();
  });

  it("is available to devices (fixed grant) and refused to teams without can_manage_gift_cards", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org);
    const device = await seedDevice(org.id);
    expect((await device.client.get(`${cardsOf(org)}/${card.id}/`)).status).toBe(200);
    expect((await device.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value: "-1.00" })).status).toBe(200);
    const team = await seedTeam(org.id, { permissions: ["can_manage_customers", "can_change_orders"] });
    expect((await team.client.get(`${cardsOf(org)}/`)).status).toBe(403);
  });
});

describe("gift cards: update", () => {
  it("PATCH changes expires and conditions; id, secret, currency and testmode stay", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { secret: "KEEP-ME" });
    const res = await org.client.patch(`${cardsOf(org)}/${card.id}/`, {
      id: 999,
      secret: "CHANGED",
      currency: "USD",
      testmode: true,
      expires: "2030-01-01T00:00:00Z",
      conditions: "Not for drinks",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...card, expires: "2030-01-01T00:00:00Z", conditions: "Not for drinks" });
    expect(await cardRow(card.id)).toMatchObject({ secret: "KEEP-ME", currency: "EUR", testmode: false, value: 1000 });
  });

  it("PATCH of value sets the balance and records the difference as a transaction", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { value: "13.37" });
    const res = await org.client.patch(`${cardsOf(org)}/${card.id}/`, { value: "14.00" });
    expect(res.status).toBe(200);
    expect(res.body.value).toBe("14.00");
    const same = await org.client.patch(`${cardsOf(org)}/${card.id}/`, { value: "14.00" });
    expect(same.status).toBe(200);
    const tx = (await org.client.get(`${cardsOf(org)}/${card.id}/transactions/`)).body.results;
    expect(tx.map((t: { value: string }) => t.value)).toEqual(["13.37", "0.63"]);
    const neg = await org.client.patch(`${cardsOf(org)}/${card.id}/`, { value: "-10.00" });
    expect(neg.status).toBe(400);
    expect(neg.body).toEqual({ value: ["Ensure this value is greater than or equal to 0.00."] });
    expect((await cardRow(card.id))!.value).toBe(1400);
  });

  it("PUT requires value and resets the omitted fields", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { conditions: "Terms", expires: "2030-01-01T00:00:00Z" });
    const missing = await org.client.put(`${cardsOf(org)}/${card.id}/`, { conditions: "New" });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ value: ["This field is required."] });
    const res = await org.client.put(`${cardsOf(org)}/${card.id}/`, { value: "10.00", secret: "IGNORED" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...card, conditions: null, expires: null });
    expect(await cardTransactions(card.id)).toHaveLength(1);
  });

  it("refuses updates of accepted cards (include_accepted) with 403", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org);
    const res = await org.client.patch(`${cardsOf(org)}/${card.id}/?include_accepted=true`, { conditions: "x" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: "Accepted gift cards cannot be updated, use transact instead." });
    expect((await cardRow(card.id))!.conditions).toBeNull();
  });
});

describe("gift cards: transact", () => {
  it("adds and subtracts signed amounts and returns the card", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { value: "13.37" });
    const up = await org.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value: "2.00" });
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ ...card, value: "15.37" });
    const down = await org.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value: "-15.37", text: "Bar tab" });
    expect(down.status).toBe(200);
    expect(down.body.value).toBe("0.00");
    const tx = (await org.client.get(`${cardsOf(org)}/${card.id}/transactions/`)).body;
    expect(tx.count).toBe(3);
    expect(tx.results.map((t: { value: string; text: string | null }) => [t.value, t.text])).toEqual([
      ["13.37", null],
      ["2.00", null],
      ["-15.37", "Bar tab"],
    ]);
  });

  it("answers 409 when the credit is insufficient and changes nothing", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { value: "23.00" });
    const res = await org.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value: "-100.00" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: "The gift card does not have sufficient credit for this operation.",
      value: ["The gift card does not have sufficient credit for this operation."],
    });
    expect((await cardRow(card.id))!.value).toBe(2300);
    expect(await cardTransactions(card.id)).toHaveLength(1);
  });

  it("answers 400 for missing, malformed or too large amounts", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { value: "99999999999.00" });
    const url = `${cardsOf(org)}/${card.id}/transact/`;
    expect((await org.client.post(url, {})).body).toEqual({ value: ["This field is required."] });
    expect((await org.client.post(url, { value: "abc" })).body).toEqual({ value: ["A valid number is required."] });
    expect((await org.client.post(url, { value: "1.00", text: 5 })).body).toEqual({ text: ["Not a valid string."] });
    const over = await org.client.post(url, { value: "1.00" });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ value: ["The gift card value would exceed the maximum of 99999999999.99."] });
    expect((await org.client.post(url, { value: "-100000000000.00" })).status).toBe(400);
    expect(await cardTransactions(card.id)).toHaveLength(1);
    expect((await org.client.post(`${cardsOf(org)}/424242/transact/`, { value: "1.00" })).status).toBe(404);
  });

  it("parallel debits never drive the balance below zero; successes match the transactions", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { value: "100.00" });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        org.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value: "-7.00", text: `debit ${i}` }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const conflict = results.filter((r) => r.status === 409);
    expect(ok).toHaveLength(14);
    expect(conflict).toHaveLength(6);
    for (const r of conflict)
      expect(r.body.detail).toBe("The gift card does not have sufficient credit for this operation.");
    // every successful answer shows a distinct, non-negative balance
    const balances = ok.map((r) => Math.round(Number(r.body.value) * 100)).sort((x, y) => x - y);
    expect(new Set(balances).size).toBe(14);
    expect(balances[0]).toBe(200);
    const row = await cardRow(card.id);
    expect(row!.value).toBe(200);
    const tx = await cardTransactions(card.id);
    expect(tx).toHaveLength(1 + 14);
    expect(tx.filter((t) => t.value === -700)).toHaveLength(14);
    expect(sumCents(tx)).toBe(row!.value);
    const api = await org.client.get(`${cardsOf(org)}/${card.id}/`);
    expect(api.body.value).toBe("2.00");
  });

  it("parallel credits and debits keep balance and transactions equal and never negative", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { value: "50.00" });
    const amounts = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? "5.00" : "-9.00"));
    const results = await Promise.all(
      amounts.map((value) => org.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value })),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    const applied = amounts.filter((_, i) => results[i]!.status === 200);
    expect(results.every((r, i) => r.status === 200 || amounts[i] === "-9.00")).toBe(true);
    const expected = 5000 + applied.reduce((s, v) => s + Math.round(Number(v) * 100), 0);
    const row = await cardRow(card.id);
    expect(row!.value).toBe(expected);
    expect(row!.value).toBeGreaterThanOrEqual(0);
    const tx = await cardTransactions(card.id);
    expect(tx).toHaveLength(1 + applied.length);
    expect(sumCents(tx)).toBe(row!.value);
  });
});

describe("gift cards: transactions", () => {
  it("shows the order and event of transactions made by orders", async () => {
    const org = await seedOrganizer();
    const event = await seedEventRow(org.id);
    const order = await seedOrder(event.id, null);
    const card = await createCard(org, { value: "20.00" });
    // order processing (another area) writes such rows; here one is written directly
    await db()
      .insert(giftCardTransactions)
      .values({ cardId: card.id, datetime: Date.now() + 1000, value: 0, orderId: order.id, acceptorId: org.id });
    const res = await org.client.get(`${cardsOf(org)}/${card.id}/transactions/`);
    expect(res.body.results[1]).toEqual({
      id: expect.any(Number),
      datetime: expect.any(String),
      value: "0.00",
      event: event.slug,
      order: order.code,
      text: null,
    });
  });

  it("answers 404 for unknown cards", async () => {
    const org = await seedOrganizer();
    expect((await org.client.get(`${cardsOf(org)}/31337/transactions/`)).status).toBe(404);
  });
});

describe("gift cards: transaction rows are written only with the balance", () => {
  it("every card's balance equals the sum of its transactions after mixed operations", async () => {
    const org = await seedOrganizer();
    const card = await createCard(org, { value: "5.00" });
    await org.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value: "-6.00" });
    await org.client.patch(`${cardsOf(org)}/${card.id}/`, { value: "8.00" });
    await org.client.post(`${cardsOf(org)}/${card.id}/transact/`, { value: "-3.00" });
    const rows = await db().select().from(giftCardTransactions).where(eq(giftCardTransactions.cardId, card.id));
    expect(rows.map((r) => r.value)).toEqual([500, 300, -300]);
    expect((await cardRow(card.id))!.value).toBe(500);
  });
});
