/** The directory's queries: an organizer's group by id or slug, and the groups' sizes. */
import { drizzle } from "drizzle-orm/d1";
import { count, eq } from "drizzle-orm";
import { directoryOrganizers } from "./schema";

export type DirectoryEntry = typeof directoryOrganizers.$inferSelect;

const directory = (d1: D1Database | D1DatabaseSession) => drizzle(d1 as D1Database);

export async function directoryEntryById(
  d1: D1Database | D1DatabaseSession,
  id: number,
): Promise<DirectoryEntry | undefined> {
  return directory(d1).select().from(directoryOrganizers).where(eq(directoryOrganizers.id, id)).get();
}

export async function directoryEntryBySlug(
  d1: D1Database | D1DatabaseSession,
  slug: string,
): Promise<DirectoryEntry | undefined> {
  return directory(d1).select().from(directoryOrganizers).where(eq(directoryOrganizers.slug, slug)).get();
}

/** How many organizers each group holds (groups without any are missing). */
export async function organizersPerGroup(d1: D1Database): Promise<Map<number, number>> {
  const rows = await directory(d1)
    .select({ group: directoryOrganizers.dataGroup, n: count() })
    .from(directoryOrganizers)
    .groupBy(directoryOrganizers.dataGroup);
  return new Map(rows.map((r) => [r.group, r.n]));
}
