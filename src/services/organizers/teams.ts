/**
 * Teams (docs/api.md): the request bodies and the services that change teams, their members,
 * invites and API tokens. Every team id from a path is checked to be the organizer's.
 */
import { dispatchMail } from "../../lib/queues";
import { z } from "zod";
import { mailInsertStatement } from "../../db/mail";
import {
  addMember,
  deactivateToken,
  deleteInvite,
  deleteTeamRow,
  eventIdsBySlug,
  findTeam,
  type InviteRecord,
  insertTeam,
  insertToken,
  inviteContext,
  inviteInsertStatement,
  removeMember,
  TEAM_FLAG_COLUMNS,
  type TeamRecord,
  teamExists,
  type TeamValues,
  type TokenRecord,
  updateTeam,
} from "../../db/teams";
import { sha256Hex } from "../../lib/crypto";
import { newApiToken, organizerSecret } from "../../lib/organizer-credentials";
import type { ChangeMode, OrganizerContext, WriteMode } from "../context";
import { fieldError, notFound } from "../../lib/failure";
import { email } from "../../rules/fields";
import { composeMail } from "../mail/mail";
import { TEAM_PERMISSIONS, type TeamPermission } from "../../rules/permissions";
import { effectiveSettings } from "../events/settings";

const teamFields = z.object({
  name: z.string().trim().min(1).max(190),
  all_events: z.boolean(),
  limit_events: z.array(z.string()),
  ...(Object.fromEntries(TEAM_PERMISSIONS.map((p) => [p, z.boolean()])) as Record<TeamPermission, z.ZodBoolean>),
});

/** POST and PUT: `name` required, every other field reset to its default when omitted. */
export const teamInput = teamFields.partial().required({ name: true });
/** PATCH: only the sent fields change. */
export const teamPatch = teamFields.partial();
export type TeamInput = z.output<typeof teamInput>;
export type TeamPatch = z.output<typeof teamPatch>;

/** POST invites: the address to invite. */
export const teamInviteInput = z.object({ email: email() });
/** POST tokens: the token's name. */
export const teamTokenInput = z.object({ name: z.string().trim().min(1).max(190) });

/** The columns a POST / PUT (omitted fields reset) or PATCH sets. */
function teamValues(input: TeamPatch, mode: WriteMode): Partial<TeamValues> {
  const full = mode !== "patch";
  const values: Partial<TeamValues> = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.all_events !== undefined || full) values.allEvents = input.all_events ?? false;
  for (const p of TEAM_PERMISSIONS) {
    const v = input[p];
    if (v !== undefined || full) values[TEAM_FLAG_COLUMNS[p]] = v ?? false;
  }
  return values;
}

/** The event ids of the organizer's event slugs (undefined: not sent); an unknown slug is a 400. */
async function limitEventIds(ctx: OrganizerContext, slugs: string[] | undefined): Promise<number[] | undefined> {
  if (slugs === undefined) return undefined;
  const map = await eventIdsBySlug(ctx.db, ctx.organizer.id, slugs);
  const missing = slugs.find((s) => !map.has(s));
  if (missing !== undefined) throw fieldError("limit_events", `Object with slug=${missing} does not exist.`);
  return [...new Set(slugs)].map((s) => map.get(s)!);
}

/** 404 unless the organizer has the team `teamId`. */
async function requireTeam(ctx: OrganizerContext, teamId: number): Promise<void> {
  if (!(await teamExists(ctx.db, ctx.organizer.id, teamId))) throw notFound();
}

export async function createTeam(ctx: OrganizerContext, input: TeamInput): Promise<TeamRecord> {
  const eventIds = (await limitEventIds(ctx, input.limit_events)) ?? [];
  return insertTeam(
    ctx.db,
    ctx.organizer.id,
    { ...teamValues(input, "create"), name: input.name } as TeamValues,
    eventIds,
  );
}

