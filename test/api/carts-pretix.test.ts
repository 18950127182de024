/**
 * Cart positions answered as pretix answers them (pretix's src/tests/api/test_cart.py, read in
 * docs/pretix-tests.md): its texts and keys, which differ from order creation's; a single
 * creation's quota refusal as a bare list; seats and vouchers within one bulk request.
 */
import { describe, expect, it } from "vitest";
import type { Json } from "../harness";
import { otherEvent, seated } from "../helpers/pretix-fixtures";
import { type Shop, shop } from "../helpers/sales";

const QUOTA_TEXT = 'There is not enough quota available on quota "Budget Quota" to perform the operation.';

/** pretix's fixture: a "Budget Ticket" in a quota "Budget Quota" of 200, and its cart payload. */
async function budget(opts: { series?: boolean } = {}) {
  const s = await shop(opts);
  const item = await s.item({ name: { en: "Budget Ticket" }, default_price: "23.00" });
  const quota = opts.series ? null : await s.quota({ name: "Budget Quota", size: 200, items: [item.id] });
  const payload = (extra: Record<string, unknown> = {}) => ({
    cart_id: "aaa@api",
    item: item.id,
    price: "23.00",
    attendee_name_parts: { full_name: "Peter" },
    expires: new Date(Date.now() + 86400_000).toISOString(),
    ...extra,
  });
  const cart = (extra: Record<string, unknown> = {}) => s.client.post(`${s.path}/cartpositions/`, payload(extra));
  const bulk = (entries: Record<string, unknown>[]) =>
    s.client.post(
      `${s.path}/cartpositions/bulk_create/`,
      entries.map((e) => payload(e)),
    );
  return { s, item, quota, cart, bulk };
}

const count = async (s: Shop) => (await s.client.get(`${s.path}/cartpositions/`)).body.count as number;

