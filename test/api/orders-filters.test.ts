/**
 * The orders list's filters as pretix documents them (orders.rst, "List of all orders"):
 * `search` and the others the route used to accept and ignore; `include` / `exclude`,
 * `include_canceled_positions` / `include_canceled_fees`; unknown parameters are ignored.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions, orders } from "../../src/db/schema";
import { db } from "../harness";
import { shop, type Shop } from "../helpers/sales";

type Order = { code: string; positions: { id: number; secret: string }[] };

async function world() {
  const s = await shop({ series: true });
  const ticket = await s.item();
  const shirt = await s.item({
    name: { en: "Shirt" },
    admission: false,
    variations: [{ value: { en: "S" } }, { value: { en: "M" } }],
  });
  const july = await s.subevent({ date_from: "2030-07-01T19:00:00Z", date_to: "2030-07-01T23:00:00Z" });
  const august = await s.subevent({ date_from: "2030-08-01T19:00:00Z" });
  for (const d of [july, august])
    await s.quota({
      size: 20,
      items: [ticket.id, shirt.id],
      variations: shirt.variations.map((v: { id: number }) => v.id),
      subevent: d.id,
    });
  const create = async (body: Record<string, unknown>): Promise<Order> => {
    const res = await s.client.post(`${s.path}/orders/`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const anna = await create({
    email: "anna@example.org",
    payment_provider: "manual",
    comment: "Wants a seat near the stage",
    invoice_address: { company: "ACME %_ GmbH", name_parts: { full_name: "Anna Beispiel" }, country: "DE" },
    positions: [{ item: ticket.id, subevent: july.id, attendee_name_parts: { full_name: "Peter Pan" } }],
  });
  const bob = await create({
    email: "bob@example.com",
    invoice_address: { name_parts: { given_name: "Jane", family_name: "Doe" }, country: "DE" },
    positions: [
      { item: shirt.id, variation: shirt.variations[1].id, subevent: august.id, attendee_email: "guest@example.net" },
      { item: ticket.id, subevent: august.id, attendee_name_parts: { full_name: "Zoë 🎸" } },
    ],
  });
  await s.settle();
  return { s, ticket, shirt, july, august, anna, bob };
}

const codes = async (s: Shop, query: string) => {
  const res = await s.client.get(`${s.path}/orders/?${query}`);
  expect(res.status, `${query}: ${res.text.slice(0, 300)}`).toBe(200);
  return (res.body.results as { code: string }[]).map((o) => o.code).sort();
};

describe("the orders list's search", () => {
  it("finds orders by code, email, invoice name and company, comment, attendee names and emails, start of a ticket secret", async () => {
    const { s, anna, bob } = await world();
    const both = [anna.code, bob.code].sort();
    const search = (term: string) => codes(s, `search=${encodeURIComponent(term)}`);
    expect(await search(anna.code.slice(1, 5).toLowerCase())).toContain(anna.code);
    expect(await search(`${s.eventSlug}-${anna.code}`)).toEqual([anna.code]);
    expect(await search(`other-event-${anna.code}`)).toEqual([]);
    expect(await search("ANNA@EXAMPLE")).toEqual([anna.code]);
    expect(await search("example")).toEqual(both);
    expect(await search("acme %_ gmbh")).toEqual([anna.code]);
    expect(await search("%_")).toEqual([anna.code]);
    expect(await search("Beispiel")).toEqual([anna.code]);
    // a name made of parts is found as a whole
    expect(await search("Jane Doe")).toEqual([bob.code]);
    expect(await search("near the stage")).toEqual([anna.code]);
    expect(await search("peter")).toEqual([anna.code]);
    expect(await search("🎸")).toEqual([bob.code]);
    expect(await search("guest@example.net")).toEqual([bob.code]);
    const secret = bob.positions[0]!.secret;
    expect(await search(secret.slice(0, 8))).toEqual([bob.code]);
    // the secret matches at its start only
    expect(await search(secret.slice(3, 12))).not.toContain(bob.code);
    // literal, any length, never a 500
    expect(await search("%")).toEqual([anna.code]);
    expect(await search("_")).toEqual([anna.code]);
    expect(await search("nobody")).toEqual([]);
    expect(await search("x".repeat(80))).toEqual([]);
    expect(await search("%_\\".repeat(30))).toEqual([]);
    expect(await search("a\u0000b")).toEqual([]);
  });
});

describe("the orders list's other documented filters", () => {
  it("item, variation, subevent, dates of the dates, creation times, sales channel, payment provider, require_approval", async () => {
    const { s, ticket, shirt, july, august, anna, bob } = await world();
    const both = [anna.code, bob.code].sort();
    expect(await codes(s, `item=${ticket.id}`)).toEqual(both);
    expect(await codes(s, `item=${shirt.id}`)).toEqual([bob.code]);
    expect(await codes(s, `variation=${shirt.variations[1].id}`)).toEqual([bob.code]);
    expect(await codes(s, `variation=${shirt.variations[0].id}`)).toEqual([]);
    expect(await codes(s, `subevent=${july.id}`)).toEqual([anna.code]);
    expect(await codes(s, `subevent=${august.id}`)).toEqual([bob.code]);
    // after: exclusive, by the end of the date (its start without an end)
    expect(await codes(s, `subevent_after=${encodeURIComponent("2030-07-01T22:00:00Z")}`)).toEqual(both);
    expect(await codes(s, `subevent_after=${encodeURIComponent("2030-07-01T23:00:00Z")}`)).toEqual([bob.code]);
    expect(await codes(s, `subevent_after=${encodeURIComponent("2030-08-01T19:00:00Z")}`)).toEqual([]);
    // before: exclusive, by the start of the date
    expect(await codes(s, `subevent_before=${encodeURIComponent("2030-07-01T19:00:00Z")}`)).toEqual([]);
    expect(await codes(s, `subevent_before=${encodeURIComponent("2030-07-15T00:00:00Z")}`)).toEqual([anna.code]);
    const [a] = await db().select().from(orders).where(eq(orders.code, anna.code));
    const created = new Date(a!.datetime).toISOString();
    expect(await codes(s, `created_since=${encodeURIComponent(created)}`)).toContain(anna.code);
    expect(await codes(s, `created_before=${encodeURIComponent(created)}`)).not.toContain(anna.code);
    expect(await codes(s, `created_since=${encodeURIComponent("2999-01-01T00:00:00Z")}`)).toEqual([]);
    expect(await codes(s, `created_before=${encodeURIComponent("2999-01-01T00:00:00Z")}`)).toEqual(both);
    expect(await codes(s, "sales_channel=web")).toEqual(both);
    expect(await codes(s, "sales_channel=pretixpos")).toEqual([]);
    expect(await codes(s, "payment_provider=manual")).toEqual([anna.code]);
    expect(await codes(s, "payment_provider=giftcard")).toEqual([]);
    expect(await codes(s, "require_approval=false")).toEqual(both);
    expect(await codes(s, "require_approval=true")).toEqual([]);
    // filters combine
    expect(await codes(s, `item=${ticket.id}&subevent=${july.id}&search=anna`)).toEqual([anna.code]);
    expect(await codes(s, `item=${shirt.id}&search=anna`)).toEqual([]);
    // parameters pretix does not document are ignored, as pretix does (the description declares none such)
    const undeclared = await s.client.get(`${s.path}/orders/?no_such_filter=1`, { contract: false });
    expect(undeclared.status).toBe(200);
    expect((undeclared.body.results as { code: string }[]).map((o) => o.code).sort()).toEqual(both);
  });

  it("refuses malformed values with field errors", async () => {
    const { s } = await world();
    for (const [param, value] of [
      ["item", "abc"],
      ["variation", "1.5"],
      ["subevent", "x"],
      ["created_since", "yesterday"],
      ["subevent_before", "2030-13-01"],
      ["require_approval", "maybe"],
      ["include_canceled_positions", "perhaps"],
    ] as const) {
      const res = await s.client.get(`${s.path}/orders/?${param}=${value}`);
      expect(res.status, param).toBe(400);
      expect(Object.keys(res.body), param).toEqual([param]);
    }
  });

  it("orders by cancellation_date", async () => {
    const { s, anna, bob } = await world();
    expect((await s.client.post(`${s.path}/orders/${bob.code}/mark_canceled/`, {})).status).toBe(200);
    expect(await codes(s, "ordering=cancellation_date")).toEqual([anna.code, bob.code].sort());
    const desc = await s.client.get(`${s.path}/orders/?ordering=-cancellation_date`);
    expect(desc.body.results[0].code).toBe(bob.code);
  });
});

describe("how the orders list shows each order", () => {
  it("include and exclude fields, nested too; exclude wins", async () => {
    const { s, anna } = await world();
    const list = async (query: string) =>
      (await s.client.get(`${s.path}/orders/?search=${anna.code}&${query}`)).body.results[0];
    expect(await list("include=code&include=positions.secret")).toEqual({
      code: anna.code,
      positions: [{ secret: anna.positions[0]!.secret }],
    });
    expect(await list("include=code&include=email&exclude=email")).toEqual({ code: anna.code });
    const without = await list("exclude=positions.answers&exclude=fees&exclude=payments");
    expect(without).not.toHaveProperty("fees");
    expect(without).not.toHaveProperty("payments");
    expect(without.positions[0]).not.toHaveProperty("answers");
    expect(without.positions[0].secret).toBe(anna.positions[0]!.secret);
    expect(without.code).toBe(anna.code);
    // unknown field names change nothing
    expect(await list("exclude=no_such_field")).toEqual(await list(""));
  });

  it("include_canceled_positions shows canceled positions, each with `canceled`; without it they are left out", async () => {
    const { s, bob } = await world();
    await db().update(orderPositions).set({ canceled: true }).where(eq(orderPositions.id, bob.positions[0]!.id));
    const plain = (await s.client.get(`${s.path}/orders/?search=${bob.code}`)).body.results[0];
    expect(plain.positions.map((p: { id: number }) => p.id)).toEqual([bob.positions[1]!.id]);
    expect(plain.positions[0]).not.toHaveProperty("canceled");
    const all = (await s.client.get(`${s.path}/orders/?search=${bob.code}&include_canceled_positions=true`)).body
      .results[0];
    expect(all.positions.map((p: { id: number; canceled: boolean }) => [p.id, p.canceled])).toEqual([
      [bob.positions[0]!.id, true],
      [bob.positions[1]!.id, false],
    ]);
    // the filters on positions see canceled positions too (as pretix warns)
    expect(await codes(s, `search=${bob.code}&variation=${all.positions[0].variation}`)).toEqual([bob.code]);
  });
});
