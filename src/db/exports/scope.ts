/**
 * What an export is about, read when it is started and at each step: its organizer and events,
 * the events an organizer-level export may hold, and the ids an event's inputs may name.
 */
import { sql } from "drizzle-orm";
import type { DB } from "../client";
import { readBatch, readRows, type Row } from "../raw";
import { eventIn } from "./common";

/** The ids of the event's questions and check-in lists (the `questions` and `list` inputs). */
export async function exportInputIds(
  db: DB,
  eventId: number,
): Promise<{ questionIds: Set<number>; checkinListIds: Set<number> }> {
  const [questions, lists] = await readBatch(db, [
    sql`SELECT id FROM questions WHERE event_id = ${eventId}`,
    sql`SELECT id FROM checkin_lists WHERE event_id = ${eventId}`,
  ]);
  return {
    questionIds: new Set(questions!.map((q) => Number(q.id))),
    checkinListIds: new Set(lists!.map((l) => Number(l.id))),
  };
}

/** The organizer's events by id. */
export function organizerEventSlugs(db: DB, organizerId: number): Promise<{ id: number; slug: string }[]> {
  return readRows<{ id: number; slug: string }>(
    db,
    sql`SELECT id, slug FROM events WHERE organizer_id = ${organizerId} ORDER BY id`,
  );
}

export async function exportOrganizer(db: DB, organizerId: number): Promise<Row> {
  const [organizers] = await readBatch(db, [sql`SELECT id, slug, name FROM organizers WHERE id = ${organizerId}`]);
  return organizers![0]!;
}

/** The export's events that still exist, by id. */
export function exportEvents(db: DB, organizerId: number, eventIds: readonly number[]): Promise<Row[]> {
  return readRows(
    db,
    sql`SELECT id, slug, name, timezone, currency, has_subevents FROM events WHERE organizer_id = ${organizerId} AND ${eventIn(sql`id`, eventIds)} ORDER BY id`,
  );
}
