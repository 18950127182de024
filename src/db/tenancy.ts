/**
 * Resolution of the URL tree's organizer and event slugs: statements that ride in the
 * credential lookup's batch (db/principals.ts).
 *
 * The statements are plain selects of one table each: drizzle reads batched D1 results by
 * column position after D1 has keyed them by column name, so a statement in a batch must not
 * return two columns of the same name (as a join of organizers and events would).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { fixed, p } from "./fixed";
import { events, organizers } from "./schema";

/** The organizer and (for event routes) event slugs of a request's path. */
export type TenancySlugs = { organizer: string; event: string | null };

/** An organizer and an event as services take them (the domain types of the tenancy tree). */
export type OrganizerRow = typeof organizers.$inferSelect;
export type EventRow = typeof events.$inferSelect;

/** The organizer of the slugs and, when an event slug was given, its event of that slug (or null). */
export type TenancyRow = { organizer: OrganizerRow; event: EventRow | null };

const ORGANIZER = fixed((db) =>
  db
    .select()
    .from(organizers)
    .where(eq(organizers.slug, p("organizer")))
    .limit(1),
);
const EVENT_OF_ORGANIZER = fixed((db) =>
  db
    .select()
    .from(events)
    .where(
      and(
        eq(events.slug, p("event")),
        inArray(
          events.organizerId,
          db
            .select({ id: organizers.id })
            .from(organizers)
            .where(eq(organizers.slug, p("organizer"))),
        ),
      ),
    )
    .limit(1),
);

function tenancyStatements(db: DB, slugs: TenancySlugs): BatchItem<"sqlite">[] {
  const organizer = ORGANIZER.bind(db, { organizer: slugs.organizer });
  if (slugs.event === null) return [organizer];
  return [organizer, EVENT_OF_ORGANIZER.bind(db, { organizer: slugs.organizer, event: slugs.event })];
}

function tenancyRow(results: unknown[]): TenancyRow | undefined {
  const [organizer] = results[0] as OrganizerRow[];
  const [event] = (results[1] ?? []) as EventRow[];
  return organizer && { organizer, event: event ?? null };
}

/** The statements that resolve the slugs, and how to read their results (in a batch of the caller's). */
export function tenancyLookup(
  db: DB,
  slugs: TenancySlugs,
): { statements: BatchItem<"sqlite">[]; read(results: unknown[]): TenancyRow | undefined } {
  return { statements: tenancyStatements(db, slugs), read: tenancyRow };
}
