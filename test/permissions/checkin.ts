import type { MatrixRow } from "./types";

const ev = "/api/v1/organizers/:organizer/events/:event";
const org = "/api/v1/organizers/:organizer";

/**
 * Check-in (pretix checkinlists.rst, checkin.rst). Reading lists and tickets needs
 * can_view_orders, scanning and reporting failed scans can_change_orders (pretix also accepts
 * can_checkin_orders there; the permission layer takes one permission per route), changing
 * lists can_change_event_settings. Devices read and scan, never change lists.
 */
export const rows: MatrixRow[] = [
  { route: `GET ${ev}/checkinlists`, permission: "can_view_orders" },
  { route: `POST ${ev}/checkinlists`, permission: "can_change_event_settings" },
  { route: `GET ${ev}/checkinlists/:id`, permission: "can_view_orders" },
  { route: `GET ${ev}/checkinlists/:id/status`, permission: "can_view_orders" },
  { route: `PUT ${ev}/checkinlists/:id`, permission: "can_change_event_settings" },
  { route: `PATCH ${ev}/checkinlists/:id`, permission: "can_change_event_settings" },
  { route: `DELETE ${ev}/checkinlists/:id`, permission: "can_change_event_settings" },
  { route: `DELETE ${ev}/checkinlist/:id`, permission: "can_change_event_settings" },
  { route: `POST ${ev}/checkinlists/:list/failed_checkins`, permission: "can_change_orders" },
  { route: `GET ${ev}/checkinlists/:list/positions`, permission: "can_view_orders" },
  { route: `GET ${ev}/checkinlists/:list/positions/:id`, permission: "can_view_orders" },
  { route: `POST ${ev}/checkinlists/:list/positions/:id/redeem`, permission: "can_change_orders" },
  { route: `GET ${ev}/checkins`, permission: "can_view_orders" },
  { route: `POST ${org}/checkinrpc/redeem`, permission: "can_change_orders" },
  { route: `GET ${org}/checkinrpc/search`, permission: "can_view_orders" },
  { route: "GET /api/v1/device/eventselection", permission: null, deviceOnly: true },
  // pretixSCAN's sync (docs/clients.md): resources of features the service does not have
  { route: `GET ${ev}/revokedsecrets`, permission: "can_view_orders" },
  { route: `GET ${ev}/blockedsecrets`, permission: "can_view_orders" },
  { route: `GET ${ev}/badgelayouts`, permission: "can_view_orders" },
  { route: `GET ${ev}/badgeitems`, permission: "can_view_orders" },
  { route: `GET ${org}/reusablemedia`, permission: "can_view_orders" },
];
