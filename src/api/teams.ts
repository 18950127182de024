/**
 * Teams (docs/api.md): CRUD, members, invites and API tokens. Needs can_change_teams. The
 * routes parse, scope, call the team services (services/organizers/teams.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  findInvite,
  findMember,
  findTeam,
  findToken,
  type InviteRecord,
  listInvites,
  listMembers,
  listTeams,
  listTokens,
  type MemberRecord,
  TEAM_FLAG_COLUMNS,
  type TeamRecord,
  type TokenRecord,
} from "../services/organizers/organizer-reads";
import { notFound } from "../lib/failure";
import { TEAM_PERMISSIONS, type TeamPermission } from "../rules/permissions";
import {
  changeTeam,
  createTeam,
  createTeamToken,
  deactivateTeamToken,
  deleteTeam,
  type InviteOutcome,
  inviteToTeam,
  removeTeamMember,
  revokeTeamInvite,
  teamInput,
  teamInviteInput,
  teamPatch,
  teamTokenInput,
} from "../services/organizers/teams";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { id } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";

/** The permission flags of a team (rules/permissions.ts lists them; the check below keeps both in step). */
const teamFlagFields = {
  can_create_events: z.boolean(),
  can_change_teams: z.boolean(),
  can_change_organizer_settings: z.boolean(),
  can_manage_customers: z.boolean(),
  can_manage_gift_cards: z.boolean(),
  can_change_event_settings: z.boolean(),
  can_change_items: z.boolean(),
  can_view_orders: z.boolean(),
  can_change_orders: z.boolean(),
  can_view_vouchers: z.boolean(),
  can_change_vouchers: z.boolean(),
  can_checkin_orders: z.boolean(),
} satisfies Record<TeamPermission, z.ZodBoolean>;

/** A team (docs/api.md). */
export const teamResponse = z
  .object({
    id: id(),
    name: z.string(),
    all_events: z.boolean(),
    limit_events: z.array(z.string()).meta({ description: "event slugs" }),
    ...teamFlagFields,
  })
  .meta({ id: "Team" });
export type TeamResponse = z.infer<typeof teamResponse>;

/** A team member (docs/api.md). */
export const teamMemberResponse = z
  .object({ id: id(), email: z.string(), fullname: z.string().nullable(), require_2fa: z.boolean() })
  .meta({ id: "TeamMember" });
export type TeamMemberResponse = z.infer<typeof teamMemberResponse>;

/** A team invite (docs/api.md). */
export const teamInviteResponse = z.object({ id: id(), email: z.string() }).meta({ id: "TeamInvite" });
export type TeamInviteResponse = z.infer<typeof teamInviteResponse>;

/** The answer of POST invites: the invite, or (the person has an account and joined directly) only the address. */
export const teamInviteCreatedResponse = z.union([teamInviteResponse, teamInviteResponse.pick({ email: true })]);
export type TeamInviteCreatedResponse = z.infer<typeof teamInviteCreatedResponse>;

/** A team API token (docs/api.md); the secret only in the answer that creates it. */
export const teamTokenResponse = z
  .object({ id: id(), name: z.string(), active: z.boolean() })
  .meta({ id: "TeamToken" });
export type TeamTokenResponse = z.infer<typeof teamTokenResponse>;
export const teamTokenCreatedResponse = teamTokenResponse.extend({ token: z.string() });
export type TeamTokenCreatedResponse = z.infer<typeof teamTokenCreatedResponse>;

export function serializeTeam({ team, limitEvents }: TeamRecord): TeamResponse {
  const flags = Object.fromEntries(TEAM_PERMISSIONS.map((p) => [p, team[TEAM_FLAG_COLUMNS[p]]])) as Record<
    TeamPermission,
    boolean
  >;
  return {
    id: team.id,
    name: team.name,
    all_events: team.allEvents,
    limit_events: (JSON.parse(limitEvents) as string[]).sort(),
    ...flags,
  };
}

export function serializeMember(m: MemberRecord): TeamMemberResponse {
  return { id: m.id, email: m.email, fullname: m.fullname, require_2fa: m.require2fa };
}

export function serializeInvite(i: InviteRecord): TeamInviteResponse {
  return { id: i.id, email: i.email };
}

export function serializeInviteOutcome(o: InviteOutcome): TeamInviteCreatedResponse {
  return "added" in o ? { email: o.added.email } : serializeInvite(o.invited);
}

export function serializeToken(t: TokenRecord): TeamTokenResponse {
  return { id: t.id, name: t.name, active: t.active };
}

export const teamRoutes = new Hono<AppEnv>();
const doc = apiDocs("Teams");
const perm = organizerScope("can_change_teams");
const base = "/organizers/:organizer/teams";

teamRoutes.get(base, perm, doc.list(teamResponse, { summary: "List teams" }), async (c) => {
  const req = listRequest(c);
  return respondPage(c, req, await listTeams(organizerContext(c), req), serializeTeam);
});

teamRoutes.post(base, perm, doc.created(teamResponse, { summary: "Create a team" }), jsonBody(teamInput), async (c) =>
  c.json(serializeTeam(await createTeam(organizerContext(c), c.req.valid("json"))), 201),
);

teamRoutes.get(`${base}/:team`, perm, doc.ok(teamResponse, { summary: "Team detail" }), async (c) => {
  const team = await findTeam(organizerContext(c), pathId(c, "team"));
  if (!team) throw notFound();
  return c.json(serializeTeam(team));
});

