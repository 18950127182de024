/**
 * The payment page at `payment_url` for the built-in providers (gift card, free, manual):
 * real HTTP without credentials, orders created through the API, side effects read back
 * through the API (card balance and transactions, order status, payment state, mails).
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { StatusWrite } from "../../src/db/payments";
import { events, mailOutbox, orderPayments, orderPositions, orders } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { db, seedOrganizer } from "../harness";
import {
  allowReturnUrls,
  cardState,
  getPage,
  giftCard,
  type OrderShop,
  placeOrder,
  postForm,
  readOrder,
  textOf,
  ticketShop,
  withQuery,
} from "../helpers/pages";

const RETURN = "https://shop.example.org/checkout/return?tx=42";

describe("gift card payments", () => {
  it("caps the codes tried on one order: after 10 in an hour even a good card is refused", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const url = o.payments[0].payment_url;
    const card = await giftCard(s, "30.00");
    for (let i = 0; i < 10; i++) {
      const res = await postForm(url, { giftcard: `GUESS${i}ABCDEF` });
      expect(textOf(res.text)).toContain("This gift card is not known.");
    }
    const capped = await postForm(url, { giftcard: card.secret });
    expect(capped.status).toBe(400);
    expect(textOf(capped.text)).toContain(
      "Too many gift card codes were tried for this order. Please try again later.",
    );
    expect((await readOrder(s, o.code)).status).toBe("n");
    expect((await cardState(s, card.id)).value).toBe("30.00");
  });

  it("pays the order end to end: card debited, transaction with the order, payment confirmed, order paid, mail queued", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard", email: "paying@example.org" });
    const url = o.payments[0].payment_url;
    expect(url).toBe(`${o.url}pay/1/`);
    const card = await giftCard(s, "30.00");

    const form = await getPage(url);
    expect(form.status).toBe(200);
    expect(form.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(textOf(form.text)).toContain(`Payment for order ${o.code}`);
    expect(textOf(form.text)).toContain("Pay EUR 20.00 with a gift card.");
    expect(form.text).toContain('name="giftcard"');
    expect(form.text).toContain(`action="${url}"`);

    const res = await postForm(url, { giftcard: card.secret });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${o.url}?paid=yes`);

    const after = await cardState(s, card.id);
    expect(after.value).toBe("10.00");
    expect(after.transactions).toHaveLength(2);
    expect(after.transactions[1]).toMatchObject({
      value: "-20.00",
      order: o.code,
      event: s.eventSlug,
      text: `${o.code}-P-1`,
    });
    const order = await readOrder(s, o.code);
    expect(order.status).toBe("p");
    expect(order.payments).toEqual([
      expect.objectContaining({
        local_id: 1,
        state: "confirmed",
        provider: "giftcard",
        amount: "20.00",
        payment_url: null,
      }),
    ]);
    expect(order.payments[0].payment_date).not.toBeNull();
    const mails = await db()
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.toAddress, "paying@example.org"), eq(mailOutbox.kind, "order_paid")));
    expect(mails).toHaveLength(1);

    const page = await getPage(res.location!);
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("Thank you! Your payment has been received.");
    expect(textOf(page.text)).toContain("This order has been paid.");

    // the payment is final now: the page shows its state, and paying again changes nothing
    const again = await getPage(url);
    expect(again.status).toBe(200);
    expect(textOf(again.text)).toContain("This payment is confirmed.");
    expect(again.text).not.toContain('name="giftcard"');
    const second = await postForm(url, { giftcard: card.secret });
    expect(second.status).toBe(400);
    expect(textOf(second.text)).toContain("This payment is confirmed.");
    expect((await cardState(s, card.id)).value).toBe("10.00");
  });

  it("insufficient credit, unknown codes, other currencies, expired and test cards: an error on the page, nothing changed", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const url = o.payments[0].payment_url;
    const small = await giftCard(s, "19.99");
    const usd = await giftCard(s, "50.00", { currency: "USD" });
    const expired = await giftCard(s, "50.00", { expires: "2020-01-01T00:00:00Z" });
    const test = await giftCard(s, "50.00", { testmode: true });
    const cases: [string, string][] = [
      [small.secret, "The gift card does not have sufficient credit to pay this order."],
      ["NO-SUCH-CARD", "This gift card is not known."],
      ["", "This gift card is not known."],
      [usd.secret, "This gift card does not support this currency."],
      [expired.secret, "This gift card is no longer valid."],
      [test.secret, "This gift card can only be used in test mode."],
    ];
    for (const [secret, message] of cases) {
      const res = await postForm(url, { giftcard: secret });
      expect(res.status, secret).toBe(400);
      expect(res.location).toBeNull();
      expect(textOf(res.text)).toContain(message);
      expect(res.text).toContain('name="giftcard"');
    }
    expect(await cardState(s, small.id)).toMatchObject({ value: "19.99", transactions: [expect.anything()] });
    for (const c of [usd, expired, test]) expect((await cardState(s, c.id)).transactions).toHaveLength(1);
    const order = await readOrder(s, o.code);
    expect(order.status).toBe("n");
    expect(order.payments[0].state).toBe("created");
  });

  it("a card of another organizer is unknown until this organizer accepts that issuer's cards", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const issuer = await seedOrganizer();
    const foreign = await issuer.client.post(`/api/v1/organizers/${issuer.slug}/giftcards/`, {
      secret: "FOREIGN-CARD-1",
      currency: "EUR",
      value: "25.00",
    });
    expect(foreign.status).toBe(201);
    const url = o.payments[0].payment_url;
    expect(textOf((await postForm(url, { giftcard: "FOREIGN-CARD-1" })).text)).toContain(
      "This gift card is not known.",
    );

    expect(
      (await issuer.client.post(`/api/v1/organizers/${issuer.slug}/giftcard_acceptors/`, { acceptor: s.orgSlug }))
        .status,
    ).toBe(201);
    expect(
      (await s.client.post(`/api/v1/organizers/${s.orgSlug}/giftcard_issuers/${issuer.slug}/accept/`, {})).status,
    ).toBe(200);
    const res = await postForm(url, { giftcard: "FOREIGN-CARD-1" });
    expect(res.status).toBe(303);
    expect((await readOrder(s, o.code)).status).toBe("p");
    const tx = await issuer.client.get(`/api/v1/organizers/${issuer.slug}/giftcards/${foreign.body.id}/transactions/`);
    expect(tx.body.results.map((t: { value: string }) => t.value)).toEqual(["25.00", "-20.00"]);
    expect(tx.body.results[1].order).toBe(o.code);
  });

  it("test orders take only test cards", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard", testmode: true });
    const real = await giftCard(s, "50.00");
    const test = await giftCard(s, "50.00", { testmode: true });
    const url = o.payments[0].payment_url;
    expect(textOf((await postForm(url, { giftcard: real.secret })).text)).toContain(
      "Only test gift cards can be used in test mode.",
    );
    expect((await postForm(url, { giftcard: test.secret })).status).toBe(303);
    expect((await cardState(s, test.id)).value).toBe("30.00");
    expect((await cardState(s, real.id)).value).toBe("50.00");
  });

  it("an expired order needs its quota again: sold out → nothing debited; available → paid", async () => {
    const s = await ticketShop({ size: 1 });
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    expect((await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`, {})).status).toBe(200);
    const other = await placeOrder(s);
    const card = await giftCard(s, "50.00");
    const url = o.payments[0].payment_url;

    const page = await getPage(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="giftcard"');
    const refused = await postForm(url, { giftcard: card.secret });
    expect(refused.status).toBe(400);
    expect(textOf(refused.text)).toContain("The order has expired and the products in it are no longer available.");
    expect(await cardState(s, card.id)).toMatchObject({ value: "50.00", transactions: [expect.anything()] });
    expect((await readOrder(s, o.code)).status).toBe("e");
    const avail = await s.client.get(`${s.path}/quotas/${s.ticketQuota.id}/availability/`);
    expect(avail.body).toMatchObject({ available_number: 0, pending_orders: 1 });

    expect((await s.client.post(`${s.path}/orders/${other.code}/mark_canceled/`, {})).status).toBe(200);
    const paid = await postForm(url, { giftcard: card.secret });
    expect(paid.status).toBe(303);
    expect((await readOrder(s, o.code)).status).toBe("p");
    expect((await cardState(s, card.id)).value).toBe("30.00");
    expect((await s.client.get(`${s.path}/quotas/${s.ticketQuota.id}/availability/`)).body).toMatchObject({
      available_number: 0,
      paid_orders: 1,
    });
  });

  it("no late payments when the event does not accept them, and none after the last date of payments", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "50.00");
    await s.client.post(`${s.path}/orders/${o.code}/mark_expired/`, {});
    expect((await s.client.patch(`${s.path}/settings/`, { payment_term_accept_late: false })).status).toBe(200);
    const url = o.payments[0].payment_url;
    const page = await getPage(url);
    expect(textOf(page.text)).toContain("late payments are not accepted");
    expect(page.text).not.toContain('name="giftcard"');
    expect((await postForm(url, { giftcard: card.secret })).status).toBe(400);

    const p = await placeOrder(s, { payment_provider: "giftcard" });
    expect((await s.client.patch(`${s.path}/settings/`, { payment_term_last: "2020-01-01" })).status).toBe(200);
    const late = await postForm(p.payments[0].payment_url, { giftcard: card.secret });
    expect(late.status).toBe(400);
    expect(textOf(late.text)).toContain("the last date of payments is over");
    expect((await cardState(s, card.id)).value).toBe("50.00");
    expect((await readOrder(s, p.code)).status).toBe("n");
  });

  it("parallel payments of two orders with one card that covers one: exactly one is paid, the balance never goes negative", async () => {
    const s = await ticketShop();
    const a = await placeOrder(s, { payment_provider: "giftcard" });
    const b = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "30.00");
    const results = await Promise.all(
      [a, b].map((o) => postForm(o.payments[0].payment_url, { giftcard: card.secret })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([303, 400]);
    const statuses = [(await readOrder(s, a.code)).status, (await readOrder(s, b.code)).status].sort();
    expect(statuses).toEqual(["n", "p"]);
    const after = await cardState(s, card.id);
    expect(after.value).toBe("10.00");
    expect(after.transactions.map((t) => t.value)).toEqual(["30.00", "-20.00"]);
  });

  it("the same payment sent many times at once is paid once", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "100.00");
    const other = await giftCard(s, "100.00");
    const url = o.payments[0].payment_url;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => postForm(url, { giftcard: i % 2 ? card.secret : other.secret })),
    );
    expect(results.filter((r) => r.status === 303)).toHaveLength(1);
    const debited = [(await cardState(s, card.id)).value, (await cardState(s, other.id)).value].sort();
    expect(debited).toEqual(["100.00", "80.00"]);
    const order = await readOrder(s, o.code);
    expect(order.status).toBe("p");
    expect(order.payments).toHaveLength(1);
  });
});

describe("a gift card payment interrupted before D1 has it", () => {
  /**
   * What the object records before its D1 write when a gift card pays an order (the decision is
   * taken; the write never ran), and a way to leave it in the object's outbox for the alarm.
   */
  async function interruptedPayment(s: OrderShop, code: string, card: { id: number }, reference: string) {
    const ev = (await db().select({ id: events.id }).from(events).where(eq(events.slug, s.eventSlug)).get())!;
    const row = (await db()
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.eventId, ev.id), eq(orders.code, code)))
      .get())!;
    const payment = (await db()
      .select({ id: orderPayments.id })
      .from(orderPayments)
      .where(eq(orderPayments.orderId, row.id))
      .get())!;
    const entry = {
      kind: "status",
      orderId: row.id,
      code,
      from: ["n", "e"],
      to: "p",
      now: Date.now(),
      confirmPaymentId: null,
      cancelPayments: false,
      giftCard: {
        cardId: card.id,
        amount: 2000,
        paymentId: payment.id,
        reference,
        organizerId: s.org.id,
        currency: "EUR",
        testmode: false,
        text: `${code}-P-1`,
      },
    } satisfies { kind: "status" } & StatusWrite;
    const object = () => eventObject(env, ev.id);
    return {
      object,
      leave: () =>
        runInDurableObject(object(), (_instance, state: DurableObjectState) => {
          state.storage.sql.exec(
            "INSERT INTO outbox (payload, created) VALUES (?, ?)",
            JSON.stringify(entry),
            Date.now(),
          );
          return state.storage.setAlarm(Date.now());
        }),
      outboxSize: () =>
        runInDurableObject(
          object(),
          (_instance, state: DurableObjectState) => [...state.storage.sql.exec("SELECT id FROM outbox")].length,
        ),
    };
  }

  it("is replayed from the event object's outbox: debited once, paid once, however often it is replayed", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "50.00");
    const interrupted = await interruptedPayment(s, o.code, card, "interrupted");
    await interrupted.leave();
    expect(await runDurableObjectAlarm(interrupted.object())).toBe(true);
    const once = await cardState(s, card.id);
    expect(once.value).toBe("30.00");
    expect(once.transactions.map((t) => [t.value, t.order])).toEqual([
      ["50.00", null],
      ["-20.00", o.code],
    ]);
    const paid = await readOrder(s, o.code);
    expect(paid.status).toBe("p");
    expect(paid.payments[0].state).toBe("confirmed");
    // replayed again (the entry survived a restart after D1 committed): nothing more happens
    await interrupted.leave();
    await runDurableObjectAlarm(interrupted.object());
    expect((await cardState(s, card.id)).value).toBe("30.00");
    expect((await cardState(s, card.id)).transactions).toHaveLength(2);
    expect((await s.client.get(`${s.path}/quotas/${s.ticketQuota.id}/availability/`)).body).toMatchObject({
      paid_orders: 1,
      pending_orders: 0,
    });
  });

  it("a replayed payment whose card no longer covers it changes nothing", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "25.00");
    expect(
      (await s.client.post(`/api/v1/organizers/${s.orgSlug}/giftcards/${card.id}/transact/`, { value: "-10.00" }))
        .status,
    ).toBe(200);
    const interrupted = await interruptedPayment(s, o.code, card, "too-late");
    await interrupted.leave();
    expect(await runDurableObjectAlarm(interrupted.object())).toBe(true);
    // the replay ran to its end (a failed one would stay in the outbox to be retried)
    expect(await interrupted.outboxSize()).toBe(0);
    expect((await cardState(s, card.id)).value).toBe("15.00");
    const order = await readOrder(s, o.code);
    expect(order.status).toBe("n");
    expect(order.payments[0].state).toBe("created");
    expect((await s.client.get(`${s.path}/quotas/${s.ticketQuota.id}/availability/`)).body).toMatchObject({
      paid_orders: 0,
      pending_orders: 1,
    });
  });
});

