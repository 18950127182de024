/**
 * Email rules at work (spec "Automated email rule"; pretix's sendmail plugin): the cron sends
 * each rule's mails once per order or attendee, at absolute times or offsets before/after the
 * start or end of the event or of each date of a series, to paid (or also pending) orders,
 * limited to products, with pretix's placeholders.
 */
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { mailOutbox, sendmailRuleSends, sendmailRules } from "../../src/db/schema";
import { fillPlaceholders } from "../../src/lib/placeholders";
import { ruleSendTime, sendDueRuleMails } from "../../src/services/mail/sendmail-sending";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { db, type Json, groupTestEnv } from "../harness";
import { type Shop, shop } from "../helpers/sales";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  // The cron sends the rules of every organizer, and the files of the project share the
  // database (test/vitest.config.ts): the rules the other files left are switched off, so what
  // a run here sends and counts are this file's rules only, as in a database of its own.
  await db().update(sendmailRules).set({ enabled: false });
});
beforeEach(() => {
  // the mail queue's consumer is not what these tests look at: keep the outbox rows as written
  vi.spyOn(env.MAIL_QUEUE, "sendBatch").mockResolvedValue(undefined as never);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

async function ruleMails(organizerId: number) {
  return db()
    .select()
    .from(mailOutbox)
    .where(and(eq(mailOutbox.organizerId, organizerId), eq(mailOutbox.kind, "sendmail_rule")))
    .orderBy(mailOutbox.id);
}

const send = (now: number) => sendDueRuleMails(groupTestEnv(), db(), now, "https://tickets.example");

async function order(s: Shop, body: Record<string, unknown>): Promise<Json> {
  const res = await s.client.post(`${s.path}/orders/`, { payment_provider: "manual", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function rule(s: Shop, body: Record<string, unknown>): Promise<Json> {
  return s.post("/sendmail_rules/", {
    subject: { en: "About {event}" },
    template: { en: "Hello {name}, order {code}: {url}" },
    ...body,
  });
}

/** Event on 2030-06-01 19:00 UTC (Europe/Berlin: 21:00), ending 23:00 UTC. */
async function concert(opts: { series?: boolean } = {}) {
  const s = await shop({ series: opts.series, event: { timezone: "Europe/Berlin", date_to: "2030-06-01T23:00:00Z" } });
  const ticket = await s.item({ name: { en: "Ticket" } });
  const vip = await s.item({ name: { en: "VIP" }, default_price: "90.00" });
  return { s, ticket, vip };
}

describe("send times", () => {
  it("computes pretix's send time: days before/after start or end at a time of day in the event's timezone", () => {
    const base = {
      dateFrom: Date.UTC(2030, 5, 1, 19),
      dateTo: Date.UTC(2030, 5, 2, 1),
      timezone: "Europe/Berlin",
      sendDate: null,
    };
    const rel = (days: number, time: string, after: boolean, end: boolean) =>
      new Date(
        ruleSendTime({
          ...base,
          dateIsAbsolute: false,
          sendOffsetDays: days,
          sendOffsetTime: time,
          offsetIsAfter: after,
          offsetToEventEnd: end,
        })!,
      ).toISOString();
    expect(rel(1, "18:00:00", false, false)).toBe("2030-05-31T16:00:00.000Z"); // the day before the start, 18:00 CEST
    expect(rel(0, "09:30:00", true, false)).toBe("2030-06-01T07:30:00.000Z");
    expect(rel(2, "10:00:00", true, true)).toBe("2030-06-04T08:00:00.000Z"); // the end is 2 June 03:00 CEST
    expect(
      ruleSendTime({
        ...base,
        dateTo: null,
        dateIsAbsolute: false,
        sendOffsetDays: 1,
        sendOffsetTime: "12:00:00",
        offsetIsAfter: true,
        offsetToEventEnd: true,
      }),
    ).toBe(Date.UTC(2030, 5, 2, 10)); // no end: the start
    expect(
      ruleSendTime({
        ...base,
        dateIsAbsolute: true,
        sendDate: 123,
        sendOffsetDays: null,
        sendOffsetTime: null,
        offsetIsAfter: false,
        offsetToEventEnd: false,
      }),
    ).toBe(123);
  });

  it("fills known placeholders and leaves others as written", () => {
    expect(fillPlaceholders("{a} {b} {a} {unknown} {{x}}", { a: "1", b: "2" })).toBe("1 2 1 {unknown} {{x}}");
  });
});

describe("the cron sends due rules once", () => {
  it("sends a rule 1 day before the start to paid orders: not before its time, once however often the cron runs", async () => {
    const { s, ticket } = await concert();
    await s.quota({ size: 10, items: [ticket.id] });
    const paid = await order(s, {
      email: "paid@example.org",
      status: "p",
      invoice_address: { name_parts: { full_name: "Pat Paid" } },
      positions: [{ item: ticket.id }],
    });
    await order(s, { email: "pending@example.org", positions: [{ item: ticket.id }] });
    await rule(s, {
      date_is_absolute: false,
      send_offset_days: 1,
      send_offset_time: "18:00",
      offset_is_after: false,
      offset_to_event_end: false,
    });
    const due = Date.UTC(2030, 4, 31, 16);

    expect(await send(due - 60_000)).toEqual({ mails: 0, completed: 0 });
    expect(await ruleMails(s.org.id)).toHaveLength(0);

    expect(await send(due + 60_000)).toEqual({ mails: 1, completed: 1 });
    const [mail] = await ruleMails(s.org.id);
    expect(mail).toMatchObject({
      toAddress: "paid@example.org",
      subject: "About Concert",
      textBody: `Hello Pat Paid, order ${paid.code}: https://tickets.example/${s.orgSlug}/${s.eventSlug}/order/${paid.code}/${paid.secret}/`,
      state: "queued",
      eventId: expect.any(Number),
    });
    // the cron again (and through its real entry): nothing new
    expect(await send(due + 120_000)).toEqual({ mails: 0, completed: 0 });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(due + 15 * 60_000);
    await runHousekeeping(env as never, Date.now());
    await runHousekeeping(env as never, Date.now());
    vi.useRealTimers();
    expect(await ruleMails(s.org.id)).toHaveLength(1);
    // an order placed after the rule went out does not get it (pretix: the scheduled mail is completed)
    await order(s, { email: "latecomer@example.org", status: "p", positions: [{ item: ticket.id }] });
    expect((await send(due + DAY)).mails).toBe(0);
  });

  it("overlapping cron runs write each mail once", async () => {
    const { s, ticket } = await concert();
    await s.quota({ size: 100, items: [ticket.id] });
    for (let i = 0; i < 30; i++)
      await order(s, {
        email: `fan${i}@example.org`,
        status: "p",
        positions: [{ item: ticket.id, attendee_email: `guest${i}@example.org` }],
      });
    const r = await rule(s, { date_is_absolute: true, send_date: "2030-05-01T10:00:00Z", send_to: "both" });
    const now = Date.UTC(2030, 4, 1, 10, 5);
    const results = await Promise.all([send(now), send(now), send(now), send(now)]);
    expect(results.reduce((n, r) => n + r.mails, 0)).toBe(60);
    const mails = await ruleMails(s.org.id);
    expect(mails).toHaveLength(60);
    expect(new Set(mails.map((m) => m.toAddress)).size).toBe(60);
    expect(await db().select().from(sendmailRuleSends).where(eq(sendmailRuleSends.ruleId, r.id))).toHaveLength(60);
  });

  it("misses a rule more than two days late, as pretix does; a disabled rule sends nothing", async () => {
    const { s, ticket } = await concert();
    await s.quota({ size: 10, items: [ticket.id] });
    await order(s, { email: "a@example.org", status: "p", positions: [{ item: ticket.id }] });
    await rule(s, { date_is_absolute: true, send_date: "2030-05-01T10:00:00Z" });
    await rule(s, { date_is_absolute: true, send_date: "2030-05-05T10:00:00Z", enabled: false });
    expect((await send(Date.UTC(2030, 4, 3, 10, 1))).mails).toBe(0);
    expect((await send(Date.UTC(2030, 4, 5, 11))).mails).toBe(0);
    expect(await ruleMails(s.org.id)).toHaveLength(0);
  });

  it("offsets after the end", async () => {
    const { s, ticket } = await concert();
    await s.quota({ size: 10, items: [ticket.id] });
    await order(s, { email: "a@example.org", status: "p", positions: [{ item: ticket.id }] });
    await rule(s, {
      date_is_absolute: false,
      send_offset_days: 1,
      send_offset_time: "10:00",
      offset_is_after: true,
      offset_to_event_end: true,
      subject: { en: "Thanks" },
    });
    // the end is 2 June 01:00 CEST: one day after, 10:00 CEST
    expect((await send(Date.UTC(2030, 5, 3, 7, 59))).mails).toBe(0);
    expect((await send(Date.UTC(2030, 5, 3, 8, 1))).mails).toBe(1);
  });
});

describe("recipients", () => {
  it("include_pending: pending orders (not awaiting approval) too; canceled and expired never", async () => {
    const { s, ticket } = await concert();
    await s.quota({ size: 10, items: [ticket.id] });
    await order(s, { email: "paid@example.org", status: "p", positions: [{ item: ticket.id }] });
    await order(s, { email: "pending@example.org", positions: [{ item: ticket.id }] });
    const canceled = await order(s, { email: "canceled@example.org", status: "p", positions: [{ item: ticket.id }] });
    expect((await s.client.post(`${s.path}/orders/${canceled.code}/mark_canceled/`, {})).status).toBe(200);
    await rule(s, { date_is_absolute: true, send_date: "2030-05-01T10:00:00Z", include_pending: true });
    await send(Date.UTC(2030, 4, 1, 10, 1));
    expect((await ruleMails(s.org.id)).map((m) => m.toAddress).sort()).toEqual([
      "paid@example.org",
      "pending@example.org",
    ]);
  });

  it("limits to orders with the rule's products, and attendee mails to positions of them", async () => {
    const { s, ticket, vip } = await concert();
    await s.quota({ size: 10, items: [ticket.id, vip.id] });
    await order(s, {
      email: "plain@example.org",
      status: "p",
      positions: [{ item: ticket.id, attendee_email: "plain-guest@example.org" }],
    });
    await order(s, {
      email: "mixed@example.org",
      status: "p",
      positions: [
        { item: ticket.id, attendee_email: "ticket-guest@example.org" },
        { item: vip.id, attendee_email: "vip-guest@example.org" },
      ],
    });
    await rule(s, {
      date_is_absolute: true,
      send_date: "2030-05-01T10:00:00Z",
      all_products: false,
      limit_products: [vip.id],
      send_to: "attendees",
    });
    await rule(s, {
      date_is_absolute: true,
      send_date: "2030-05-01T10:00:00Z",
      all_products: false,
      limit_products: [vip.id],
      send_to: "orders",
      subject: { en: "Order" },
    });
    await send(Date.UTC(2030, 4, 1, 10, 1));
    const mails = await ruleMails(s.org.id);
    expect(mails.map((m) => m.toAddress).sort()).toEqual(["mixed@example.org", "vip-guest@example.org"]);
  });

  it("attendees: one mail per attendee email, the order's address for positions without one (once), none twice to the order's own address with both", async () => {
    const { s, ticket } = await concert();
    await s.quota({ size: 10, items: [ticket.id] });
    const o = await order(s, {
      email: "buyer@example.org",
      status: "p",
      invoice_address: { name_parts: { full_name: "Bea Buyer" } },
      positions: [
        { item: ticket.id, attendee_name_parts: { full_name: "Ana Guest" }, attendee_email: "ana@example.org" },
        { item: ticket.id, attendee_name_parts: { full_name: "No Mail" } },
        { item: ticket.id },
        { item: ticket.id, attendee_name_parts: { full_name: "Self" }, attendee_email: "buyer@example.org" },
      ],
    });
    await rule(s, {
      date_is_absolute: true,
      send_date: "2030-05-01T10:00:00Z",
      send_to: "attendees",
      subject: { en: "{attendee_name}" },
      template: {
        en: "{name}|{attendee_name}|{invoice_name}|{order_email}|{total_with_currency}|{event_slug}|{nothing}",
      },
    });
    await send(Date.UTC(2030, 4, 1, 10, 1));
    const mails = await ruleMails(s.org.id);
    expect(mails.map((m) => [m.toAddress, m.subject, m.textBody])).toEqual([
      [
        "ana@example.org",
        "Ana Guest",
        `Ana Guest|Ana Guest|Bea Buyer|buyer@example.org|80.00 EUR|${s.eventSlug}|{nothing}`,
      ],
      // the positions without an email: one mail to the order (an order mail: no {attendee_name})
      [
        "buyer@example.org",
        "{attendee_name}",
        `Bea Buyer|{attendee_name}|Bea Buyer|buyer@example.org|80.00 EUR|${s.eventSlug}|{nothing}`,
      ],
    ]);
    expect(mails.some((m) => m.textBody.includes("Self"))).toBe(false);
    expect(o.code).toBeTruthy();

    // both: the order's mail and the attendees with another address
    await rule(s, {
      date_is_absolute: true,
      send_date: "2030-05-02T10:00:00Z",
      send_to: "both",
      subject: { en: "Both" },
    });
    await send(Date.UTC(2030, 4, 2, 10, 1));
    const both = (await ruleMails(s.org.id)).filter((m) => m.subject === "Both");
    expect(both.map((m) => m.toAddress)).toEqual(["buyer@example.org", "ana@example.org"]);
  });

  it("series: each date at its own time, to the orders of that date", async () => {
    const { s, ticket } = await concert({ series: true });
    const june = await s.subevent({ name: { en: "June" }, date_from: "2030-06-10T18:00:00Z" });
    const july = await s.subevent({ name: { en: "July" }, date_from: "2030-07-10T18:00:00Z" });
    await s.quota({ size: 10, items: [ticket.id], subevent: june.id });
    await s.quota({ size: 10, items: [ticket.id], subevent: july.id });
    await order(s, { email: "june@example.org", status: "p", positions: [{ item: ticket.id, subevent: june.id }] });
    await order(s, { email: "july@example.org", status: "p", positions: [{ item: ticket.id, subevent: july.id }] });
    await order(s, {
      email: "both@example.org",
      status: "p",
      positions: [
        { item: ticket.id, subevent: june.id },
        { item: ticket.id, subevent: july.id },
      ],
    });
    await rule(s, {
      date_is_absolute: false,
      send_offset_days: 2,
      send_offset_time: "09:00",
      offset_is_after: false,
      offset_to_event_end: false,
    });
    // June 8th 09:00 CEST = 07:00 UTC
    await send(Date.UTC(2030, 5, 8, 7, 30));
    expect((await ruleMails(s.org.id)).map((m) => m.toAddress).sort()).toEqual([
      "both@example.org",
      "june@example.org",
    ]);
    await send(Date.UTC(2030, 6, 8, 7, 30));
    expect((await ruleMails(s.org.id)).map((m) => m.toAddress).sort()).toEqual([
      "both@example.org",
      "both@example.org",
      "july@example.org",
      "june@example.org",
    ]);
  });
});

describe("deleting a rule that sent", () => {
  it("answers 204 (pretix never refuses); the mails it sent stay in the outbox", async () => {
    const { s, ticket } = await concert();
    await s.quota({ size: 10, items: [ticket.id] });
    await order(s, { email: "a@example.org", status: "p", positions: [{ item: ticket.id }] });
    const r = await rule(s, { date_is_absolute: true, send_date: "2030-05-01T10:00:00Z" });
    await send(Date.UTC(2030, 4, 1, 10, 1));
    expect(await ruleMails(s.org.id)).toHaveLength(1);
    expect((await s.client.delete(`${s.path}/sendmail_rules/${r.id}/`)).status).toBe(204);
    expect(await ruleMails(s.org.id)).toHaveLength(1);
    expect(await db().select().from(sendmailRuleSends).where(eq(sendmailRuleSends.ruleId, r.id))).toHaveLength(0);
  });
});
