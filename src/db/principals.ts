/**
 * Credential lookups for authentication: one round trip per request, which also resolves the
 * organizer and event slugs of the request's path when it has them (the permission layer,
 * http/tenancy.ts, then needs no query of its own). Batched statements need distinct column
 * names (db/tenancy.ts): the token's own columns are aliased away from the team's.
 */
import { eq, sql } from "drizzle-orm";
import type { DB } from "./client";
import { devices, teamApiTokens, teams } from "./schema";
import { batchWithTenancy, type TenancyRow, type TenancySlugs } from "./tenancy";

function tokenQuery(db: DB, tokenHash: string) {
  return db
    .select({
      tokenId: sql<number>`${teamApiTokens.id}`.as("token_id"),
      active: sql<boolean>`${teamApiTokens.active}`.mapWith(Boolean).as("token_active"),
      team: teams,
      eventIds: sql<string>`(SELECT json_group_array(te.event_id) FROM team_events te WHERE te.team_id = "teams"."id")`.as("team_event_ids"),
    })
    .from(teamApiTokens)
    .innerJoin(teams, eq(teams.id, teamApiTokens.teamId))
    .where(eq(teamApiTokens.tokenHash, tokenHash))
    .limit(1);
}

function deviceQuery(db: DB, tokenHash: string) {
  return db
    .select({
      device: devices,
      eventIds: sql<string>`(SELECT json_group_array(de.event_id) FROM device_events de WHERE de.device_id = "devices"."id")`.as("device_event_ids"),
    })
    .from(devices)
    .where(eq(devices.apiTokenHash, tokenHash))
    .limit(1);
}

/** What the path's slugs resolved to, alongside the credential (row undefined: no such organizer). */
export type PrefetchedTenancy = { slugs: TenancySlugs; row: TenancyRow | undefined };

async function withTenancy<Q extends ReturnType<typeof tokenQuery> | ReturnType<typeof deviceQuery>>(db: DB, query: Q, slugs: TenancySlugs | null) {
  if (!slugs) return { credential: (await query)[0] as Awaited<Q>[number] | undefined, tenancy: null };
  const [rows, row] = await batchWithTenancy(db, query, slugs);
  return { credential: rows[0] as Awaited<Q>[number] | undefined, tenancy: { slugs, row } satisfies PrefetchedTenancy };
}

export function findTokenCredential(db: DB, tokenHash: string, slugs: TenancySlugs | null) {
  return withTenancy(db, tokenQuery(db, tokenHash), slugs);
}

export function findDeviceCredential(db: DB, tokenHash: string, slugs: TenancySlugs | null) {
  return withTenancy(db, deviceQuery(db, tokenHash), slugs);
}
