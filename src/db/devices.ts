/**
 * Devices (docs/api.md; pretix docs devices.rst, deviceauth.rst): the organizer's devices with
 * the slugs of the events they are limited to, and the conditional writes of device
 * authentication. Every organizer-side statement is scoped by the organizer; every write of a
 * device's own routes is conditional on the key it presented, so a key that was rolled or
 * revoked meanwhile changes nothing.
 */
import { and, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type Page } from "./paging";
import { deviceEvents, devices, events, organizers } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type DeviceRow = typeof devices.$inferSelect;

/** A device with the slugs of its events (`limitEvents`: a JSON list, sorted). */
export type DeviceRecord = { device: DeviceRow; limitEvents: string };

/** What the organizer sets on a device. */
export type DeviceValues = { name: string; allEvents: boolean; securityProfile: string };

/** What a device reports about itself (initialize, update). */
export type DeviceHardware = {
  hardwareBrand: string;
  hardwareModel: string;
  softwareBrand: string;
  softwareVersion: string;
  info: Record<string, unknown> | null;
};

const deviceWithEvents = {
  device: devices,
  // written out: drizzle renders columns unqualified in single-table selects
  limitEvents: sql<string>`(SELECT json_group_array(slug) FROM (SELECT e.slug FROM device_events de JOIN events e ON e.id = de.event_id WHERE de.device_id = "devices"."id" ORDER BY e.slug))`,
};

function ofOrganizer(organizerId: number, deviceId: number | SQL) {
  return and(eq(devices.organizerId, organizerId), eq(devices.deviceId, deviceId));
}

function deviceQuery(db: DB, where: SQL | undefined) {
  return db.select(deviceWithEvents).from(devices).where(where).limit(1);
}

/** A page of the organizer's devices, by device id. */
export function listDevices(db: DB, organizerId: number, req: ListRequest): Promise<Page<DeviceRecord>> {
  const where = eq(devices.organizerId, organizerId);
  const rows = db.select(deviceWithEvents).from(devices).where(where).orderBy(devices.deviceId).$dynamic();
  return fetchPage(db, { rows, count: { from: devices, where } }, req);
}

export function findDevice(db: DB, organizerId: number, deviceId: number): Promise<DeviceRecord | undefined> {
  return deviceQuery(db, ofOrganizer(organizerId, deviceId)).get();
}

/** Links a device (its row id, or a subquery finding it) to events, in statements of at most 100 parameters. */
function eventLinks(db: DB, device: SQL, organizerId: number, eventIds: number[]) {
  return chunks(eventIds, MAX_PARAMS - 5).map((part) =>
    db.insert(deviceEvents).select(
      db
        .select({ deviceId: device.as("device_id"), eventId: events.id })
        .from(events)
        .where(and(eq(events.organizerId, organizerId), inArray(events.id, part))),
    ),
  );
}

function run(db: DB, statements: BatchItem<"sqlite">[]) {
  return db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]) as Promise<unknown[]>;
}

/**
 * Creates a device with the next device id of its organizer and its event list, and reads it
 * back: one batch (one transaction, one round trip).
 */
export async function insertDevice(
  db: DB,
  organizerId: number,
  values: DeviceValues & { uniqueSerial: string; initializationToken: string; createdAt: number },
  eventIds: number[],
): Promise<DeviceRecord> {
  const nextId = sql<number>`(SELECT coalesce(max(device_id), 0) + 1 FROM devices WHERE organizer_id = ${organizerId})`;
  const created = sql`(SELECT id FROM devices WHERE unique_serial = ${values.uniqueSerial})`;
  const results = await run(db, [
    db.insert(devices).values({ ...values, organizerId, deviceId: nextId }),
    ...eventLinks(db, created, organizerId, eventIds),
    deviceQuery(db, eq(devices.uniqueSerial, values.uniqueSerial)),
  ]);
  return (results[results.length - 1] as DeviceRecord[])[0]!;
}

/**
 * Changes a device of the organizer; `eventIds` replaces its event list when given. Returns the
 * device afterwards (undefined: no such device), in one batch.
 */
