/**
 * Waiting list entries as pretix's test_waitinglist.py uses them: the list and its filters,
 * detail, create with pretix's refusals (missing fields, a variation to pick, a date of a
 * series, an available product, a duplicate), PATCH / PUT, DELETE, and send_voucher (once,
 * and only with a unit left). Automatic vouchers: waitinglist-assign.test.ts.
 */
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, vouchers, waitinglistEntries } from "../../src/db/schema";
import { db, type Json } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const list = (s: Shop, query = "") => s.client.get(`${s.path}/waitinglistentries/${query ? `?${query}` : ""}`);
const create = (s: Shop, body: Record<string, unknown>) => s.client.post(`${s.path}/waitinglistentries/`, body);
const entryRow = async (id: number) =>
  (await db().select().from(waitinglistEntries).where(eq(waitinglistEntries.id, id)))[0];

/** pretix's fixtures: a "Budget Ticket" with a quota of 0, and one entry of waiting@example.org. */
async function world(opts: { series?: boolean } = {}) {
  const s = await shop({ series: opts.series });
  const item = await s.item({ name: { en: "Budget Ticket" }, default_price: "23.00" });
  const sub = opts.series ? await s.subevent() : null;
  const quota = await s.quota({ name: "Budget Ticket", size: 0, items: [item.id], subevent: sub?.id ?? null });
  const res = await create(s, { email: "waiting@example.org", item: item.id, locale: "en", subevent: sub?.id ?? null });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { s, item, quota, sub, wle: res.body as Json };
}

/** A voucher given to the entry by hand (pretix's tests set `wle.voucher` directly). */
async function giveVoucher(w: Awaited<ReturnType<typeof world>>) {
  const v = await w.s.voucher({ item: w.item.id, price_mode: "set", value: "12.00", tag: "Foo" });
  await db().update(waitinglistEntries).set({ voucherId: v.id }).where(eq(waitinglistEntries.id, w.wle.id));
  return v;
}

