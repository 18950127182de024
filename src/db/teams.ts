/** Teams, their members, invites and API tokens; every query is scoped by organizer. */
import { and, asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { AnySQLiteColumn, SQLiteSelect } from "drizzle-orm/sqlite-core";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type Listing } from "./paging";
import { events, teamApiTokens, teamEvents, teamInvites, teamMembers, teams, users } from "./schema";
import { organizerSettingsQuery, settingsOf } from "./settings";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type TeamValues = Omit<typeof teams.$inferInsert, "id" | "organizerId">;

/** The teams table's column for each permission flag of the API (the flags' names are pretix's). */
export const TEAM_FLAG_COLUMNS = {
  can_create_events: "canCreateEvents",
  can_change_teams: "canChangeTeams",
  can_change_organizer_settings: "canChangeOrganizerSettings",
  can_manage_customers: "canManageCustomers",
  can_manage_gift_cards: "canManageGiftCards",
  can_change_event_settings: "canChangeEventSettings",
  can_change_items: "canChangeItems",
  can_view_orders: "canViewOrders",
  can_change_orders: "canChangeOrders",
  can_view_vouchers: "canViewVouchers",
  can_change_vouchers: "canChangeVouchers",
  can_checkin_orders: "canCheckinOrders",
} as const satisfies Record<string, keyof TeamValues & keyof typeof teams.$inferSelect>;

/** A permission flag's name (rules/permissions.ts lists them). */
export type TeamFlag = keyof typeof TEAM_FLAG_COLUMNS;

/** The permission flags of a team row. */
export function teamFlags(team: typeof teams.$inferSelect): Record<TeamFlag, boolean> {
  return Object.fromEntries(
    Object.entries(TEAM_FLAG_COLUMNS).map(([p, column]) => [p, team[column] as boolean]),
  ) as Record<TeamFlag, boolean>;
}

const teamWithEvents = {
  team: teams,
  // written out: drizzle renders columns unqualified in single-table selects
  limitEvents: sql<string>`(SELECT json_group_array(e.slug) FROM team_events te JOIN events e ON e.id = te.event_id WHERE te.team_id = "teams"."id")`,
};

export type TeamRecord = { team: typeof teams.$inferSelect; limitEvents: string };

/** A page of the organizer's teams (by id), with their event lists. */
export function listTeams(db: DB, organizerId: number, req: ListRequest) {
  const where = eq(teams.organizerId, organizerId);
  return fetchPage(
    db,
    {
      rows: db.select(teamWithEvents).from(teams).where(where).orderBy(asc(teams.id)).$dynamic(),
      count: { from: teams, where },
    },
    req,
  );
}

function teamQuery(db: DB, organizerId: number, teamId: number | SQL) {
  return db
    .select(teamWithEvents)
    .from(teams)
    .where(and(eq(teams.organizerId, organizerId), eq(teams.id, teamId)))
    .limit(1);
}

export async function findTeam(db: DB, organizerId: number, teamId: number): Promise<TeamRecord | undefined> {
  return teamQuery(db, organizerId, teamId).get();
}

/** The organizer's teams, for scoping a team id taken from the path. */
function ofOrganizer(column: AnySQLiteColumn, organizerId: number): SQL {
  return sql`${column} IN (SELECT "id" FROM "teams" WHERE "organizer_id" = ${organizerId})`;
}

/** The organizer's team `teamId` (at most one row): batched with a list of the team's members, invites or tokens. */
function teamOfOrganizer(db: DB, organizerId: number, teamId: number) {
  return db
    .select({ id: teams.id })
    .from(teams)
    .where(and(eq(teams.organizerId, organizerId), eq(teams.id, teamId)));
}

export async function teamExists(db: DB, organizerId: number, teamId: number): Promise<boolean> {
  return (await teamOfOrganizer(db, organizerId, teamId).get()) !== undefined;
}

/**
 * A page of a list of the team's (its members, invites or tokens) and whether the organizer
 * has that team, in one batch: the page is empty for a team that is not the organizer's, and
 * the caller answers 404 for it.
 */
async function listOfTeam<Q extends SQLiteSelect>(
  db: DB,
  organizerId: number,
  teamId: number,
  listing: Listing<Q>,
  req: ListRequest,
) {
  const page = await fetchPage(db, listing, req, teamOfOrganizer(db, organizerId, teamId));
  return { count: page.count, rows: page.rows, teamExists: page.extra[0].length > 0 };
}

/** Event ids for slugs of the organizer; slugs that do not exist are missing from the map. */
export async function eventIdsBySlug(db: DB, organizerId: number, slugs: string[]): Promise<Map<string, number>> {
  const map = new Map<string, number>();
  for (const part of chunks([...new Set(slugs)], MAX_PARAMS - 5)) {
    const rows = await db
      .select({ id: events.id, slug: events.slug })
      .from(events)
      .where(and(eq(events.organizerId, organizerId), inArray(events.slug, part)));
    for (const r of rows) map.set(r.slug, r.id);
  }
  return map;
}

