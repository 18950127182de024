/**
 * The largest requests the service takes (docs/limits.md), run with every statement held to
 * D1's production limits (test/helpers/d1-guard.ts): the largest accepted size of each bulk
 * endpoint succeeds as a whole, one more is a 400 that names the limit and stores nothing.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cartPositions, orders, vouchers } from "../../src/db/schema";
import { venue } from "../helpers/checkin";
import { shop } from "../helpers/sales";
import { db } from "../harness";

const BIG = { timeout: 120_000 };
const eventIdOf = async (slug: string) =>
  (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, slug) }))!.id;

describe("bulk endpoints at their limits", () => {
  it("vouchers/batch_create: 1000 vouchers in one request, all or nothing; 1001 are refused", BIG, async () => {
    const s = await shop();
    const ticket = await s.item();
    const eventId = await eventIdOf(s.eventSlug);
    const body = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        code: `BULK${i}`,
        item: ticket.id,
        tag: "bulk",
        comment: "x".repeat(100),
      }));
    const over = await s.client.post(`${s.path}/vouchers/batch_create/`, body(1001));
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ non_field_errors: ["Ensure this field has no more than 1000 elements."] });
    expect(await db().select().from(vouchers).where(eq(vouchers.eventId, eventId))).toEqual([]);
    const res = await s.client.post(`${s.path}/vouchers/batch_create/`, body(1000));
    expect(res.status, res.text.slice(0, 300)).toBe(201);
    expect(res.body).toHaveLength(1000);
    expect(res.body[999]).toMatchObject({ code: "BULK999", item: ticket.id });
    expect((await s.client.get(`${s.path}/vouchers/?tag=bulk`)).body.count).toBe(1000);
  });

  it("cartpositions/bulk_create: 1000 positions in one request; 1001 are refused", BIG, async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 2000, items: [ticket.id] });
    const eventId = await eventIdOf(s.eventSlug);
    const body = (n: number) =>
      Array.from({ length: n }, () => ({ item: ticket.id, price: "1.00", attendee_name: "Guest" }));
    const over = await s.client.post(`${s.path}/cartpositions/bulk_create/`, body(1001));
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ non_field_errors: ["Ensure this field has no more than 1000 elements."] });
    expect(await db().select().from(cartPositions).where(eq(cartPositions.eventId, eventId))).toEqual([]);
    const res = await s.client.post(`${s.path}/cartpositions/bulk_create/`, body(1000));
    expect(res.status).toBe(200);
    expect(res.body.results.filter((r: { success: boolean }) => r.success)).toHaveLength(1000);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      cart_positions: 1000,
      available_number: 1000,
    });
  });

  it("orders: 500 positions in one order (created, listed, canceled); 501 are refused", BIG, async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1000, items: [ticket.id] });
    const eventId = await eventIdOf(s.eventSlug);
    const positions = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        item: ticket.id,
        attendee_name: `Guest ${i}`,
        attendee_email: `g${i}@example.org`,
      }));
    const over = await s.client.post(`${s.path}/orders/`, { email: "a@example.org", positions: positions(501) });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ positions: ["Orders cannot have more than 500 positions."] });
    expect(await db().select().from(orders).where(eq(orders.eventId, eventId))).toEqual([]);
    const res = await s.client.post(`${s.path}/orders/`, { email: "a@example.org", positions: positions(500) });
    expect(res.status, res.text.slice(0, 300)).toBe(201);
    expect(res.body.positions).toHaveLength(500);
    const list = await s.client.get(`${s.path}/orders/?search=${encodeURIComponent("Guest 499")}`);
    expect(list.body.count).toBe(1);
    expect(list.body.results[0].positions).toHaveLength(500);
    expect(
      (await s.client.post(`${s.path}/orders/${res.body.code}/mark_canceled/`, { send_email: false })).status,
    ).toBe(200);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      pending_orders: 0,
      available_number: 1000,
    });
  });

  it("an order consumes at most 100 carts; a scan names at most 50 lists", async () => {
    const s = await shop();
    const ticket = await s.item();
    const carts = Array.from({ length: 101 }, (_, i) => `cart-${i}`);
    const res = await s.client.post(`${s.path}/orders/`, {
      email: "a@example.org",
      positions: [{ item: ticket.id }],
      consume_carts: carts,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ consume_carts: ["Ensure this field has no more than 100 elements."] });
    const v = await venue();
    const scan = await v.redeem({ secret: "x", lists: Array.from({ length: 51 }, (_, i) => i + 1) });
    expect(scan.status).toBe(400);
    expect(scan.body).toEqual({ lists: ["Ensure this field has no more than 50 elements."] });
  });

  it("a JSON body over MAX_BODY_BYTES (5 MiB as configured) is refused before it is read", async () => {
    const s = await shop();
    const res = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { code: "BIG", comment: "x".repeat(5 * 1024 * 1024) },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Request body too large (at most 5242880 bytes)." });
  });
});