/** PUT (`put`: omitted fields reset, the event list too) or PATCH of one of the organizer's teams. */
export async function changeTeam(
  ctx: OrganizerContext,
  teamId: number,
  input: TeamPatch,
  mode: ChangeMode,
): Promise<TeamRecord> {
  // the team is looked up first: the event list of another organizer's team is never touched
  const found = await findTeam(ctx.db, ctx.organizer.id, teamId);
  if (!found) throw notFound();
  const eventIds = await limitEventIds(ctx, mode === "put" ? (input.limit_events ?? []) : input.limit_events);
  return (await updateTeam(ctx.db, ctx.organizer.id, found.team.id, teamValues(input, mode), eventIds))!;
}

/** Deletes a team (also the caller's own, which locks the caller out, as docs/api.md permits). */
export async function deleteTeam(ctx: OrganizerContext, teamId: number): Promise<void> {
  if (!(await deleteTeamRow(ctx.db, ctx.organizer.id, teamId))) throw notFound();
}

export async function removeTeamMember(ctx: OrganizerContext, teamId: number, userId: number): Promise<void> {
  if (!(await removeMember(ctx.db, ctx.organizer.id, teamId, userId))) throw notFound();
}

/** What inviting an address did: added the person with an account directly, or created an invite (mailed). */
export type InviteOutcome = { added: { email: string } } | { invited: InviteRecord };

const ALREADY_INVITED = "This user already has been invited for this team.";

/**
 * Invites an address to a team. A person with an account joins the team directly (no invite);
 * anyone else gets an invite and a mail with the link to accept it, written in one batch.
 */
export async function inviteToTeam(
  ctx: OrganizerContext,
  teamId: number,
  input: z.output<typeof teamInviteInput>,
): Promise<InviteOutcome> {
  const { db, organizer: org, now } = ctx;
  const address = input.email;
  const {
    team: found,
    user,
    invited: alreadyInvited,
    settings: stored,
  } = await inviteContext(db, org.id, teamId, address);
  if (!found) throw notFound();
  const { team } = found;
  if (user) {
    if (!(await addMember(db, team.id, user.id)))
      throw fieldError("email", "This user already has permissions for this team.");
    return { added: { email: user.email } };
  }
  if (alreadyInvited) throw fieldError("email", ALREADY_INVITED);
  const token = organizerSecret(32, org.id);
  const settings = effectiveSettings(stored);
  const link = `${ctx.baseUrl}/invite/${token}`;
  const mail = composeMail({
    kind: "team_invite",
    organizerId: org.id,
    to: address,
    subject: `You have been invited to a team of ${org.name}`,
    text: `Hello,\n\nyou have been invited to the team "${team.name}" of ${org.name}.\n\nTo join the team, open this link:\n${link}\n\nIf you did not expect this invitation, you can ignore this mail.\n`,
    fromName: (settings.mail_from_name as string | null) ?? org.name,
    replyTo: settings.contact_mail as string | null,
    now,
  });
  const [invited, mailed] = await db.batch([
    inviteInsertStatement(db, team.id, address, token, now),
    mailInsertStatement(db, mail),
  ]);
  // the same address invited at the same time: the unique index kept the other invite
  if (invited.length === 0) throw fieldError("email", ALREADY_INVITED);
  await dispatchMail(
    ctx.env,
    mailed.map((m) => m.id),
  );
  return { invited: invited[0]! };
}

export async function revokeTeamInvite(ctx: OrganizerContext, teamId: number, inviteId: number): Promise<void> {
  if (!(await deleteInvite(ctx.db, ctx.organizer.id, teamId, inviteId))) throw notFound();
}

/** Creates an API token of a team; its secret is returned only here (only its hash is stored). */
export async function createTeamToken(
  ctx: OrganizerContext,
  teamId: number,
  input: z.output<typeof teamTokenInput>,
): Promise<{ token: TokenRecord; secret: string }> {
  await requireTeam(ctx, teamId);
  const secret = newApiToken(ctx.organizer.id);
  const token = await insertToken(ctx.db, teamId, input.name, await sha256Hex(secret), ctx.now);
  return { token, secret };
}

/** Disables a team's API token (it answers 401 from then on); returns it. */
export async function deactivateTeamToken(
  ctx: OrganizerContext,
  teamId: number,
  tokenId: number,
): Promise<TokenRecord> {
  const row = await deactivateToken(ctx.db, ctx.organizer.id, teamId, tokenId);
  if (!row) throw notFound();
  return row;
}
