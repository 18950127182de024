import type { MatrixRow } from "./types";

/**
 * Items, variations, add-ons, bundles, categories: reading needs access to the event (devices
 * may read), writing needs can_change_items (devices may not). Membership types: reading with
 * access to the organizer, writing needs can_change_organizer_settings.
 */
const event = "/api/v1/organizers/:organizer/events/:event";
const items = `${event}/items`;

function crud(base: string, permission: "can_change_items" | "can_change_organizer_settings"): MatrixRow[] {
  return [
    { route: `GET ${base}`, permission: null },
    { route: `POST ${base}`, permission },
    { route: `GET ${base}/:id`, permission: null },
    { route: `PUT ${base}/:id`, permission },
    { route: `PATCH ${base}/:id`, permission },
    { route: `DELETE ${base}/:id`, permission },
  ];
}

export const rows: MatrixRow[] = [
  ...crud(items, "can_change_items"),
  ...crud(`${items}/:item/variations`, "can_change_items"),
  ...crud(`${items}/:item/addons`, "can_change_items"),
  ...crud(`${items}/:item/bundles`, "can_change_items"),
  ...crud(`${event}/categories`, "can_change_items"),
  { route: `DELETE ${event}/category/:id`, permission: "can_change_items" },
  ...crud("/api/v1/organizers/:organizer/membershiptypes", "can_change_organizer_settings"),
];
