/**
 * Seats on vouchers as pretix checks them (test_vouchers.py: `test_set_seat_*`,
 * `test_seat_seat_*`, `test_create_multiple_vouchers_duplicate_seat`; `Voucher.clean_seat_id`):
 * a seat of the plan that applies (the date's in a series, which needs a date), for the
 * voucher's product, once; free of tickets, carts and other vouchers, which the event object
 * decides, also when vouchers and orders race for one seat.
 */
import { describe, expect, it } from "vitest";
import type { Json } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const UNAVAILABLE = (seat: string) =>
  `The seat "${seat}" is currently unavailable (blocked, already sold or a different voucher).`;

const LAYOUT = {
  categories: [{ name: "Stalls" }, { name: "Balcony" }],
  zones: [
    {
      name: "Main",
      rows: [
        {
          row_number: "1",
          seats: ["A1", "A2", "A3", "A4", "A5"].map((guid, i) => ({
            seat_guid: guid,
            seat_number: String(i + 1),
            category: "Stalls",
          })),
        },
        { row_number: "2", seats: [{ seat_guid: "B1", seat_number: "1", category: "Balcony" }] },
      ],
    },
  ],
};

async function plan(s: Shop): Promise<number> {
  const res = await s.client.post(`/api/v1/organizers/${s.orgSlug}/seatingplans/`, { name: "Hall", layout: LAYOUT });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** An event with a seating plan whose Stalls are sold as `ticket`; `other` is a product without seats. */
async function seatedShop() {
  const s = await shop();
  const ticket = await s.item({ name: { en: "Stalls ticket" } });
  const other = await s.item({ name: { en: "Standing" } });
  const q = await s.quota({ size: 100, items: [ticket.id, other.id] });
  const planId = await plan(s);
  const patched = await s.client.patch(`${s.path}/`, {
    seating_plan: planId,
    seat_category_mapping: { Stalls: ticket.id },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  return { s, ticket, other, q };
}

const patchVoucher = (s: Shop, id: number, body: Record<string, unknown>) =>
  s.client.patch(`${s.path}/vouchers/${id}/`, body);
const seatOf = async (s: Shop, id: number) => (await s.client.get(`${s.path}/vouchers/${id}/`)).body.seat;

describe("a voucher's seat", () => {
  it("a seat of the plan for the voucher's product is set, and set again (200)", async () => {
    const { s, ticket } = await seatedShop();
    const v = await s.voucher({ item: ticket.id });
    const set = await patchVoucher(s, v.id, { seat: "A1" });
    expect(set.status).toBe(200);
    expect(set.body.seat).toBe("A1");
    const again = await patchVoucher(s, v.id, { seat: "A1" });
    expect(again.status).toBe(200);
    expect(again.body.seat).toBe("A1");
    const created = await s.client.post(`${s.path}/vouchers/`, { item: ticket.id, seat: "A2" });
    expect(created.status).toBe(201);
    expect(created.body.seat).toBe("A2");
  });

  it("refuses a seat the plan does not have, and any seat without a plan", async () => {
    const { s, ticket } = await seatedShop();
    const v = await s.voucher({ item: ticket.id });
    const res = await patchVoucher(s, v.id, { seat: "unknown" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ seat: ['The specified seat ID "unknown" does not exist for this event.'] });
    expect(await seatOf(s, v.id)).toBeNull();

    const bare = await shop();
    const item = await bare.item();
    const noPlan = await bare.client.post(`${bare.path}/vouchers/`, { item: item.id, seat: "A1" });
    expect(noPlan.status).toBe(400);
    expect(noPlan.body).toEqual({ seat: ['The specified seat ID "A1" does not exist for this event.'] });
    expect((await bare.client.get(`${bare.path}/vouchers/`)).body.count).toBe(0);
  });

  it("refuses a seat on a quota voucher, on a voucher for another product, and on one used more than once", async () => {
    const { s, other, q } = await seatedShop();
    const quotaVoucher = await s.voucher({ quota: q.id });
    expect((await patchVoucher(s, quotaVoucher.id, { seat: "A1" })).body).toEqual({
      seat: ["You need to choose a specific product if you select a seat."],
    });
    const wrong = await s.voucher({ item: other.id });
    expect((await patchVoucher(s, wrong.id, { seat: "A1" })).body).toEqual({
      seat: ['You need to choose the product "Stalls ticket" for this seat.'],
    });
    // a seat whose category no product is sold for
    expect((await patchVoucher(s, wrong.id, { seat: "B1" })).body).toEqual({
      seat: ["The specified seat ID is not available for the given product."],
    });
    const twice = await s.voucher({ item: (await s.client.get(`${s.path}/items/`)).body.results[0].id, max_usages: 2 });
    expect((await patchVoucher(s, twice.id, { seat: "A1" })).body).toEqual({
      seat: ["Seat-specific vouchers can only be used once."],
    });
    for (const v of [quotaVoucher, wrong, twice]) expect(await seatOf(s, v.id)).toBeNull();
  });

  it("refuses a seat another voucher, a ticket or a cart holds; the voucher's own seat stays its own", async () => {
    const { s, ticket } = await seatedShop();
    const holder = await s.voucher({ item: ticket.id, seat: "A1" });
    const v = await s.voucher({ item: ticket.id });
    const res = await patchVoucher(s, v.id, { seat: "A1" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ seat: [UNAVAILABLE("A1")] });
    expect(
      (await s.client.post(`${s.path}/vouchers/`, { code: "SEATTAKEN1", item: ticket.id, seat: "A1" })).body,
    ).toEqual({ seat: [UNAVAILABLE("A1")] });

    const sold = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "A2" }] });
    expect(sold.status, JSON.stringify(sold.body)).toBe(201);
    expect((await patchVoucher(s, v.id, { seat: "A2" })).body).toEqual({ seat: [UNAVAILABLE("A2")] });

    const cart = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "20.00", seat: "A3" });
    expect(cart.status, JSON.stringify(cart.body)).toBe(201);
    expect((await patchVoucher(s, v.id, { seat: "A3" })).body).toEqual({
      seat: ['The seat "A3" is already sold or currently blocked.'],
    });
    expect(await seatOf(s, v.id)).toBeNull();

    // an expired voucher no longer holds its seat
    expect((await patchVoucher(s, holder.id, { valid_until: "2001-01-01T00:00:00Z" })).status).toBe(200);
    expect((await patchVoucher(s, v.id, { seat: "A1" })).status).toBe(200);
    // the holder keeps its seat in other changes, even though it is not free for it any more
    expect((await patchVoucher(s, holder.id, { comment: "kept" })).status).toBe(200);
    // a seat voucher redeemed by its order keeps its seat too
    const redeemed = await s.client.post(`${s.path}/orders/`, {
      positions: [{ item: ticket.id, seat: "A1", voucher: v.code }],
    });
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(201);
    expect((await patchVoucher(s, v.id, { comment: "sold" })).status).toBe(200);
    expect(await seatOf(s, v.id)).toBe("A1");
  });

  it("batch_create with one seat twice: pretix's duplicate message on the second, nothing created", async () => {
    const { s, ticket } = await seatedShop();
    const voucher = { max_usages: 1, price_mode: "set", value: "12.00", item: ticket.id, tag: "Foo", seat: "A1" };
    const res = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { ...voucher, code: "ABCDEFGHI", block_quota: false },
      { ...voucher, code: "ABCDEFGHI", block_quota: true },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, { code: ["Duplicate seat ID in request."] }]);
    const distinctCodes = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { ...voucher, code: "SEATONE1" },
      { ...voucher, code: "SEATTWO1" },
    ]);
    expect(distinctCodes.body).toEqual([{}, { code: ["Duplicate seat ID in request."] }]);
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(0);
    const fine = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { ...voucher, code: "SEATONE1" },
      { ...voucher, code: "SEATTWO1", seat: "A2" },
    ]);
    expect(fine.status).toBe(201);
    expect(fine.body.map((v: Json) => v.seat)).toEqual(["A1", "A2"]);
  });

  it("in a series: a date is required, the seat is the date's, the same seat on two dates is two seats", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item({ name: { en: "Stalls ticket" } });
    const planId = await plan(s);
    const [se1, se2, bare] = [await s.subevent(), await s.subevent(), await s.subevent()];
    for (const d of [se1, se2]) {
      await s.quota({ size: 10, items: [ticket.id], subevent: d.id });
      const res = await s.client.patch(`${s.path}/subevents/${d.id}/`, {
        seating_plan: planId,
        seat_category_mapping: { Stalls: ticket.id },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const v = await s.voucher({ item: ticket.id });
    expect((await patchVoucher(s, v.id, { seat: "A1" })).body).toEqual({
      seat: ["You need to choose a date if you select a seat."],
    });
    const set = await patchVoucher(s, v.id, { seat: "A1", subevent: se1.id });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ seat: "A1", subevent: se1.id });
    // the date without a plan has no seats
    const w = await s.voucher({ item: ticket.id });
    expect((await patchVoucher(s, w.id, { seat: "A1", subevent: bare.id })).body).toEqual({
      seat: ['The specified seat ID "A1" does not exist for this event.'],
    });
    // A1 of the other date is another seat; A1 of the same date is taken
    expect((await patchVoucher(s, w.id, { seat: "A1", subevent: se1.id })).body).toEqual({
      seat: [UNAVAILABLE("A1")],
    });
    expect((await patchVoucher(s, w.id, { seat: "A1", subevent: se2.id })).status).toBe(200);
    // a batch may name one seat on two dates
    const batch = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { item: ticket.id, seat: "A2", subevent: se1.id },
      { item: ticket.id, seat: "A2", subevent: se2.id },
    ]);
    expect(batch.status).toBe(201);
  });
});

