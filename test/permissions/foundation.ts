import type { MatrixRow } from "./types";

const team = "/api/v1/organizers/:organizer/teams";

export const rows: MatrixRow[] = [
  { route: "GET /api/v1/organizers", permission: null, device: "allow" },
  { route: "GET /api/v1/organizers/:organizer", permission: null, device: "allow" },
  { route: "GET /api/v1/organizers/:organizer/settings", permission: "can_change_organizer_settings" },
  { route: "PATCH /api/v1/organizers/:organizer/settings", permission: "can_change_organizer_settings" },
  { route: `GET ${team}`, permission: "can_change_teams" },
  { route: `POST ${team}`, permission: "can_change_teams" },
  { route: `GET ${team}/:team`, permission: "can_change_teams" },
  { route: `PUT ${team}/:team`, permission: "can_change_teams" },
  { route: `PATCH ${team}/:team`, permission: "can_change_teams" },
  { route: `DELETE ${team}/:team`, permission: "can_change_teams" },
  { route: `GET ${team}/:team/members`, permission: "can_change_teams" },
  { route: `GET ${team}/:team/members/:id`, permission: "can_change_teams" },
  { route: `DELETE ${team}/:team/members/:id`, permission: "can_change_teams" },
  { route: `GET ${team}/:team/invites`, permission: "can_change_teams" },
  { route: `POST ${team}/:team/invites`, permission: "can_change_teams" },
  { route: `GET ${team}/:team/invites/:id`, permission: "can_change_teams" },
  { route: `DELETE ${team}/:team/invites/:id`, permission: "can_change_teams" },
  { route: `GET ${team}/:team/tokens`, permission: "can_change_teams" },
  { route: `POST ${team}/:team/tokens`, permission: "can_change_teams" },
  { route: `GET ${team}/:team/tokens/:id`, permission: "can_change_teams" },
  { route: `DELETE ${team}/:team/tokens/:id`, permission: "can_change_teams" },
  { route: "POST /api/v1/upload", permission: null, device: "allow" },
];
