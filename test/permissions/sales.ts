import type { MatrixRow } from "./types";

const ev = "/api/v1/organizers/:organizer/events/:event";

export const rows: MatrixRow[] = [
  { route: `GET ${ev}/quotas`, permission: null },
  { route: `POST ${ev}/quotas`, permission: "can_change_items" },
  { route: `GET ${ev}/quotas/:id`, permission: null },
  { route: `PUT ${ev}/quotas/:id`, permission: "can_change_items" },
  { route: `PATCH ${ev}/quotas/:id`, permission: "can_change_items" },
  { route: `DELETE ${ev}/quotas/:id`, permission: "can_change_items" },
  { route: `DELETE ${ev}/quota/:id`, permission: "can_change_items" },
  { route: `GET ${ev}/quotas/:id/availability`, permission: null },
  { route: `GET ${ev}/vouchers`, permission: "can_view_vouchers" },
  { route: `POST ${ev}/vouchers`, permission: "can_change_vouchers" },
  { route: `POST ${ev}/vouchers/batch_create`, permission: "can_change_vouchers", body: [] },
  { route: `GET ${ev}/vouchers/:id`, permission: "can_view_vouchers" },
  { route: `PUT ${ev}/vouchers/:id`, permission: "can_change_vouchers" },
  { route: `PATCH ${ev}/vouchers/:id`, permission: "can_change_vouchers" },
  { route: `DELETE ${ev}/vouchers/:id`, permission: "can_change_vouchers" },
];
