/** Automatic expiry of unpaid orders (cron) and the payment term. */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { orderExpiry } from "../../src/rules/orders";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import type { EventRow } from "../../src/http/context";
import { shop } from "../helpers/sales";

describe("automatic expiry", () => {
  it("expires pending orders past their term and frees their quota; paid orders stay", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 2, items: [ticket.id] });
    const pending = (
      await s.client.post(`${s.path}/orders/`, { payment_provider: "manual", positions: [{ item: ticket.id }] })
    ).body;
    const paid = (
      await s.client.post(`${s.path}/orders/`, {
        status: "p",
        payment_provider: "manual",
        positions: [{ item: ticket.id }],
      })
    ).body;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.parse(pending.expires) + 60_000);
      await runHousekeeping(env, Date.now());
      expect((await s.client.get(`${s.path}/orders/${pending.code}/`)).body.status).toBe("e");
      expect((await s.client.get(`${s.path}/orders/${paid.code}/`)).body.status).toBe("p");
      expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
        available_number: 1,
        pending_orders: 0,
        paid_orders: 1,
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves them pending when payment_term_expire_automatically is off", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 2, items: [ticket.id] });
    expect((await s.client.patch(`${s.path}/settings/`, { payment_term_expire_automatically: false })).status).toBe(
      200,
    );
    const o = (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] })).body;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.parse(o.expires) + 60_000);
      await runHousekeeping(env, Date.now());
      expect((await s.client.get(`${s.path}/orders/${o.code}/`)).body.status).toBe("n");
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("payment term", () => {
  const event = {
    timezone: "Europe/Berlin",
    dateFrom: Date.UTC(2030, 5, 20, 17),
    dateTo: null,
    dateAdmission: null,
    presaleStart: null,
    presaleEnd: null,
  } as unknown as EventRow;
  const wednesday = Date.UTC(2030, 4, 1, 10); // Wed 1 May 2030

  it("ends at the end of the day in the event's timezone, days after ordering", () => {
    const ms = orderExpiry(event, { payment_term_days: 2, payment_term_weekdays: true }, wednesday);
    expect(new Date(ms).toISOString()).toBe("2030-05-03T21:59:59.000Z"); // Fri 23:59:59 CEST
  });

  it("moves a weekend end to Monday unless weekdays are off", () => {
    expect(
      new Date(orderExpiry(event, { payment_term_days: 3, payment_term_weekdays: true }, wednesday)).toISOString(),
    ).toBe("2030-05-06T21:59:59.000Z");
    expect(
      new Date(orderExpiry(event, { payment_term_days: 3, payment_term_weekdays: false }, wednesday)).toISOString(),
    ).toBe("2030-05-04T21:59:59.000Z");
  });

  it("never ends after the last date of payments, absolute or relative to the event", () => {
    expect(
      new Date(orderExpiry(event, { payment_term_days: 30, payment_term_last: "2030-05-10" }, wednesday)).toISOString(),
    ).toBe("2030-05-10T21:59:59.000Z");
    expect(
      new Date(
        orderExpiry(event, { payment_term_days: 60, payment_term_last: "RELDATE/3/-/date_from/" }, wednesday),
      ).toISOString(),
    ).toBe("2030-06-17T21:59:59.000Z");
  });
});