describe("free and manual payments", () => {
  it("free: a pending order of total 0 is confirmed on the page", async () => {
    const s = await ticketShop({ price: "0.00" });
    // order creation pays a free order at once (as pretix): the pending one is made in D1, as if
    // it was left from before
    const placed = await placeOrder(s, { payment_provider: "free" });
    expect(placed.status).toBe("p");
    const [row] = await db().select({ id: orders.id }).from(orders).where(eq(orders.code, placed.code));
    await db().batch([
      db().update(orders).set({ status: "n" }).where(eq(orders.id, row!.id)),
      db().update(orderPositions).set({ orderStatus: "n" }).where(eq(orderPositions.orderId, row!.id)),
      db().update(orderPayments).set({ state: "created", paymentDate: null }).where(eq(orderPayments.orderId, row!.id)),
    ]);
    const o = await readOrder(s, placed.code);
    expect(o.status).toBe("n");
    const url = o.payments[0].payment_url;
    const page = await getPage(url);
    expect(page.status).toBe(200);
    expect(textOf(page.text)).toContain("This order is free of charge.");
    const res = await postForm(url);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${o.url}?paid=yes`);
    const order = await readOrder(s, o.code);
    expect(order.status).toBe("p");
    expect(order.payments[0]).toMatchObject({ state: "confirmed", provider: "free", amount: "0.00" });
  });

  it("free: refused for an order with something to pay", async () => {
    const s = await ticketShop();
    // order creation refuses `free` for it (as pretix): the payment is made in D1, as if left from before
    const placed = await placeOrder(s, { payment_provider: "manual" });
    const [row] = await db().select({ id: orders.id }).from(orders).where(eq(orders.code, placed.code));
    await db().update(orderPayments).set({ provider: "free" }).where(eq(orderPayments.orderId, row!.id));
    const o = await readOrder(s, placed.code);
    const url = o.payments[0].payment_url;
    const page = await getPage(url);
    expect(textOf(page.text)).toContain("This order is not free of charge");
    expect(page.text).toContain(`href="${o.url}pay/change"`);
    const res = await postForm(url);
    expect(res.status).toBe(400);
    const order = await readOrder(s, o.code);
    expect(order.status).toBe("n");
    expect(order.payments[0].state).toBe("created");
  });

  it("manual: amount and order code as reference; the organizer confirms; continuing changes nothing", async () => {
    const s = await ticketShop({ price: "23.50" });
    await allowReturnUrls(s, "https://shop.example.org/checkout/");
    const o = await placeOrder(s, { payment_provider: "manual" });
    const url = o.payments[0].payment_url;
    const page = await getPage(url);
    expect(page.status).toBe(200);
    const t = textOf(page.text);
    expect(t).toContain(
      `Please pay EUR 23.50 as agreed with the organizer, stating ${o.code} as the payment reference.`,
    );
    expect(t).toContain("The organizer confirms the payment when it has arrived.");
    expect(page.text).not.toContain("<form");

    const cont = await postForm(withQuery(url, { return_url: RETURN }));
    expect(cont.status).toBe(303);
    expect(cont.location).toBe(RETURN);
    expect((await postForm(url)).location).toBe(o.url);
    const order = await readOrder(s, o.code);
    expect(order.status).toBe("n");
    expect(order.payments[0].state).toBe("created");
    // the organizer confirms through the API; the page then shows the final state
    expect((await s.client.post(`${s.path}/orders/${o.code}/payments/1/confirm/`, {})).status).toBe(200);
    expect(textOf((await getPage(url)).text)).toContain("This payment is confirmed.");
  });

  it("manual: the organizer's payment instructions on the page (escaped, in the order's language) and in the placed mail", async () => {
    const s = await ticketShop({ price: "23.50" });
    const settings = (body: Record<string, unknown>) => s.client.patch(`${s.path}/settings/`, body);
    // pretix's placeholder rules: only {order}, {total}, {currency}, {total_with_currency}
    const unknown = await settings({ payment_manual_pending_description: { en: "Pay {amount} now" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ payment_manual_pending_description: ["Invalid placeholder(s): {amount}"] });
    const unbalanced = await settings({ payment_manual_email_instructions: { de: "Betrag {total" } });
    expect(unbalanced.status).toBe(400);
    expect(unbalanced.body).toEqual({
      payment_manual_email_instructions: [
        'Invalid placeholder syntax: You used a different number of "{" than of "}".',
      ],
    });
    const before = await placeOrder(s, { payment_provider: "manual" });
    expect((await getPage(before.payments[0].payment_url)).text).not.toContain('class="instructions"');

    const ok = await settings({
      locales: ["en", "de"],
      payment_manual_pending_description: {
        en: "Transfer {total_with_currency} to IBAN DE02 1203 0000 0000 2020 51.\nReference: {order} <b>only</b>",
        de: "Überweisen Sie {total} {currency} auf DE02 1203 0000 0000 2020 51, Verwendungszweck {order}.",
      },
      payment_manual_email_instructions: { en: "Bank transfer: {total_with_currency}, reference {order}." },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.payment_manual_email_instructions).toEqual({
      en: "Bank transfer: {total_with_currency}, reference {order}.",
    });

    const o = await placeOrder(s, { payment_provider: "manual", email: "transfer@example.org", send_mail: true });
    const page = await getPage(o.payments[0].payment_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      `<div class="instructions">Transfer 23.50 EUR to IBAN DE02 1203 0000 0000 2020 51.\nReference: ${o.code} &lt;b&gt;only&lt;/b&gt;</div>`,
    );
    const de = await placeOrder(s, { payment_provider: "manual", locale: "de" });
    expect(textOf((await getPage(de.payments[0].payment_url)).text)).toContain(
      `Überweisen Sie 23.50 EUR auf DE02 1203 0000 0000 2020 51, Verwendungszweck ${de.code}.`,
    );

    await s.settle();
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, "transfer@example.org"));
    expect(mail).toMatchObject({ kind: "order_placed" });
    expect(mail!.textBody).toContain(`${o.url}\n\nBank transfer: 23.50 EUR, reference ${o.code}.\n\nOrder ${o.code}\n`);
    // a paid order's mail has nothing to pay
    await placeOrder(s, {
      status: "p",
      payment_provider: "manual",
      email: "paid-transfer@example.org",
      send_mail: true,
    });
    await s.settle();
    const paidMails = await db()
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, "paid-transfer@example.org"))
      .orderBy(mailOutbox.id);
    expect(paidMails.map((m) => m.kind)).toEqual(["order_placed", "order_paid"]);
    for (const m of paidMails) expect(m.textBody).not.toContain("Bank transfer");
  });

  it("a canceled order cannot be paid; its payment shows its state", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "50.00");
    await s.client.post(`${s.path}/orders/${o.code}/mark_canceled/`, {});
    const url = o.payments[0].payment_url;
    expect(textOf((await getPage(url)).text)).toContain("This payment is canceled.");
    expect((await postForm(url, { giftcard: card.secret })).status).toBe(400);
    expect((await cardState(s, card.id)).value).toBe("50.00");
  });

  it("unknown payments, codes and secrets are 404 pages", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    for (const url of [
      `${o.url}pay/2/`,
      `${o.url}pay/x/`,
      `${o.url}pay/99999999999/`,
      o.payments[0].payment_url.replace(o.secret, "wrongsecret12345"),
      o.payments[0].payment_url.replace(o.code, "ZZZZZZ"),
    ]) {
      const get = await getPage(url);
      expect(get.status, url).toBe(404);
      expect(get.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect((await postForm(url, { giftcard: "x" })).status).toBe(404);
    }
  });
});

describe("return_url and iframe on the payment page", () => {
  it("after the payment step: 303 to the return_url, with error=<code> on failure", async () => {
    const s = await ticketShop();
    await allowReturnUrls(s, "https://elsewhere.example.com/\nhttps://shop.example.org/checkout/");
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const small = await giftCard(s, "5.00");
    const card = await giftCard(s, "20.00");
    const url = withQuery(o.payments[0].payment_url, { return_url: RETURN });

    const page = await getPage(url);
    expect(page.status).toBe(200);
    const action = page.text.match(/<form method="post" action="([^"]+)"/)![1]!.replace(/&amp;/g, "&");
    expect(new URL(action).searchParams.get("return_url")).toBe(RETURN);

    const unknown = await postForm(action, { giftcard: "NOPE" });
    expect(unknown.status).toBe(303);
    expect(unknown.location).toBe("https://shop.example.org/checkout/return?tx=42&error=card_unknown");
    const poor = await postForm(action, { giftcard: small.secret });
    expect(poor.location).toBe("https://shop.example.org/checkout/return?tx=42&error=insufficient_credit");
    expect((await cardState(s, small.id)).value).toBe("5.00");
    expect((await readOrder(s, o.code)).status).toBe("n");

    const ok = await postForm(action, { giftcard: card.secret });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(RETURN);
    expect((await readOrder(s, o.code)).status).toBe("p");
    const closed = await postForm(action, { giftcard: card.secret });
    expect(closed.location).toBe("https://shop.example.org/checkout/return?tx=42&error=payment_closed");
  });

  it("a return_url outside the configured base URLs is refused with 400 and no redirect; nothing is paid", async () => {
    const s = await ticketShop();
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "50.00");
    const pay = o.payments[0].payment_url;
    const foreign = "https://evil.example.net/steal";

    // plugin off
    let res = await postForm(withQuery(pay, { return_url: RETURN }), { giftcard: card.secret });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(textOf(res.text)).toContain("the redirection plugin is not enabled");
    // plugin on, prefix elsewhere
    await allowReturnUrls(s, "https://shop.example.org/checkout/");
    for (const bad of [
      foreign,
      "https://shop.example.org/other",
      "https://shop.example.org.evil.net/checkout/x",
      "javascript:alert(1)",
    ]) {
      res = await postForm(withQuery(pay, { return_url: bad }), { giftcard: card.secret });
      expect(res.status, bad).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).not.toContain(`href="${bad}"`);
      const get = await getPage(withQuery(pay, { return_url: bad }));
      expect(get.status).toBe(400);
      expect(get.text).not.toContain('name="giftcard"');
      expect(textOf(get.text)).toContain(
        bad.startsWith("https:") ? "does not lie below a base URL configured for this event" : "is not a valid URL",
      );
    }
    // plugin on, no prefix
    expect((await s.client.patch(`${s.path}/settings/`, { returnurl_prefix: null })).status).toBe(200);
    res = await getPage(withQuery(pay, { return_url: RETURN }));
    expect(res.status).toBe(400);
    expect(textOf(res.text)).toContain("no base URL for redirection configured");

    expect((await cardState(s, card.id)).value).toBe("50.00");
    expect((await readOrder(s, o.code)).status).toBe("n");
  });

  it("iframe=1: the page may be framed; the final step leaves the frame through a target=_top link", async () => {
    const s = await ticketShop();
    await allowReturnUrls(s, "https://shop.example.org/checkout/");
    const o = await placeOrder(s, { payment_provider: "giftcard" });
    const card = await giftCard(s, "50.00");
    const plain = await getPage(o.payments[0].payment_url);
    expect(plain.headers.get("X-Frame-Options")).toBe("DENY");
    expect(plain.headers.get("Content-Security-Policy")).toBe("frame-ancestors 'none'");

    const url = withQuery(o.payments[0].payment_url, { return_url: RETURN, iframe: "1" });
    const framed = await getPage(url);
    expect(framed.status).toBe(200);
    expect(framed.headers.get("X-Frame-Options")).toBeNull();
    expect(framed.headers.get("Content-Security-Policy")).toBeNull();
    const action = new URL(framed.text.match(/<form method="post" action="([^"]+)"/)![1]!.replace(/&amp;/g, "&"));
    expect(action.searchParams.get("iframe")).toBe("1");
    expect(action.searchParams.get("return_url")).toBe(RETURN);

    const failed = await postForm(action.toString(), { giftcard: "NOPE" });
    expect(failed.status).toBe(200);
    expect(failed.location).toBeNull();
    expect(failed.headers.get("X-Frame-Options")).toBeNull();
    expect(failed.text).toContain(
      'href="https://shop.example.org/checkout/return?tx=42&amp;error=card_unknown" target="_top"',
    );

    const ok = await postForm(action.toString(), { giftcard: card.secret });
    expect(ok.status).toBe(200);
    expect(textOf(ok.text)).toContain("Thank you, your payment has been received.");
    expect(ok.text).toContain(`href="https://shop.example.org/checkout/return?tx=42" target="_top"`);
    expect((await readOrder(s, o.code)).status).toBe("p");
  });
});
