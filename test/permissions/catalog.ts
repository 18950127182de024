import type { Permission } from "../../src/domain/permissions";
import type { MatrixRow } from "./types";

const ev = "/api/v1/organizers/:organizer/events/:event";

/** GET list and detail with `read`; POST, PUT, PATCH, DELETE with `write`. */
function crud(base: string, read: Permission | null, write: Permission): MatrixRow[] {
  return [
    { route: `GET ${base}`, permission: read },
    { route: `POST ${base}`, permission: write },
    { route: `GET ${base}/:id`, permission: read },
    { route: `PUT ${base}/:id`, permission: write },
    { route: `PATCH ${base}/:id`, permission: write },
    { route: `DELETE ${base}/:id`, permission: write },
  ];
}

export const rows: MatrixRow[] = [
  ...crud(`${ev}/taxrules`, null, "can_change_event_settings"),
  ...crud(`${ev}/questions`, null, "can_change_items"),
  ...crud(`${ev}/questions/:question/options`, null, "can_change_items"),
  ...crud(`${ev}/discounts`, null, "can_change_items"),
  { route: `DELETE ${ev}/discount/:id`, permission: "can_change_items" },
  ...crud(`${ev}/sendmail_rules`, "can_change_event_settings", "can_change_event_settings"),
  ...crud(`${ev}/ticketlayouts`, null, "can_change_event_settings"),
  { route: `GET ${ev}/ticketlayoutitems`, permission: null },
  { route: `POST ${ev}/ticketlayoutitems`, permission: "can_change_items" },
  { route: `GET ${ev}/ticketlayoutitems/:id`, permission: null },
  { route: `DELETE ${ev}/ticketlayoutitems/:id`, permission: "can_change_items" },
  ...crud("/api/v1/organizers/:organizer/seatingplans", "can_change_organizer_settings", "can_change_organizer_settings"),
];
