/**
 * An event's order positions list (pretix docs orders.rst "List of all order positions"; pretix's
 * test_orders.py `test_orderposition_list`): every position as its order shows it, pretix's
 * filters, orderings and paging; positions of canceled orders listed, a position canceled on its
 * own only with `include_canceled_positions`.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions } from "../../src/db/schema";
import { db, type Json } from "../harness";
import { type Venue, venue } from "../helpers/checkin";

type Listed = Json & { id: number; order: string };

async function positions(v: Venue, query = ""): Promise<{ count: number; results: Listed[] }> {
  const res = await v.client.get(`${v.path}/orderpositions/?page_size=50${query ? `&${query}` : ""}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const ids = async (v: Venue, query = "") => (await positions(v, query)).results.map((p) => p.id);

/** Three orders: A (two tickets, Anna and an add-on-less Bob), B (pending, Cleo), C (paid, no name). */
async function sold(v: Venue) {
  const vip = await v.item({ name: { en: "VIP" }, default_price: "50.00" });
  await v.quota({ size: 100, items: [vip.id] });
  const a = await v.order({
    email: "anna@example.org",
    positions: [
      { item: v.ticket.id, attendee_name_parts: { full_name: "Anna" } },
      { item: vip.id, attendee_name_parts: { full_name: "Bob" } },
    ],
  });
  const b = await v.order({
    status: "n",
    email: "cleo@example.org",
    positions: [{ item: v.ticket.id, attendee_name_parts: { full_name: "Cleo" } }],
  });
  const c = await v.order({ email: "dora@example.org" });
  return { vip, a, b, c };
}

describe("the event's order positions", () => {
  it("lists every position as its order shows it, by order time and position number", async () => {
    const v = await venue();
    const { a, b, c } = await sold(v);
    const body = await positions(v);
    expect(body.count).toBe(4);
    const expected = [...a.positions, ...b.positions, ...c.positions].map((p: Json) => p.id);
    expect(body.results.map((p) => p.id)).toEqual(expected);
    // the same resource as the order's positions (the orders list's, with downloads once paid)
    const shown = (await v.client.get(`${v.path}/orders/?page_size=50`)).body.results.flatMap((o: Json) => o.positions);
    for (const p of body.results) expect(p).toEqual(shown.find((x: Json) => x.id === p.id));
    expect(body.results[0]!.downloads).toHaveLength(1);
    expect(body.results.find((p) => p.order === b.code)!.downloads).toEqual([]);
    expect(body.results[0]).not.toHaveProperty("canceled");
  });

  it("filters as pretix documents", async () => {
    const v = await venue();
    const { vip, a, b, c } = await sold(v);
    const [anna, bob] = a.positions as Json[];
    const [cleo] = b.positions as Json[];
    const [dora] = c.positions as Json[];
    expect(await ids(v, `order=${a.code.toLowerCase()}`)).toEqual([anna.id, bob.id]);
    expect(await ids(v, `item=${vip.id}`)).toEqual([bob.id]);
    expect(await ids(v, `item__in=${vip.id},${v.ticket.id}`)).toHaveLength(4);
    expect(await ids(v, "attendee_name=ANNA")).toEqual([anna.id]);
    expect(await ids(v, `secret=${cleo.secret}`)).toEqual([cleo.id]);
    expect(await ids(v, `pseudonymization_id=${dora.pseudonymization_id}`)).toEqual([dora.id]);
    expect(await ids(v, "order__status=n")).toEqual([cleo.id]);
    expect(await ids(v, "order__status__in=n,e")).toEqual([cleo.id]);
    expect(await ids(v, "search=cleo@")).toEqual([cleo.id]);
    expect(await ids(v, `search=${a.code.slice(0, 3)}`)).toEqual(expect.arrayContaining([anna.id, bob.id]));
    expect(await ids(v, "addon_to=1")).toEqual([]);
    expect(await ids(v, "subevent=1")).toEqual([]);
    expect(await ids(v, "voucher__code=NOPE")).toEqual([]);
    expect(await ids(v, "customer=NOPE")).toEqual([]);
    const list = await v.list();
    expect((await v.redeem({ secret: dora.secret, lists: [list.id], type: "entry" })).status).toBe(201);
    await v.settle();
    expect(await ids(v, "has_checkin=true")).toEqual([dora.id]);
    expect(await ids(v, "has_checkin=false")).toEqual([anna.id, bob.id, cleo.id]);
    // a bad value is a 400 naming the parameter
    const bad = await v.client.get(`${v.path}/orderpositions/?order__status=x`);
    expect(bad.status).toBe(400);
    expect(bad.body).toHaveProperty("order__status");
  });

  it("lists the positions of a canceled order; a position canceled on its own only when asked, with `canceled`", async () => {
    const v = await venue();
    const { a, c } = await sold(v);
    expect((await v.client.post(`${v.path}/orders/${c.code}/mark_canceled/`, { send_email: false })).status).toBe(200);
    const [dora] = c.positions as Json[];
    expect(await ids(v, "order__status=c")).toEqual([dora.id]);
    const [, bob] = a.positions as Json[];
    await db().update(orderPositions).set({ canceled: true }).where(eq(orderPositions.id, bob.id));
    expect(await ids(v)).not.toContain(bob.id);
    const all = await positions(v, "include_canceled_positions=true");
    expect(all.count).toBe(4);
    const shown = all.results.find((p) => p.id === bob.id)!;
    expect(shown.canceled).toBe(true);
    expect(shown.downloads).toEqual([]);
    expect(all.results.filter((p) => p.canceled === false)).toHaveLength(3);
  });

  it("pages every ordering as the whole list orders it", async () => {
    const v = await venue();
    await sold(v);
    await v.order({
      positions: [{ item: v.ticket.id }, { item: v.ticket.id, attendee_name_parts: { full_name: "Al" } }],
    });
    for (const f of [
      "",
      "order__datetime",
      "-order__datetime",
      "order__code",
      "-order__code",
      "positionid",
      "-positionid",
      "attendee_name",
      "-attendee_name",
      "order__status",
      "-order__status",
    ]) {
      const q = f ? `ordering=${f}` : "";
      const whole = await ids(v, q);
      expect(new Set(whole).size, f).toBe(6);
      const paged: number[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await v.client.get(`${v.path}/orderpositions/?page_size=2&page=${page}&${q}`);
        expect(res.status, f).toBe(200);
        expect(res.body.count, f).toBe(6);
        paged.push(...res.body.results.map((p: Json) => p.id));
      }
      expect(paged, f).toEqual(whole);
      expect((await v.client.get(`${v.path}/orderpositions/?page_size=2&page=4&${q}`)).status, f).toBe(404);
    }
    const byName = (await positions(v, "ordering=attendee_name")).results.map((p) => p.attendee_name);
    expect(byName.slice(0, 2)).toEqual([null, null]);
    expect(byName.slice(2)).toEqual(["Al", "Anna", "Bob", "Cleo"]);
  });
});
