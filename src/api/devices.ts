/**
 * Devices, the organizer's side (docs/api.md; pretix docs devices.rst): list, detail,
 * create, PATCH, and the setup content of a new device's QR code. Everything needs
 * can_change_organizer_settings, as in pretix; devices never manage devices.
 */
import { Hono } from "hono";
import { z } from "zod";
import { listDevices, findDevice, type DeviceRecord } from "../services/checkin/checkin-reads";
import { changeDevice, createDevice, deviceChangeInput, deviceInput, deviceSetup } from "../services/checkin/devices";
import { notFound } from "../lib/failure";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, id, url } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { toIso } from "../lib/datetime";

/** The device resource (docs/api.md). */
export const deviceResponse = z
  .object({
    device_id: id(),
    unique_serial: z.string(),
    name: z.string(),
    all_events: z.boolean(),
    limit_events: z.array(z.string()),
    hardware_brand: z.string().nullable(),
    hardware_model: z.string().nullable(),
    software_brand: z.string().nullable(),
    software_version: z.string().nullable(),
    created: dateTime(),
    initialized: dateTime().nullable(),
    initialization_token: z.string(),
    revoked: z.boolean(),
    security_profile: z.string(),
  })
  .meta({ id: "Device" });
export type DeviceResponse = z.infer<typeof deviceResponse>;

export function serializeDevice(r: DeviceRecord): DeviceResponse {
  const d = r.device;
  return {
    device_id: d.deviceId,
    unique_serial: d.uniqueSerial,
    name: d.name,
    all_events: d.allEvents,
    limit_events: JSON.parse(r.limitEvents) as string[],
    hardware_brand: d.hardwareBrand,
    hardware_model: d.hardwareModel,
    software_brand: d.softwareBrand,
    software_version: d.softwareVersion,
    created: toIso(d.createdAt),
    initialized: toIso(d.initialized),
    initialization_token: d.initializationToken,
    revoked: d.revoked,
    security_profile: d.securityProfile,
  };
}

/** The setup QR code's content (pretix deviceauth.rst): a pretix client scans exactly this JSON. */
export const deviceSetupResponse = z.object({ handshake_version: z.literal(1), url: url(), token: z.string() });

export const deviceRoutes = new Hono<AppEnv>();
const doc = apiDocs("Devices");
const scope = organizerScope("can_change_organizer_settings");
const base = "/organizers/:organizer/devices";

deviceRoutes.get(base, scope, doc.list(deviceResponse, { summary: "List devices" }), async (c) => {
  const req = listRequest(c);
  return respondPage(c, req, await listDevices(organizerContext(c), req), serializeDevice);
});

deviceRoutes.post(
  base,
  scope,
  doc.created(deviceResponse, { summary: "Create a device" }),
  jsonBody(deviceInput),
  async (c) => {
    return c.json(serializeDevice(await createDevice(organizerContext(c), c.req.valid("json"))), 201);
  },
);

deviceRoutes.get(`${base}/:device_id`, scope, doc.ok(deviceResponse, { summary: "Device detail" }), async (c) => {
  const r = await findDevice(organizerContext(c), pathId(c, "device_id"));
  if (!r) throw notFound();
  return c.json(serializeDevice(r));
});

deviceRoutes.patch(
  `${base}/:device_id`,
  scope,
  doc.ok(deviceResponse, { summary: "Change a device" }),
  jsonBody(deviceChangeInput),
  async (c) => {
    return c.json(
      serializeDevice(await changeDevice(organizerContext(c), pathId(c, "device_id"), c.req.valid("json"))),
    );
  },
);

deviceRoutes.get(
  `${base}/:device_id/connect`,
  scope,
  doc.ok(deviceSetupResponse, { summary: "The content of a new device's setup QR code" }),
  async (c) => {
    const setup: z.infer<typeof deviceSetupResponse> = await deviceSetup(organizerContext(c), pathId(c, "device_id"));
    return c.json(setup);
  },
);