/** The team inserted just before in the same batch (a batch is one transaction, and ids only grow, so it is the highest id). */
const NEW_TEAM = sql<number>`(SELECT max(id) FROM teams)`;

function teamEventInserts(db: DB, teamId: number | null, eventIds: number[]) {
  const team = teamId === null ? NEW_TEAM : sql<number>`${teamId}`;
  return chunks(eventIds, MAX_PARAMS - 5).map((part) =>
    db.insert(teamEvents).select(
      db
        .select({ teamId: team.as("team_id"), eventId: events.id })
        .from(events)
        .where(inArray(events.id, part)),
    ),
  );
}

/** Creates a team and its event list atomically; returns the new team (same round trip). */
export async function insertTeam(
  db: DB,
  organizerId: number,
  values: TeamValues,
  eventIds: number[],
): Promise<TeamRecord> {
  const insert = db.insert(teams).values({ ...values, organizerId });
  const results = await db.batch([
    insert,
    ...teamEventInserts(db, null, eventIds),
    teamQuery(db, organizerId, NEW_TEAM),
  ]);
  return (results[results.length - 1] as TeamRecord[])[0]!;
}

/** Updates a team; `eventIds` replaces the event list when given. Returns the team afterwards (same round trip). */
export async function updateTeam(
  db: DB,
  organizerId: number,
  teamId: number,
  values: Partial<TeamValues>,
  eventIds?: number[],
) {
  const statements: BatchItem<"sqlite">[] = [];
  if (Object.keys(values).length) {
    statements.push(
      db
        .update(teams)
        .set(values)
        .where(and(eq(teams.organizerId, organizerId), eq(teams.id, teamId))),
    );
  }
  if (eventIds) {
    statements.push(db.delete(teamEvents).where(eq(teamEvents.teamId, teamId)));
    statements.push(...teamEventInserts(db, teamId, eventIds));
  }
  const all: BatchItem<"sqlite">[] = [...statements, teamQuery(db, organizerId, teamId)];
  const results = (await db.batch(all as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return (results[results.length - 1] as TeamRecord[])[0];
}

/** Deletes the organizer's team; false when there is none of that id. */
export async function deleteTeamRow(db: DB, organizerId: number, teamId: number): Promise<boolean> {
  const rows = await db
    .delete(teams)
    .where(and(eq(teams.organizerId, organizerId), eq(teams.id, teamId)))
    .returning({ id: teams.id });
  return rows.length > 0;
}

// ---- members ----

const memberFields = { id: users.id, email: users.email, fullname: users.fullname, require2fa: users.require2fa };

/** A page of the team's members (by user id), with whether the organizer has the team. */
export function listMembers(db: DB, organizerId: number, teamId: number, req: ListRequest) {
  const where = and(eq(teamMembers.teamId, teamId), ofOrganizer(teamMembers.teamId, organizerId));
  const rows = db
    .select(memberFields)
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(where)
    .orderBy(asc(users.id))
    .$dynamic();
  return listOfTeam(db, organizerId, teamId, { rows, count: { from: teamMembers, where } }, req);
}

export type MemberRecord = { id: number; email: string; fullname: string | null; require2fa: boolean };

/** A member of a team of the organizer (one query: the team's own 404 and the member's are one). */
export async function findMember(db: DB, organizerId: number, teamId: number, userId: number) {
  return db
    .select(memberFields)
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(
      and(eq(teamMembers.teamId, teamId), ofOrganizer(teamMembers.teamId, organizerId), eq(teamMembers.userId, userId)),
    )
    .get();
}

/** Removes a member of a team of the organizer; false when there is no such member. */
export async function removeMember(db: DB, organizerId: number, teamId: number, userId: number): Promise<boolean> {
  const rows = await db
    .delete(teamMembers)
    .where(
      and(eq(teamMembers.teamId, teamId), ofOrganizer(teamMembers.teamId, organizerId), eq(teamMembers.userId, userId)),
    )
    .returning({ userId: teamMembers.userId });
  return rows.length > 0;
}

/** Adds a user to a team; false when they were a member already. */
export async function addMember(db: DB, teamId: number, userId: number): Promise<boolean> {
  const rows = await db
    .insert(teamMembers)
    .values({ teamId, userId })
    .onConflictDoNothing()
    .returning({ teamId: teamMembers.teamId });
  return rows.length > 0;
}

// ---- invites ----

const inviteFields = { id: teamInvites.id, email: teamInvites.email };

/** A page of the team's invites (by id), with whether the organizer has the team. */
export function listInvites(db: DB, organizerId: number, teamId: number, req: ListRequest) {
  const where = and(eq(teamInvites.teamId, teamId), ofOrganizer(teamInvites.teamId, organizerId));
  const rows = db.select(inviteFields).from(teamInvites).where(where).orderBy(asc(teamInvites.id)).$dynamic();
  return listOfTeam(db, organizerId, teamId, { rows, count: { from: teamInvites, where } }, req);
}

export type InviteRecord = { id: number; email: string };

function ofTeamInvite(organizerId: number, teamId: number, inviteId: number) {
  return and(
    eq(teamInvites.teamId, teamId),
    ofOrganizer(teamInvites.teamId, organizerId),
    eq(teamInvites.id, inviteId),
  );
}

/** An invite of a team of the organizer. */
export async function findInvite(db: DB, organizerId: number, teamId: number, inviteId: number) {
  return db
    .select(inviteFields)
    .from(teamInvites)
    .where(ofTeamInvite(organizerId, teamId, inviteId))
    .get();
}

/**
 * What inviting `email` to a team needs to know, in one round trip: the organizer's team, the
 * user with this address (if any), whether the address is invited already, and the
 * organizer's stored settings (for the mail).
 */
export async function inviteContext(db: DB, organizerId: number, teamId: number, email: string) {
  const [team, user, invited, settings] = await db.batch([
    teamQuery(db, organizerId, teamId),
    db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1),
    db
      .select({ id: teamInvites.id })
      .from(teamInvites)
      .where(and(eq(teamInvites.teamId, teamId), sql`lower(${teamInvites.email}) = lower(${email})`))
      .limit(1),
    organizerSettingsQuery(db, organizerId),
  ]);
  return {
    team: team[0] as TeamRecord | undefined,
    user: user[0],
    invited: invited.length > 0,
    settings: settingsOf(settings),
  };
}

export function inviteInsertStatement(db: DB, teamId: number, email: string, token: string, now: number) {
  return db
    .insert(teamInvites)
    .values({ teamId, email, token, createdAt: now })
    .onConflictDoNothing()
    .returning(inviteFields);
}

/** Deletes an invite of a team of the organizer; false when there is no such invite. */
export async function deleteInvite(db: DB, organizerId: number, teamId: number, inviteId: number): Promise<boolean> {
  const rows = await db
    .delete(teamInvites)
    .where(ofTeamInvite(organizerId, teamId, inviteId))
    .returning({ id: teamInvites.id });
  return rows.length > 0;
}

/** The invite behind an acceptance link, with its team and organizer names. */
export async function findInviteByToken(db: DB, token: string) {
  return db
    .select({ invite: teamInvites, teamName: teams.name, organizerId: teams.organizerId })
    .from(teamInvites)
    .innerJoin(teams, eq(teams.id, teamInvites.teamId))
    .where(eq(teamInvites.token, token))
    .get();
}

/** Accepts an invite: creates the user if needed, adds them to the team, removes the invite. */
export async function acceptInvite(
  db: DB,
  inviteId: number,
  teamId: number,
  email: string,
  fullname: string,
  now: number,
) {
  await db.batch([
    db.insert(users).values({ email, fullname, createdAt: now }).onConflictDoNothing(),
    db
      .insert(teamMembers)
      .select(
        db
          .select({ teamId: sql<number>`${teamId}`.as("team_id"), userId: users.id })
          .from(users)
          .where(sql`lower(${users.email}) = lower(${email})`),
      )
      .onConflictDoNothing(),
    db.delete(teamInvites).where(eq(teamInvites.id, inviteId)),
  ]);
}

// ---- tokens ----

const tokenFields = { id: teamApiTokens.id, name: teamApiTokens.name, active: teamApiTokens.active };

/** A page of the team's API tokens (by id), with whether the organizer has the team. */
export function listTokens(db: DB, organizerId: number, teamId: number, req: ListRequest) {
  const where = and(eq(teamApiTokens.teamId, teamId), ofOrganizer(teamApiTokens.teamId, organizerId));
  const rows = db.select(tokenFields).from(teamApiTokens).where(where).orderBy(asc(teamApiTokens.id)).$dynamic();
  return listOfTeam(db, organizerId, teamId, { rows, count: { from: teamApiTokens, where } }, req);
}

export type TokenRecord = { id: number; name: string; active: boolean };

function ofTeamToken(organizerId: number, teamId: number, tokenId: number) {
  return and(
    eq(teamApiTokens.teamId, teamId),
    ofOrganizer(teamApiTokens.teamId, organizerId),
    eq(teamApiTokens.id, tokenId),
  );
}

/** A token of a team of the organizer. */
export async function findToken(db: DB, organizerId: number, teamId: number, tokenId: number) {
  return db
    .select(tokenFields)
    .from(teamApiTokens)
    .where(ofTeamToken(organizerId, teamId, tokenId))
    .get();
}

export async function insertToken(db: DB, teamId: number, name: string, tokenHash: string, now: number) {
  const [row] = await db
    .insert(teamApiTokens)
    .values({ teamId, name, tokenHash, active: true, createdAt: now })
    .returning(tokenFields);
  return row!;
}

/** Deactivates a token of a team of the organizer; undefined when there is no such token. */
export async function deactivateToken(db: DB, organizerId: number, teamId: number, tokenId: number) {
  const [row] = await db
    .update(teamApiTokens)
    .set({ active: false })
    .where(ofTeamToken(organizerId, teamId, tokenId))
    .returning(tokenFields);
  return row;
}
