/**
 * The transactions ledger (pretix docs transactions.rst; pretix's test_transactions.py): every
 * change to what an order owes written as immutable rows, listed per event and per organizer
 * with pretix's filters; the sum of an order's transactions is its total while it is pending or
 * paid and zero otherwise, and a write replayed books nothing twice.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orders, orderTransactions } from "../../src/db/schema";
import { reconcileTransactions } from "../../src/db/transactions";
import { db, type Json, seedTeam, unique } from "../harness";
import { type Shop, shop } from "../helpers/sales";

/** An order of one ticket (23.00) and a payment fee (0.25 with 19 % VAT), as pretix's fixture. */
async function orderWithFee(s?: Shop) {
  s ??= await shop();
  const vat = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
  const ticket = await s.item({ default_price: "23.00" });
  const q = await s.quota({ size: 10, items: [ticket.id] });
  const res = await s.client.post(`${s.path}/orders/`, {
    email: `${unique("buyer")}@example.org`,
    payment_provider: "manual",
    positions: [{ item: ticket.id, attendee_name_parts: { full_name: "Peter" } }],
    fees: [{ fee_type: "payment", value: "0.25", tax_rule: vat.id }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await s.settle();
  return { s, vat, ticket, q, o: res.body as Json };
}

const list = async (s: Shop, query = "") => (await s.client.get(`${s.path}/transactions/${query}`)).body;

/** Sum of `price × count` of an order's transactions, in cents. */
async function ledgerSum(s: Shop, code: string): Promise<number> {
  const body = await list(s, `?order=${code}&page_size=100`);
  return body.results.reduce((sum: number, t: Json) => sum + Math.round(Number(t.price) * 100) * t.count, 0);
}

describe("the event's transactions", () => {
  it("lists a placed order's position and fee as pretix does, with pretix's filters", async () => {
    const { s, vat, ticket, o } = await orderWithFee();
    const body = await list(s);
    expect(body.count).toBe(2);
    const op = body.results.find((t: Json) => t.positionid === 1);
    const fee = body.results.find((t: Json) => t.fee_type === "payment");
    expect(op).toEqual({
      id: op.id,
      order: o.code,
      count: 1,
      created: op.created,
      datetime: o.datetime,
      item: ticket.id,
      variation: null,
      positionid: 1,
      price: "23.00",
      subevent: null,
      tax_code: null,
      tax_rate: "0.00",
      tax_rule: null,
      tax_value: "0.00",
      fee_type: null,
      internal_type: null,
    });
    expect(fee).toEqual({
      id: fee.id,
      order: o.code,
      count: 1,
      created: fee.created,
      datetime: o.datetime,
      item: null,
      variation: null,
      positionid: null,
      price: "0.25",
      subevent: null,
      tax_code: null,
      tax_rate: "19.00",
      tax_rule: vat.id,
      tax_value: "0.04",
      fee_type: "payment",
      internal_type: "",
    });
    expect(Date.parse(op.created)).toBeGreaterThanOrEqual(Date.parse(o.datetime));

    expect((await list(s, `?order=${o.code}`)).count).toBe(2);
    expect((await list(s, "?order=NOPE1")).count).toBe(0);
    const hourBefore = new Date(Date.parse(o.datetime) - 3_600_000).toISOString();
    const dayAfter = new Date(Date.parse(o.datetime) + 86_400_000).toISOString();
    expect((await list(s, `?datetime_since=${hourBefore}`)).count).toBe(2);
    expect((await list(s, `?datetime_since=${dayAfter}`)).count).toBe(0);
    expect((await list(s, `?datetime_before=${dayAfter}`)).count).toBe(2);
    expect((await list(s, `?created_before=${hourBefore}`)).count).toBe(0);
    expect((await list(s, `?item=${ticket.id}`)).results).toEqual([op]);
    expect((await list(s, `?item__in=${ticket.id},999999`)).results).toEqual([op]);
    expect((await list(s, "?fee_type=payment")).results).toEqual([fee]);
    expect((await list(s, "?fee_type__in=service,payment")).results).toEqual([fee]);
    expect((await list(s, "?tax_rate=19.00")).results).toEqual([fee]);
    expect((await list(s, "?tax_rate__in=0,7")).results).toEqual([op]);
    expect((await list(s, `?tax_rule=${vat.id}`)).results).toEqual([fee]);
    expect((await list(s, "?tax_code=S")).count).toBe(0);
    expect((await list(s, "?ordering=-id")).results.map((t: Json) => t.id)).toEqual([
      Math.max(op.id, fee.id),
      Math.min(op.id, fee.id),
    ]);
  });

  it("answers one transaction by id (pretix test_order_detail), 404 for another event's", async () => {
    const { s, o } = await orderWithFee();
    const fee = (await list(s, "?fee_type=payment")).results[0];
    const res = await s.client.get(`${s.path}/transactions/${fee.id}/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(fee);
    expect(res.body.order).toBe(o.code);
    const elsewhere = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
      name: { en: "Other" },
      slug: unique("ev"),
      currency: "EUR",
      date_from: "2030-06-01T19:00:00Z",
    });
    expect(
      (await s.client.get(`/api/v1/organizers/${s.orgSlug}/events/${elsewhere.body.slug}/transactions/${fee.id}/`))
        .status,
    ).toBe(404);
    expect((await s.client.get(`${s.path}/transactions/99999999/`)).status).toBe(404);
  });

  it("refuses bad filters with 400 naming the field", async () => {
    const { s } = await orderWithFee();
    expect((await s.client.get(`${s.path}/transactions/?item=x`)).body).toEqual({ item: ["Enter a whole number."] });
    expect((await s.client.get(`${s.path}/transactions/?tax_rate__in=7,abc`)).body).toEqual({
      tax_rate__in: ["Enter a number."],
    });
    expect((await s.client.get(`${s.path}/transactions/?datetime_since=yesterday`)).status).toBe(400);
  });
});

describe("what an order owes over its life", () => {
  it("cancel, expire and pay again write the difference; the sum follows the total", async () => {
    const { s, o } = await orderWithFee();
    expect(await ledgerSum(s, o.code)).toBe(2325);

    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`)).body.status).toBe("e");
    expect(await ledgerSum(s, o.code)).toBe(0);
    const afterExpiry = (await list(s, `?order=${o.code}`)).results;
    expect(afterExpiry.map((t: Json) => t.count).sort()).toEqual([-1, -1, 1, 1]);

    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, {})).body.status).toBe("p");
    expect(await ledgerSum(s, o.code)).toBe(2325);
    expect((await list(s, `?order=${o.code}`)).count).toBe(6);

    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, {})).body.status).toBe("c");
    expect(await ledgerSum(s, o.code)).toBe(0);
    expect((await list(s, `?order=${o.code}`)).count).toBe(8);
    // pending → paid owes the same: nothing written
    const { s: s2, o: o2 } = await orderWithFee();
    expect((await s2.client.post(`${s2.path}/orders/${o2.code}/mark_paid/`, {})).body.status).toBe("p");
    expect((await list(s2, `?order=${o2.code}`)).count).toBe(2);
  });

  it("the statement is idempotent: run again (a replay) it writes nothing", async () => {
    const { s, o } = await orderWithFee();
    const row = (
      await db()
        .select()
        .from(orders)
        .where(and(eq(orders.eventId, s.eventId), eq(orders.code, o.code)))
    )[0]!;
    const before = await db().select().from(orderTransactions).where(eq(orderTransactions.orderId, row.id));
    await reconcileTransactions(db(), row.id, Date.now(), Date.now());
    await reconcileTransactions(db(), row.id, Date.now(), Date.now());
    expect(await db().select().from(orderTransactions).where(eq(orderTransactions.orderId, row.id))).toEqual(before);
  });

  it("many orders at once: each order's transactions are its own, once", async () => {
    const s = await shop();
    const ticket = await s.item({ default_price: "10.00" });
    await s.quota({ size: 20, items: [ticket.id] });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }, { item: ticket.id }] }),
      ),
    );
    const sold = answers.filter((r) => r.status === 201);
    expect(sold).toHaveLength(10);
    await s.settle();
    const body = await list(s, "?page_size=100");
    expect(body.count).toBe(20);
    for (const r of sold) expect(await ledgerSum(s, r.body.code)).toBe(2000);
  });
});

