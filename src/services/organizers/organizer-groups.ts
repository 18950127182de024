/**
 * Which organizer group a request works on: the directory's answer for an organizer (by id or
 * by slug), kept by the isolate for DIRECTORY_CACHE_SECONDS, so only an isolate's first request
 * of an organizer asks the directory. Credentials are still checked in the group's database on
 * every request: the cache holds where an organizer lives, never who may act for it.
 */
import { directoryEntryById, directoryEntryBySlug, type DirectoryEntry } from "../../db/directory/organizers";
import { readConfig, type Env } from "../../lib/env";

/** An organizer's group, and whether it is being moved (writes are refused meanwhile). */
export type GroupRoute = { organizerId: number; group: number; moving: boolean };

export type OrganizerKey = { organizerId: number } | { slug: string };

const routes = new Map<string, { route: GroupRoute; until: number }>();

const keyOf = (k: OrganizerKey) => ("slug" in k ? `slug:${k.slug}` : `id:${k.organizerId}`);

function remember(entry: DirectoryEntry, until: number): GroupRoute {
  const route = { organizerId: entry.id, group: entry.dataGroup, moving: entry.movingTo !== null };
  routes.set(`id:${entry.id}`, { route, until });
  routes.set(`slug:${entry.slug}`, { route, until });
  return route;
}

/** The group of an organizer; null when the directory knows no such organizer (never cached). */
export async function organizerRoute(env: Env, key: OrganizerKey, now = Date.now()): Promise<GroupRoute | null> {
  const cached = routes.get(keyOf(key));
  if (cached && cached.until > now) return cached.route;
  const read = (d1: D1Database | D1DatabaseSession) =>
    "slug" in key ? directoryEntryBySlug(d1, key.slug) : directoryEntryById(d1, key.organizerId);
  // the nearest copy of the directory; the primary only for an organizer the copy does not know yet
  const entry = (await read(env.DIRECTORY.withSession("first-unconstrained"))) ?? (await read(env.DIRECTORY));
  if (!entry) return null;
  return remember(entry, now + readConfig(env).directoryCacheMs);
}

/** Forgets what this isolate knows of an organizer's group (a move tells the isolate it runs in). */
export function forgetOrganizerRoute(organizerId: number): void {
  for (const [key, { route }] of routes) if (route.organizerId === organizerId) routes.delete(key);
}
