/**
 * Order creation answered as pretix answers it (pretix's src/tests/api/test_order_create.py,
 * read in docs/pretix-tests.md): the refusals on the position and field pretix reports them on,
 * with pretix's texts; what pretix refuses (a past expiry, an inactive product, options on a text
 * question, `free` for an order with something to pay, a paid order without provider) and what
 * it normalizes (boolean answers, datetimes); its payments and mails.
 */
import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, orderPayments, orders } from "../../src/db/schema";
import { db, type Json } from "../harness";
import { otherEvent, seated } from "../helpers/pretix-fixtures";
import { type Shop, shop } from "../helpers/sales";

const QUOTA_TEXT = 'There is not enough quota available on quota "Budget Quota" to perform the operation.';

/** pretix's fixture: a "Budget Ticket" of 23.00 in a quota "Budget Quota" of 200. */
async function budget(opts: { series?: boolean } = {}) {
  const s = await shop(opts);
  const item = await s.item({ name: { en: "Budget Ticket" }, default_price: "23.00" });
  const quota = opts.series ? null : await s.quota({ name: "Budget Quota", size: 200, items: [item.id] });
  const order = (body: Record<string, unknown>) => s.client.post(`${s.path}/orders/`, body);
  return { s, item, quota, order };
}

/** The organizer's mails to an address (other test files mail the same addresses: they share the database). */
/** The mails to `to`, once D1 has the orders the event's object answered (their mails are written with them). */
const mailsTo = async (s: Shop, to: string) => {
  await s.settle();
  return db()
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.organizerId, s.org.id), eq(mailOutbox.toAddress, to)))
    .orderBy(asc(mailOutbox.id));
};

const orderCount = async (s: Shop) => (await s.client.get(`${s.path}/orders/`)).body.count as number;