describe("listing and reading entries (test_wle_list, test_wle_detail)", () => {
  it("answers pretix's fields, and each filter both ways", async () => {
    const w = await world();
    const shirt = await w.s.item({
      name: { en: "Shirt" },
      variations: [{ value: { en: "S" } }, { value: { en: "M" } }],
    });
    const [vs, vm] = shirt.variations.map((v: Json) => v.id) as [number, number];
    await w.s.quota({ name: "Shirts", size: 0, items: [shirt.id], variations: [vs, vm] });
    await db().delete(waitinglistEntries).where(eq(waitinglistEntries.id, w.wle.id));
    const made = await create(w.s, { email: "waiting@example.org", item: shirt.id, variation: vs, locale: "en" });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = {
      id: made.body.id,
      created: made.body.created,
      name: null,
      name_parts: {},
      email: "waiting@example.org",
      phone: null,
      voucher: null,
      item: shirt.id,
      variation: vs,
      locale: "en",
      priority: 0,
      subevent: null,
    };
    const page = await list(w.s);
    expect(page.status).toBe(200);
    expect(page.body.results).toEqual([res]);
    const results = async (q: string) => (await list(w.s, q)).body.results;
    expect(await results(`item=${shirt.id}`)).toEqual([res]);
    expect(await results(`item=${w.item.id}`)).toEqual([]);
    expect(await results(`variation=${vs}`)).toEqual([res]);
    expect(await results(`variation=${vm}`)).toEqual([]);
    expect(await results("email=waiting@example.org")).toEqual([res]);
    expect(await results("email=foo@bar.sample")).toEqual([]);
    expect(await results("locale=en")).toEqual([res]);
    expect(await results("locale=de")).toEqual([]);
    expect(await results("has_voucher=false")).toEqual([res]);
    expect(await results("has_voucher=true")).toEqual([]);
    const v = await w.s.voucher({ item: shirt.id, variation: vs });
    await db().update(waitinglistEntries).set({ voucherId: v.id }).where(eq(waitinglistEntries.id, res.id));
    expect(await results("has_voucher=true")).toEqual([{ ...res, voucher: v.id }]);
  });

  it("filters by date in a series", async () => {
    const w = await world({ series: true });
    const other = await w.s.subevent({ name: { en: "Foobar" } });
    const ids = async (q: string) => (await list(w.s, q)).body.results.map((e: Json) => e.id);
    expect(await ids(`subevent=${w.sub!.id}`)).toEqual([w.wle.id]);
    expect(await ids(`subevent=${other.id}`)).toEqual([]);
  });

  it("orders by created (default), id, email, item; the detail answers the entry", async () => {
    const w = await world();
    const second = await create(w.s, { email: "a@example.org", item: w.item.id });
    const ids = async (q: string) => (await list(w.s, q)).body.results.map((e: Json) => e.id);
    expect(await ids("")).toEqual([w.wle.id, second.body.id]);
    expect(await ids("ordering=-id")).toEqual([second.body.id, w.wle.id]);
    expect(await ids("ordering=email")).toEqual([second.body.id, w.wle.id]);
    const detail = await w.s.client.get(`${w.s.path}/waitinglistentries/${w.wle.id}/`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({ ...w.wle });
    expect(detail.body).toMatchObject({ email: "waiting@example.org", item: w.item.id, voucher: null, priority: 0 });
    expect((await w.s.client.get(`${w.s.path}/waitinglistentries/${w.wle.id + 1000}/`)).status).toBe(404);
  });
});

describe("the quota's waiting_list", () => {
  it("counts the entries still waiting for what the quota covers, on its date", async () => {
    const w = await world();
    await create(w.s, { email: "second@example.org", item: w.item.id });
    const other = await w.s.item({ name: { en: "Other" } });
    await w.s.quota({ name: "Other", size: 0, items: [other.id] });
    await create(w.s, { email: "third@example.org", item: other.id });
    const a = await w.s.client.get(`${w.s.path}/quotas/${w.quota.id}/availability/`);
    expect(a.body).toMatchObject({ waiting_list: 2, available_number: 0 });
    await giveVoucher(w);
    expect((await w.s.client.get(`${w.s.path}/quotas/${w.quota.id}/availability/`)).body.waiting_list).toBe(1);
  });
});

describe("creating entries (test_wle_create_*, test_wle_require_fields)", () => {
  it("creates an entry for a sold-out product (201) with pretix's defaults", async () => {
    const w = await world();
    const res = await create(w.s, { email: "testdummy@pretix.eu", item: w.item.id, variation: null, subevent: null });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: "testdummy@pretix.eu", item: w.item.id, variation: null, locale: "en" });
    expect((await entryRow(res.body.id))?.voucherId).toBeNull();
  });

  it("refuses missing fields, a product with variations without one, a series without a date", async () => {
    const w = await world();
    const noEmail = await create(w.s, { item: w.item.id, locale: "en" });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body).toEqual({ email: ["This field is required."] });
    const noItem = await create(w.s, { email: "testdummy@pretix.eu", locale: "en" });
    expect(noItem.status).toBe(400);
    expect(noItem.body).toEqual({ item: ["This field is required."] });
    const shirt = await w.s.item({ name: { en: "Shirt" }, variations: [{ value: { en: "S" } }] });
    await w.s.quota({ name: "Shirts", size: 0, items: [shirt.id], variations: [shirt.variations[0].id] });
    const noVariation = await create(w.s, { email: "testdummy@pretix.eu", item: shirt.id });
    expect(noVariation.status).toBe(400);
    expect(noVariation.body).toEqual({ non_field_errors: ["Please select a specific variation of this product."] });
    const series = await world({ series: true });
    const noDate = await create(series.s, { email: "testdummy@pretix.eu", item: series.item.id, subevent: null });
    expect(noDate.status).toBe(400);
    expect(noDate.body).toEqual({ non_field_errors: ["Subevent cannot be null for event series."] });
    const unknown = await create(w.s, { email: "testdummy@pretix.eu", item: w.item.id + 1000 });
    expect(unknown.body).toEqual({ item: [`Invalid pk "${w.item.id + 1000}" - object does not exist.`] });
    expect((await list(w.s)).body.count).toBe(1);
  });

  it("refuses a product that is available (400), and accepts it once others wait for every unit", async () => {
    const s = await shop();
    const item = await s.item();
    const q = await s.quota({ size: 1, items: [item.id] });
    const res = await create(s, { email: "testdummy@pretix.eu", item: item.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ["This product is currently available."] });
    expect((await list(s)).body.count).toBe(0);
    // the one unit is spoken for by an entry (pretix counts the waiting list)
    await db()
      .insert(waitinglistEntries)
      .values({ eventId: s.eventId, itemId: item.id, email: "first@example.org", createdAt: Date.now() });
    expect((await create(s, { email: "second@example.org", item: item.id })).status).toBe(201);
    expect(q.size).toBe(1);
  });

  it("refuses a second waiting entry of the same address and product, in any case", async () => {
    const w = await world();
    const again = await create(w.s, { email: "WAITING@example.org", item: w.item.id });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      non_field_errors: [
        "You are already on this waiting list! We will notify you as soon as we have a ticket available for you.",
      ],
    });
  });

  it("parallel creations of one address: exactly one entry", async () => {
    const w = await world();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => create(w.s, { email: "race@example.org", item: w.item.id })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(7);
    expect((await list(w.s, "email=race@example.org")).body.count).toBe(1);
  });

  it("takes name, name_parts, phone and priority", async () => {
    const w = await world();
    const res = await create(w.s, {
      email: "named@example.org",
      item: w.item.id,
      name_parts: { full_name: "Ada Lovelace" },
      phone: "+4930123456",
      priority: 5,
      locale: "de",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      name: "Ada Lovelace",
      name_parts: { full_name: "Ada Lovelace", _scheme: "full" },
      phone: "+4930123456",
      priority: 5,
      locale: "de",
    });
    const both = await create(w.s, {
      email: "b@example.org",
      item: w.item.id,
      name: "A",
      name_parts: { full_name: "B" },
    });
    expect(both.body).toEqual({ name: ["Do not specify name if you specified name_parts."] });
  });
});

