/** Credential lookups for authentication: one query per request. */
import { eq, sql } from "drizzle-orm";
import type { DB } from "./client";
import { devices, teamApiTokens, teams } from "./schema";

export async function findTokenCredential(db: DB, tokenHash: string) {
  return db
    .select({
      tokenId: teamApiTokens.id,
      active: teamApiTokens.active,
      team: teams,
      eventIds: sql<string>`(SELECT json_group_array(te.event_id) FROM team_events te WHERE te.team_id = "teams"."id")`,
    })
    .from(teamApiTokens)
    .innerJoin(teams, eq(teams.id, teamApiTokens.teamId))
    .where(eq(teamApiTokens.tokenHash, tokenHash))
    .get();
}

export async function findDeviceCredential(db: DB, tokenHash: string) {
  return db
    .select({
      device: devices,
      eventIds: sql<string>`(SELECT json_group_array(de.event_id) FROM device_events de WHERE de.device_id = "devices"."id")`,
    })
    .from(devices)
    .where(eq(devices.apiTokenHash, tokenHash))
    .get();
}
