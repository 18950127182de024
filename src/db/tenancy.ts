/** Resolution of the URL tree's organizer and event slugs. */
import { and, eq } from "drizzle-orm";
import type { DB } from "./client";
import { events, organizers } from "./schema";

export async function findOrganizerBySlug(db: DB, slug: string) {
  return db.select().from(organizers).where(eq(organizers.slug, slug)).get();
}

/** Organizer and (if present) event in one round trip. */
export async function findOrganizerAndEvent(db: DB, organizerSlug: string, eventSlug: string) {
  return db
    .select({ organizer: organizers, event: events })
    .from(organizers)
    .leftJoin(events, and(eq(events.organizerId, organizers.id), eq(events.slug, eventSlug)))
    .where(eq(organizers.slug, organizerSlug))
    .get();
}
