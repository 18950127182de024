/**
 * On-sale queues of an event through the API: create, read, change and delete; a field error for
 * every bad field; one queue per event and date; no active queue without the deployment secret.
 * The sales behind a queue: onsale-gate.test.ts.
 */
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { onsaleQueueResponse } from "../../src/api/onsale-queues";
import { events, onsaleQueues, organizers } from "../../src/db/schema";
import { applicableQueue } from "../../src/db/onsale-queues";
import { createOnsaleQueue } from "../../src/services/waiting-room/rooms";
import { anonymous, db, seedOrganizer, seedTeam } from "../harness";
import { queuedShop } from "../helpers/waiting-room";
import { eventIdOf, shop } from "../helpers/sales";

const QUEUE = { opens_at: "2030-05-01T10:00:00Z", admissions_per_minute: 600 };

const queuesOf = (eventId: number) => db().select().from(onsaleQueues).where(eq(onsaleQueues.eventId, eventId));

describe("on-sale queues: the resource", () => {
  it("creates an event-wide queue with the defaults, and reads it back in the list and the detail", async () => {
    const s = await shop();
    const res = await s.client.post(`${s.path}/onsale_queues/`, QUEUE);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      subevent: null,
      active: true,
      opens_at: "2030-05-01T10:00:00Z",
      arrival_order: "shuffle",
      admissions_per_minute: 600,
      admission_minutes: 15,
      orders_per_admission: 1,
      bypass_sales_channels: [],
      bypass_devices: true,
      bypass_teams: [],
      waiting_page_url: `http://ticketing.test/${s.orgSlug}/${s.eventSlug}/queue/`,
      joined: 0,
      admitted: 0,
    });
    expect(onsaleQueueResponse.strict().parse(res.body)).toEqual(res.body);
    expect((await s.client.get(`${s.path}/onsale_queues/${res.body.id}/`)).body).toEqual(res.body);
    expect((await s.client.get(`${s.path}/onsale_queues/`)).body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [res.body],
    });
    const [row] = await queuesOf(await eventIdOf(s));
    expect(row).toMatchObject({ organizerId: s.org.id, secretVersion: 1, opensAt: Date.parse(QUEUE.opens_at) });
  });

  it("a date's queue and the event-wide one of a series; every field set; the page names the date", async () => {
    const s = await shop({ series: true });
    const date = await s.subevent();
    const team = await seedTeam(s.org.id, { permissions: [] });
    const res = await s.client.post(`${s.path}/onsale_queues/`, {
      ...QUEUE,
      subevent: date.id,
      active: false,
      arrival_order: "first_come",
      admission_minutes: 1440,
      orders_per_admission: 100,
      admissions_per_minute: 100000,
      bypass_sales_channels: ["pretixpos", "pretixpos"],
      bypass_devices: false,
      bypass_teams: [team.teamId],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      subevent: date.id,
      active: false,
      arrival_order: "first_come",
      admission_minutes: 1440,
      orders_per_admission: 100,
      admissions_per_minute: 100000,
      bypass_sales_channels: ["pretixpos"],
      bypass_devices: false,
      bypass_teams: [team.teamId],
      waiting_page_url: `http://ticketing.test/${s.orgSlug}/${s.eventSlug}/queue/?subevent=${date.id}`,
    });
    const wide = await s.client.post(`${s.path}/onsale_queues/`, QUEUE);
    expect(wide.status, JSON.stringify(wide.body)).toBe(201);
    expect(wide.body.subevent).toBeNull();
    expect(await queuesOf(await eventIdOf(s))).toHaveLength(2);
  });

  it("PATCH changes what it names, PUT gives the rest their defaults, DELETE removes it", async () => {
    const s = await shop();
    const q = (await s.client.post(`${s.path}/onsale_queues/`, { ...QUEUE, orders_per_admission: 3 })).body;
    const url = `${s.path}/onsale_queues/${q.id}/`;
    const patched = await s.client.patch(url, { active: false, bypass_sales_channels: ["resellers"] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toEqual({ ...q, active: false, bypass_sales_channels: ["resellers"] });
    const put = await s.client.put(url, { opens_at: "2030-06-01T08:00:00+02:00", admissions_per_minute: 5 });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({
      ...q,
      opens_at: "2030-06-01T06:00:00Z",
      admissions_per_minute: 5,
      orders_per_admission: 1,
    });
    expect((await s.client.put(url, { admissions_per_minute: 5 })).body).toEqual({
      opens_at: ["This field is required."],
    });
    expect((await s.client.delete(url)).status).toBe(204);
    expect((await s.client.get(url)).status).toBe(404);
    expect((await s.client.delete(url)).status).toBe(404);
    expect(await queuesOf(await eventIdOf(s))).toEqual([]);
  });

  it("joined and admitted: the visitors of the queue as its coordinator counted them", async () => {
    const q = await queuedShop({ admissionsPerMinute: 2 });
    for (let i = 0; i < 5; i++) await q.join();
    const url = `${q.path}/onsale_queues/${q.queue.id}/`;
    // opened a minute ago at 2 a minute: the step that the change makes admits 2 of the 5
    const opened = await q.client.patch(url, { opens_at: new Date(Date.now() - 60_000).toISOString() });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body).toMatchObject({ joined: 5, admitted: 2 });
    expect((await q.client.get(url)).body).toMatchObject({ joined: 5, admitted: 2 });
    expect((await q.client.get(`${q.path}/onsale_queues/`)).body.results).toMatchObject([{ joined: 5, admitted: 2 }]);
  });

  it("deactivated or deleted through the resource: its visitors see the queue closed at once", async () => {
    const q = await queuedShop();
    const v = await q.join();
    const url = `${q.path}/onsale_queues/${q.queue.id}/`;
    expect((await q.client.patch(url, { active: false })).status).toBe(200);
    expect((await q.status(v.token)).body).toMatchObject({ state: "closed", admission: null });
    expect((await q.client.patch(url, { active: true })).status).toBe(200);
    expect((await q.status(v.token)).body).toMatchObject({ state: "waiting", position: 1 });
    expect((await q.client.delete(url)).status).toBe(204);
    expect((await q.status(v.token)).body).toMatchObject({ state: "closed" });
    expect((await anonymous.post(`${q.base}/join/`, {})).status).toBe(404);
  });

  it("every bad field has its field error, and nothing is stored", async () => {
    const s = await shop();
    const other = await seedOrganizer();
    const otherTeam = await seedTeam(other.id);
    const post = (body: unknown) => s.client.post(`${s.path}/onsale_queues/`, body);
    expect((await post({})).body).toEqual({
      opens_at: ["This field is required."],
      admissions_per_minute: ["This field is required."],
    });
    const ranges: [string, unknown][] = [
      ["admissions_per_minute", 0],
      ["admissions_per_minute", 100001],
      ["admission_minutes", 0],
      ["admission_minutes", 1441],
      ["orders_per_admission", 0],
      ["orders_per_admission", 101],
      ["orders_per_admission", 1.5],
      ["arrival_order", "random"],
      ["opens_at", "tomorrow"],
      ["active", "yes"],
      ["bypass_devices", null],
      ["bypass_sales_channels", "web"],
      ["bypass_teams", ["a"]],
      ["subevent", 0],
    ];
    for (const [field, value] of ranges) {
      const res = await post({ ...QUEUE, [field]: value });
      expect(res.status, `${field}=${JSON.stringify(value)}`).toBe(400);
      expect(Object.keys(res.body), `${field}=${JSON.stringify(value)}`).toEqual([field]);
    }
    const refs = await post({
      ...QUEUE,
      bypass_sales_channels: ["web", "carrier_pigeon"],
      bypass_teams: [otherTeam.teamId],
    });
    expect(refs.status).toBe(400);
    expect(refs.body).toEqual({
      bypass_sales_channels: ["Object with identifier=carrier_pigeon does not exist."],
      bypass_teams: [`Invalid pk "${otherTeam.teamId}" - object does not exist.`],
    });
    // a date on an event that is no series
    expect((await post({ ...QUEUE, subevent: 1 })).body).toEqual({
      subevent: ["You cannot set a subevent if the event is not an event series."],
    });
    expect(await queuesOf(await eventIdOf(s))).toEqual([]);
  });

  it("a date of another event, or none at all, is refused on the subevent field", async () => {
    const s = await shop({ series: true });
    const t = await shop({ series: true });
    const theirs = await t.subevent();
    const post = (body: unknown) => s.client.post(`${s.path}/onsale_queues/`, body);
    // another organizer's date is no date of this organizer at all
    expect((await post({ ...QUEUE, subevent: theirs.id })).body).toEqual({
      subevent: [`Invalid pk "${theirs.id}" - object does not exist.`],
    });
    const sibling = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
      name: { en: "Other" },
      slug: "other-series",
      currency: "EUR",
      date_from: "2030-06-01T19:00:00Z",
      has_subevents: true,
    });
    const siblingDate = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/${sibling.body.slug}/subevents/`, {
      name: { en: "Date" },
      date_from: "2030-07-01T19:00:00Z",
    });
    expect(siblingDate.status).toBe(201);
    expect((await post({ ...QUEUE, subevent: siblingDate.body.id })).body).toEqual({
      subevent: ["The subevent does not belong to this event."],
    });
    expect(await queuesOf(await eventIdOf(s))).toEqual([]);
  });

  it("one queue per event and date: a second one is a field error on subevent, by POST and by PATCH", async () => {
    const s = await shop({ series: true });
    const d1 = await s.subevent();
    const d2 = await s.subevent();
    const post = (body: unknown) => s.client.post(`${s.path}/onsale_queues/`, body);
    expect((await post(QUEUE)).status).toBe(201);
    const second = await post({ ...QUEUE, active: false });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ subevent: [expect.stringContaining("already has an on-sale queue")] });
    const first = await post({ ...QUEUE, subevent: d1.id });
    expect(first.status).toBe(201);
    expect((await post({ ...QUEUE, subevent: d1.id })).body).toEqual({
      subevent: [expect.stringContaining("already has an on-sale queue")],
    });
    const other = (await post({ ...QUEUE, subevent: d2.id })).body;
    const moved = await s.client.patch(`${s.path}/onsale_queues/${other.id}/`, { subevent: d1.id });
    expect(moved.status).toBe(400);
    expect(moved.body).toEqual({ subevent: [expect.stringContaining("already has an on-sale queue")] });
    // changing a queue without moving it is no second queue
    expect((await s.client.patch(`${s.path}/onsale_queues/${first.body.id}/`, { subevent: d1.id })).status).toBe(200);
    expect(await queuesOf(await eventIdOf(s))).toHaveLength(3);
  });

  it("queues are the event's: another event's queue is 404 here", async () => {
    const s = await shop();
    const q = (await s.client.post(`${s.path}/onsale_queues/`, QUEUE)).body;
    const sibling = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
      name: { en: "Other" },
      slug: "other",
      currency: "EUR",
      date_from: "2030-06-01T19:00:00Z",
    });
    const there = `/api/v1/organizers/${s.orgSlug}/events/${sibling.body.slug}/onsale_queues`;
    expect((await s.client.get(`${there}/${q.id}/`)).status).toBe(404);
    expect((await s.client.patch(`${there}/${q.id}/`, { active: false })).status).toBe(404);
    expect((await s.client.delete(`${there}/${q.id}/`)).status).toBe(404);
    expect((await s.client.get(`${there}/`)).body.count).toBe(0);
    expect((await s.client.get(`${s.path}/onsale_queues/${q.id}/`)).body.active).toBe(true);
  });

  it("without the deployment secret (or one too short) an active queue is refused on active; an inactive one is kept", async () => {
    const s = await shop();
    const eventId = await eventIdOf(s);
    const [organizer] = await db().select().from(organizers).where(eq(organizers.id, s.org.id));
    const [event] = await db().select().from(events).where(eq(events.id, eventId));
    for (const secret of [undefined, "", "too-short-secret"]) {
      const ctx = {
        env: { ...env, TICKET_SIGNING_KEY_SECRET: secret },
        db: db(),
        organizer: organizer!,
        event: event!,
        now: Date.now(),
        baseUrl: "http://ticketing.test",
      };
      await expect(
        createOnsaleQueue(ctx, { opens_at: Date.parse(QUEUE.opens_at), admissions_per_minute: 10 }),
      ).rejects.toMatchObject({
        code: "invalid",
        fields: { active: [expect.stringContaining("TICKET_SIGNING_KEY_SECRET")] },
      });
      expect(await queuesOf(eventId)).toEqual([]);
    }
    const ctx = {
      env: { ...env, TICKET_SIGNING_KEY_SECRET: undefined },
      db: db(),
      organizer: organizer!,
      event: event!,
      now: Date.now(),
      baseUrl: "",
    };
    const inactive = await createOnsaleQueue(ctx, {
      opens_at: Date.parse(QUEUE.opens_at),
      admissions_per_minute: 10,
      active: false,
    });
    expect(inactive.active).toBe(false);
  });

  it("the queue that applies to a date: its own (active or not) before the event-wide one; none without either", async () => {
    const s = await shop({ series: true });
    const eventId = await eventIdOf(s);
    const [d1, d2] = [await s.subevent(), await s.subevent()];
    expect(await applicableQueue(db(), eventId, d1.id)).toBeUndefined();
    expect(await applicableQueue(db(), eventId, null)).toBeUndefined();
    const wide = (await s.client.post(`${s.path}/onsale_queues/`, QUEUE)).body;
    const own = (await s.client.post(`${s.path}/onsale_queues/`, { ...QUEUE, subevent: d1.id, active: false })).body;
    expect((await applicableQueue(db(), eventId, d1.id))?.id).toBe(own.id);
    expect((await applicableQueue(db(), eventId, d2.id))?.id).toBe(wide.id);
    expect((await applicableQueue(db(), eventId, null))?.id).toBe(wide.id);
    // another event's queues never apply here
    const other = await shop({ series: true });
    expect(await applicableQueue(db(), await eventIdOf(other), d1.id)).toBeUndefined();
  });
});
