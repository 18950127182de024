/**
 * Devices and device authentication (docs/api.md; pretix docs devices.rst, deviceauth.rst). The organizer creates a
 * device and gets its initialization token (also as the QR setup content); the device trades
 * the token once for a key, which is stored only as its SHA-256; it reports its hardware,
 * rolls its key and revokes itself. What a device may call is its fixed grant, its events and
 * its security profile (rules/permissions.ts), checked by the permission layer.
 */
import { z } from "zod";
import {
  type DeviceCredentialRow,
  type DeviceHardware,
  type DeviceRecord,
  type DeviceValues,
  deviceByInitializationToken,
  deviceOfKey,
  findDevice,
  initializeDeviceRow,
  insertDevice,
  replaceDeviceKey,
  revokeDeviceRow,
  updateDevice,
  updateDeviceHardware,
} from "../../db/devices";
import type { DB } from "../../db/client";
import { eventIdsBySlug } from "../../db/teams";
import { randomString, sha256Hex } from "../../lib/crypto";
import { newApiToken, organizerSecret, secretOrganizer } from "../../lib/organizer-credentials";
import type { OrganizerContext } from "../context";
import { Failure, fieldError, MESSAGES, notFound } from "../../lib/failure";
import { DEVICE_SECURITY_PROFILES } from "../../rules/permissions";

// ---- the organizer's side ----

const text190 = () => z.string().min(1).max(190);

/** POST body: `name` required; `all_events` (default false), `limit_events` (default none), `security_profile` (default `full`). */
export const deviceInput = z.object({
  name: text190(),
  all_events: z.boolean().optional(),
  limit_events: z.array(z.string()).optional(),
  security_profile: z.enum(DEVICE_SECURITY_PROFILES).optional(),
});
export type DeviceInput = z.output<typeof deviceInput>;

/** PATCH body: the same fields, each optional. Read-only fields (hardware, software, token, ...) are ignored, as pretix does. */
export const deviceChangeInput = deviceInput.partial();
export type DeviceChangeInput = z.output<typeof deviceChangeInput>;

/** The organizer's events of the slugs; an unknown slug is a field error of `limit_events`. */
async function limitEventIds(ctx: OrganizerContext, slugs: string[]): Promise<number[]> {
  const unique = [...new Set(slugs)];
  const ids = await eventIdsBySlug(ctx.db, ctx.organizer.id, unique);
  const missing = unique.find((s) => !ids.has(s));
  if (missing !== undefined) throw fieldError("limit_events", `Object with slug=${missing} does not exist.`);
  return unique.map((s) => ids.get(s)!);
}

/** pretix's formats: a 16-character serial of capitals and digits, a 16-character token of small letters and digits. */
const SERIAL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export async function createDevice(ctx: OrganizerContext, input: DeviceInput): Promise<DeviceRecord> {
  const eventIds = await limitEventIds(ctx, input.limit_events ?? []);
  return insertDevice(
    ctx.db,
    ctx.organizer.id,
    {
      name: input.name,
      allEvents: input.all_events ?? false,
      securityProfile: input.security_profile ?? "full",
      uniqueSerial: randomString(16, SERIAL_ALPHABET),
      initializationToken: organizerSecret(16, ctx.organizer.id),
      createdAt: ctx.now,
    },
    eventIds,
  );
}

export async function changeDevice(
  ctx: OrganizerContext,
  deviceId: number,
  input: DeviceChangeInput,
): Promise<DeviceRecord> {
  const values: Partial<DeviceValues> = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.all_events !== undefined) values.allEvents = input.all_events;
  if (input.security_profile !== undefined) values.securityProfile = input.security_profile;
  const eventIds = input.limit_events === undefined ? undefined : await limitEventIds(ctx, input.limit_events);
  const after = await updateDevice(ctx.db, ctx.organizer.id, deviceId, values, eventIds);
  if (!after) throw notFound();
  return after;
}

/** The content of the setup QR code pretix shows for a new device (deviceauth.rst). */
export type DeviceSetup = { handshake_version: 1; url: string; token: string };

/**
 * The setup content of a device that has not been initialized: the handshake version pretix's
 * clients accept, the service's base URL (the clients append `/api/v1/device/initialize`) and
 * the initialization token. An initialized (or revoked) device has none: 404.
 */
