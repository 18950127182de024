import { create } from "./fixtures";
import type { MatrixRow, SetupWorld } from "./types";

/**
 * Devices: the organizer's side needs can_change_organizer_settings (devices may not manage
 * devices); the device's own routes take device keys only, initialization no credentials.
 */
const devices = "/api/v1/organizers/:organizer/devices";
const perm = "can_change_organizer_settings";

const newDevice = (w: SetupWorld) => create(w, `${w.org}/devices`, { name: "Gate", all_events: true });
const hardware = {
  hardware_brand: "Zebra",
  hardware_model: "TC25",
  software_brand: "pretixSCAN",
  software_version: "1.21.0",
};
const deviceParams = async (w: SetupWorld) => ({ params: { device_id: String((await newDevice(w)).device_id) } });

export const rows: MatrixRow[] = [
  { route: `GET ${devices}`, permission: perm },
  { route: `POST ${devices}`, permission: perm, body: { name: "Gate", all_events: true } },
  { route: `GET ${devices}/:device_id`, permission: perm, setup: deviceParams },
  {
    route: `PATCH ${devices}/:device_id`,
    permission: perm,
    setup: async (w) => ({ ...(await deviceParams(w)), body: { name: "Renamed" } }),
  },
  { route: `GET ${devices}/:device_id/connect`, permission: perm, setup: deviceParams },
  {
    route: "POST /api/v1/device/initialize",
    permission: null,
    auth: "none",
    device: "allow",
    status: 200,
    setup: async (w) => ({ body: { token: (await newDevice(w)).initialization_token, ...hardware } }),
  },
  {
    route: "POST /api/v1/device/update",
    permission: null,
    auth: "device",
    status: 200,
    body: { ...hardware, info: {} },
  },
  { route: "GET /api/v1/device/info", permission: null, auth: "device" },
  { route: "POST /api/v1/device/roll", permission: null, auth: "device", ownDevice: true, status: 200 },
  { route: "POST /api/v1/device/revoke", permission: null, auth: "device", ownDevice: true, status: 200 },
];
