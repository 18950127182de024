import { eq } from "drizzle-orm";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { organizers } from "./schema";

/** The orderings of the organizers list (docs/api.md: `slug`, `name`; default `slug`). */
export const ORGANIZER_ORDERING: OrderingTable = {
  fields: { slug: organizers.slug, name: organizers.name },
  default: "slug",
  tiebreaker: organizers.id,
};

/** A page of the organizers the caller can access (a credential belongs to exactly one organizer). */
export function listAccessibleOrganizers(db: DB, organizerId: number, req: ListRequest) {
  const where = eq(organizers.id, organizerId);
  return fetchPage(
    db,
    {
      rows: db.select().from(organizers).where(where).$dynamic(),
      count: { from: organizers, where },
      ordering: ORGANIZER_ORDERING,
    },
    req,
  );
}

export async function findOrganizerById(db: DB, id: number) {
  return db.select().from(organizers).where(eq(organizers.id, id)).get();
}
