import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { organizerSettings } from "./schema";

type SettingRow = typeof organizerSettings.$inferSelect;

/** The organizer's stored settings rows (read them with `settingsOf`); batchable. */
export function organizerSettingsQuery(db: DB, organizerId: number) {
  return db.select().from(organizerSettings).where(eq(organizerSettings.organizerId, organizerId));
}

export function settingsOf(rows: SettingRow[]): Record<string, unknown> {
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
      db.delete(organizerSettings).where(and(eq(organizerSettings.organizerId, organizerId), inArray(organizerSettings.key, unset))),
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
