import type { MatrixRow } from "./types";

/**
 * Devices: the organizer's side needs can_change_organizer_settings (devices may not manage
 * devices); the device's own routes take device keys only, initialization no credentials.
 */
const devices = "/api/v1/organizers/:organizer/devices";
const perm = "can_change_organizer_settings";

export const rows: MatrixRow[] = [
  { route: `GET ${devices}`, permission: perm },
  { route: `POST ${devices}`, permission: perm },
  { route: `GET ${devices}/:device_id`, permission: perm },
  { route: `PATCH ${devices}/:device_id`, permission: perm },
  { route: `GET ${devices}/:device_id/connect`, permission: perm },
  { route: "POST /api/v1/device/initialize", permission: null, auth: "none", device: "allow" },
  { route: "POST /api/v1/device/update", permission: null, auth: "device" },
  { route: "GET /api/v1/device/info", permission: null, auth: "device" },
  { route: "POST /api/v1/device/roll", permission: null, auth: "device", ownDevice: true },
  { route: "POST /api/v1/device/revoke", permission: null, auth: "device", ownDevice: true },
];
