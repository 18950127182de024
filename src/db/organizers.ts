import { count, eq } from "drizzle-orm";
import type { SQL } from "drizzle-orm";
import type { DB } from "./client";
import { organizers } from "./schema";

/** Organizers the caller can access (a credential belongs to exactly one organizer). */
export function accessibleOrganizers(db: DB, organizerId: number, order: SQL[], limit: number, offset: number) {
  return db.select().from(organizers).where(eq(organizers.id, organizerId)).orderBy(...order).limit(limit).offset(offset);
}

export function accessibleOrganizerCount(db: DB, organizerId: number) {
  return db.select({ n: count() }).from(organizers).where(eq(organizers.id, organizerId));
}

export async function findOrganizerById(db: DB, id: number) {
  return db.select().from(organizers).where(eq(organizers.id, id)).get();
}
