/**
 * Ticket validity from sale to door (pretix docs items.rst `validity_*`, orders.rst positions'
 * `valid_from` / `valid_until`; pretix's tests test_order_create_auto_validity*,
 * test_order_create_manual_validity_precedence, base/test_checkin.py test_checkin_valid_from /
 * _until): a position gets its window when it is sold, from the product or from the order's
 * input, shows it, and a scan outside it answers `invalid_time`, on both redeem endpoints.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions } from "../../src/db/schema";
import { db } from "../harness";
import { venue } from "../helpers/checkin";
import { decodeSigned } from "../helpers/offline-scanner";

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A venue with a product of the given validity and a list of every product. */
async function validityVenue(item: Record<string, unknown>, event: Record<string, unknown> = {}) {
  const v = await venue({ event });
  const product = await v.item({ name: { en: "Pass" }, ...item });
  await v.quota({ size: 100, items: [product.id] });
  const list = await v.list();
  const sell = async (position: Record<string, unknown> = {}) => {
    const res = await v.client.post(`${v.path}/orders/`, {
      email: "a@example.org",
      status: "p",
      payment_provider: "manual",
      positions: [{ item: product.id, ...position }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.positions[0];
  };
  return { v, product, list, sell };
}

const stored = async (id: number) => (await db().select().from(orderPositions).where(eq(orderPositions.id, id)))[0]!;

describe("a position's window when it is sold", () => {
  it("dynamic: from the purchase for the product's duration (test_order_create_auto_validity)", async () => {
    const { sell } = await validityVenue({ validity_mode: "dynamic", validity_dynamic_duration_minutes: 30 });
    const before = Date.now();
    const pos = await sell();
    const after = Date.now();
    const from = Date.parse(pos.valid_from);
    const until = Date.parse(pos.valid_until);
    expect(from).toBeGreaterThanOrEqual(before - 1000);
    expect(from).toBeLessThanOrEqual(after);
    expect(until - from).toBe(30 * MINUTE);
    const row = await stored(pos.id);
    expect([row.validFrom, row.validUntil]).toEqual([from, until]);
  });

  it("dynamic days end at midnight of the event's timezone", async () => {
    const { sell } = await validityVenue(
      { validity_mode: "dynamic", validity_dynamic_duration_days: 1 },
      { timezone: "America/New_York" },
    );
    const pos = await sell();
    const parts = new Intl.DateTimeFormat("en-US", {
      timeZone: "America/New_York",
      hourCycle: "h23",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    }).format(new Date(pos.valid_until));
    expect(parts).toBe("23:59:59");
    expect(Date.parse(pos.valid_until) - Date.parse(pos.valid_from)).toBeLessThan(DAY);
  });

  it("valid_from / valid_until of the order's input take precedence over the product (test_order_create_manual_validity_precedence)", async () => {
    const { sell } = await validityVenue({ validity_mode: "dynamic", validity_dynamic_duration_minutes: 30 });
    const pos = await sell({ valid_from: "2022-01-01T09:00:00.000Z", valid_until: "2022-01-03T09:00:00.000Z" });
    expect([pos.valid_from, pos.valid_until]).toEqual(["2022-01-01T09:00:00Z", "2022-01-03T09:00:00Z"]);
    // one of them given: the other stays open, whatever the product says
    const open = await sell({ valid_from: "2022-01-01T09:00:00Z" });
    expect([open.valid_from, open.valid_until]).toEqual(["2022-01-01T09:00:00Z", null]);
    const none = await sell({ valid_from: null });
    expect([none.valid_from, none.valid_until]).toEqual([null, null]);
  });

  it("requested_valid_from: the buyer's start when the product offers a choice (test_order_create_auto_validity_with_requested_start)", async () => {
    const { sell } = await validityVenue({
      validity_mode: "dynamic",
      validity_dynamic_duration_minutes: 30,
      validity_dynamic_start_choice: true,
    });
    const pos = await sell({ requested_valid_from: "2039-01-01T09:00:00.000Z" });
    expect([pos.valid_from, pos.valid_until]).toEqual(["2039-01-01T09:00:00Z", "2039-01-01T09:30:00Z"]);
    // a start in the past: the purchase
    const past = await sell({ requested_valid_from: "2020-01-01T09:00:00Z" });
    expect(Math.abs(Date.parse(past.valid_from) - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(past.valid_until) - Date.parse(past.valid_from)).toBe(30 * MINUTE);
  });

  it("requested_valid_from: at most the product's day limit ahead, and ignored without a choice (…_with_requested_start_limitation)", async () => {
    const limited = await validityVenue({
      validity_mode: "dynamic",
      validity_dynamic_duration_minutes: 30,
      validity_dynamic_start_choice: true,
      validity_dynamic_start_choice_day_limit: 24,
    });
    const pos = await limited.sell({ requested_valid_from: new Date(Date.now() + 30 * DAY).toISOString() });
    const from = Date.parse(pos.valid_from);
    expect(from).toBeGreaterThan(Date.now() + 23 * DAY);
    expect(from).toBeLessThanOrEqual(Date.now() + 26 * DAY);
    expect(Date.parse(pos.valid_until) - from).toBe(30 * MINUTE);
    const fixedStart = await validityVenue({ validity_mode: "dynamic", validity_dynamic_duration_minutes: 30 });
    const now = await fixedStart.sell({ requested_valid_from: "2039-01-01T09:00:00Z" });
    expect(Math.abs(Date.parse(now.valid_from) - Date.now())).toBeLessThan(60_000);
  });

  it("refuses a window that is no datetime with pretix's text", async () => {
    const { v, product } = await validityVenue({});
    const res = await v.client.post(`${v.path}/orders/`, {
      positions: [{ item: product.id, valid_until: "tomorrow", requested_valid_from: 5 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.positions[0].valid_until).toEqual([
      "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
    ]);
    expect(res.body.positions[0].requested_valid_from).toHaveLength(1);
  });
});

describe("the window at the door", () => {
  it("shown on the order, the position and the list's tickets; enforced by both redeem endpoints", async () => {
    const { v, list, sell } = await validityVenue({}, { timezone: "Europe/Berlin" });
    const pos = await sell({ valid_from: "2040-01-01T11:00:00Z", valid_until: "2040-01-01T20:00:00Z" });
    const window = ["2040-01-01T11:00:00Z", "2040-01-01T20:00:00Z"];
    const detail = await v.client.get(`${v.path}/orderpositions/${pos.id}/`);
    expect([detail.body.valid_from, detail.body.valid_until]).toEqual(window);
    const listed = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${pos.id}/`);
    expect([listed.body.valid_from, listed.body.valid_until]).toEqual(window);

    const early = await v.redeem({ secret: pos.secret, lists: [list.id], datetime: "2040-01-01T10:59:59Z" });
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({
      status: "error",
      reason: "invalid_time",
      reason_explanation: "This ticket is only valid after 2040-01-01 12:00.",
      position: { id: pos.id, valid_from: window[0] },
    });
    const perList = (body: Record<string, unknown>) =>
      v.scanner.post(`${v.path}/checkinlists/${list.id}/positions/${pos.secret}/redeem/?untrusted_input=true`, body);
    const late = await perList({ datetime: "2040-01-01T20:00:01Z" });
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({
      reason: "invalid_time",
      reason_explanation: "This ticket was only valid before 2040-01-01 21:00.",
    });
    // both bounds belong to the window
    expect((await perList({ datetime: "2040-01-01T11:00:00Z" })).status).toBe(201);
    expect((await perList({ datetime: "2040-01-01T20:00:00Z", type: "exit" })).status).toBe(201);
    expect((await perList({ datetime: "2040-01-01T20:00:00Z" })).status).toBe(201);
  });

  it("a dynamic ticket sold now gets in now and is refused once its duration is over", async () => {
    const { v, list, sell } = await validityVenue({ validity_mode: "dynamic", validity_dynamic_duration_hours: 1 });
    const pos = await sell();
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
    const later = new Date(Date.parse(pos.valid_until) + MINUTE).toISOString();
    const refused = await v.redeem({ secret: pos.secret, lists: [list.id], datetime: later, type: "entry" });
    expect(refused.body).toMatchObject({ status: "error", reason: "invalid_time" });
  });

  it("signed secrets carry the window the position got, so offline scanners enforce it too", async () => {
    const { v, product } = await validityVenue({ validity_mode: "dynamic", validity_dynamic_duration_minutes: 30 });
    const set = await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig1" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const keys = (await v.client.get(`${v.path}/`)).body.valid_keys.pretix_sig1 as string[];
    const order = await v.order({
      positions: [
        { item: product.id },
        { item: product.id, valid_from: "2031-02-03T08:00:00Z", valid_until: "2031-02-04T02:30:45Z" },
      ],
    });
    const [auto, given] = order.positions;
    const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) * 1000;
    const a = (await decodeSigned(auto.secret, keys))!;
    expect([a.validFrom, a.validUntil]).toEqual([seconds(auto.valid_from), seconds(auto.valid_until)]);
    const g = (await decodeSigned(given.secret, keys))!;
    expect([g.validFrom, g.validUntil]).toEqual([seconds("2031-02-03T08:00:00Z"), seconds("2031-02-04T02:30:45Z")]);
  });
});
