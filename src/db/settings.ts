/**
 * Stored settings of organizers and events: one row per key that is set (a key not stored
 * takes the level above or its default, services/events/settings.ts).
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { eventSettings, organizerSettings } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

type SettingRow = typeof organizerSettings.$inferSelect;

/** The organizer's stored settings rows (read them with `settingsOf`); batchable. */
export function organizerSettingsQuery(db: DB, organizerId: number) {
  return db.select().from(organizerSettings).where(eq(organizerSettings.organizerId, organizerId));
}

export function settingsOf(rows: { key: string; value: unknown }[]): Record<string, unknown> {
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export async function storedOrganizerSettings(db: DB, organizerId: number): Promise<Record<string, unknown>> {
  return settingsOf(await organizerSettingsQuery(db, organizerId));
}

/** Sets and unsets keys in one transaction; returns the stored settings after it (same round trip). */
export async function writeOrganizerSettings(
  db: DB,
  organizerId: number,
  set: Record<string, unknown>,
  unset: string[],
): Promise<Record<string, unknown>> {
  const statements: BatchItem<"sqlite">[] = [];
  if (unset.length) {
    statements.push(
      db
        .delete(organizerSettings)
        .where(and(eq(organizerSettings.organizerId, organizerId), inArray(organizerSettings.key, unset))),
    );
  }
  for (const [key, value] of Object.entries(set)) {
    statements.push(
      db
        .insert(organizerSettings)
        .values({ organizerId, key, value })
        .onConflictDoUpdate({ target: [organizerSettings.organizerId, organizerSettings.key], set: { value } }),
    );
  }
  const all: BatchItem<"sqlite">[] = [...statements, organizerSettingsQuery(db, organizerId)];
  const results = (await db.batch(all as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return settingsOf(results[results.length - 1] as SettingRow[]);
}

/** The settings stored on the event and on its organizer, in one round trip. */
export async function storedSettingsLevels(db: DB, organizerId: number, eventId: number) {
  const [eventRows, organizerRows] = await db.batch([
    db.select().from(eventSettings).where(eq(eventSettings.eventId, eventId)),
    organizerSettingsQuery(db, organizerId),
  ]);
  return { event: settingsOf(eventRows), organizer: settingsOf(organizerRows) };
}

/** Sets and unsets keys of an event in one transaction. */
export async function writeEventSettings(
  db: DB,
  eventId: number,
  set: Record<string, unknown>,
  unset: string[],
): Promise<void> {
  const statements: Statement[] = [];
  for (const part of chunks(unset, MAX_PARAMS - 5)) {
    statements.push(
      db.delete(eventSettings).where(and(eq(eventSettings.eventId, eventId), inArray(eventSettings.key, part))),
    );
  }
  for (const [key, value] of Object.entries(set)) {
    statements.push(
      db
        .insert(eventSettings)
        .values({ eventId, key, value })
        .onConflictDoUpdate({ target: [eventSettings.eventId, eventSettings.key], set: { value } }),
    );
  }
  await runBatch(db, statements);
}

/** The event's stored settings that decide ticket downloads, as a JSON object (`eventId`: the SQL of the event's id). */
export function ticketSettingsSql(eventId: SQL): SQL<string> {
  return sql<string>`(SELECT json_group_object(s.key, json(s.value)) FROM event_settings s WHERE s.event_id = ${eventId} AND s.key IN ('ticket_download', 'ticket_download_addons', 'ticket_download_nonadm', 'ticket_download_pending'))`;
}
