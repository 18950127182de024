/** What a device's event selection chooses among (services/checkin/event-selection.ts): an organizer's events, dates and lists. */
import { eq } from "drizzle-orm";
import { subeventDateFrom } from "./checkin/lists";
import type { DB } from "./client";
import { checkinLists, events, subevents } from "./schema";

/** Live events and dates of an organizer for a device's event selection, with their lists (one round trip). */
export async function eventSelectionCandidates(db: DB, organizerId: number) {
  const [evs, subs, lists] = await db.batch([
    db
      .select({
        id: events.id,
        slug: events.slug,
        name: events.name,
        live: events.live,
        timezone: events.timezone,
        dateFrom: events.dateFrom,
        dateTo: events.dateTo,
        dateAdmission: events.dateAdmission,
        hasSubevents: events.hasSubevents,
      })
      .from(events)
      .where(eq(events.organizerId, organizerId)),
    db
      .select({
        id: subevents.id,
        eventId: subevents.eventId,
        active: subevents.active,
        dateFrom: subevents.dateFrom,
        dateTo: subevents.dateTo,
        dateAdmission: subevents.dateAdmission,
      })
      .from(subevents)
      .innerJoin(events, eq(events.id, subevents.eventId))
      .where(eq(events.organizerId, organizerId)),
    db
      .select({
        id: checkinLists.id,
        eventId: checkinLists.eventId,
        subeventId: checkinLists.subeventId,
        name: checkinLists.name,
        subeventDate: subeventDateFrom.mapWith(Number).as("subevent_date"),
      })
      .from(checkinLists)
      .innerJoin(events, eq(events.id, checkinLists.eventId))
      .where(eq(events.organizerId, organizerId)),
  ]);
  return { events: evs, subevents: subs, lists };
}
