/**
 * A device's event selection (docs/api.md `eventselection`; pretix docs
 * devices.rst and pretix's own choice): which event (or date of a series) and check-in list a
 * kiosk-like scanner should work with now. The event that is running; else, between the one
 * that last started and the next one, the one of today, switching over halfway between them.
 * Only events the device may access are suggested; with none to suggest, the selection fails
 * with `not_found`.
 */
import { eventSelectionCandidates } from "../../db/event-selection";
import type { DB } from "../../db/client";
import { zonedDate } from "../../lib/datetime";
import { notFound } from "../../lib/failure";
import { i18nText, type I18n } from "../../lib/i18n";
import { canAccessEvent, type Principal } from "../../rules/permissions";

export type SelectionQuery = { currentEvent?: string; currentSubevent?: number; currentCheckinlist?: number };

export type Selection =
  | { kind: "current" }
  | {
      kind: "suggest";
      body: { event: { slug: string; name: string }; subevent: number | null; checkinlist: number | null };
    };

type Candidate = {
  eventId: number;
  subeventId: number | null;
  slug: string;
  name: I18n;
  timezone: string;
  dateFrom: number;
  dateTo: number | null;
  first: number;
  last: number;
};

export async function eventSelection(
  db: DB,
  device: Pick<Principal, "organizerId" | "allEvents" | "eventIds">,
  q: SelectionQuery,
  now: number,
): Promise<Selection> {
  const rows = await eventSelectionCandidates(db, device.organizerId);
  const reachable = rows.events.filter((e) => canAccessEvent(device as Principal, e.id));
  const byId = new Map(reachable.map((e) => [e.id, e]));
  const candidate = (e: (typeof reachable)[number], s?: (typeof rows.subevents)[number]): Candidate => {
    const d = s ?? e;
    return {
      eventId: e.id,
      subeventId: s?.id ?? null,
      slug: e.slug,
      name: e.name,
      timezone: e.timezone,
      dateFrom: d.dateFrom,
      dateTo: d.dateTo,
      first: d.dateAdmission ?? d.dateFrom,
      last: d.dateTo ?? d.dateFrom,
    };
  };
  const byFirst = (a: Candidate, b: Candidate) => a.first - b.first;
  const events = reachable
    .filter((e) => e.live && !e.hasSubevents)
    .map((e) => candidate(e))
    .sort(byFirst);
  const dates = rows.subevents
    .filter((s) => s.active && byId.get(s.eventId)?.live)
    .map((s) => candidate(byId.get(s.eventId)!, s))
    .sort(byFirst);

  // the device's current selection
  let current = q.currentEvent !== undefined ? reachable.find((e) => e.slug === q.currentEvent) : undefined;
  const currentDate =
    current && q.currentSubevent !== undefined
      ? rows.subevents.find((s) => s.eventId === current!.id && s.id === q.currentSubevent)
      : undefined;
  if (current?.hasSubevents && !currentDate) current = undefined;
  let tz = current?.timezone ?? "UTC";
  if (current) {
    const c = currentDate ?? current;
    const start = c.dateAdmission ?? c.dateFrom;
    if (c.dateTo !== null && start < now && now < c.dateTo) return { kind: "current" };
  }

  const lastStarted = events.filter((e) => e.first <= now).at(-1) ?? dates.filter((d) => d.first <= now).at(-1);
  const upcomingEvent = events.find((e) => e.first > now);
  const upcomingDate = dates.find((d) => d.first > now);
  const upcoming =
    upcomingEvent && upcomingDate
      ? upcomingEvent.first > upcomingDate.first
        ? upcomingDate
        : upcomingEvent
      : (upcomingEvent ?? upcomingDate);

  const suggest = (ev: Candidate): Selection => suggestion(rows.lists, current?.id ?? null, q, ev);
  if (!upcoming && !lastStarted) throw notFound("No event found.");
  if (upcoming && !lastStarted) return suggest(upcoming);
  if (lastStarted && !upcoming) return suggest(lastStarted);
  const last = lastStarted!;
  const next = upcoming!;
  if (last.dateTo !== null && now < last.dateTo) return suggest(last);
  if (!current) tz = (upcomingEvent ?? last).timezone;
  const day = (ms: number) => zonedDate(ms, tz).join("-");
  const [lastDay, nextDay, today] = [day(last.dateFrom), day(next.dateFrom), day(now)];
  if (lastDay === today && nextDay !== today) return suggest(last);
  if (lastDay !== today && nextDay === today) return suggest(next);
  return suggest(now > last.last + (next.first - last.last) / 2 ? next : last);
}

function suggestion(
  lists: { id: number; eventId: number; subeventId: number | null; name: string; subeventDate: number | null }[],
  currentEventId: number | null,
  q: SelectionQuery,
  ev: Candidate,
): Selection {
  const currentList =
    currentEventId !== null && q.currentCheckinlist !== undefined
      ? lists.find((l) => l.eventId === currentEventId && l.id === q.currentCheckinlist)
      : undefined;
  // the event's lists (of a date: those of the date and those valid for every date), as pretix orders them
  const candidates = lists
    .filter(
      (l) =>
        l.eventId === ev.eventId && (ev.subeventId === null || l.subeventId === null || l.subeventId === ev.subeventId),
    )
    .sort(
      (a, b) =>
        (a.subeventDate ?? -Infinity) - (b.subeventDate ?? -Infinity) || a.name.localeCompare(b.name) || a.id - b.id,
    );
  const list =
    (currentList && candidates.find((l) => l.name === currentList.name || l.id === currentList.id)) ?? candidates[0];
  const body = {
    event: { slug: ev.slug, name: i18nText(ev.name) },
    subevent: ev.subeventId,
    checkinlist: list?.id ?? null,
  };
  const unchanged =
    currentEventId !== null &&
    ev.eventId === currentEventId &&
    body.subevent === (q.currentSubevent ?? null) &&
    body.checkinlist === (q.currentCheckinlist ?? null);
  return unchanged ? { kind: "current" } : { kind: "suggest", body };
}
