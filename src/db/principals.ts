/**
 * Credential lookups for authentication: one round trip per request (or a place in the first
 * batch of a list's page, http/credential-batch.ts), which also resolves the organizer and
 * event slugs of the request's path when it has them (the permission layer,
 * http/tenancy.ts, then needs no query of its own). Batched statements need distinct column
 * names (db/tenancy.ts): the token's own columns are aliased away from the team's.
 */
import { eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { fixed, p } from "./fixed";
import { devices, teamApiTokens, teams } from "./schema";
import { tenancyLookup, type TenancyRow, type TenancySlugs } from "./tenancy";

const TOKEN = fixed((db) =>
  db
    .select({
      tokenId: sql<number>`${teamApiTokens.id}`.as("token_id"),
      active: sql<boolean>`${teamApiTokens.active}`.mapWith(Boolean).as("token_active"),
      team: teams,
      eventIds:
        sql<string>`(SELECT json_group_array(te.event_id) FROM team_events te WHERE te.team_id = "teams"."id")`.as(
          "team_event_ids",
        ),
    })
    .from(teamApiTokens)
    .innerJoin(teams, eq(teams.id, teamApiTokens.teamId))
    .where(eq(teamApiTokens.tokenHash, p("hash")))
    .limit(1),
);

const DEVICE = fixed((db) =>
  db
    .select({
      device: devices,
      eventIds:
        sql<string>`(SELECT json_group_array(de.event_id) FROM device_events de WHERE de.device_id = "devices"."id")`.as(
          "device_event_ids",
        ),
    })
    .from(devices)
    .where(eq(devices.apiTokenHash, p("hash")))
    .limit(1),
);

function tokenQuery(db: DB, tokenHash: string) {
  return TOKEN.bind(db, { hash: tokenHash });
}

function deviceQuery(db: DB, tokenHash: string) {
  return DEVICE.bind(db, { hash: tokenHash });
}

/** What the path's slugs resolved to, alongside the credential (row undefined: no such organizer). */
export type PrefetchedTenancy = { slugs: TenancySlugs; row: TenancyRow | undefined };

export type CredentialKind = "token" | "device";
export type TokenCredential = Awaited<ReturnType<typeof tokenQuery>>[number];
export type DeviceCredential = Awaited<ReturnType<typeof deviceQuery>>[number];

/** The stored credential of a hash (row undefined: none), with the path's tenancy when the path has slugs. */
export type FoundCredential = (
  | { kind: "token"; row: TokenCredential | undefined }
  | { kind: "device"; row: DeviceCredential | undefined }
) & {
  tenancy: PrefetchedTenancy | null;
};

/**
 * The statements of a credential lookup (the credential and the path's organizer and event),
 * and how to read their results: run alone (`findCredential`) or ahead of a page's statements
 * in one batch (http/credential-batch.ts).
 */
export type CredentialLookup = {
  statements: [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
  read(results: unknown[]): FoundCredential;
};

export function credentialLookup(
  db: DB,
  kind: CredentialKind,
  tokenHash: string,
  slugs: TenancySlugs | null,
): CredentialLookup {
  const first = kind === "token" ? tokenQuery(db, tokenHash) : deviceQuery(db, tokenHash);
  const tenancy = slugs ? tenancyLookup(db, slugs) : null;
  return {
    statements: [first, ...(tenancy?.statements ?? [])],
    read(results) {
      const rows = results[0] as unknown[];
      const found = slugs && tenancy ? { slugs, row: tenancy.read(results.slice(1)) } : null;
      return kind === "token"
        ? { kind, row: rows[0] as TokenCredential | undefined, tenancy: found }
        : { kind, row: rows[0] as DeviceCredential | undefined, tenancy: found };
    },
  };
}

/** The credential of a hash and the path's tenancy: one round trip. */
export async function findCredential(
  db: DB,
  kind: CredentialKind,
  tokenHash: string,
  slugs: TenancySlugs | null,
): Promise<FoundCredential> {
  const lookup = credentialLookup(db, kind, tokenHash, slugs);
  return lookup.read((await db.batch(lookup.statements)) as unknown[]);
}