describe("changing and deleting entries (test_wle_change_*, test_delete_wle*)", () => {
  const patch = (w: Awaited<ReturnType<typeof world>>, body: Record<string, unknown>) =>
    w.s.client.patch(`${w.s.path}/waitinglistentries/${w.wle.id}/`, body);

  it("changes the address (200)", async () => {
    const w = await world();
    const res = await patch(w, { email: "foo@pretix.eu" });
    expect(res.status).toBe(200);
    expect((await entryRow(w.wle.id))?.email).toBe("foo@pretix.eu");
  });

  it("refuses changing an entry that has a voucher (403), and deleting it", async () => {
    const w = await world();
    await giveVoucher(w);
    const res = await patch(w, { email: "foo@pretix.eu" });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: "This entry can not be changed as it has already been assigned a voucher." });
    expect((await entryRow(w.wle.id))?.email).toBe("waiting@example.org");
    const del = await w.s.client.delete(`${w.s.path}/waitinglistentries/${w.wle.id}/`);
    expect(del.status).toBe(403);
    expect(await entryRow(w.wle.id)).toBeDefined();
  });

  it("deletes an entry (204)", async () => {
    const w = await world();
    expect((await w.s.client.delete(`${w.s.path}/waitinglistentries/${w.wle.id}/`)).status).toBe(204);
    expect(await entryRow(w.wle.id)).toBeUndefined();
  });

  it("refuses moving to an available product; moves to a sold-out variation; refuses one without its variation", async () => {
    const w = await world();
    const open = await w.s.item({ name: { en: "Budget Ticket" } });
    await w.s.quota({ size: 1, items: [open.id] });
    expect((await patch(w, { item: open.id })).status).toBe(400);
    expect((await entryRow(w.wle.id))?.itemId).toBe(w.item.id);
    const shirt = await w.s.item({ name: { en: "Shirt" }, variations: [{ value: { en: "S" } }] });
    const vs = shirt.variations[0].id as number;
    await w.s.quota({ size: 0, items: [shirt.id], variations: [vs] });
    expect((await patch(w, { item: shirt.id })).status).toBe(400);
    expect((await entryRow(w.wle.id))?.itemId).toBe(w.item.id);
    const moved = await patch(w, { item: shirt.id, variation: vs });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ item: shirt.id, variation: vs });
  });

  it("refuses a date of another event", async () => {
    const w = await world({ series: true });
    const other = await world({ series: true });
    const res = await patch(w, { subevent: other.sub!.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ["The subevent does not belong to this event."] });
  });

  it("refuses becoming a duplicate of another waiting entry", async () => {
    const w = await world();
    await create(w.s, { email: "foo@pretix.eu", item: w.item.id });
    const res = await w.s.client.patch(`${w.s.path}/waitinglistentries/${w.wle.id}/`, { email: "foo@pretix.eu" });
    expect(res.status).toBe(400);
  });

  it("PUT resets what it leaves out", async () => {
    const w = await world();
    await patch(w, { priority: 3, phone: "+49301" });
    const res = await w.s.client.put(`${w.s.path}/waitinglistentries/${w.wle.id}/`, {
      email: "put@example.org",
      item: w.item.id,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ email: "put@example.org", priority: 0, phone: null, locale: "en" });
  });
});