describe("cart positions as pretix answers them", () => {
  it("test_cartpos_create / _name_optional / _legacy_name: name parts kept as sent", async () => {
    const { s, cart } = await budget();
    const res = await cart();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      price: "23.00",
      attendee_name: "Peter",
      attendee_name_parts: { full_name: "Peter" },
    });
    expect((await s.client.get(`${s.path}/cartpositions/${res.body.id}/`)).body.attendee_name_parts).toEqual({
      full_name: "Peter",
    });
    const none = await cart({ attendee_name: null, attendee_name_parts: undefined });
    expect(none.status).toBe(201);
    expect(none.body.attendee_name_parts).toEqual({});
    const both = await cart({ attendee_name: "Peter" });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({
      attendee_name: ["Do not specify attendee_name if you specified attendee_name_parts."],
    });
    const legacy = await cart({ attendee_name: "Peter", attendee_name_parts: undefined });
    expect(legacy.status).toBe(201);
    expect(legacy.body.attendee_name_parts).toEqual({ _legacy: "Peter" });
  });

  it("test_cartpos_create_subevent_validation: a date is needed, and one of this event", async () => {
    const { s, cart } = await budget({ series: true });
    const other = await otherEvent(s);
    expect((await cart()).body).toEqual({ subevent: ["You need to set a subevent."] });
    expect((await cart({ subevent: other.date.id })).body).toEqual({
      subevent: ["The specified subevent does not belong to this event."],
    });
  });

  it("test_cartpos_create_item_validation: inactive, another event's, variations as the position's, no quota", async () => {
    const { s, item, quota, cart } = await budget();
    const other = await otherEvent(s);
    expect((await s.client.patch(`${s.path}/items/${item.id}/`, { active: false })).status).toBe(200);
    expect((await cart()).body).toEqual({ item: ["The specified item is not active."] });
    expect((await s.client.patch(`${s.path}/items/${item.id}/`, { active: true })).status).toBe(200);
    expect((await cart({ item: other.item.id })).body).toEqual({
      item: ["The specified item does not belong to this event."],
    });
    const shirt = await s.item({ name: { en: "Budget Shirt" }, variations: [{ value: { en: "A" } }] });
    const otherShirt = await s.item({ name: { en: "Other" }, variations: [{ value: { en: "B" } }] });
    expect((await cart({ variation: shirt.variations[0].id })).body).toEqual({
      non_field_errors: ["You cannot specify a variation for this item."],
    });
    expect((await cart({ item: shirt.id, variation: shirt.variations[0].id })).body).toEqual({
      non_field_errors: ['The product "Budget Shirt" is not assigned to a quota.'],
    });
    const patched = await s.client.patch(`${s.path}/quotas/${quota!.id}/`, {
      items: [item.id, shirt.id],
      variations: [shirt.variations[0].id],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await cart({ item: shirt.id, variation: shirt.variations[0].id })).status).toBe(201);
    expect((await cart({ item: shirt.id, variation: otherShirt.variations[0].id })).body).toEqual({
      non_field_errors: ["The specified variation does not belong to the specified item."],
    });
    expect((await cart({ item: shirt.id, variation: null })).body).toEqual({
      non_field_errors: ["You should specify a variation for this item."],
    });
  });

  it("test_cartpos_create_answer_validation: one error object per answer, pretix's stored forms", async () => {
    const { s, item, cart } = await budget();
    const other = await otherEvent(s);
    const ask = (type: string, extra: Record<string, unknown> = {}) =>
      s.post("/questions/", { question: { en: `Q ${type}` }, type, items: [item.id], ...extra });
    const text = await ask("S");
    const choice = await ask("C", { options: [{ answer: { en: "XL" } }, { answer: { en: "L" } }] });
    const bool = await ask("B");
    const datetime = await ask("W");
    const answer = (a: Record<string, unknown>) => cart({ answers: [a] });
    const refused = (message: string) => ({ answers: [{ non_field_errors: [message] }] });
    expect((await answer({ question: other.question.id, answer: "S" })).body).toEqual({
      answers: [{ question: ["The specified question does not belong to this event."] }],
    });
    expect((await answer({ question: text.id, answer: "S", options: [choice.options[0].id] })).body).toEqual(
      refused("You should not specify options if the question is not of a choice type."),
    );
    expect((await answer({ question: choice.id, options: [] })).body).toEqual(
      refused("You need to specify options if the question is of a choice type."),
    );
    expect((await answer({ question: choice.id, options: choice.options.map((o: Json) => o.id) })).body).toEqual(
      refused("You can specify at most one option for this question."),
    );
    expect((await answer({ question: bool.id, answer: "bla" })).body).toEqual(
      refused('Please specify "true" or "false" for boolean questions.'),
    );
    expect(await count(s)).toBe(0);
    const zero = await answer({ question: bool.id, answer: "0" });
    expect(zero.status, JSON.stringify(zero.body)).toBe(201);
    expect(zero.body.answers[0].answer).toBe("False");
    const moment = await answer({ question: datetime.id, answer: "2018-05-14T13:00:00Z" });
    expect(moment.body.answers[0].answer).toBe("2018-05-14 13:00:00+00:00");
  });

  it("test_cartpos_create_quota_validation: a bare list naming the quota; in bulk the entry's non_field_errors", async () => {
    const { s, quota, cart, bulk } = await budget();
    expect((await s.client.patch(`${s.path}/quotas/${quota!.id}/`, { size: 0 })).status).toBe(200);
    const single = await cart();
    expect(single.status).toBe(400);
    expect(single.body).toEqual([QUOTA_TEXT]);
    expect((await s.client.patch(`${s.path}/quotas/${quota!.id}/`, { size: 1 })).status).toBe(200);
    const res = await bulk([{}, {}]);
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ success: true });
    expect(res.body.results[1]).toEqual({ success: false, errors: { non_field_errors: [QUOTA_TEXT] }, data: null });
    expect(await count(s)).toBe(1);
  });

  it("test_cartpos_create_with_used_seat / _with_unknown_seat / _unseated / _bulk_partial_seat_failure", async () => {
    const { s, item, cart, bulk } = await budget();
    await seated(s, item.id);
    const standing = await s.item({ name: { en: "Standing" } });
    expect((await cart({ seat: "A1_" })).body).toEqual({ seat: ["The specified seat does not exist."] });
    expect((await cart({ item: standing.id, seat: "A1" })).body).toEqual({
      seat: ["The specified product does not allow to choose a seat."],
    });
    const twice = await bulk([{ seat: "A1" }, { seat: "A1" }]);
    expect(twice.body.results[0]).toMatchObject({
      success: true,
      data: { seat: { seat_guid: "A1", name: "Seat A1" } },
    });
    expect(twice.body.results[1]).toEqual({
      success: false,
      errors: { non_field_errors: ["You can not select the same seat multiple times."] },
      data: null,
    });
    expect(await count(s)).toBe(1);
    expect((await cart({ seat: "A1", cart_id: "bbb@api" })).body).toEqual({
      seat: ['The selected seat "Seat A1" is not available.'],
    });
  });

  it("test_cartpos_create_with_voucher_*: pretix's texts, used up before expired", async () => {
    const { s, item, cart } = await budget({ series: true });
    const date = await s.subevent();
    const otherDate = await s.subevent({ name: { en: "Foobar" } });
    await s.quota({ name: "Budget Quota", size: 10, items: [item.id], subevent: date.id });
    await s.quota({ name: "Budget Quota", size: 10, items: [item.id], subevent: otherDate.id });
    const other = await s.item({ name: { en: "item2" } });
    const on = (voucher: string, subevent = date.id) => cart({ voucher, subevent });
    expect((await on("TESTCODE")).body).toEqual({ voucher: ["The specified voucher does not exist."] });
    await s.voucher({ code: "FOROTHER", item: other.id });
    expect((await on("FOROTHER")).body).toEqual({
      voucher: ["The specified voucher is not valid for the given item and variation."],
    });
    await s.voucher({ code: "FORDATE", item: item.id, subevent: date.id });
    expect((await on("FORDATE", otherDate.id)).body).toEqual({
      voucher: ["The specified voucher is not valid for this subevent."],
    });
    const yesterday = new Date(Date.now() - 86400_000).toISOString();
    await s.voucher({ code: "EXPIRED", item: item.id, valid_until: yesterday });
    expect((await on("EXPIRED")).body).toEqual({ voucher: ["The specified voucher is expired."] });
    const once = await s.voucher({ code: "USEDUP", item: item.id, max_usages: 1 });
    expect((await on("USEDUP")).status).toBe(201);
    const usedUp = { voucher: ["The specified voucher has already been used the maximum number of times."] };
    expect((await on("USEDUP")).body).toEqual(usedUp);
    expect((await s.client.patch(`${s.path}/vouchers/${once.id}/`, { valid_until: yesterday })).status).toBe(200);
    expect((await on("USEDUP")).body).toEqual(usedUp);
  });

  it("test_cartpos_create_with_voucher_by_code / _invalid_seat: a seat's voucher with its seat, not another", async () => {
    const { s, item, cart } = await budget();
    await seated(s, item.id);
    const v = await s.voucher({ code: "SEATA1", item: item.id, seat: "A1" });
    expect((await cart({ voucher: "SEATA1", seat: "A2" })).body).toEqual({
      voucher: ["The specified voucher is not valid for this seat."],
    });
    const res = await cart({ voucher: "SEATA1", seat: "A1" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ voucher: v.id, seat: { seat_guid: "A1" } });
  });

  it("test_cartpos_create_bulk_with_voucher / _bulk_with_voucher_redeemed: uses counted across the entries", async () => {
    const { s, item, bulk } = await budget();
    const v = await s.voucher({ code: "THREEUSES", item: item.id, max_usages: 3 });
    const first = await bulk([{ voucher: "THREEUSES" }, { voucher: "THREEUSES" }]);
    expect(first.body.results.map((r: Json) => [r.success, r.data?.voucher])).toEqual([
      [true, v.id],
      [true, v.id],
    ]);
    const second = await bulk([{ voucher: "THREEUSES" }, { voucher: "THREEUSES" }]);
    expect(second.body.results[0]).toMatchObject({ success: true });
    expect(second.body.results[1]).toEqual({
      success: false,
      errors: { voucher: ["The specified voucher has already been used the maximum number of times."] },
      data: null,
    });
    expect(await count(s)).toBe(3);
  });

  it("test_cartpos_create_bulk_with_bundled_partially_available / _bulk_validation_error_in_addon", async () => {
    const { s, bulk } = await budget();
    const workshop = await s.item({ name: { en: "Workshop" }, default_price: "2.00" });
    await s.quota({ name: "Addon Quota", size: 1, items: [workshop.id] });
    const bundled = [{ item: workshop.id, price: "1.00", attendee_name_parts: { full_name: "Peter's friend" } }];
    const res = await bulk([{ bundled }, { bundled }]);
    expect(res.body.results.map((r: Json) => r.success)).toEqual([true, false]);
    expect(res.body.results[0].data.bundled[0]).toMatchObject({
      item: workshop.id,
      is_bundled: true,
      attendee_name: "Peter's friend",
    });
    expect(res.body.results[1].errors).toEqual({
      non_field_errors: ['There is not enough quota available on quota "Addon Quota" to perform the operation.'],
    });
    expect(await count(s)).toBe(2);
    const invalid = await bulk([{ addons: [{ item: -1, price: "1.00" }] }]);
    expect(invalid.body.results[0]).toEqual({
      success: false,
      errors: { addons: [{ item: ['Invalid pk "-1" - object does not exist.'] }] },
      data: null,
    });
  });
});
