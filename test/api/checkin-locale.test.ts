/**
 * The language of a scan's explanation (pretix checkin.rst `use_order_locale`;
 * test_checkinrpc.py test_reason_explanation_localization): the event's default language, or the
 * order's when the scanner asks for it, for the validity window and the check-in rules, in the
 * answer and in the failed check-in stored.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { db } from "../harness";
import { venue } from "../helpers/checkin";

/** An event in Berlin offering German and English (default `locale`), a ticket of an order in German valid from 2020-01-01 12:00. */
async function germanOrder(locale: "en" | "de") {
  const v = await venue({ event: { timezone: "Europe/Berlin" } });
  const set = await v.client.patch(`${v.path}/settings/`, { locales: ["de", "en"], locale });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const list = await v.list();
  const pos = await v.sell({
    locale: "de",
    positions: [
      { item: v.ticket.id, valid_from: "2020-01-01T12:00:00+01:00", valid_until: "2020-01-02T09:00:00+01:00" },
    ],
  });
  return { v, list, pos };
}

const explanation = async (
  v: Awaited<ReturnType<typeof venue>>,
  body: Record<string, unknown>,
): Promise<string | null> => {
  const r = await v.redeem(body);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body).toMatchObject({ status: "error" });
  return r.body.reason_explanation;
};

describe("reason_explanation in the event's or the order's language", () => {
  it("the event's default language, or with use_order_locale the order's (test_reason_explanation_localization)", async () => {
    const { v, list, pos } = await germanOrder("en");
    const scan = { secret: pos.secret, lists: [list.id], datetime: "2020-01-01T10:45:00Z" };
    expect(await explanation(v, scan)).toBe("This ticket is only valid after 2020-01-01 12:00.");
    expect(await explanation(v, { ...scan, use_order_locale: true })).toBe("Erst ab 01.01.2020 12:00 gültig.");
    expect(await explanation(v, { ...scan, use_order_locale: false })).toBe(
      "This ticket is only valid after 2020-01-01 12:00.",
    );
    const late = { ...scan, datetime: "2020-01-02T08:00:01Z", use_order_locale: true };
    expect(await explanation(v, late)).toBe("Nur gültig bis 02.01.2020 09:00.");
    // the failed check-ins keep the text as answered
    const stored = await db()
      .select({ explanation: checkins.errorExplanation })
      .from(checkins)
      .where(and(eq(checkins.positionId, pos.id), eq(checkins.successful, false)));
    expect(stored.map((r) => r.explanation)).toEqual([
      "This ticket is only valid after 2020-01-01 12:00.",
      "Erst ab 01.01.2020 12:00 gültig.",
      "This ticket is only valid after 2020-01-01 12:00.",
      "Nur gültig bis 02.01.2020 09:00.",
    ]);
  });

  it("an event whose default language is German explains in German without being asked", async () => {
    const { v, list, pos } = await germanOrder("de");
    expect(await explanation(v, { secret: pos.secret, lists: [list.id], datetime: "2020-01-01T10:45:00Z" })).toBe(
      "Erst ab 01.01.2020 12:00 gültig.",
    );
  });

  it("the rules' explanation follows the same language", async () => {
    const { v, pos } = await germanOrder("en");
    const list = await v.list({
      name: "Rules",
      rules: { isAfter: [{ var: "now" }, { buildTime: ["custom", "2020-01-01T14:00:00Z"] }, null] },
    });
    const scan = { secret: pos.secret, lists: [list.id], datetime: "2020-01-01T13:45:00Z" };
    expect(await explanation(v, scan)).toBe("Only allowed after 15:00");
    expect(await explanation(v, { ...scan, use_order_locale: true })).toBe("Erst erlaubt ab 15:00");
  });

  it("an order the event object indexed before it kept orders' languages is read again from D1 when the scan asks for its language", async () => {
    const { v, list, pos } = await germanOrder("en");
    const scan = { secret: pos.secret, lists: [list.id], datetime: "2020-01-01T10:45:00Z" };
    expect(await explanation(v, scan)).toBe("This ticket is only valid after 2020-01-01 12:00.");
    await runInDurableObject(eventObject(env, v.eventId), (_o, state: DurableObjectState) => {
      state.storage.sql.exec("UPDATE ci_orders SET locale = NULL");
    });
    expect(await explanation(v, { ...scan, use_order_locale: true })).toBe("Erst ab 01.01.2020 12:00 gültig.");
    const [known] = await runInDurableObject(eventObject(env, v.eventId), (_o, state: DurableObjectState) => [
      ...state.storage.sql.exec<{ locale: string | null }>("SELECT locale FROM ci_orders WHERE code = ?", pos.order),
    ]);
    expect(known).toEqual({ locale: "de" });
  });
});
