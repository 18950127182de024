import { and, eq, inArray } from "drizzle-orm";
import type { DB } from "./client";
import { organizerSettings } from "./schema";

export async function storedOrganizerSettings(db: DB, organizerId: number): Promise<Record<string, unknown>> {
  const rows = await db.select().from(organizerSettings).where(eq(organizerSettings.organizerId, organizerId));
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** Sets and unsets keys in one transaction. */
export async function writeOrganizerSettings(
  db: DB,
  organizerId: number,
  set: Record<string, unknown>,
  unset: string[],
): Promise<void> {
  const statements = [];
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
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}
