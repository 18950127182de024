/** Teams (spec "Teams"): CRUD, members, invites and API tokens. Needs can_change_teams. */
import { Hono } from "hono";
import { z } from "zod";
import { mailInsertStatement } from "../db/mail";
import {
  addMember,
  createTeam,
  createToken,
  deactivateToken,
  deleteInvite,
  deleteTeam,
  eventIdsBySlug,
  findInvite,
  findMember,
  findTeam,
  findToken,
  inviteContext,
  inviteCount,
  inviteInsertStatement,
  invitePage,
  memberCount,
  memberPage,
  removeMember,
  TEAM_FLAG_COLUMNS,
  type TeamRecord,
  type TeamValues,
  teamCount,
  teamExists,
  teamPage,
  tokenCount,
  tokenPage,
  updateTeam,
} from "../db/teams";
import { composeMail, dispatchMail } from "../domain/mail";
import { TEAM_PERMISSIONS, type TeamPermission } from "../domain/permissions";
import { effectiveSettings } from "../domain/settings";
import { newApiToken, randomString, sha256Hex } from "../lib/crypto";
import type { AppContext, AppEnv } from "../http/context";
import { fieldError, notFound } from "../domain/failure";
import { email } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { publicBase } from "../http/urls";
import { jsonBody, pathId } from "../http/validation";


export function serializeTeam({ team, limitEvents }: TeamRecord) {
  const out: Record<string, unknown> = {
    id: team.id,
    name: team.name,
    all_events: team.allEvents,
    limit_events: (JSON.parse(limitEvents) as string[]).sort(),
  };
  for (const p of TEAM_PERMISSIONS) out[p] = team[TEAM_FLAG_COLUMNS[p]];
  return out;
}

const teamFields = z.object({
  name: z.string().trim().min(1).max(190),
  all_events: z.boolean(),
  limit_events: z.array(z.string()),
  ...(Object.fromEntries(TEAM_PERMISSIONS.map((p) => [p, z.boolean()])) as Record<TeamPermission, z.ZodBoolean>),
});
type TeamInput = z.output<typeof teamFields>;

/** POST and PUT: `name` required, every other field reset to its default when omitted. */
const teamFull = teamFields.partial().required({ name: true });
const teamPatch = teamFields.partial();

function teamValues(input: Partial<TeamInput>, full: boolean): Partial<TeamValues> {
  const values: Partial<TeamValues> = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.all_events !== undefined || full) values.allEvents = input.all_events ?? false;
  for (const p of TEAM_PERMISSIONS) {
    const v = input[p];
    if (v !== undefined || full) (values as Record<string, boolean>)[TEAM_FLAG_COLUMNS[p]] = v ?? false;
  }
  return values;
}

async function limitEventIds(c: AppContext, slugs: string[] | undefined): Promise<number[] | undefined> {
  if (slugs === undefined) return undefined;
  const map = await eventIdsBySlug(c.var.db, c.var.organizer.id, slugs);
  const missing = slugs.find((s) => !map.has(s));
  if (missing !== undefined) throw fieldError("limit_events", `Object with slug=${missing} does not exist.`);
  return [...new Set(slugs)].map((s) => map.get(s)!);
}

async function loadTeam(c: AppContext): Promise<TeamRecord> {
  const team = await findTeam(c.var.db, c.var.organizer.id, pathId(c, "team"));
  if (!team) throw notFound();
  return team;
}

/**
 * The path's team id, 404 when the organizer has no such team; for the lists of a team (its
 * single members, invites and tokens are looked up scoped by the organizer instead).
 */
async function requireTeam(c: AppContext): Promise<number> {
  const id = pathId(c, "team");
  if (!(await teamExists(c.var.db, c.var.organizer.id, id))) throw notFound();
  return id;
}

export const teamRoutes = new Hono<AppEnv>();
const perm = organizerScope("can_change_teams");
const base = "/organizers/:organizer/teams";

teamRoutes.get(base, perm, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const [[total], rows] = await db.batch([teamCount(db, c.var.organizer.id), teamPage(db, c.var.organizer.id, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeTeam)));
});

teamRoutes.post(base, perm, jsonBody(teamFull), async (c) => {
  const input = c.req.valid("json");
  const eventIds = (await limitEventIds(c, input.limit_events)) ?? [];
  return c.json(serializeTeam(await createTeam(c.var.db, c.var.organizer.id, teamValues(input, true) as TeamValues, eventIds)), 201);
});

teamRoutes.get(`${base}/:team`, perm, async (c) => c.json(serializeTeam(await loadTeam(c))));

async function changeTeam(c: AppContext, input: Partial<TeamInput>, full: boolean) {
  const { team } = await loadTeam(c);
  const eventIds = await limitEventIds(c, full ? (input.limit_events ?? []) : input.limit_events);
  return c.json(serializeTeam((await updateTeam(c.var.db, c.var.organizer.id, team.id, teamValues(input, full), eventIds))!));
}

