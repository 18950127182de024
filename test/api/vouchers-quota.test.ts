/**
 * Vouchers as pretix's test_vouchers.py creates and changes them: the list's filters by
 * blocking, variation, quota and date; variation and quota vouchers; blocking ones with and
 * without room (for a product, a variation, a quota, a date of a series), also when a change
 * only moves a block within the same full quota; `max_usages` below `redeemed`.
 */
import { describe, expect, it } from "vitest";
import type { Json } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const post = (s: Shop, body: Record<string, unknown>) => s.client.post(`${s.path}/vouchers/`, body);
const patch = (s: Shop, id: number, body: Record<string, unknown>) => s.client.patch(`${s.path}/vouchers/${id}/`, body);
const get = async (s: Shop, id: number) => (await s.client.get(`${s.path}/vouchers/${id}/`)).body;
const NO_ROOM = /^There is not enough quota available to block tickets for this voucher/;
const past = () => new Date(Date.now() - 3 * 86_400_000).toISOString();
const future = () => new Date(Date.now() + 3 * 86_400_000).toISOString();

/** A shirt with sizes S and M; `sizes` gives each size its own quota of that size, or one shared quota. */
async function shirts(s: Shop, sizes: { S: number; M: number } | { shared: number }) {
  const shirt = await s.item({ name: { en: "Shirt" }, variations: [{ value: { en: "S" } }, { value: { en: "M" } }] });
  const [vs, vm] = shirt.variations.map((v: Json) => v.id) as [number, number];
  if ("shared" in sizes) {
    const q = await s.quota({ size: sizes.shared, items: [shirt.id], variations: [vs, vm] });
    return { shirt, vs, vm, qs: q, qm: q };
  }
  const qs = await s.quota({ name: "S", size: sizes.S, items: [shirt.id], variations: [vs] });
  const qm = await s.quota({ name: "M", size: sizes.M, items: [shirt.id], variations: [vm] });
  return { shirt, vs, vm, qs, qm };
}

describe("the vouchers list", () => {
  it("filters by block_quota, variation, quota and subevent, each both ways", async () => {
    const s = await shop({ series: true });
    const shirt = await s.item({ name: { en: "Shirt" }, variations: [{ value: { en: "S" } }, { value: { en: "M" } }] });
    const [vs, vm] = shirt.variations.map((v: Json) => v.id) as [number, number];
    const [d1, d2] = [await s.subevent(), await s.subevent()];
    const qs = await s.quota({ size: 10, items: [shirt.id], variations: [vs], subevent: d1.id });
    const blocking = await s.voucher({ item: shirt.id, variation: vs, block_quota: true, subevent: d1.id });
    const quotaVoucher = await s.voucher({ quota: qs.id });
    const plain = await s.voucher({ item: shirt.id });
    const ids = async (q: string) =>
      (await s.client.get(`${s.path}/vouchers/?${q}`)).body.results.map((v: Json) => v.id);
    expect(await ids("block_quota=true")).toEqual([blocking.id]);
    expect(await ids("block_quota=false")).toEqual([quotaVoucher.id, plain.id]);
    expect(await ids(`variation=${vs}`)).toEqual([blocking.id]);
    expect(await ids(`variation=${vm}`)).toEqual([]);
    expect(await ids(`quota=${qs.id}`)).toEqual([quotaVoucher.id]);
    expect(await ids(`quota=${qs.id + 1000}`)).toEqual([]);
    expect(await ids(`subevent=${d1.id}`)).toEqual([blocking.id]);
    expect(await ids(`subevent=${d2.id}`)).toEqual([]);
  });
});