describe("send_voucher (test_wle_send_voucher*)", () => {
  const send = (w: Awaited<ReturnType<typeof world>>) =>
    w.s.client.post(`${w.s.path}/waitinglistentries/${w.wle.id}/send_voucher/`, {});

  it("sends a single-use voucher that blocks quota for waiting_list_hours, and its mail (204)", async () => {
    const w = await world();
    // raising the quota would give the voucher automatically (waiting_list_auto): off for this test
    await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_hours: 6, waiting_list_auto: false });
    await w.s.client.patch(`${w.s.path}/quotas/${w.quota.id}/`, { size: 10 });
    const before = Date.now();
    const res = await send(w);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const entry = await entryRow(w.wle.id);
    expect(entry?.voucherId).not.toBeNull();
    const v = (await w.s.client.get(`${w.s.path}/vouchers/${entry!.voucherId}/`)).body;
    expect(v).toMatchObject({
      max_usages: 1,
      block_quota: true,
      item: w.item.id,
      variation: null,
      subevent: null,
      tag: "waiting-list",
      redeemed: 0,
    });
    const until = Date.parse(v.valid_until);
    expect(until).toBeGreaterThanOrEqual(before + 6 * 3_600_000 - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 6 * 3_600_000 + 1000);
    const q = (await w.s.client.get(`${w.s.path}/quotas/${w.quota.id}/availability/`)).body;
    expect(q).toMatchObject({ available_number: 9, blocking_vouchers: 1 });
    const mails = await db()
      .select()
      .from(mailOutbox)
      .where(
        and(
          eq(mailOutbox.eventId, w.s.eventId),
          eq(mailOutbox.toAddress, "waiting@example.org"),
          eq(mailOutbox.kind, "waiting_list_voucher"),
        ),
      );
    expect(mails).toHaveLength(1);
    expect(mails[0]!.textBody).toContain(v.code);
    expect(mails[0]!.textBody).toContain("6 hours");
  });

  it("a second time answers 400 and creates nothing", async () => {
    const w = await world();
    await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_auto: false });
    await w.s.client.patch(`${w.s.path}/quotas/${w.quota.id}/`, { size: 10 });
    expect((await send(w)).status).toBe(204);
    const again = await send(w);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "A voucher has already been sent to this person." });
    expect(await db().select().from(vouchers).where(eq(vouchers.eventId, w.s.eventId))).toHaveLength(1);
  });

  it("without a unit left answers 400 and the entry keeps waiting", async () => {
    const w = await world();
    const res = await send(w);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "This product is currently not available." });
    expect((await entryRow(w.wle.id))?.voucherId).toBeNull();
    expect((await w.s.client.post(`${w.s.path}/waitinglistentries/${w.wle.id + 1000}/send_voucher/`, {})).status).toBe(
      404,
    );
  });

  it("deleting the voucher deletes its entry (pretix's cascade)", async () => {
    const w = await world();
    await w.s.client.patch(`${w.s.path}/settings/`, { waiting_list_auto: false });
    await w.s.client.patch(`${w.s.path}/quotas/${w.quota.id}/`, { size: 1 });
    expect((await send(w)).status).toBe(204);
    const entry = await entryRow(w.wle.id);
    expect((await w.s.client.delete(`${w.s.path}/vouchers/${entry!.voucherId}/`)).status).toBe(204);
    expect(await entryRow(w.wle.id)).toBeUndefined();
  });
});