describe("seats on vouchers, raced", () => {
  it("12 parallel creations of vouchers for one seat: one voucher, the others a 400 on seat", async () => {
    const { s, ticket } = await seatedShop();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => s.client.post(`${s.path}/vouchers/`, { item: ticket.id, seat: "A1" })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(400)]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body).toEqual({ seat: [UNAVAILABLE("A1")] });
    const list = (await s.client.get(`${s.path}/vouchers/`)).body;
    expect(list.results.map((v: Json) => v.seat)).toEqual(["A1"]);
  });

  it("8 vouchers moved to one seat in parallel: one of them gets it", async () => {
    const { s, ticket } = await seatedShop();
    const vouchers = await Promise.all(Array.from({ length: 8 }, () => s.voucher({ item: ticket.id })));
    const results = await Promise.all(vouchers.map((v) => patchVoucher(s, v.id, { seat: "A2" })));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(7).fill(400)]);
    const seats = (await s.client.get(`${s.path}/vouchers/?page_size=50`)).body.results.map((v: Json) => v.seat);
    expect(seats.filter((x: string | null) => x === "A2")).toHaveLength(1);
  });

  it("vouchers and orders racing for one seat: exactly one of them gets it", async () => {
    const { s, ticket } = await seatedShop();
    const requests = Array.from({ length: 16 }, (_, i) =>
      i % 2
        ? s.client.post(`${s.path}/vouchers/`, { code: `SEATRACE${i}`, item: ticket.id, seat: "A3" })
        : s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, seat: "A3" }] }),
    );
    const results = await Promise.all(requests);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) expect(r.status).toBe(400);
    const vouchers = (await s.client.get(`${s.path}/vouchers/`)).body.count;
    const orders = (await s.client.get(`${s.path}/orders/`)).body.count;
    expect(vouchers + orders).toBe(1);
  });
});