describe("creating vouchers", () => {
  it("a variation voucher and a quota voucher, not blocking", async () => {
    const s = await shop();
    const { shirt, vs, qs } = await shirts(s, { S: 10, M: 10 });
    const variation = await post(s, { item: shirt.id, variation: vs });
    expect(variation.status).toBe(201);
    expect(variation.body).toMatchObject({ item: shirt.id, variation: vs, quota: null, block_quota: false });
    const quota = await post(s, { quota: qs.id });
    expect(quota.status).toBe(201);
    expect(quota.body).toMatchObject({ quota: qs.id, item: null, variation: null, block_quota: false });
  });

  it("blocking: with room 201, on a full quota 400, for a product, a variation and a quota", async () => {
    const s = await shop();
    const ticket = await s.item();
    const full = await s.item({ name: { en: "Gone" } });
    await s.quota({ size: 1, items: [ticket.id] });
    const zero = await s.quota({ name: "None left", size: 0, items: [full.id] });
    const { shirt, vs, vm, qs } = await shirts(s, { S: 1, M: 0 });
    const ok = [
      { item: ticket.id, block_quota: true },
      { item: shirt.id, variation: vs, block_quota: true },
    ];
    for (const body of ok) {
      const res = await post(s, body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.block_quota).toBe(true);
    }
    const refused = [
      { item: full.id, block_quota: true },
      { item: shirt.id, variation: vm, block_quota: true },
      { quota: zero.id, block_quota: true },
      // the quotas above are full now
      { item: ticket.id, block_quota: true },
      { quota: qs.id, block_quota: true },
    ];
    for (const body of refused) {
      const res = await post(s, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.block_quota[0]).toMatch(NO_ROOM);
    }
    const roomy = await s.quota({ name: "Roomy", size: 3, items: [] });
    const byQuota = await post(s, { quota: roomy.id, block_quota: true, max_usages: 3 });
    expect(byQuota.status).toBe(201);
    expect((await s.client.get(`${s.path}/quotas/${roomy.id}/availability/`)).body).toMatchObject({
      available_number: 0,
      blocking_vouchers: 3,
    });
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(3);
  });

  it("a blocking voucher that expired already is created on a full quota: it blocks nothing", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 0, items: [ticket.id] });
    const res = await post(s, { item: ticket.id, block_quota: true, valid_until: past() });
    expect(res.status).toBe(201);
    expect(res.body.block_quota).toBe(true);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body.blocking_vouchers).toBe(0);
  });

  it("in a series: a date is optional unless blocking; the block needs room on that date", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const [d1, d2] = [await s.subevent(), await s.subevent()];
    await s.quota({ size: 5, items: [ticket.id], subevent: d1.id });
    await s.quota({ size: 0, items: [ticket.id], subevent: d2.id });
    const optional = await post(s, { item: ticket.id });
    expect(optional.status).toBe(201);
    expect(optional.body).toMatchObject({ subevent: null, block_quota: false, item: ticket.id });
    const noDate = await post(s, { item: ticket.id, block_quota: true });
    expect(noDate.status).toBe(400);
    expect(noDate.body).toEqual({
      block_quota: ["If you want this voucher to block quota, you need to select a specific date."],
    });
    const room = await post(s, { item: ticket.id, block_quota: true, subevent: d1.id });
    expect(room.status).toBe(201);
    expect(room.body).toMatchObject({ block_quota: true, subevent: d1.id });
    const full = await post(s, { item: ticket.id, block_quota: true, subevent: d2.id });
    expect(full.status).toBe(400);
    expect(full.body.block_quota[0]).toMatch(NO_ROOM);
  });
});