export async function deviceSetup(ctx: OrganizerContext, deviceId: number): Promise<DeviceSetup> {
  const r = await findDevice(ctx.db, ctx.organizer.id, deviceId);
  if (!r) throw notFound();
  if (r.device.initialized !== null)
    throw notFound("This device has already been initialized; its initialization token cannot be used again.");
  if (r.device.revoked) throw notFound("This device has been revoked.");
  return { handshake_version: 1, url: ctx.baseUrl, token: r.device.initializationToken };
}

// ---- the device's side ----

/**
 * The server version device info reports (`server.version`, pretix's numbering). pretix's
 * clients choose endpoints by it: 4.12.0.dev1 or later makes pretixSCAN redeem through
 * `checkinrpc/redeem` (several lists at once); 3.9 or later offers exit scans. The service
 * claims 4.17.0, the last version whose fields docs/api.md records.
 */
export const SERVER_VERSION = { pretix: "4.17.0", pretix_numeric: 40170005000 } as const;

const hardwareFields = {
  hardware_brand: text190(),
  hardware_model: text190(),
  software_brand: text190(),
  software_version: text190(),
  /** Free object describing the device (docs/api.md); pretix stores it, nothing reads it. */
  info: z.record(z.string(), z.unknown()).nullable().optional(),
};

/** POST /device/initialize: the token and what the device is (pretix's `os_name`, `os_version`, `rsa_pubkey` are ignored). */
export const initializeInput = z.object({ token: text190(), ...hardwareFields });
export type InitializeInput = z.output<typeof initializeInput>;

/** POST /device/update: what the device is now. */
export const deviceUpdateInput = z.object(hardwareFields);
export type DeviceUpdateInput = z.output<typeof deviceUpdateInput>;

function hardware(input: DeviceUpdateInput): DeviceHardware {
  return {
    hardwareBrand: input.hardware_brand,
    hardwareModel: input.hardware_model,
    softwareBrand: input.software_brand,
    softwareVersion: input.software_version,
    info: input.info ?? null,
  };
}

/** A device with its organizer and the key it holds (the credential response, docs/api.md). */
export type DeviceCredential = DeviceCredentialRow & { apiToken: string };

/** The device calling its own routes: the device, its organizer, and the key it presented. */
export type DeviceSession = { db: DB; deviceRowId: number; organizerId: number; key: string; keyHash: string };

/** A key that was rolled or revoked between authentication and the write: as if it had failed authentication. */
const stale = () => new Failure("unauthenticated", MESSAGES.invalidToken);

/**
 * Trades an initialization token for the device's first key. Each token works once: an
 * unknown, used or revoked token is a field error of `token` (pretix's messages).
 */
export async function initializeDevice(db: DB, now: number, input: InitializeInput): Promise<DeviceCredential> {
  // the key names the organizer the token names (a token made before organizer groups names none)
  const organizerId = secretOrganizer(input.token);
  const key = organizerId === null ? randomString(64) : newApiToken(organizerId);
  const done = await initializeDeviceRow(db, input.token, hardware(input), await sha256Hex(key), now);
  if (done) return { ...done, apiToken: key };
  const found = await deviceByInitializationToken(db, input.token);
  if (!found) throw fieldError("token", "Unknown initialization token.");
  if (found.initialized !== null) throw fieldError("token", "This initialization token has already been used.");
  throw fieldError("token", "This initialization token has been revoked.");
}

export async function updateDeviceInfo(s: DeviceSession, input: DeviceUpdateInput): Promise<DeviceCredential> {
  const after = await updateDeviceHardware(s.db, s.deviceRowId, s.organizerId, s.keyHash, hardware(input));
  if (!after) throw stale();
  return { ...after, apiToken: s.key };
}

export async function deviceInfo(s: DeviceSession): Promise<DeviceCredential> {
  const found = await deviceOfKey(s.db, s.deviceRowId, s.organizerId, s.keyHash);
  if (!found) throw stale();
  return { ...found, apiToken: s.key };
}

/** A new key for the device; the presented one is invalid from now on. */
export async function rollDeviceKey(s: DeviceSession): Promise<DeviceCredential> {
  const key = newApiToken(s.organizerId);
  const after = await replaceDeviceKey(s.db, s.deviceRowId, s.organizerId, s.keyHash, await sha256Hex(key));
  if (!after) throw stale();
  return { ...after, apiToken: key };
}

/** Revokes the device: irreversible; its key is refused from the next request on ("Device access has been revoked."). */
export async function revokeDevice(s: DeviceSession): Promise<DeviceCredential> {
  const after = await revokeDeviceRow(s.db, s.deviceRowId, s.organizerId, s.keyHash);
  if (!after) throw stale();
  return { ...after, apiToken: s.key };
}
