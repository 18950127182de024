/**
 * Reading orders as pretix's tests do (test_orders.py: `test_order_list`, `test_order_detail`,
 * `test_include_exclude_fields`, `test_orderposition_detail_canceled`): the detail shows an
 * order the way the list does (canceled positions and fees, `include` / `exclude`), the list's
 * `testmode`, `locale`, `include_canceled_fees` and inclusive `modified_since`.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderFees, orderPositions, orders } from "../../src/db/schema";
import { db, type Json } from "../harness";
import { shop } from "../helpers/sales";

/** An order with two positions and two fees, of which one position and one fee are canceled. */
async function orderWithCanceledParts() {
  const s = await shop();
  const ticket = await s.item();
  await s.quota({ size: 10, items: [ticket.id] });
  const created = await s.client.post(`${s.path}/orders/`, {
    email: "dummy@example.org",
    invoice_address: { company: "Sample company", name_parts: { full_name: "Ann" }, city: "Sample City" },
    fees: [
      { fee_type: "payment", value: "0.25" },
      { fee_type: "other", value: "1.00" },
    ],
    positions: [{ item: ticket.id }, { item: ticket.id }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const o = created.body;
  await db().update(orderPositions).set({ canceled: true }).where(eq(orderPositions.id, o.positions[1].id));
  const [row] = await db().select({ id: orders.id }).from(orders).where(eq(orders.secret, o.secret));
  const canceledFees = await db()
    .update(orderFees)
    .set({ canceled: true })
    .where(and(eq(orderFees.orderId, row!.id), eq(orderFees.feeType, "other")))
    .returning({ id: orderFees.id });
  expect(canceledFees).toHaveLength(1);
  return { s, o, live: o.positions[0] as Json, canceled: o.positions[1] as Json };
}

describe("the order detail", () => {
  it("include_canceled_positions and include_canceled_fees show the canceled ones, as on the list", async () => {
    const { s, o, live, canceled } = await orderWithCanceledParts();
    const detail = (q = "") => s.client.get(`${s.path}/orders/${o.code}/${q}`);
    const plain = await detail();
    expect(plain.status).toBe(200);
    expect(plain.body.positions.map((p: Json) => p.id)).toEqual([live.id]);
    expect(plain.body.positions[0]).not.toHaveProperty("canceled");
    expect(plain.body.fees.map((f: Json) => f.value)).toEqual(["0.25"]);

    const positions = await detail("?include_canceled_positions=true");
    expect(positions.status).toBe(200);
    expect(positions.body.positions.map((p: Json) => [p.id, p.canceled])).toEqual([
      [live.id, false],
      [canceled.id, true],
    ]);
    expect(positions.body.fees).toHaveLength(1);

    const fees = await detail("?include_canceled_fees=true");
    expect(fees.body.fees.map((f: Json) => f.value)).toEqual(["0.25", "1.00"]);
    expect(fees.body.positions).toHaveLength(1);

    expect((await detail("?include_canceled_positions=false&include_canceled_fees=false")).body).toEqual(plain.body);
    const bad = await detail("?include_canceled_fees=perhaps");
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(["include_canceled_fees"]);
  });

  it("include and exclude, dotted into the positions and the invoice address; exclude wins", async () => {
    const { s, o } = await orderWithCanceledParts();
    const detail = async (q: string) => {
      const res = await s.client.get(`${s.path}/orders/${o.code}/?${q}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const noSecret = await detail("exclude=positions.secret");
    expect(noSecret).toHaveProperty("email");
    expect(noSecret).toHaveProperty("url");
    expect(noSecret.positions[0]).toHaveProperty("subevent");
    expect(noSecret.positions[0]).not.toHaveProperty("secret");

    const noPositions = await detail("exclude=positions");
    expect(noPositions).toHaveProperty("email");
    expect(noPositions).toHaveProperty("url");
    expect(noPositions).not.toHaveProperty("positions");

    const noEmailUrl = await detail("exclude=email&exclude=url");
    expect(noEmailUrl).not.toHaveProperty("email");
    expect(noEmailUrl).not.toHaveProperty("url");
    expect(noEmailUrl.positions[0].secret).toBe(o.positions[0].secret);

    expect(await detail("include=email")).toEqual({ email: "dummy@example.org" });

    const mixed = await detail("include=email&include=positions&include=invoice_address.name&exclude=positions.secret");
    expect(Object.keys(mixed).sort()).toEqual(["email", "invoice_address", "positions"]);
    expect(mixed.positions[0]).toHaveProperty("subevent");
    expect(mixed.positions[0]).not.toHaveProperty("secret");
    expect(mixed.invoice_address).toEqual({ name: "Ann" });

    expect(await detail("include=email&include=positions.subevent")).toEqual({
      email: "dummy@example.org",
      positions: [{ subevent: null }],
    });
  });

  it("a canceled position's detail is 404, and 200 with include_canceled_positions", async () => {
    const { s, live, canceled } = await orderWithCanceledParts();
    expect((await s.client.get(`${s.path}/orderpositions/${canceled.id}/`)).status).toBe(404);
    const shown = await s.client.get(`${s.path}/orderpositions/${canceled.id}/?include_canceled_positions=true`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: canceled.id, secret: canceled.secret });
    expect((await s.client.get(`${s.path}/orderpositions/${live.id}/`)).status).toBe(200);
  });
});

describe("the orders list", () => {
  it("with the canceled positions shown, a paid order's live positions keep their downloads", async () => {
    const { s, o, live, canceled } = await orderWithCanceledParts();
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_paid/`, { send_email: false })).status).toBe(200);
    const plain = (await s.client.get(`${s.path}/orders/?code=${o.code}`)).body.results[0];
    expect(plain.positions[0].downloads).toHaveLength(1);
    const all = (await s.client.get(`${s.path}/orders/?code=${o.code}&include_canceled_positions=true`)).body
      .results[0];
    expect(all.positions.map((p: Json) => [p.id, p.canceled, p.downloads.length])).toEqual([
      [live.id, false, 1],
      [canceled.id, true, 0],
    ]);
    expect(all.positions[0]).toEqual({ ...plain.positions[0], canceled: false });
  });

  it("filters testmode and locale, and include_canceled_fees shows the canceled fees", async () => {
    const { s, o } = await orderWithCanceledParts();
    expect((await s.client.patch(`${s.path}/settings/`, { locales: ["en", "de"] })).status).toBe(200);
    const ticket = o.positions[0].item;
    const german = await s.client.post(`${s.path}/orders/`, {
      locale: "de",
      testmode: true,
      positions: [{ item: ticket }],
    });
    expect(german.status, JSON.stringify(german.body)).toBe(201);
    const codes = async (q: string) =>
      (await s.client.get(`${s.path}/orders/?${q}`)).body.results.map((x: Json) => x.code).sort();
    expect(await codes("testmode=false")).toEqual([o.code]);
    expect(await codes("testmode=true")).toEqual([german.body.code]);
    expect(await codes("locale=en")).toEqual([o.code]);
    expect(await codes("locale=de")).toEqual([german.body.code]);
    expect(await codes("locale=fr")).toEqual([]);
    const fees = async (q: string) =>
      (await s.client.get(`${s.path}/orders/?code=${o.code}&${q}`)).body.results[0].fees.map((f: Json) => f.value);
    expect(await fees("include_canceled_fees=false")).toEqual(["0.25"]);
    expect(await fees("include_canceled_fees=true")).toEqual(["0.25", "1.00"]);
  });

  it("modified_since includes an order changed at exactly that time", async () => {
    const { s, o } = await orderWithCanceledParts();
    const lastModified = Date.parse((await s.client.get(`${s.path}/orders/${o.code}/`)).body.last_modified);
    const since = async (ms: number) =>
      (
        await s.client.get(`${s.path}/orders/?modified_since=${encodeURIComponent(new Date(ms).toISOString())}`)
      ).body.results.map((x: Json) => x.code);
    expect(await since(lastModified - 3_600_000)).toEqual([o.code]);
    expect(await since(lastModified)).toEqual([o.code]);
    expect(await since(lastModified + 1)).toEqual([]);
  });
});