describe("changing vouchers", () => {
  it("refuses another event's product and keeps the voucher; a product voucher becomes a quota voucher", async () => {
    const s = await shop();
    const other = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const theirs = await other.item();
    const v = await s.voucher({ item: ticket.id });
    const res = await patch(s, v.id, { item: theirs.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ item: [`Invalid pk "${theirs.id}" - object does not exist.`] });
    expect((await get(s, v.id)).item).toBe(ticket.id);
    const moved = await patch(s, v.id, { quota: q.id, item: null });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ item: null, quota: q.id });
  });

  it("max_usages below what was redeemed is refused and kept", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const v = await s.voucher({ item: ticket.id, max_usages: 5 });
    const order = await s.client.post(`${s.path}/orders/`, {
      positions: Array.from({ length: 3 }, () => ({ item: ticket.id, voucher: v.code })),
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const res = await patch(s, v.id, { max_usages: 2 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ max_usages: ["This voucher has already been redeemed more often than this number."] });
    expect(await get(s, v.id)).toMatchObject({ max_usages: 5, redeemed: 3 });
    expect((await patch(s, v.id, { max_usages: 3 })).status).toBe(200);
  });

  it("a blocking voucher on a quota that became over-full changes what needs no new room (200)", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const v = await s.voucher({ item: ticket.id, block_quota: true });
    expect((await s.client.patch(`${s.path}/quotas/${q.id}/`, { size: 0 })).status).toBe(200);
    const res = await patch(s, v.id, { comment: "Foo" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ comment: "Foo", block_quota: true, item: ticket.id });
  });

  it("becoming blocking, or valid again, needs room: 400 and unchanged on a full quota, 200 with room", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const plain = await s.voucher({ item: ticket.id });
    const expired = await s.voucher({ item: ticket.id, block_quota: true, valid_until: past() });
    const filler = await s.voucher({ item: ticket.id, block_quota: true });

    const toBlocking = await patch(s, plain.id, { block_quota: true });
    expect(toBlocking.status).toBe(400);
    expect(toBlocking.body.block_quota[0]).toMatch(NO_ROOM);
    expect((await get(s, plain.id)).block_quota).toBe(false);
    const until = future();
    const revived = await patch(s, expired.id, { valid_until: until });
    expect(revived.status).toBe(400);
    expect(Date.parse((await get(s, expired.id)).valid_until)).toBeLessThan(Date.now());

    expect((await s.client.patch(`${s.path}/quotas/${q.id}/`, { size: 3 })).status).toBe(200);
    expect((await patch(s, plain.id, { block_quota: true })).body.block_quota).toBe(true);
    const valid = await patch(s, expired.id, { valid_until: until });
    expect(valid.status).toBe(200);
    expect(Date.parse(valid.body.valid_until)).toBeGreaterThan(Date.now());
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 0,
      blocking_vouchers: 3,
    });
    expect(filler.block_quota).toBe(true);
  });

  it("moving a block to another product, variation, quota or date needs room there; within one full quota it only moves", async () => {
    const s = await shop();
    const ticket = await s.item();
    const late = await s.item({ name: { en: "Late" } });
    const gone = await s.item({ name: { en: "Gone" } });
    const shared = await s.quota({ size: 2, items: [ticket.id, late.id] });
    await s.quota({ name: "Gone", size: 0, items: [gone.id] });
    const v = await s.voucher({ item: ticket.id, block_quota: true });
    // product: into a full quota no, within the shared quota yes, also when it is full
    const toGone = await patch(s, v.id, { item: gone.id });
    expect(toGone.status).toBe(400);
    expect(toGone.body.block_quota[0]).toMatch(NO_ROOM);
    expect((await get(s, v.id)).item).toBe(ticket.id);
    expect((await patch(s, v.id, { item: late.id })).body.item).toBe(late.id);
    expect((await s.client.patch(`${s.path}/quotas/${shared.id}/`, { size: 1 })).status).toBe(200);
    expect((await patch(s, v.id, { item: ticket.id })).body.item).toBe(ticket.id);

    // variation: into a size with room yes, into a full size no, within a shared full quota yes
    const split = await shirts(s, { S: 2, M: 2 });
    const w = await s.voucher({ item: split.shirt.id, variation: split.vs, block_quota: true });
    expect((await patch(s, w.id, { variation: split.vm })).body.variation).toBe(split.vm);
    expect((await s.client.patch(`${s.path}/quotas/${split.qs.id}/`, { size: 0 })).status).toBe(200);
    const toFull = await patch(s, w.id, { variation: split.vs });
    expect(toFull.status).toBe(400);
    expect((await get(s, w.id)).variation).toBe(split.vm);
    const one = await shirts(s, { shared: 1 });
    const x = await s.voucher({ item: one.shirt.id, variation: one.vs, block_quota: true });
    expect((await s.client.patch(`${s.path}/quotas/${one.qs.id}/`, { size: 0 })).status).toBe(200);
    expect((await patch(s, x.id, { variation: one.vm })).body.variation).toBe(one.vm);

    // quota: into one with room yes, into a full one no
    const qa = await s.quota({ name: "A", size: 2, items: [] });
    const qb = await s.quota({ name: "B", size: 2, items: [] });
    const qz = await s.quota({ name: "Z", size: 0, items: [] });
    const y = await s.voucher({ quota: qa.id, block_quota: true });
    expect((await patch(s, y.id, { quota: qb.id })).body.quota).toBe(qb.id);
    const toZero = await patch(s, y.id, { quota: qz.id });
    expect(toZero.status).toBe(400);
    expect(toZero.body.block_quota[0]).toMatch(NO_ROOM);
    expect((await get(s, y.id)).quota).toBe(qb.id);
  });

  it("moving a block to another date of a series needs room on that date", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const [d1, d2, d3] = [await s.subevent(), await s.subevent(), await s.subevent()];
    await s.quota({ size: 5, items: [ticket.id], subevent: d1.id });
    await s.quota({ size: 5, items: [ticket.id], subevent: d2.id });
    await s.quota({ size: 0, items: [ticket.id], subevent: d3.id });
    const v = await s.voucher({ item: ticket.id, block_quota: true, subevent: d1.id });
    const moved = await patch(s, v.id, { subevent: d2.id });
    expect(moved.status).toBe(200);
    expect(moved.body.subevent).toBe(d2.id);
    const full = await patch(s, v.id, { subevent: d3.id });
    expect(full.status).toBe(400);
    expect(full.body.block_quota[0]).toMatch(NO_ROOM);
    expect((await get(s, v.id)).subevent).toBe(d2.id);
  });
});
