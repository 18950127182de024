import { create, id, member, type SetupWorld, team } from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const teamPath = "/api/v1/organizers/:organizer/teams";

const aTeam = async (w: SetupWorld): Promise<RowSetup> => ({ params: { team: id(await team(w)) } });
const withMember = async (w: SetupWorld): Promise<RowSetup> => {
  const t = await team(w);
  return { params: { team: id(t), id: String(await member(t.id)) } };
};
const withInvite = async (w: SetupWorld): Promise<RowSetup> => {
  const t = await team(w);
  const invite = await create(w, `${w.org}/teams/${t.id}/invites`, { email: "invitee@example.org" });
  return { params: { team: id(t), id: id(invite) } };
};
const withToken = async (w: SetupWorld): Promise<RowSetup> => {
  const t = await team(w);
  const token = await create(w, `${w.org}/teams/${t.id}/tokens`, { name: "Box office" });
  return { params: { team: id(t), id: id(token) } };
};

export const rows: MatrixRow[] = [
  // the API description: public, so every caller gets it
  { route: "GET /api/v1/openapi.json", permission: null, auth: "none", device: "allow" },
  { route: "GET /api/v1/organizers", permission: null, device: "allow" },
  { route: "GET /api/v1/organizers/:organizer", permission: null, device: "allow" },
  { route: "GET /api/v1/organizers/:organizer/settings", permission: "can_change_organizer_settings" },
  {
    route: "PATCH /api/v1/organizers/:organizer/settings",
    permission: "can_change_organizer_settings",
    setup: async () => ({ body: { contact_mail: "office@example.org" } }),
  },
  { route: `GET ${teamPath}`, permission: "can_change_teams" },
  { route: `POST ${teamPath}`, permission: "can_change_teams", setup: async () => ({ body: { name: "Box office" } }) },
  { route: `GET ${teamPath}/:team`, permission: "can_change_teams", setup: aTeam },
  {
    route: `PUT ${teamPath}/:team`,
    permission: "can_change_teams",
    setup: async (w) => ({ ...(await aTeam(w)), body: { name: "Renamed" } }),
  },
  {
    route: `PATCH ${teamPath}/:team`,
    permission: "can_change_teams",
    setup: async (w) => ({ ...(await aTeam(w)), body: { can_view_orders: true } }),
  },
  { route: `DELETE ${teamPath}/:team`, permission: "can_change_teams", setup: aTeam },
  { route: `GET ${teamPath}/:team/members`, permission: "can_change_teams", setup: withMember },
  { route: `GET ${teamPath}/:team/members/:id`, permission: "can_change_teams", setup: withMember },
  { route: `DELETE ${teamPath}/:team/members/:id`, permission: "can_change_teams", setup: withMember },
  { route: `GET ${teamPath}/:team/invites`, permission: "can_change_teams", setup: withInvite },
  {
    route: `POST ${teamPath}/:team/invites`,
    permission: "can_change_teams",
    setup: async (w) => ({ ...(await aTeam(w)), body: { email: "new@example.org" } }),
  },
  { route: `GET ${teamPath}/:team/invites/:id`, permission: "can_change_teams", setup: withInvite },
  { route: `DELETE ${teamPath}/:team/invites/:id`, permission: "can_change_teams", setup: withInvite },
  { route: `GET ${teamPath}/:team/tokens`, permission: "can_change_teams", setup: withToken },
  {
    route: `POST ${teamPath}/:team/tokens`,
    permission: "can_change_teams",
    setup: async (w) => ({ ...(await aTeam(w)), body: { name: "Scanner" } }),
  },
  { route: `GET ${teamPath}/:team/tokens/:id`, permission: "can_change_teams", setup: withToken },
  // deleting a token deactivates it and answers with it (pretix)
  { route: `DELETE ${teamPath}/:team/tokens/:id`, permission: "can_change_teams", setup: withToken, status: 200 },
  {
    route: "POST /api/v1/upload",
    permission: null,
    device: "allow",
    setup: async () => ({
      raw: {
        body: "%PDF-1.4 minimal",
        headers: { "Content-Type": "application/pdf", "Content-Disposition": "attachment; filename=ticket.pdf" },
      },
    }),
  },
];
