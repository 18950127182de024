/**
 * `GET /api/v1/device/eventselection` (spec; pretix devices.rst and pretix's choice): the
 * running event, else the last started or the next one (today's, switching halfway), the list
 * of the same name as the current one, 304 when the current selection is right, 404 without
 * events, and only events the device may access.
 */
import { describe, expect, it } from "vitest";
import { checkinLists, events, subevents } from "../../src/db/schema";
import { eventSelection } from "../../src/services/checkin/event-selection";
import { db, seedDevice, seedOrganizer, unique } from "../harness";

const H = 3_600_000;

async function liveEvent(
  organizerId: number,
  opts: { from: number; to?: number | null; series?: boolean; live?: boolean; slug?: string },
) {
  const now = Date.now();
  const [ev] = await db()
    .insert(events)
    .values({
      organizerId,
      slug: opts.slug ?? unique("ev"),
      name: { en: `Event ${opts.slug ?? ""}`.trim() },
      currency: "EUR",
      live: opts.live ?? true,
      hasSubevents: opts.series ?? false,
      dateFrom: opts.from,
      dateTo: opts.to ?? null,
      plugins: [],
      seatCategoryMapping: {},
      itemMetaProperties: {},
      salesChannels: ["web"],
      createdAt: now,
      lastModified: now,
    })
    .returning();
  return ev!;
}

async function list(eventId: number, name: string, subeventId: number | null = null) {
  const [l] = await db()
    .insert(checkinLists)
    .values({ eventId, name, subeventId, rules: {}, autoCheckinSalesChannels: [], allProducts: true })
    .returning();
  return l!;
}

const select = (client: Awaited<ReturnType<typeof seedDevice>>["client"], q = "") =>
  client.get(`/api/v1/device/eventselection${q}`);

describe("device event selection", () => {
  it("404 without events; a team key is refused", async () => {
    const org = await seedOrganizer();
    const dev = await seedDevice(org.id);
    expect((await select(dev.client, "?current_event=e1")).status).toBe(404);
    expect((await org.client.get("/api/v1/device/eventselection")).status).toBe(401);
  });

  it("suggests the running event with its first list, and answers 304 when the device has selected it", async () => {
    const org = await seedOrganizer();
    const dev = await seedDevice(org.id);
    const now = Date.now();
    await liveEvent(org.id, { from: now - 48 * H, to: now - 47 * H, slug: "yesterday" });
    const running = await liveEvent(org.id, { from: now - H, to: now + H, slug: "running" });
    await liveEvent(org.id, { from: now + 48 * H, slug: "later" });
    await liveEvent(org.id, { from: now - 30 * 60_000, to: now + 2 * H, live: false, slug: "notlive" });
    const b = await list(running.id, "B door");
    const a = await list(running.id, "A door");
    const r = await select(dev.client, "?current_event=yesterday");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ event: { slug: "running", name: "Event running" }, subevent: null, checkinlist: a.id });
    expect((await select(dev.client, `?current_event=running&current_checkinlist=${b.id}`)).status).toBe(304);
    expect((await select(dev.client, "?current_event=running")).status).toBe(304);
  });

  it("keeps the list of the same name when switching events", async () => {
    const org = await seedOrganizer();
    const dev = await seedDevice(org.id);
    const now = Date.now();
    const old = await liveEvent(org.id, { from: now - 50 * H, to: now - 49 * H, slug: "old" });
    const next = await liveEvent(org.id, { from: now + H, slug: "next" });
    const oldList = await list(old.id, "Same name");
    await list(next.id, "Another name");
    const same = await list(next.id, "Same name");
    const r = await select(dev.client, `?current_event=old&current_checkinlist=${oldList.id}`);
    expect(r.body).toEqual({ event: { slug: "next", name: "Event next" }, subevent: null, checkinlist: same.id });
  });

  it("dates of a series: suggests the date with the event's lists valid for it", async () => {
    const org = await seedOrganizer();
    const dev = await seedDevice(org.id);
    const now = Date.now();
    const series = await liveEvent(org.id, { from: now - 100 * H, series: true, slug: "series" });
    const [date] = await db()
      .insert(subevents)
      .values({
        eventId: series.id,
        name: { en: "Tonight" },
        active: true,
        dateFrom: now - H,
        dateTo: now + 2 * H,
        lastModified: now,
      })
      .returning();
    const forDate = await list(series.id, "Tonight only", date!.id);
    const r = await select(dev.client);
    expect(r.body).toEqual({
      event: { slug: "series", name: "Event series" },
      subevent: date!.id,
      checkinlist: forDate.id,
    });
    expect((await select(dev.client, `?current_event=series&current_subevent=${date!.id}`)).status).toBe(304);
  });

  it("between two events of one day: the earlier until halfway between them, then the next; across days: today's", async () => {
    const org = await seedOrganizer();
    const device = { organizerId: org.id, allEvents: true, eventIds: new Set<number>() };
    const at = (h: number) => Date.parse("2031-03-10T00:00:00Z") + h * H;
    await liveEvent(org.id, { from: at(10), to: at(12), slug: "morning" });
    await liveEvent(org.id, { from: at(18), slug: "evening" });
    const pick = async (h: number) => {
      const r = await eventSelection(db(), device, {}, at(h));
      return r.kind === "suggest" ? r.body.event.slug : r.kind;
    };
    expect(await pick(11)).toBe("morning"); // running
    expect(await pick(14.9)).toBe("morning"); // before halfway (15:00)
    expect(await pick(15.1)).toBe("evening");
    expect(await pick(5)).toBe("morning"); // nothing started yet: the next one
    expect(await pick(30)).toBe("evening"); // the next day: the last one
    await liveEvent(org.id, { from: at(24 + 20), slug: "tomorrow" });
    expect(await pick(19)).toBe("evening"); // started today, the next is tomorrow
  });

  it("suggests only events the device may access", async () => {
    const org = await seedOrganizer();
    const now = Date.now();
    const running = await liveEvent(org.id, { from: now - H, to: now + H, slug: "running" });
    const other = await liveEvent(org.id, { from: now + 5 * H, slug: "allowed" });
    const dev = await seedDevice(org.id, { allEvents: false, events: [other.id] });
    void running;
    expect((await select(dev.client)).body.event.slug).toBe("allowed");
  });
});