teamRoutes.put(
  `${base}/:team`,
  perm,
  doc.ok(teamResponse, { summary: "Replace a team" }),
  jsonBody(teamInput),
  async (c) =>
    c.json(serializeTeam(await changeTeam(organizerContext(c), pathId(c, "team"), c.req.valid("json"), "put"))),
);

teamRoutes.patch(
  `${base}/:team`,
  perm,
  doc.ok(teamResponse, { summary: "Change a team" }),
  jsonBody(teamPatch),
  async (c) =>
    c.json(serializeTeam(await changeTeam(organizerContext(c), pathId(c, "team"), c.req.valid("json"), "patch"))),
);

teamRoutes.delete(`${base}/:team`, perm, doc.noContent({ summary: "Delete a team" }), async (c) => {
  await deleteTeam(organizerContext(c), pathId(c, "team"));
  return c.body(null, 204);
});

// ---- members ----

teamRoutes.get(
  `${base}/:team/members`,
  perm,
  doc.list(teamMemberResponse, { summary: "List a team's members" }),
  async (c) => {
    const teamId = pathId(c, "team");
    const req = listRequest(c);
    const page = await listMembers(organizerContext(c), teamId, req);
    if (!page.teamExists) throw notFound();
    return respondPage(c, req, page, serializeMember);
  },
);

teamRoutes.get(
  `${base}/:team/members/:id`,
  perm,
  doc.ok(teamMemberResponse, { summary: "Team member detail" }),
  async (c) => {
    const member = await findMember(organizerContext(c), pathId(c, "team"), pathId(c, "id"));
    if (!member) throw notFound();
    return c.json(serializeMember(member));
  },
);

teamRoutes.delete(
  `${base}/:team/members/:id`,
  perm,
  doc.noContent({ summary: "Remove a member from a team" }),
  async (c) => {
    await removeTeamMember(organizerContext(c), pathId(c, "team"), pathId(c, "id"));
    return c.body(null, 204);
  },
);

// ---- invites ----

teamRoutes.get(
  `${base}/:team/invites`,
  perm,
  doc.list(teamInviteResponse, { summary: "List a team's invites" }),
  async (c) => {
    const teamId = pathId(c, "team");
    const req = listRequest(c);
    const page = await listInvites(organizerContext(c), teamId, req);
    if (!page.teamExists) throw notFound();
    return respondPage(c, req, page, serializeInvite);
  },
);

teamRoutes.get(
  `${base}/:team/invites/:id`,
  perm,
  doc.ok(teamInviteResponse, { summary: "Team invite detail" }),
  async (c) => {
    const invite = await findInvite(organizerContext(c), pathId(c, "team"), pathId(c, "id"));
    if (!invite) throw notFound();
    return c.json(serializeInvite(invite));
  },
);

teamRoutes.post(
  `${base}/:team/invites`,
  perm,
  doc.created(teamInviteCreatedResponse, {
    summary: "Invite a person to a team",
    description: "A person who has an account joins at once (the answer then holds only the address).",
  }),
  jsonBody(teamInviteInput),
  async (c) =>
    c.json(
      serializeInviteOutcome(await inviteToTeam(organizerContext(c), pathId(c, "team"), c.req.valid("json"))),
      201,
    ),
);

teamRoutes.delete(`${base}/:team/invites/:id`, perm, doc.noContent({ summary: "Revoke a team invite" }), async (c) => {
  await revokeTeamInvite(organizerContext(c), pathId(c, "team"), pathId(c, "id"));
  return c.body(null, 204);
});

// ---- tokens ----

teamRoutes.get(
  `${base}/:team/tokens`,
  perm,
  doc.list(teamTokenResponse, { summary: "List a team's API tokens" }),
  async (c) => {
    const teamId = pathId(c, "team");
    const req = listRequest(c);
    const page = await listTokens(organizerContext(c), teamId, req);
    if (!page.teamExists) throw notFound();
    return respondPage(c, req, page, serializeToken);
  },
);

teamRoutes.get(
  `${base}/:team/tokens/:id`,
  perm,
  doc.ok(teamTokenResponse, { summary: "API token detail" }),
  async (c) => {
    const token = await findToken(organizerContext(c), pathId(c, "team"), pathId(c, "id"));
    if (!token) throw notFound();
    return c.json(serializeToken(token));
  },
);

teamRoutes.post(
  `${base}/:team/tokens`,
  perm,
  doc.created(teamTokenCreatedResponse, {
    summary: "Create an API token",
    description: "The answer holds the token; it is never shown again.",
  }),
  jsonBody(teamTokenInput),
  async (c) => {
    const { token, secret } = await createTeamToken(organizerContext(c), pathId(c, "team"), c.req.valid("json"));
    return c.json({ ...serializeToken(token), token: secret } satisfies TeamTokenCreatedResponse, 201);
  },
);

teamRoutes.delete(
  `${base}/:team/tokens/:id`,
  perm,
  doc.ok(teamTokenResponse, {
    summary: "Deactivate an API token",
    description: "pretix's answer: 200 with the deactivated token.",
  }),
  async (c) =>
    c.json(serializeToken(await deactivateTeamToken(organizerContext(c), pathId(c, "team"), pathId(c, "id"))), 200),
);