export async function updateDevice(
  db: DB,
  organizerId: number,
  deviceId: number,
  values: Partial<DeviceValues>,
  eventIds: number[] | undefined,
): Promise<DeviceRecord | undefined> {
  const statements: BatchItem<"sqlite">[] = [];
  if (Object.keys(values).length)
    statements.push(db.update(devices).set(values).where(ofOrganizer(organizerId, deviceId)));
  if (eventIds) {
    const row = sql`(SELECT id FROM devices WHERE organizer_id = ${organizerId} AND device_id = ${deviceId})`;
    statements.push(db.delete(deviceEvents).where(sql`${deviceEvents.deviceId} = ${row}`));
    statements.push(...eventLinks(db, row, organizerId, eventIds));
  }
  const results = await run(db, [...statements, deviceQuery(db, ofOrganizer(organizerId, deviceId))]);
  return (results[results.length - 1] as DeviceRecord[])[0];
}

// ---- device authentication ----

/** A device as its own routes answer it: the row and its organizer's slug. */
export type DeviceCredentialRow = { device: DeviceRow; organizer: string };

function organizerSlugOf(db: DB, organizerId: SQL | number) {
  return db.select({ slug: organizers.slug }).from(organizers).where(eq(organizers.id, organizerId));
}

async function withOrganizer(
  db: DB,
  write: BatchItem<"sqlite">,
  organizerId: SQL | number,
): Promise<DeviceCredentialRow | undefined> {
  const [rows, slugs] = (await run(db, [write, organizerSlugOf(db, organizerId)])) as [DeviceRow[], { slug: string }[]];
  const device = rows[0];
  return device && { device, organizer: slugs[0]!.slug };
}

/**
 * Initializes the device of an unused initialization token: sets its hardware, `initialized`
 * and the hash of its first key, only while the token is unused and the device not revoked
 * (one conditional write: of two simultaneous uses exactly one succeeds). Undefined when the
 * token is unknown, used or revoked.
 */
export function initializeDeviceRow(
  db: DB,
  token: string,
  hardware: DeviceHardware,
  apiTokenHash: string,
  now: number,
) {
  const write = db
    .update(devices)
    .set({ ...hardware, initialized: now, apiTokenHash })
    .where(and(eq(devices.initializationToken, token), isNull(devices.initialized), eq(devices.revoked, false)))
    .returning();
  return withOrganizer(db, write, sql`(SELECT organizer_id FROM devices WHERE initialization_token = ${token})`);
}

/** The device of an initialization token, to tell why it cannot be used. */
export function deviceByInitializationToken(db: DB, token: string) {
  return db
    .select({ initialized: devices.initialized, revoked: devices.revoked })
    .from(devices)
    .where(eq(devices.initializationToken, token))
    .get();
}

/** The condition of every write of a device's own routes: still this key, not revoked. */
function sameKey(id: number, keyHash: string) {
  return and(eq(devices.id, id), eq(devices.apiTokenHash, keyHash), eq(devices.revoked, false));
}

/** The device of a key that is still valid (undefined: rolled or revoked meanwhile). */
export function deviceOfKey(db: DB, id: number, organizerId: number, keyHash: string) {
  return withOrganizer(db, db.select().from(devices).where(sameKey(id, keyHash)), organizerId);
}

/** Stores what the device reports about itself while its key is still valid. */
export function updateDeviceHardware(
  db: DB,
  id: number,
  organizerId: number,
  keyHash: string,
  hardware: DeviceHardware,
) {
  return withOrganizer(db, db.update(devices).set(hardware).where(sameKey(id, keyHash)).returning(), organizerId);
}

/** Replaces the device's key (the old one is invalid from this write on). */
export function replaceDeviceKey(db: DB, id: number, organizerId: number, keyHash: string, newKeyHash: string) {
  return withOrganizer(
    db,
    db.update(devices).set({ apiTokenHash: newKeyHash }).where(sameKey(id, keyHash)).returning(),
    organizerId,
  );
}

/** Revokes the device for good (its key stays stored, so it is told it was revoked). */
export function revokeDeviceRow(db: DB, id: number, organizerId: number, keyHash: string) {
  return withOrganizer(
    db,
    db.update(devices).set({ revoked: true }).where(sameKey(id, keyHash)).returning(),
    organizerId,
  );
}
