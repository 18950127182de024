/** Change stamps for list-level conditional fetching. */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { fixed, p } from "./fixed";
import { changeStamps } from "./schema";

export function eventScopeKey(eventId: number): string {
  return `event:${eventId}`;
}

/**
 * The scope key of an event whose id is only known inside a batch (a subquery, e.g. of an
 * event inserted earlier in the same batch); same value as eventScopeKey.
 */
export function eventScopeKeySql(eventId: SQL): SQL<string> {
  return sql<string>`('event:' || ${eventId})`;
}

/** A statement that records a change (include it in the write's batch). */
export function touchStatement(db: DB, scope: string | SQL, resource: string, now: number) {
  return db
    .insert(changeStamps)
    .values({ scope, resource, modifiedAt: now })
    .onConflictDoUpdate({
      target: [changeStamps.scope, changeStamps.resource],
      set: { modifiedAt: sql`max(${changeStamps.modifiedAt}, excluded.modified_at)` },
    });
}

const LAST_CHANGE = fixed((db) =>
  db
    .select({ modifiedAt: changeStamps.modifiedAt })
    .from(changeStamps)
    .where(and(eq(changeStamps.scope, p("scope")), eq(changeStamps.resource, p("resource")))),
);

export function lastChangeQuery(db: DB, scope: string, resource: string) {
  return LAST_CHANGE.bind(db, { scope, resource });
}