describe("order creation refuses what pretix refuses", () => {
  it("test_order_create_expires: an expiry in the past is refused, one in the future is the order's", async () => {
    const { s, item, order } = await budget();
    const past = await order({
      expires: new Date(Date.now() - 7 * 3600_000).toISOString(),
      positions: [{ item: item.id }],
    });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({ expires: ["Expiration date must be in the future."] });
    expect(await orderCount(s)).toBe(0);
    const when = new Date(Math.floor(Date.now() / 1000) * 1000 + 7 * 3600_000).toISOString().replace(".000Z", "Z");
    const future = await order({ expires: when, payment_provider: "manual", positions: [{ item: item.id }] });
    expect(future.status, JSON.stringify(future.body)).toBe(201);
    expect(future.body).toMatchObject({ status: "n", expires: when });
  });

  it("test_order_create_simulate: simulate is refused, naming it, and nothing is written or held", async () => {
    const { s, item, quota, order } = await budget();
    const res = await order({ simulate: true, positions: [{ item: item.id }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      simulate: ["This service does not simulate orders: send the order without simulate."],
    });
    expect(await orderCount(s)).toBe(0);
    expect((await s.client.get(`${s.path}/quotas/${quota!.id}/availability/`)).body).toMatchObject({
      available_number: 200,
      pending_orders: 0,
    });
    expect((await order({ simulate: false, positions: [{ item: item.id }] })).status).toBe(201);
  });

  it("test_order_create_item_validation: inactive, another event's, variations, no quota", async () => {
    const { s, item, quota, order } = await budget();
    const other = await otherEvent(s);
    expect((await s.client.patch(`${s.path}/items/${item.id}/`, { active: false })).status).toBe(200);
    const inactive = await order({ positions: [{ item: item.id }] });
    expect(inactive.status).toBe(400);
    expect(inactive.body).toEqual({ positions: [{ item: ["The specified item is not active."] }] });
    expect((await s.client.patch(`${s.path}/items/${item.id}/`, { active: true })).status).toBe(200);

    expect((await order({ positions: [{ item: other.item.id }] })).body).toEqual({
      positions: [{ item: ["The specified item does not belong to this event."] }],
    });
    expect((await order({ positions: [{ item: 999999 }] })).body).toEqual({
      positions: [{ item: ['Invalid pk "999999" - object does not exist.'] }],
    });

    const shirt = await s.item({ name: { en: "Shirt" }, variations: [{ value: { en: "A" } }] });
    expect((await order({ positions: [{ item: item.id, variation: shirt.variations[0].id }] })).body).toEqual({
      positions: [{ variation: ["You cannot specify a variation for this item."] }],
    });
    expect((await order({ positions: [{ item: shirt.id, variation: shirt.variations[0].id }] })).body).toEqual({
      positions: [{ item: ['The product "Shirt" is not assigned to a quota.'] }],
    });
    const withShirt = await s.client.patch(`${s.path}/quotas/${quota!.id}/`, {
      items: [item.id, shirt.id],
      variations: [shirt.variations[0].id],
    });
    expect(withShirt.status, JSON.stringify(withShirt.body)).toBe(200);
    expect((await order({ positions: [{ item: shirt.id, variation: shirt.variations[0].id }] })).status).toBe(201);
    const otherShirt = await s.item({ name: { en: "Other shirt" }, variations: [{ value: { en: "B" } }] });
    expect((await order({ positions: [{ item: shirt.id, variation: otherShirt.variations[0].id }] })).body).toEqual({
      positions: [{ variation: ["The specified variation does not belong to the specified item."] }],
    });
    expect((await order({ positions: [{ item: shirt.id }] })).body).toEqual({
      positions: [{ variation: ["You should specify a variation for this item."] }],
    });
  });

  it("test_order_create_subevent_validation: a date is needed, and one of this event", async () => {
    const { s, item, order } = await budget({ series: true });
    const other = await otherEvent(s);
    expect((await order({ positions: [{ item: item.id }] })).body).toEqual({
      positions: [{ subevent: ["You need to set a subevent."] }],
    });
    expect((await order({ positions: [{ item: item.id, subevent: other.date.id }] })).body).toEqual({
      positions: [{ subevent: ["The specified subevent does not belong to this event."] }],
    });
  });

  it("test_order_create_subevent_disabled / _variation_disabled: the product named on its position", async () => {
    const { s, item, order } = await budget({ series: true });
    const shirt = await s.item({ name: { en: "Budget Shirt" }, variations: [{ value: { en: "XS" } }] });
    const date = await s.subevent({
      item_price_overrides: [{ item: item.id, disabled: true }],
      variation_price_overrides: [{ variation: shirt.variations[0].id, disabled: true }],
    });
    await s.quota({
      name: "Budget Quota",
      size: 10,
      items: [item.id, shirt.id],
      variations: [shirt.variations[0].id],
      subevent: date.id,
    });
    expect((await order({ positions: [{ item: item.id, subevent: date.id }] })).body).toEqual({
      positions: [{ item: ['The product "Budget Ticket" is not available on this date.'] }],
    });
    expect(
      (await order({ positions: [{ item: shirt.id, variation: shirt.variations[0].id, subevent: date.id }] })).body,
    ).toEqual({ positions: [{ item: ['The product "Budget Shirt" is not available on this date.'] }] });
  });

  it("test_order_create_positionid_validation: each error on its position", async () => {
    const { item, order } = await budget();
    const p = (extra: Record<string, unknown>) => ({ item: item.id, ...extra });
    expect((await order({ positions: [p({ positionid: 1 }), p({ positionid: 2, addon_to: 2 })] })).body).toEqual({
      positions: [
        {},
        {
          addon_to: [
            "If you set addon_to, you need to make sure that the referenced position ID exists and is transmitted directly before its add-ons.",
          ],
        },
      ],
    });
    const manually = "If you set addon_to on any position, you need to specify position IDs manually.";
    expect((await order({ positions: [p({}), p({ addon_to: 2 })] })).body).toEqual({
      positions: [{ positionid: [manually] }, { positionid: [manually] }],
    });
    expect((await order({ positions: [p({ positionid: 1 }), p({})] })).body).toEqual({
      positions: [{}, { positionid: ["If you set position IDs manually, you need to do so for all positions."] }],
    });
    expect((await order({ positions: [p({ positionid: 1 }), p({ positionid: 3 })] })).body).toEqual({
      positions: [{}, { positionid: ["Position IDs need to be consecutive."] }],
    });
    // an add-on names the base right before it (or before its base's other add-ons)
    const later = await order({
      positions: [p({ positionid: 1 }), p({ positionid: 2 }), p({ positionid: 3, addon_to: 1 })],
    });
    expect(later.body.positions[2].addon_to).toHaveLength(1);
    const none = await order({ positions: [p({}), p({})] });
    expect(none.status).toBe(201);
    expect(none.body.positions.map((x: Json) => x.positionid)).toEqual([1, 2]);
  });

  it("test_order_create_answer_validation: one error object per answer, pretix's texts and stored forms", async () => {
    const { s, item, order } = await budget();
    const other = await otherEvent(s);
    const ask = (type: string, extra: Record<string, unknown> = {}) =>
      s.post("/questions/", { question: { en: `Q ${type}` }, type, items: [item.id], ...extra });
    const text = await ask("S");
    const choice = await ask("C", { options: [{ answer: { en: "XL" } }, { answer: { en: "L" } }] });
    const multi = await ask("M", { options: [{ answer: { en: "XL" } }, { answer: { en: "L" } }] });
    const [number, bool, date, datetime, time] = [
      await ask("N"),
      await ask("B"),
      await ask("D"),
      await ask("W"),
      await ask("H"),
    ];
    const answer = async (a: Record<string, unknown>) => order({ positions: [{ item: item.id, answers: [a] }] });
    const refused = (message: string) => ({ positions: [{ answers: [{ non_field_errors: [message] }] }] });

    expect((await answer({ question: other.question.id, answer: "S" })).body).toEqual({
      positions: [{ answers: [{ question: ["The specified question does not belong to this event."] }] }],
    });
    expect((await answer({ question: text.id, answer: "S", options: [choice.options[0].id] })).body).toEqual(
      refused("You should not specify options if the question is not of a choice type."),
    );
    expect((await answer({ question: choice.id, answer: "S", options: [] })).body).toEqual(
      refused("You need to specify options if the question is of a choice type."),
    );
    expect((await answer({ question: choice.id, options: [multi.options[0].id] })).body).toEqual(
      refused("The specified option does not belong to this question."),
    );
    expect((await answer({ question: choice.id, options: [choice.options[0].id, choice.options[1].id] })).body).toEqual(
      refused("You can specify at most one option for this question."),
    );
    expect((await answer({ question: number.id, answer: "foo" })).body).toEqual(refused("A valid number is required."));
    expect((await answer({ question: bool.id, answer: "bla" })).body).toEqual(
      refused('Please specify "true" or "false" for boolean questions.'),
    );
    expect((await answer({ question: date.id, answer: "bla" })).body).toEqual(
      refused("Date has wrong format. Use one of these formats instead: YYYY-MM-DD."),
    );
    expect((await answer({ question: datetime.id, answer: "bla" })).body).toEqual(
      refused(
        "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
      ),
    );
    expect((await answer({ question: time.id, answer: "bla" })).body).toEqual(
      refused("Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]]."),
    );
    // the answers that are fine get `{}` beside the one that is not
    const mixed = await order({
      positions: [
        {
          item: item.id,
          answers: [
            { question: text.id, answer: "S" },
            { question: number.id, answer: "foo" },
          ],
        },
      ],
    });
    expect(mixed.body).toEqual({
      positions: [{ answers: [{}, { non_field_errors: ["A valid number is required."] }] }],
    });
    expect(await orderCount(s)).toBe(0);

    const stored = async (a: Record<string, unknown>) => {
      const res = await answer(a);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.positions[0].answers[0].answer;
    };
    expect(await stored({ question: multi.id, options: [multi.options[0].id, multi.options[1].id] })).toBe("XL, L");
    expect(await stored({ question: number.id, answer: "3.45" })).toBe("3.45");
    expect(await stored({ question: bool.id, answer: "True" })).toBe("True");
    expect(await stored({ question: bool.id, answer: "0" })).toBe("False");
    expect(await stored({ question: bool.id, answer: "1" })).toBe("True");
    expect(await stored({ question: date.id, answer: "2018-05-14" })).toBe("2018-05-14");
    expect(await stored({ question: datetime.id, answer: "2018-05-14T13:00:00Z" })).toBe("2018-05-14 13:00:00+00:00");
    expect(await stored({ question: datetime.id, answer: "2018-05-14T15:00:00+02:00" })).toBe(
      "2018-05-14 13:00:00+00:00",
    );
    expect(await stored({ question: time.id, answer: "13:00:00" })).toBe("13:00:00");
    expect(await stored({ question: time.id, answer: "13:00" })).toBe("13:00:00");
  });

  it("test_order_create_invalid_free_order: the free provider for an order with something to pay", async () => {
    const { s, item, order } = await budget();
    const res = await order({ payment_provider: "free", positions: [{ item: item.id }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(['You cannot use the "free" payment provider for non-free orders.']);
    expect(await orderCount(s)).toBe(0);
  });

  it("test_order_paid_require_payment_method: a paid order names its provider; a pending one need not", async () => {
    const { s, item, order } = await budget();
    const paid = await order({ status: "p", positions: [{ item: item.id }] });
    expect(paid.status).toBe(400);
    expect(paid.body).toEqual(["You cannot create a paid order without a payment provider."]);
    expect(await orderCount(s)).toBe(0);
    const pending = await order({ status: "n", positions: [{ item: item.id }] });
    expect(pending.status).toBe(201);
    expect(pending.body).toMatchObject({ status: "n", payments: [] });
  });

  it("test_order_create_invalid_status, _invalid_payment_provider, _sales_channel_invalid, _locale_invalid, _code_optional, _empty", async () => {
    const { s, item, order } = await budget();
    const one = [{ item: item.id }];
    expect((await order({ status: "e", positions: one })).body).toEqual({ status: ['"e" is not a valid choice.'] });
    expect((await order({ payment_provider: "foo", positions: one })).body).toEqual({
      payment_provider: ["The given payment provider is not known."],
    });
    expect((await order({ sales_channel: "foo", positions: one })).body).toEqual({
      sales_channel: ["Object with identifier=foo does not exist."],
    });
    expect((await order({ locale: "klingon", positions: one })).body).toEqual({
      locale: ['"klingon" is not a valid choice.'],
    });
    expect((await order({ code: "ABaDE", positions: one })).body).toEqual({
      code: ["This order code contains invalid characters."],
    });
    expect((await order({ positions: [] })).body).toEqual({ positions: ["An order cannot be empty."] });
    expect(await orderCount(s)).toBe(0);
  });

  it("test_order_create_max_size: more than 500 positions", async () => {
    const { item, order } = await budget();
    const res = await order({ positions: Array.from({ length: 501 }, () => ({ item: item.id, price: "23.00" })) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ positions: ["Orders cannot have more than 500 positions."] });
  });

  it("test_order_create_tax_rule_wrong_event / _fee_type_validation: a fee's tax rule and type", async () => {
    const { s, item, order } = await budget();
    const other = await otherEvent(s);
    const fee = (extra: Record<string, unknown>) => ({ fee_type: "payment", value: "0.25", ...extra });
    expect((await order({ fees: [fee({ tax_rule: other.taxRule.id })], positions: [{ item: item.id }] })).body).toEqual(
      { fees: [{ tax_rule: ["The specified tax rate does not belong to this event."] }] },
    );
    expect((await order({ fees: [fee({ fee_type: "unknown" })], positions: [{ item: item.id }] })).body).toEqual({
      fees: [{ fee_type: ['"unknown" is not a valid choice.'] }],
    });
  });

  it("test_order_create_auto_pricing_reverse_charge: vat_id_validated is refused, the service applies no reverse charge", async () => {
    const { s, item, order } = await budget();
    const address = { is_business: true, company: "ACME", country: "FR", vat_id: "FR12345" };
    const res = await order({
      invoice_address: { ...address, vat_id_validated: true },
      positions: [{ item: item.id }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      invoice_address: {
        vat_id_validated: [
          "This service does not apply reverse charge and takes no validated VAT ID: leave vat_id_validated out.",
        ],
      },
    });
    expect(await orderCount(s)).toBe(0);
    expect(
      (await order({ invoice_address: { ...address, vat_id_validated: false }, positions: [{ item: item.id }] }))
        .status,
    ).toBe(201);
  });
});

describe("order creation: the event object's refusals on their positions", () => {
  it("test_order_create_quota_validation: quota 0 refuses both positions, quota 1 the second; force passes", async () => {
    const { s, item, quota, order } = await budget();
    const body = {
      positions: [
        { positionid: 1, item: item.id, price: "23.00" },
        { positionid: 2, item: item.id, price: "23.00", addon_to: 1 },
      ],
    };
    expect((await s.client.patch(`${s.path}/quotas/${quota!.id}/`, { size: 0 })).status).toBe(200);
    expect((await order(body)).body).toEqual({ positions: [{ item: [QUOTA_TEXT] }, { item: [QUOTA_TEXT] }] });
    expect((await s.client.patch(`${s.path}/quotas/${quota!.id}/`, { size: 1 })).status).toBe(200);
    expect((await order(body)).body).toEqual({ positions: [{}, { item: [QUOTA_TEXT] }] });
    expect(await orderCount(s)).toBe(0);
    expect((await order({ ...body, force: true })).status).toBe(201);
  });

  it("test_order_create_quota_consume_cart_expired: an expired cart credits nothing", async () => {
    const { s, item, quota, order } = await budget();
    expect((await s.client.patch(`${s.path}/quotas/${quota!.id}/`, { size: 1 })).status).toBe(200);
    const cart = await s.client.post(`${s.path}/cartpositions/`, {
      item: item.id,
      price: "23.00",
      cart_id: "expired@api",
      expires: new Date(Date.now() - 3 * 3600_000).toISOString(),
    });
    expect(cart.status).toBe(201);
    expect((await order({ positions: [{ item: item.id }] })).status).toBe(201);
    const res = await order({ consume_carts: ["expired@api"], positions: [{ item: item.id }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ positions: [{ item: [QUOTA_TEXT] }] });
  });

  it("test_create_cart_and_consume_cart_with_addons: an add-on's quota on the add-on, and the cart's credit", async () => {
    const { s, item, order } = await budget();
    const cat = await s.post("/categories/", { name: { en: "Addons" }, is_addon: true });
    const workshop = await s.item({ name: { en: "Workshop" }, default_price: "2.00", category: cat.id });
    await s.quota({ name: "Addon Quota", size: 1, items: [workshop.id] });
    const bulk = await s.client.post(`${s.path}/cartpositions/bulk_create/`, [
      { cart_id: "aaa@api", item: item.id, price: "23.00", addons: [{ item: workshop.id, price: "1.00" }] },
    ]);
    expect(bulk.body.results[0]).toMatchObject({ success: true });
    const body = {
      positions: [
        { positionid: 1, item: item.id, price: "23.00" },
        { positionid: 2, item: workshop.id, price: "23.00", addon_to: 1 },
      ],
    };
    expect((await order(body)).body).toEqual({
      positions: [
        {},
        { item: ['There is not enough quota available on quota "Addon Quota" to perform the operation.'] },
      ],
    });
    expect((await order({ ...body, consume_carts: ["aaa@api"] })).status).toBe(201);
  });

  it("test_order_create_with_used_seat / _with_duplicate_seat / _with_unknown_seat / _unseated / _with_seat_consumed_from_cart", async () => {
    const { s, item, order } = await budget();
    await seated(s, item.id);
    const unseated = await s.item({ name: { en: "Standing" } });
    const notAvailable = 'The selected seat "Seat A1" is not available.';
    expect((await order({ positions: [{ item: item.id, seat: "A1_" }] })).body).toEqual({
      positions: [{ seat: ["The specified seat does not exist."] }],
    });
    expect((await order({ positions: [{ item: unseated.id, seat: "A1" }] })).body).toEqual({
      positions: [{ seat: ["The specified product does not allow to choose a seat."] }],
    });
    expect(
      (
        await order({
          positions: [
            { positionid: 1, item: item.id, seat: "A1" },
            { positionid: 2, item: item.id, seat: "A1" },
          ],
        })
      ).body,
    ).toEqual({ positions: [{}, { seat: [notAvailable] }] });
    const cart = await s.client.post(`${s.path}/cartpositions/`, {
      item: item.id,
      price: "21.50",
      seat: "A1",
      cart_id: "aaa@api",
    });
    expect(cart.status).toBe(201);
    expect((await order({ positions: [{ item: item.id, seat: "A1" }] })).body).toEqual({
      positions: [{ seat: [notAvailable] }],
    });
    const consumed = await order({ consume_carts: ["aaa@api"], positions: [{ item: item.id, seat: "A1" }] });
    expect(consumed.status, JSON.stringify(consumed.body)).toBe(201);
    expect(consumed.body.positions[0].seat).toMatchObject({ seat_guid: "A1", name: "Seat A1" });
  });

  it("test_order_create_voucher_unknown_code / _item_mismatch / _expired / _redeemed / _redeemed_partially", async () => {
    const { s, item, order } = await budget();
    const other = await s.item({ name: { en: "Budget Ticket" } });
    await s.quota({ name: "Other", size: 10, items: [other.id] });
    const on = (voucher: string, n = 1) =>
      order({ positions: Array.from({ length: n }, () => ({ item: item.id, voucher })) });
    expect((await on("FOOBAR")).body).toEqual({
      positions: [{ voucher: ["Object with code=FOOBAR does not exist."] }],
    });
    await s.voucher({ code: "MISMATCH", price_mode: "set", value: "15.00", item: other.id });
    expect((await on("MISMATCH")).body).toEqual({
      positions: [{ voucher: ["This voucher is not valid for this product."] }],
    });
    await s.voucher({ code: "OLDCODE", item: item.id, valid_until: new Date(Date.now() - 86400_000).toISOString() });
    expect((await on("OLDCODE")).body).toEqual({ positions: [{ voucher: ["This voucher is expired."] }] });
    await s.voucher({ code: "ONCEONLY", price_mode: "set", value: "15.00", item: item.id, max_usages: 1 });
    expect((await on("ONCEONLY")).status).toBe(201);
    const usedUp = "The voucher has already been used the maximum number of times.";
    expect((await on("ONCEONLY")).body).toEqual({ positions: [{ voucher: [usedUp] }] });
    await s.voucher({ code: "TWICE", price_mode: "set", value: "15.00", item: item.id, max_usages: 2 });
    expect((await on("TWICE")).status).toBe(201);
    expect((await on("TWICE", 3)).body).toEqual({ positions: [{}, { voucher: [usedUp] }, { voucher: [usedUp] }] });
    // used up and expired: used up, as pretix prefers it
    const both = await s.voucher({ code: "BOTHWAYS", item: item.id, max_usages: 1 });
    expect((await on("BOTHWAYS")).status).toBe(201);
    const expired = { valid_until: new Date(Date.now() - 86400_000).toISOString() };
    expect((await s.client.patch(`${s.path}/vouchers/${both.id}/`, expired)).status).toBe(200);
    expect((await on("BOTHWAYS")).body).toEqual({ positions: [{ voucher: [usedUp] }] });
  });

  it("test_order_create_with_voucher_consumed_from_cart / _voucher_block_quota / _with_voucher_and_price_set", async () => {
    const { s, item, quota, order } = await budget();
    const v = await s.voucher({ code: "LASTUSE", item: item.id, max_usages: 3 });
    for (let i = 0; i < 2; i++)
      expect((await order({ positions: [{ item: item.id, voucher: "LASTUSE" }] })).status).toBe(201);
    const cart = await s.client.post(`${s.path}/cartpositions/`, {
      item: item.id,
      price: "21.50",
      voucher: "LASTUSE",
      cart_id: "aaa@api",
    });
    expect(cart.status).toBe(201);
    expect((await order({ positions: [{ item: item.id, voucher: "LASTUSE" }] })).status).toBe(400);
    const consumed = await order({ consume_carts: ["aaa@api"], positions: [{ item: item.id, voucher: "LASTUSE" }] });
    expect(consumed.status, JSON.stringify(consumed.body)).toBe(201);
    expect(consumed.body.positions[0].voucher).toBe(v.id);

    // a blocking voucher lets its own order into a full quota
    expect((await s.client.patch(`${s.path}/quotas/${quota!.id}/`, { size: 4 })).status).toBe(200);
    await s.voucher({ code: "BLOCKER", item: item.id, block_quota: true, price_mode: "set", value: "15.00" });
    expect((await order({ positions: [{ item: item.id }] })).body).toEqual({ positions: [{ item: [QUOTA_TEXT] }] });
    expect((await order({ positions: [{ item: item.id, voucher: "BLOCKER" }] })).status).toBe(201);

    // a set voucher of 0 and an explicit price of 0
    expect((await s.client.patch(`${s.path}/quotas/${quota!.id}/`, { size: 100 })).status).toBe(200);
    const net = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00", price_includes_tax: false });
    expect((await s.client.patch(`${s.path}/items/${item.id}/`, { tax_rule: net.id })).status).toBe(200);
    const zero = await s.voucher({ code: "ZEROPRICE", item: item.id, price_mode: "set", value: "0.00", max_usages: 3 });
    const priced = await order({ positions: [{ item: item.id, voucher: "ZEROPRICE", price: "0.00" }] });
    expect(priced.status, JSON.stringify(priced.body)).toBe(201);
    expect(priced.body.positions[0]).toMatchObject({ voucher: zero.id, price: "0.00" });
  });
});

describe("order creation: payments as pretix records them", () => {
  it("test_order_create_free: a free order is paid by a confirmed free payment, whatever provider it names", async () => {
    const { item, order } = await budget();
    for (const provider of [undefined, "manual"]) {
      const res = await order({
        ...(provider ? { payment_provider: provider } : {}),
        positions: [{ item: item.id, price: "0.00" }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ status: "p", total: "0.00" });
      expect(res.body.payments).toEqual([
        expect.objectContaining({ provider: "free", state: "confirmed", amount: "0.00" }),
      ]);
    }
    // created paid with another provider, a free order keeps that provider (pretix's rule)
    const named = await order({
      status: "p",
      payment_provider: "manual",
      positions: [{ item: item.id, price: "0.00" }],
    });
    expect(named.body.payments).toEqual([expect.objectContaining({ provider: "manual", state: "confirmed" })]);
  });

  it("test_order_create_payment_provider_optional_free: a fee to pay and no provider, no payment", async () => {
    const { item, order } = await budget();
    const res = await order({
      fees: [{ fee_type: "payment", value: "0.25" }],
      positions: [{ item: item.id, price: "0.00" }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: "n", total: "0.25", payments: [] });
  });

  it("test_order_create_paid_generate_invoice / _payment_info_optional: the payment's date and info", async () => {
    const { s, item, order } = await budget();
    expect((await s.client.patch(`${s.path}/settings/`, { invoice_generate: "paid" })).status).toBe(200);
    const res = await order({
      status: "p",
      payment_provider: "manual",
      payment_date: "2019-04-01 08:20:00Z",
      payment_info: { foo: { bar: [1, 2], test: false } },
      positions: [{ item: item.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.payments).toEqual([
      expect.objectContaining({
        provider: "manual",
        state: "confirmed",
        amount: "23.00",
        payment_date: "2019-04-01T08:20:00Z",
      }),
    ]);
    const invoices = await s.client.get(`${s.path}/invoices/?order=${res.body.code}`);
    expect(invoices.body.count).toBe(1);
    const [row] = await db()
      .select({ info: orderPayments.info })
      .from(orderPayments)
      .innerJoin(orders, eq(orders.id, orderPayments.orderId))
      .where(and(eq(orders.code, res.body.code)));
    expect(row!.info).toEqual({ foo: { bar: [1, 2], test: false } });
  });
});

describe("order creation: mails as pretix sends them", () => {
  it("test_order_create_send_emails_paid / _legacy: created paid, the order mail then the payment mail", async () => {
    const { s, item, order } = await budget();
    for (const [flag, to] of [
      ["send_email", "paid@example.org"],
      ["send_mail", "legacy@example.org"],
    ] as const) {
      const res = await order({
        email: to,
        [flag]: true,
        status: "p",
        payment_provider: "manual",
        positions: [{ item: item.id }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const mails = await mailsTo(s, to);
      expect(mails.map((m) => [m.kind, m.subject])).toEqual([
        ["order_placed", `Your order: ${res.body.code}`],
        ["order_paid", `Payment received for your order: ${res.body.code}`],
      ]);
      expect(mails[0]!.textBody).not.toContain("Please pay");
    }
  });

  it("test_order_create_send_emails_free: a free order gets its order mail, no payment mail", async () => {
    const { s, item, order } = await budget();
    const res = await order({
      email: "free@example.org",
      send_email: true,
      payment_provider: "free",
      positions: [{ item: item.id, price: "0.00" }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const mails = await mailsTo(s, "free@example.org");
    expect(mails.map((m) => [m.kind, m.subject])).toEqual([["order_free", `Your order: ${res.body.code}`]]);
    expect(mails[0]!.textBody).toContain("no payment is required");
  });

  it("test_order_create_send_emails_based_on_sales_channel: send_email null mails for the web channel", async () => {
    const { s, item, order } = await budget();
    const web = await order({
      email: "web@example.org",
      send_email: null,
      positions: [{ item: item.id, price: "0.00" }],
    });
    expect(web.status, JSON.stringify(web.body)).toBe(201);
    expect((await mailsTo(s, "web@example.org")).map((m) => m.subject)).toEqual([`Your order: ${web.body.code}`]);
    const resellers = await order({
      email: "resellers@example.org",
      send_email: null,
      sales_channel: "resellers",
      positions: [{ item: item.id, price: "0.00" }],
    });
    expect(resellers.status, JSON.stringify(resellers.body)).toBe(201);
    expect(await mailsTo(s, "resellers@example.org")).toEqual([]);
  });
});

describe("order creation: answers pretix gives too", () => {
  it("test_order_create_locale_optional / _in_test_mode / _invoice_address_optional", async () => {
    const { s, item, order } = await budget();
    expect((await s.client.patch(`${s.path}/settings/`, { locales: ["en", "de"], locale: "de" })).status).toBe(200);
    const res = await order({ testmode: true, positions: [{ item: item.id }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ locale: "de", testmode: true, invoice_address: null });
    expect((await s.client.get(`${s.path}/orders/${res.body.code}/`)).body).toMatchObject({ testmode: true });
  });

  it("test_order_create_attendee_name_optional / _legacy_attendee_name / _legacy_invoice_name", async () => {
    const { item, order } = await budget();
    const none = await order({ positions: [{ item: item.id, attendee_name: null }] });
    expect(none.body.positions[0].attendee_name_parts).toEqual({});
    const both = await order({
      positions: [{ item: item.id, attendee_name: "Peter", attendee_name_parts: { full_name: "Peter" } }],
    });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({
      positions: [{ attendee_name: ["Do not specify attendee_name if you specified attendee_name_parts."] }],
    });
    const legacy = await order({ positions: [{ item: item.id, attendee_name: "Peter" }] });
    expect(legacy.body.positions[0].attendee_name_parts).toEqual({ _legacy: "Peter" });
    const bothNames = await order({
      invoice_address: { name: "Peter", name_parts: { full_name: "Fo" } },
      positions: [{ item: item.id }],
    });
    expect(bothNames.status).toBe(400);
    expect(bothNames.body).toEqual({ invoice_address: { name: ["Do not specify name if you specified name_parts."] } });
    const legacyName = await order({ invoice_address: { name: "Peter" }, positions: [{ item: item.id }] });
    expect(legacyName.body.invoice_address.name_parts).toEqual({ _legacy: "Peter" });
  });

  it("test_order_create_auto_pricing_reverse_charge_require_valid_vatid: no validated VAT ID, the normal tax", async () => {
    const { s, item, order } = await budget();
    const rule = await s.post("/taxrules/", {
      name: { en: "VAT" },
      rate: "19.00",
      eu_reverse_charge: true,
      home_country: "DE",
    });
    expect((await s.client.patch(`${s.path}/items/${item.id}/`, { tax_rule: rule.id })).status).toBe(200);
    const res = await order({
      invoice_address: { is_business: true, company: "ACME", country: "FR", vat_id: "FR12345" },
      positions: [{ item: item.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.positions[0]).toMatchObject({ price: "23.00", tax_rate: "19.00", tax_value: "3.67" });
  });

  it("test_order_create_auto_pricing_do_not_discount_if_price_explcitly_set: sent prices are not discounted", async () => {
    const { s, item, order } = await budget();
    await s.post("/discounts/", {
      internal_name: "2 for 1.5",
      condition_min_count: 2,
      benefit_discount_matching_percent: "50.00",
      benefit_only_apply_to_cheapest_n_matches: 1,
    });
    const computed = await order({ positions: [{ item: item.id }, { item: item.id }] });
    expect(computed.body.positions.map((p: Json) => p.price).sort()).toEqual(["11.50", "23.00"]);
    const sent = await order({
      positions: [
        { item: item.id, price: "23.00" },
        { item: item.id, price: "23.00" },
      ],
    });
    expect(sent.body.positions.map((p: Json) => p.price)).toEqual(["23.00", "23.00"]);
  });
});
