/**
 * Order changes under concurrency: the event object decides each change whole, so changes
 * racing sales for the last units, and changes of one order racing each other, never oversell;
 * what the object counts stays what D1 holds (docs/event-object.md).
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions, orders } from "../../src/db/schema";
import { db, type Json } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const held = async (s: Shop) => {
  await s.settle();
  const rows = await db()
    .select({ id: orderPositions.id })
    .from(orderPositions)
    .innerJoin(orders, eq(orders.id, orderPositions.orderId))
    .where(and(eq(orders.eventId, s.eventId), eq(orderPositions.canceled, false)));
  return rows.length;
};
const availability = async (s: Shop, q: { id: number }) =>
  (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;

async function soldShop(size: number, orderCount: number) {
  const s = await shop();
  const ticket = await s.item();
  const q = await s.quota({ size, items: [ticket.id] });
  const placed: Json[] = [];
  for (let i = 0; i < orderCount; i++) placed.push(await s.post("/orders/", { positions: [{ item: ticket.id }] }));
  return { s, ticket, q, placed };
}

describe("order change concurrency", () => {
  it("changes adding a position race sales for the last units: exactly the units left are taken", async () => {
    const { s, ticket, q, placed } = await soldShop(8, 4);
    const changes = placed.map((o) =>
      s.client.post(`${s.path}/orders/${o.code}/change/`, { create_positions: [{ item: ticket.id }] }),
    );
    const sales = Array.from({ length: 4 }, () =>
      s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] }),
    );
    const answers = await Promise.all([...changes, ...sales]);
    const ok = answers.filter((r) => r.status === 200 || r.status === 201).length;
    for (const r of answers) expect([200, 201, 400]).toContain(r.status);
    expect(ok).toBe(4);
    expect(await held(s)).toBe(8);
    expect(await availability(s, q)).toMatchObject({ available_number: 0, pending_orders: 8 });
  });

  it("a change moving a ticket to a sold-out product races a sale of that product's last unit: never both", async () => {
    for (let round = 0; round < 3; round++) {
      const s = await shop();
      const a = await s.item();
      const b = await s.item();
      await s.quota({ size: 5, items: [a.id] });
      const qb = await s.quota({ size: 1, items: [b.id] });
      const o = await s.post("/orders/", { positions: [{ item: a.id }] });
      const [moved, sold] = await Promise.all([
        s.client.post(`${s.path}/orders/${o.code}/change/`, {
          patch_positions: [{ position: o.positions[0].id, body: { item: b.id } }],
        }),
        s.client.post(`${s.path}/orders/`, { positions: [{ item: b.id }] }),
      ]);
      expect([moved.status, sold.status].filter((x) => x === 200 || x === 201)).toHaveLength(1);
      expect(await availability(s, qb)).toMatchObject({ available_number: 0, pending_orders: 1 });
    }
  });

  it("changes of one order racing each other: each applies whole or not at all, and the count stays D1's", async () => {
    const { s, ticket, q, placed } = await soldShop(4, 1);
    const [o] = placed;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        s.client.post(`${s.path}/orders/${o!.code}/change/`, { create_positions: [{ item: ticket.id }] }),
      ),
    );
    for (const r of answers) expect([200, 400]).toContain(r.status);
    const ok = answers.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(1);
    expect(ok).toBeLessThanOrEqual(3);
    const stale = answers.filter((r) => r.status === 400 && r.body.detail !== undefined);
    for (const r of stale)
      expect(r.body).toEqual({ detail: "The order was changed meanwhile; read it again and repeat the change." });
    expect(await held(s)).toBe(1 + ok);
    expect(await availability(s, q)).toMatchObject({ pending_orders: 1 + ok, available_number: 3 - ok });
    const after = (await s.client.get(`${s.path}/orders/${o!.code}/`)).body;
    expect(after.positions).toHaveLength(1 + ok);
    expect(after.total).toBe(((1 + ok) * 20).toFixed(2));
  });

  it("tickets canceled one by one free their units for sales racing them", async () => {
    const { s, ticket, q } = await soldShop(4, 0);
    const o = await s.post("/orders/", { positions: Array.from({ length: 4 }, () => ({ item: ticket.id })) });
    const ids = (o.positions as Json[]).slice(1).map((p) => p.id as number);
    const answers = await Promise.all([
      ...ids.map((id) => s.client.delete(`${s.path}/orderpositions/${id}/`)),
      ...Array.from({ length: 5 }, () => s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })),
    ]);
    const deleted = answers.slice(0, 3).filter((r) => r.status === 204).length;
    const sold = answers.slice(3).filter((r) => r.status === 201).length;
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(sold).toBeLessThanOrEqual(deleted);
    expect(await held(s)).toBe(4 - deleted + sold);
    expect(await availability(s, q)).toMatchObject({ pending_orders: 4 - deleted + sold });
  });
});
