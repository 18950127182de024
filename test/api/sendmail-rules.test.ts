import { describe, expect, it } from "vitest";
import { sendmailRuleResponse } from "../../src/api/sendmail-rules";
import { seedEventRow, seedOrganizer, seedTeam } from "../harness";
import { seedCatalogEvent, seedItem } from "../helpers/catalog";

const REMINDER = {
  subject: { en: "See you tomorrow!" },
  template: { en: "Don't forget your tickets, download them at {url}" },
  date_is_absolute: false,
  send_offset_days: 1,
  send_offset_time: "18:00",
};

describe("automated email rules", () => {
  it("creates a relative rule with defaults and reads it back", async () => {
    const { client, path } = await seedCatalogEvent();
    const res = await client.post(`${path}/sendmail_rules/`, REMINDER);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      enabled: true,
      subject: { en: "See you tomorrow!" },
      template: { en: "Don't forget your tickets, download them at {url}" },
      all_products: true,
      limit_products: [],
      include_pending: false,
      date_is_absolute: false,
      send_date: null,
      send_offset_days: 1,
      send_offset_time: "18:00",
      offset_to_event_end: false,
      offset_is_after: false,
      send_to: "orders",
    });
    expect((await client.get(`${path}/sendmail_rules/${res.body.id}/`)).body).toEqual(res.body);
    expect((await client.get(`${path}/sendmail_rules/`)).body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [res.body],
    });
    // the response schema describes the wire exactly (no field more, none less)
    expect(sendmailRuleResponse.strict().parse(res.body)).toEqual(res.body);
  });

  it("stores an absolute rule limited to products of the event, for attendees", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const res = await client.post(`${path}/sendmail_rules/`, {
      subject: { en: "Hi", de: "Hallo" },
      template: { en: "Body" },
      enabled: false,
      all_products: false,
      limit_products: [item.id],
      include_pending: true,
      send_date: "2030-05-01T09:30:00+02:00",
      send_to: "attendees",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      enabled: false,
      all_products: false,
      limit_products: [item.id],
      include_pending: true,
      date_is_absolute: true,
      send_date: "2030-05-01T07:30:00Z",
      send_offset_days: null,
      send_offset_time: null,
      send_to: "attendees",
    });
    const both = await client.post(`${path}/sendmail_rules/`, {
      ...REMINDER,
      send_to: "both",
      send_offset_time: "07:05:30",
      offset_is_after: true,
      offset_to_event_end: true,
    });
    expect(both.body).toMatchObject({
      send_to: "both",
      send_offset_time: "07:05:30",
      offset_is_after: true,
      offset_to_event_end: true,
    });
  });

  it("rejects incomplete timing, product limits and bad values, creating nothing", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const foreign = await seedItem(other.id);
    const base = { subject: { en: "s" }, template: { en: "t" } };
    const cases: [object, Record<string, string[]>][] = [
      [{}, { send_date: ["This field is required when date_is_absolute is true."] }],
      [
        { date_is_absolute: false },
        {
          send_offset_days: ["This field is required when date_is_absolute is false."],
          send_offset_time: ["This field is required when date_is_absolute is false."],
        },
      ],
      [
        { ...REMINDER, all_products: false },
        { limit_products: ["This field is required when all_products is false."] },
      ],
      [
        { ...REMINDER, all_products: false, limit_products: [foreign.id] },
        { limit_products: [`Invalid pk "${foreign.id}" - object does not exist.`] },
      ],
      [{ ...REMINDER, send_to: "everyone" }, { send_to: ['"everyone" is not a valid choice.'] }],
      [
        { ...REMINDER, send_offset_time: "25:00" },
        { send_offset_time: ["Time has wrong format. Use one of these formats instead: hh:mm[:ss]."] },
      ],
      [
        { ...REMINDER, send_offset_days: -1 },
        { send_offset_days: ["Ensure this value is greater than or equal to 0."] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await client.post(`${path}/sendmail_rules/`, { ...base, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    const noSubject = await client.post(`${path}/sendmail_rules/`, {
      template: { en: "t" },
      send_date: "2030-01-01T00:00:00Z",
    });
    expect(noSubject.body).toEqual({ subject: ["This field is required."] });
    expect((await client.get(`${path}/sendmail_rules/`)).body.count).toBe(0);
  });

  it("PATCH changes the sent fields against the stored state; PUT resets the rest", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const { body: rule } = await client.post(`${path}/sendmail_rules/`, {
      ...REMINDER,
      all_products: false,
      limit_products: [item.id],
      send_to: "both",
    });
    const patched = await client.patch(`${path}/sendmail_rules/${rule.id}/`, { enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...rule, enabled: false });
    const toAbsolute = await client.patch(`${path}/sendmail_rules/${rule.id}/`, { date_is_absolute: true });
    expect(toAbsolute.status).toBe(400);
    expect(toAbsolute.body).toEqual({ send_date: ["This field is required when date_is_absolute is true."] });
    const noProducts = await client.patch(`${path}/sendmail_rules/${rule.id}/`, { limit_products: [] });
    expect(noProducts.status).toBe(400);
    const put = await client.put(`${path}/sendmail_rules/${rule.id}/`, {
      subject: { en: "New" },
      template: { en: "Text" },
      send_date: "2031-01-01T00:00:00Z",
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      id: rule.id,
      enabled: true,
      subject: { en: "New" },
      template: { en: "Text" },
      all_products: true,
      limit_products: [],
      include_pending: false,
      date_is_absolute: true,
      send_date: "2031-01-01T00:00:00Z",
      send_offset_days: null,
      send_offset_time: null,
      offset_to_event_end: false,
      offset_is_after: false,
      send_to: "orders",
    });
  });

  it("answers product changes to a rule deleted meanwhile with 200 or 404, never 500", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const { body: rule } = await client.post(`${path}/sendmail_rules/`, REMINDER);
    const changes = Array.from({ length: 8 }, () =>
      client.patch(`${path}/sendmail_rules/${rule.id}/`, { limit_products: [item.id] }),
    );
    const [deleted, ...changed] = await Promise.all([client.delete(`${path}/sendmail_rules/${rule.id}/`), ...changes]);
    expect(deleted.status).toBe(204);
    for (const r of changed) expect([200, 404]).toContain(r.status);
    expect((await client.get(`${path}/sendmail_rules/${rule.id}/`)).status).toBe(404);
  });

  it("deletes a rule: nothing refers to a rule, so it is never in use (204, then 404)", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: rule } = await client.post(`${path}/sendmail_rules/`, REMINDER);
    const del = await client.delete(`${path}/sendmail_rules/${rule.id}/`);
    expect(del.status).toBe(204);
    expect((await client.get(`${path}/sendmail_rules/${rule.id}/`)).status).toBe(404);
    expect((await client.delete(`${path}/sendmail_rules/${rule.id}/`)).status).toBe(404);
  });

  it("needs can_change_event_settings to read and write (403 otherwise)", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const { body: rule } = await client.post(`${path}/sendmail_rules/`, REMINDER);
    const items = (await seedTeam(org.id, { permissions: ["can_change_items"] })).client;
    expect((await items.get(`${path}/sendmail_rules/`)).status).toBe(403);
    expect((await items.delete(`${path}/sendmail_rules/${rule.id}/`)).status).toBe(403);
    const settings = (await seedTeam(org.id, { permissions: ["can_change_event_settings"] })).client;
    expect((await settings.get(`${path}/sendmail_rules/${rule.id}/`)).status).toBe(200);
  });

  it("never reaches a rule of another event or organizer", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const otherPath = `/api/v1/organizers/${org.slug}/events/${other.slug}`;
    const { body: foreign } = await client.post(`${otherPath}/sendmail_rules/`, REMINDER);
    expect((await client.get(`${path}/sendmail_rules/${foreign.id}/`)).status).toBe(404);
    expect((await client.patch(`${path}/sendmail_rules/${foreign.id}/`, { enabled: false })).status).toBe(404);
    expect((await client.delete(`${path}/sendmail_rules/${foreign.id}/`)).status).toBe(404);
    const stranger = await seedOrganizer();
    expect((await stranger.client.get(`${otherPath}/sendmail_rules/${foreign.id}/`)).status).toBe(403);
    expect((await client.get(`${otherPath}/sendmail_rules/${foreign.id}/`)).body.enabled).toBe(true);
  });
});
