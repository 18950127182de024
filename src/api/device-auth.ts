/**
 * Device authentication (docs/api.md; pretix docs deviceauth.rst):
 * `initialize` takes no credentials (it is one of the app's public paths); `update`, `info`,
 * `roll` and `revoke` take a device key only (a team key: 401, as pretix answers).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  type DeviceCredential,
  type DeviceSession,
  deviceInfo,
  deviceUpdateInput,
  initializeDevice,
  initializeInput,
  revokeDevice,
  rollDeviceKey,
  SERVER_VERSION,
  updateDeviceInfo,
} from "../services/checkin/devices";
import { parseAuthorization } from "../http/auth";
import type { AppContext, AppEnv } from "../http/context";
import { id } from "../http/responses";
import { deviceScope, publicScope } from "../http/tenancy";
import { apiDocs } from "../http/openapi";
import { jsonBody } from "../http/validation";
import { deviceResponse } from "./devices";

/**
 * The device credential response (docs/api.md): plus `security_profile`, which pretix sends
 * too and pretixSCAN reads at setup to switch off order sync and search for the online-only
 * profiles. `gate` is always null (docs/open-points.md).
 */
const { device_id, unique_serial, name, security_profile } = deviceResponse.shape;
export const deviceCredentialResponse = z
  .object({
    organizer: z.string(),
    device_id,
    unique_serial,
    api_token: z.string(),
    name,
    security_profile,
    gate: z.object({ id: id(), name: z.string() }).nullable(),
  })
  .meta({ id: "DeviceCredential" });
export type DeviceCredentialResponse = z.infer<typeof deviceCredentialResponse>;

/** GET /device/info: the device, and the server version pretix's clients choose endpoints by. */
export const deviceInfoResponse = z.object({
  device: deviceCredentialResponse,
  server: z.object({ version: z.object({ pretix: z.string(), pretix_numeric: z.number().int() }) }),
});

export function serializeDeviceCredential(r: DeviceCredential): DeviceCredentialResponse {
  return {
    organizer: r.organizer,
    device_id: r.device.deviceId,
    unique_serial: r.device.uniqueSerial,
    api_token: r.apiToken,
    name: r.device.name,
    security_profile: r.device.securityProfile,
    gate: null,
  };
}

/** The calling device (deviceScope made sure it is one). */
function session(c: AppContext): DeviceSession {
  const p = c.var.principal;
  return {
    db: c.var.db,
    deviceRowId: p.deviceId!,
    organizerId: p.organizerId,
    key: parseAuthorization(c.req.header("Authorization")).credential,
    keyHash: p.credentialHash,
  };
}

export const deviceAuthRoutes = new Hono<AppEnv>();
const doc = apiDocs("Device authentication");
const base = "/device";

deviceAuthRoutes.post(
  `${base}/initialize`,
  publicScope(),
  doc.ok(deviceCredentialResponse, {
    summary: "Initialize a device",
    description: "With the initialization token of a device created by the organizer (its setup QR code).",
    failures: ["unavailable"],
  }),
  jsonBody(initializeInput),
  async (c) => {
    return c.json(serializeDeviceCredential(await initializeDevice(c.var.db, Date.now(), c.req.valid("json"))));
  },
);

deviceAuthRoutes.post(
  `${base}/update`,
  deviceScope(),
  doc.ok(deviceCredentialResponse, { summary: "Update the device's hardware and software information" }),
  jsonBody(deviceUpdateInput),
  async (c) => {
    return c.json(serializeDeviceCredential(await updateDeviceInfo(session(c), c.req.valid("json"))));
  },
);

deviceAuthRoutes.get(
  `${base}/info`,
  deviceScope(),
  doc.ok(deviceInfoResponse, { summary: "The device and the server version" }),
  async (c) => {
    const body: z.infer<typeof deviceInfoResponse> = {
      device: serializeDeviceCredential(await deviceInfo(session(c))),
      server: { version: { ...SERVER_VERSION } },
    };
    return c.json(body);
  },
);

deviceAuthRoutes.post(
  `${base}/roll`,
  deviceScope(),
  doc.ok(deviceCredentialResponse, {
    summary: "Replace the device's API token",
    description: "The answer holds the new token; the old one stops working at once.",
  }),
  async (c) => c.json(serializeDeviceCredential(await rollDeviceKey(session(c)))),
);

deviceAuthRoutes.post(
  `${base}/revoke`,
  deviceScope(),
  doc.ok(deviceCredentialResponse, { summary: "Revoke the device's own access" }),
  async (c) => c.json(serializeDeviceCredential(await revokeDevice(session(c)))),
);