describe("the organizer's transactions", () => {
  it("lists every event's with `event`, filters by event, and shows only what the credential may see", async () => {
    const { s, o } = await orderWithFee();
    const org = `/api/v1/organizers/${s.orgSlug}/transactions/`;
    const all = (await s.client.get(org)).body;
    expect(all.count).toBe(2);
    expect(all.results.every((t: Json) => t.event === s.eventSlug && t.order === o.code)).toBe(true);
    expect((await s.client.get(`${org}?event=${s.eventSlug}`)).body.count).toBe(2);
    expect((await s.client.get(`${org}?event=nope`)).body.count).toBe(0);

    const limited = await seedTeam(s.org.id, { permissions: "all", allEvents: false }, s.org.group);
    const none = await limited.client.get(org);
    expect(none.status).toBe(200);
    expect(none.body.count).toBe(0);
    const ofEvent = await seedTeam(
      s.org.id,
      { permissions: "all", allEvents: false, events: [s.eventId] },
      s.org.group,
    );
    expect((await ofEvent.client.get(org)).body.count).toBe(2);
    const blind = await seedTeam(s.org.id, { permissions: ["can_view_vouchers"], allEvents: true }, s.org.group);
    const blindAnswer = await blind.client.get(org);
    expect(blindAnswer.status).toBe(200);
    expect(blindAnswer.body.count).toBe(0);
    // the event's own list needs can_view_orders
    expect((await blind.client.get(`${s.path}/transactions/`)).status).toBe(403);
  });

  it("another organizer's token sees none of them", async () => {
    const { s } = await orderWithFee();
    const other = await shop();
    expect((await other.client.get(`${s.path}/transactions/`)).status).toBe(403);
    expect((await other.client.get(`/api/v1/organizers/${s.orgSlug}/transactions/`)).status).toBe(403);
    const own = (await other.client.get(`/api/v1/organizers/${other.orgSlug}/transactions/`)).body;
    expect(own.count).toBe(0);
  });
});
