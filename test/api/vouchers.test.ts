/** Vouchers (spec "Voucher", pretix docs vouchers.rst). */
import { describe, expect, it, vi } from "vitest";
import { seedDevice, seedTeam } from "../harness";
import { shop } from "../helpers/sales";

describe("vouchers", () => {
  it("creates a voucher with the defaults and reads it back with exactly the spec's fields", async () => {
    const s = await shop();
    const res = await s.client.post(`${s.path}/vouchers/`, { code: "43K6LKM37FBVR2YG" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      code: "43K6LKM37FBVR2YG",
      max_usages: 1,
      redeemed: 0,
      min_usages: 1,
      valid_until: null,
      block_quota: false,
      allow_ignore_quota: false,
      price_mode: "none",
      value: "0.00",
      item: null,
      variation: null,
      quota: null,
      seat: null,
      tag: "",
      comment: "",
      subevent: null,
      show_hidden_items: true,
    });
    expect((await s.client.get(`${s.path}/vouchers/${res.body.id}/`)).body).toEqual(res.body);
  });

  it("stores every price mode and refuses unknown ones", async () => {
    const s = await shop();
    const ticket = await s.item();
    for (const [mode, value] of [
      ["set", "12.00"],
      ["subtract", "2.50"],
      ["percent", "10.00"],
      ["none", "0.00"],
    ] as const) {
      const v = await s.voucher({ price_mode: mode, value, item: ticket.id });
      expect(v).toMatchObject({ price_mode: mode, value });
    }
    const bad = await s.client.post(`${s.path}/vouchers/`, { code: "ABCDEFG", price_mode: "free" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ price_mode: ['"free" is not a valid choice.'] });
    const pct = await s.client.post(`${s.path}/vouchers/`, {
      code: "ABCDEFGH",
      price_mode: "percent",
      value: "120.00",
    });
    expect(pct.body).toEqual({ value: ["A percentage may not be higher than 100."] });
  });

  it("rejects the combinations pretix rejects", async () => {
    const s = await shop();
    const shirt = await s.item({ variations: [{ value: { en: "S" } }] });
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const post = (body: Record<string, unknown>) =>
      s.client.post(`${s.path}/vouchers/`, { code: `X${Math.random().toString(36).slice(2, 10)}`, ...body });
    expect((await post({ quota: q.id, item: ticket.id })).body).toEqual({
      quota: ["You cannot select a quota and a specific product at the same time."],
    });
    expect((await post({ variation: shirt.variations[0].id })).body).toEqual({
      variation: ["You cannot select a variation without a product."],
    });
    expect((await post({ item: ticket.id, variation: shirt.variations[0].id })).body).toEqual({
      variation: ["This variation does not belong to the selected product."],
    });
    expect((await post({ block_quota: true })).body).toEqual({
      block_quota: ["You need to select a specific product or quota if this voucher should reserve tickets."],
    });
    expect((await post({ block_quota: true, item: shirt.id })).body).toEqual({
      block_quota: [
        "You need to select a specific variation if this voucher should reserve tickets of a product with variations.",
      ],
    });
    expect((await post({ min_usages: 3, max_usages: 2 })).body).toEqual({
      min_usages: ["The minimum number of usages may not be higher than the maximum number of usages."],
    });
    expect((await post({ max_usages: 0 })).body).toEqual({
      max_usages: ["Ensure this value is greater than or equal to 1."],
    });
    expect((await post({ code: "abc" })).body).toEqual({ code: ["Ensure this field has at least 5 characters."] });
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(0);
  });

  it("keeps codes unique per event, case-insensitively", async () => {
    const s = await shop();
    const other = await shop();
    await s.voucher({ code: "SUMMER2030" });
    const dup = await s.client.post(`${s.path}/vouchers/`, { code: "summer2030" });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ code: ["A voucher with this code already exists."] });
    await other.voucher({ code: "SUMMER2030" });
  });

  it("filters and orders the list", async () => {
    const s = await shop();
    const ticket = await s.item();
    const a = await s.voucher({
      code: "AAAAA1",
      tag: "press",
      max_usages: 5,
      price_mode: "set",
      value: "5.00",
      item: ticket.id,
    });
    const b = await s.voucher({ code: "BBBBB1", tag: "press", max_usages: 1 });
    const c = await s.voucher({ code: "CCCCC1", tag: "staff", block_quota: false, allow_ignore_quota: true });
    const ids = async (q: string) =>
      (await s.client.get(`${s.path}/vouchers/?${q}`)).body.results.map((v: { id: number }) => v.id);
    expect(await ids("tag=press")).toEqual([a.id, b.id]);
    expect(await ids("code=bbbbb1")).toEqual([b.id]);
    expect(await ids("max_usages=5")).toEqual([a.id]);
    expect(await ids("redeemed=0")).toEqual([a.id, b.id, c.id]);
    expect(await ids("allow_ignore_quota=true")).toEqual([c.id]);
    expect(await ids("price_mode=set")).toEqual([a.id]);
    expect(await ids("value=5.00")).toEqual([a.id]);
    expect(await ids(`item=${ticket.id}`)).toEqual([a.id]);
    expect(await ids("ordering=-code")).toEqual([c.id, b.id, a.id]);
    expect(await ids("ordering=-max_usages")).toEqual([a.id, b.id, c.id]);
    expect((await s.client.get(`${s.path}/vouchers/?price_mode=free`)).status).toBe(400);
  });

  it("blocks quota with block_quota and refuses a block that does not fit", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const v = await s.voucher({ item: ticket.id, block_quota: true, max_usages: 6 });
    const tooMuch = await s.client.post(`${s.path}/vouchers/`, {
      code: "TOOMUCH1",
      item: ticket.id,
      block_quota: true,
      max_usages: 5,
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.block_quota[0]).toMatch(
      /^There is not enough quota available to block tickets for this voucher/,
    );
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 4,
      blocking_vouchers: 6,
    });
    // raising the block beyond the quota fails, lowering it frees capacity
    expect((await s.client.patch(`${s.path}/vouchers/${v.id}/`, { max_usages: 11 })).status).toBe(400);
    expect((await s.client.patch(`${s.path}/vouchers/${v.id}/`, { max_usages: 2 })).status).toBe(200);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 8,
      blocking_vouchers: 2,
    });
    // expired vouchers block nothing
    await s.client.patch(`${s.path}/vouchers/${v.id}/`, { valid_until: "2001-01-01T00:00:00Z" });
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 10,
      blocking_vouchers: 0,
    });
    // deleting a blocking voucher frees its block
    const w = await s.voucher({ item: ticket.id, block_quota: true, max_usages: 3 });
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body.available_number).toBe(7);
    expect((await s.client.delete(`${s.path}/vouchers/${w.id}/`)).status).toBe(204);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body.available_number).toBe(10);
  });

  it("batch_create is atomic: one bad voucher and none is created", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 3, items: [ticket.id] });
    const ok = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { code: "BATCH001" },
      { code: "BATCH002", item: ticket.id },
    ]);
    expect(ok.status).toBe(201);
    expect(ok.body.map((v: { code: string }) => v.code)).toEqual(["BATCH001", "BATCH002"]);
    const bad = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { code: "BATCH003" },
      { code: "BATCH001" },
      { code: "BATCH003" },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual([
      {},
      { code: ["A voucher with this code already exists."] },
      { code: ["Duplicate voucher code in request."] },
    ]);
    const quota = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { code: "BLOCK001", item: ticket.id, block_quota: true, max_usages: 2 },
      { code: "BLOCK002", item: ticket.id, block_quota: true, max_usages: 2 },
    ]);
    expect(quota.status).toBe(400);
    expect(quota.body[0]).toEqual({});
    expect(quota.body[1].block_quota[0]).toMatch(/not enough quota/);
    const shape = await s.client.post(`${s.path}/vouchers/batch_create/`, { code: "NOTALIST" });
    expect(shape.status).toBe(400);
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(2);
  });

  it("batch_create with one new code twice: pretix's duplicate message on the second, nothing created", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const voucher = {
      max_usages: 1,
      valid_until: null,
      price_mode: "set",
      value: "12.00",
      item: ticket.id,
      tag: "Foo",
    };
    const res = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { ...voucher, code: "ABCDEFGHI", block_quota: false },
      { ...voucher, code: "ABCDEFGHI", block_quota: true },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual([{}, { code: ["Duplicate voucher code in request."] }]);
    // codes differing in case only are the same code
    const cased = await s.client.post(`${s.path}/vouchers/batch_create/`, [
      { code: "CaseCode1" },
      { code: "CASECODE1" },
    ]);
    expect(cased.body).toEqual([{}, { code: ["Duplicate voucher code in request."] }]);
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(0);
  });

  it("a voucher without code gets a generated one: 16 of pretix's characters, new in the event", async () => {
    const s = await shop();
    const ticket = await s.item();
    const PRETIX_CODE = /^[ABCDEFGHKLMNPQRSTUVWXYZ23456789]{16}$/;
    const minimal = await s.client.post(`${s.path}/vouchers/`, { item: ticket.id });
    expect(minimal.status).toBe(201);
    expect(minimal.body).toMatchObject({ item: ticket.id, variation: null, quota: null, block_quota: false });
    expect(minimal.body.code).toMatch(PRETIX_CODE);
    const empty = await s.client.post(`${s.path}/vouchers/`, {});
    expect(empty.status).toBe(201);
    expect(empty.body.code).toMatch(PRETIX_CODE);
    const batch = await s.client.post(`${s.path}/vouchers/batch_create/`, [{}, { code: "GIVEN2030" }, { tag: "x" }]);
    expect(batch.status).toBe(201);
    const codes = batch.body.map((v: { code: string }) => v.code);
    expect(codes[0]).toMatch(PRETIX_CODE);
    expect(codes[1]).toBe("GIVEN2030");
    expect(codes[2]).toMatch(PRETIX_CODE);
    const all = [minimal.body.code, empty.body.code, codes[0], codes[2]];
    expect(new Set(all).size).toBe(4);
    // the generated code redeems the voucher
    await s.quota({ size: 5, items: [ticket.id] });
    const order = await s.client.post(`${s.path}/orders/`, {
      positions: [{ item: ticket.id, voucher: minimal.body.code.toLowerCase() }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.positions[0].voucher).toBe(minimal.body.id);
    // a given code is still checked
    expect((await s.client.post(`${s.path}/vouchers/`, { code: "abc" })).body).toEqual({
      code: ["Ensure this field has at least 5 characters."],
    });
  });

  it("refuses a product sold only as an add-on or in a bundle", async () => {
    const s = await shop();
    const addons = await s.post("/categories/", { name: { en: "Extras" }, is_addon: true });
    const plain = await s.post("/categories/", { name: { en: "Tickets" }, is_addon: false });
    const extra = await s.item({ name: { en: "Parking" }, category: addons.id });
    const bundled = await s.item({ name: { en: "Cloakroom" }, require_bundling: true });
    const ticket = await s.item({ category: plain.id });
    const ONLY_ADD_ON =
      "You cannot select a product that is only available as an add-on product or as part of a bundle, since vouchers cannot be applied to add-on products or bundled products.";
    for (const item of [extra, bundled]) {
      const res = await s.client.post(`${s.path}/vouchers/`, { code: `ADDON${item.id}X`, item: item.id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ item: [ONLY_ADD_ON] });
    }
    const v = await s.voucher({ item: ticket.id });
    const patched = await s.client.patch(`${s.path}/vouchers/${v.id}/`, { item: extra.id });
    expect(patched.body).toEqual({ item: [ONLY_ADD_ON] });
    expect((await s.client.get(`${s.path}/vouchers/${v.id}/`)).body.item).toBe(ticket.id);
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(1);
  });

  it("PUT resets omitted fields; id and redeemed cannot be changed", async () => {
    const s = await shop();
    const v = await s.voucher({ code: "PUTTEST1", tag: "x", max_usages: 4, comment: "c" });
    const put = await s.client.put(`${s.path}/vouchers/${v.id}/`, { code: "PUTTEST1", redeemed: 3, id: 999 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: v.id, code: "PUTTEST1", tag: "", max_usages: 1, comment: "", redeemed: 0 });
    expect((await s.client.put(`${s.path}/vouchers/${v.id}/`, { tag: "y" })).body).toEqual({
      code: ["This field is required."],
    });
  });

  it("needs the voucher permissions; devices cannot access vouchers; other events' vouchers are unreachable", async () => {
    const s = await shop();
    const other = await shop();
    const theirs = await other.voucher({});
    expect((await s.client.get(`${s.path}/vouchers/${theirs.id}/`)).status).toBe(404);
    expect((await s.client.patch(`${s.path}/vouchers/${theirs.id}/`, { tag: "x" })).status).toBe(404);
    const viewer = await seedTeam(s.org.id, { permissions: ["can_view_vouchers"] });
    expect((await viewer.client.get(`${s.path}/vouchers/`)).status).toBe(200);
    expect((await viewer.client.post(`${s.path}/vouchers/`, { code: "NOPE12" })).status).toBe(403);
    const device = await seedDevice(s.org.id);
    expect((await device.client.get(`${s.path}/vouchers/`)).status).toBe(403);
  });
  it("parallel creations of blocking vouchers block no more than the quota has", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 5, items: [ticket.id] });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.client.post(`${s.path}/vouchers/`, { code: `BLOCKRACE${i}`, item: ticket.id, block_quota: true }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(5).fill(201), ...Array(7).fill(400)]);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.block_quota[0]).toMatch(/not enough quota/);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 0,
      blocking_vouchers: 5,
    });
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(5);
  });

  it("many parallel creations of one code: exactly one voucher, the others a 400 on code, never a 409 or 500", async () => {
    const s = await shop();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => s.client.post(`${s.path}/vouchers/`, { code: "RACE2030" })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: ["A voucher with this code already exists."] });
    }
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(1);
  });

  it("parallel creations of one code in the same millisecond: still exactly one voucher, the others a 400 on code", async () => {
    // A refused insert must not be mistaken for a write whose answer was lost and that D1 has
    // "as written" (same code, same creation time): it was another request's voucher.
    const s = await shop();
    const clock = vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2030, 0, 1, 12));
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, () => s.client.post(`${s.path}/vouchers/`, { code: "SAMEMS2030" })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(400)]);
      for (const r of results.filter((x) => x.status !== 201))
        expect(r.body).toEqual({ code: ["A voucher with this code already exists."] });
    } finally {
      clock.mockRestore();
    }
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(1);
  });

  it("parallel creations of one code in different cases: exactly one voucher, the others a 400 on code", async () => {
    const s = await shop();
    const spellings = ["CaseRace30", "caserace30", "CASERACE30", "cASErACE30"];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => s.client.post(`${s.path}/vouchers/`, { code: spellings[i % 4] })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(400)]);
    for (const r of results.filter((x) => x.status !== 201))
      expect(r.body).toEqual({ code: ["A voucher with this code already exists."] });
    expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(1);
  });

  it("renaming vouchers in parallel to one code in different cases: one of them gets it", async () => {
    const s = await shop();
    const vouchers = await Promise.all(Array.from({ length: 6 }, (_, i) => s.voucher({ code: `CASEFROM${i}0` })));
    const results = await Promise.all(
      vouchers.map((v, i) =>
        s.client.patch(`${s.path}/vouchers/${v.id}/`, { code: i % 2 ? "CaseTarget30" : "CASETARGET30" }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: ["A voucher with this code already exists."] });
    }
    const codes = (await s.client.get(`${s.path}/vouchers/?page_size=50`)).body.results.map((v: { code: string }) =>
      v.code.toLowerCase(),
    );
    expect(codes.filter((c: string) => c === "casetarget30")).toHaveLength(1);
  });

  it("renaming a voucher to a code taken meanwhile answers 400 on code and keeps both vouchers as they were", async () => {
    const s = await shop();
    const vouchers = await Promise.all(Array.from({ length: 8 }, (_, i) => s.voucher({ code: `RENAME${i}0` })));
    const results = await Promise.all(
      vouchers.map((v) => s.client.patch(`${s.path}/vouchers/${v.id}/`, { code: "TARGET2030" })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ code: ["A voucher with this code already exists."] });
    }
    const codes = (await s.client.get(`${s.path}/vouchers/?ordering=id`)).body.results.map(
      (v: { code: string }) => v.code,
    );
    expect(codes.filter((c: string) => c === "TARGET2030")).toHaveLength(1);
    expect(codes).toHaveLength(8);
  });
});