teamRoutes.put(`${base}/:team`, perm, jsonBody(teamFull), (c) => changeTeam(c, c.req.valid("json"), true));
teamRoutes.patch(`${base}/:team`, perm, jsonBody(teamPatch), (c) => changeTeam(c, c.req.valid("json"), false));

teamRoutes.delete(`${base}/:team`, perm, async (c) => {
  if (!(await deleteTeam(c.var.db, c.var.organizer.id, pathId(c, "team")))) throw notFound();
  return c.body(null, 204);
});

// ---- members ----

function serializeMember(m: { id: number; email: string; fullname: string | null; require2fa: boolean }) {
  return { id: m.id, email: m.email, fullname: m.fullname, require_2fa: m.require2fa };
}

teamRoutes.get(`${base}/:team/members`, perm, async (c) => {
  const teamId = await requireTeam(c);
  const page = pageRequest(c);
  const db = c.var.db;
  const [[total], rows] = await db.batch([memberCount(db, teamId), memberPage(db, teamId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeMember)));
});

teamRoutes.get(`${base}/:team/members/:id`, perm, async (c) => {
  const member = await findMember(c.var.db, c.var.organizer.id, pathId(c, "team"), pathId(c, "id"));
  if (!member) throw notFound();
  return c.json(serializeMember(member));
});

teamRoutes.delete(`${base}/:team/members/:id`, perm, async (c) => {
  if (!(await removeMember(c.var.db, c.var.organizer.id, pathId(c, "team"), pathId(c, "id")))) throw notFound();
  return c.body(null, 204);
});

// ---- invites ----

teamRoutes.get(`${base}/:team/invites`, perm, async (c) => {
  const teamId = await requireTeam(c);
  const page = pageRequest(c);
  const db = c.var.db;
  const [[total], rows] = await db.batch([inviteCount(db, teamId), invitePage(db, teamId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows));
});

teamRoutes.get(`${base}/:team/invites/:id`, perm, async (c) => {
  const invite = await findInvite(c.var.db, c.var.organizer.id, pathId(c, "team"), pathId(c, "id"));
  if (!invite) throw notFound();
  return c.json(invite);
});

const ALREADY_INVITED = "This user already has been invited for this team.";

teamRoutes.post(`${base}/:team/invites`, perm, jsonBody(z.object({ email: email() })), async (c) => {
  const address = c.req.valid("json").email;
  const db = c.var.db;
  const org = c.var.organizer;
  const { team: found, user, invited: alreadyInvited, settings: stored } = await inviteContext(db, org.id, pathId(c, "team"), address);
  if (!found) throw notFound();
  const { team } = found;
  if (user) {
    // The person has an account already: they join the team directly, no invite is created.
    if (!(await addMember(db, team.id, user.id))) throw fieldError("email", "This user already has permissions for this team.");
    return c.json({ email: user.email }, 201);
  }
  if (alreadyInvited) throw fieldError("email", ALREADY_INVITED);
  const token = randomString(32);
  const now = Date.now();
  const settings = effectiveSettings(stored);
  const link = `${publicBase(c)}/invite/${token}`;
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
  const [invited, mailed] = await db.batch([inviteInsertStatement(db, team.id, address, token, now), mailInsertStatement(db, mail)]);
  if (invited.length === 0) throw fieldError("email", ALREADY_INVITED);
  await dispatchMail(c.env, mailed.map((m) => m.id));
  return c.json(invited[0]!, 201);
});

teamRoutes.delete(`${base}/:team/invites/:id`, perm, async (c) => {
  if (!(await deleteInvite(c.var.db, c.var.organizer.id, pathId(c, "team"), pathId(c, "id")))) throw notFound();
  return c.body(null, 204);
});

// ---- tokens ----

teamRoutes.get(`${base}/:team/tokens`, perm, async (c) => {
  const teamId = await requireTeam(c);
  const page = pageRequest(c);
  const db = c.var.db;
  const [[total], rows] = await db.batch([tokenCount(db, teamId), tokenPage(db, teamId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows));
});

teamRoutes.get(`${base}/:team/tokens/:id`, perm, async (c) => {
  const token = await findToken(c.var.db, c.var.organizer.id, pathId(c, "team"), pathId(c, "id"));
  if (!token) throw notFound();
  return c.json(token);
});

teamRoutes.post(`${base}/:team/tokens`, perm, jsonBody(z.object({ name: z.string().trim().min(1).max(190) })), async (c) => {
  const teamId = await requireTeam(c);
  const secret = newApiToken();
  const row = await createToken(c.var.db, teamId, c.req.valid("json").name, await sha256Hex(secret), Date.now());
  return c.json({ ...row, token: secret }, 201);
});

teamRoutes.delete(`${base}/:team/tokens/:id`, perm, async (c) => {
  const row = await deactivateToken(c.var.db, c.var.organizer.id, pathId(c, "team"), pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(row, 200);
});
