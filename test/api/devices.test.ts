/** Devices, the organizer's side: list, detail, create, PATCH, the setup QR content. */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { deviceEvents, devices } from "../../src/db/schema";
import { anonymous, BASE, db, seedEventRow, seedOrganizer, seedTeam } from "../harness";

const FIELDS = [
  "device_id",
  "unique_serial",
  "name",
  "all_events",
  "limit_events",
  "hardware_brand",
  "hardware_model",
  "software_brand",
  "software_version",
  "created",
  "initialized",
  "initialization_token",
  "revoked",
  "security_profile",
];

const HARDWARE = {
  hardware_brand: "Zebra",
  hardware_model: "TC25",
  software_brand: "pretixSCAN",
  software_version: "1.5.1",
};

function devicesUrl(org: { slug: string }) {
  return `/api/v1/organizers/${org.slug}/devices/`;
}

async function countDevices(organizerId: number) {
  return (await db().select().from(devices).where(eq(devices.organizerId, organizerId))).length;
}

describe("devices: create and read", () => {
  it("creates a device with the spec's fields: token answered, initialized and hardware null, 201", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "museum" });
    const before = Date.now();
    const res = await org.client.post(devicesUrl(org), {
      name: "Scanner",
      all_events: false,
      limit_events: ["museum"],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...FIELDS].sort());
    expect(res.body).toEqual({
      device_id: 1,
      unique_serial: expect.stringMatching(/^[A-Z0-9]{16}$/),
      name: "Scanner",
      all_events: false,
      limit_events: ["museum"],
      hardware_brand: null,
      hardware_model: null,
      software_brand: null,
      software_version: null,
      created: expect.any(String),
      initialized: null,
      initialization_token: expect.stringMatching(/^[a-z0-9]{16}$/),
      revoked: false,
      security_profile: "full",
    });
    expect(Date.parse(res.body.created)).toBeGreaterThanOrEqual(before - 1000);

    const read = await org.client.get(`${devicesUrl(org)}1/`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("numbers devices per organizer and lists them by device id with the page envelope", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await other.client.post(devicesUrl(other), { name: "Theirs" });
    for (const name of ["A", "B", "C"]) expect((await org.client.post(devicesUrl(org), { name })).status).toBe(201);

    const all = await org.client.get(devicesUrl(org));
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(3);
    expect(all.body.results.map((d: { device_id: number; name: string }) => [d.device_id, d.name])).toEqual([
      [1, "A"],
      [2, "B"],
      [3, "C"],
    ]);
    expect(all.body.next).toBeNull();

    const page = await org.client.get(`${devicesUrl(org)}?page_size=2&page=2`);
    expect(page.body.count).toBe(3);
    expect(page.body.results.map((d: { name: string }) => d.name)).toEqual(["C"]);
    expect(page.body.previous).toBe(`${BASE}${devicesUrl(org)}?page_size=2`);
    expect((await org.client.get(`${devicesUrl(org)}?page=3`)).status).toBe(404);

    // the other organizer's device 1 is not this organizer's device 1
    expect((await other.client.get(`${devicesUrl(other)}1/`)).body.name).toBe("Theirs");
    expect((await org.client.get(`${devicesUrl(org)}1/`)).body.name).toBe("A");
    expect((await org.client.get(`${devicesUrl(org)}4/`)).status).toBe(404);
  });

  it("accepts each of pretix's security profile names and refuses others with 400", async () => {
    const org = await seedOrganizer();
    for (const profile of ["full", "pretixscan", "pretixscan_online_kiosk", "pretixscan_online_noorders"]) {
      const res = await org.client.post(devicesUrl(org), { name: profile, security_profile: profile });
      expect(res.status).toBe(201);
      expect(res.body.security_profile).toBe(profile);
    }
    const before = await countDevices(org.id);
    const bad = await org.client.post(devicesUrl(org), { name: "X", security_profile: "pretixpos" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ security_profile: ['"pretixpos" is not a valid choice.'] });
    expect(await countDevices(org.id)).toBe(before);
  });

  it("refuses bad input with field errors and creates nothing", async () => {
    const org = await seedOrganizer();
    const mine = await seedEventRow(org.id, { slug: "mine" });
    const foreign = await seedOrganizer();
    await seedEventRow(foreign.id, { slug: "theirs" });
    const cases: [unknown, unknown][] = [
      [{}, { name: ["This field is required."] }],
      [{ name: "" }, { name: ["This field may not be blank."] }],
      [{ name: "X", limit_events: ["mine", "nope"] }, { limit_events: ["Object with slug=nope does not exist."] }],
      [{ name: "X", limit_events: ["theirs"] }, { limit_events: ["Object with slug=theirs does not exist."] }],
      [{ name: "X", all_events: "yes" }, { all_events: ["Must be a valid boolean."] }],
      [{ name: "X", limit_events: "mine" }, { limit_events: ['Expected a list of items but got type "str".'] }],
    ];
    for (const [body, errors] of cases) {
      const res = await org.client.post(devicesUrl(org), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect(await countDevices(org.id)).toBe(0);
    expect(await db().select().from(deviceEvents).where(eq(deviceEvents.eventId, mine.id))).toEqual([]);
  });

  it("needs can_change_organizer_settings (a team without it and anonymous callers are refused)", async () => {
    const org = await seedOrganizer();
    const viewer = await seedTeam(org.id, { permissions: ["can_view_orders", "can_change_teams"] });
    expect((await viewer.client.post(devicesUrl(org), { name: "X" })).status).toBe(403);
    expect((await viewer.client.get(devicesUrl(org))).status).toBe(403);
    expect((await anonymous.get(devicesUrl(org))).status).toBe(401);
    const allowed = await seedTeam(org.id, { permissions: ["can_change_organizer_settings"] });
    expect((await allowed.client.post(devicesUrl(org), { name: "X" })).status).toBe(201);
  });
});

describe("devices: PATCH", () => {
  it("changes name, all_events, limit_events and security_profile; only sent fields", async () => {
    const org = await seedOrganizer();
    const a = await seedEventRow(org.id, { slug: "a" });
    const b = await seedEventRow(org.id, { slug: "b" });
    const created = (await org.client.post(devicesUrl(org), { name: "Scanner", limit_events: ["a"] })).body;
    const url = `${devicesUrl(org)}${created.device_id}/`;

    const renamed = await org.client.patch(url, { name: "Door 1" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created, name: "Door 1" });

    const changed = await org.client.patch(url, {
      all_events: true,
      limit_events: ["b", "a", "b"],
      security_profile: "pretixscan",
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({
      ...created,
      name: "Door 1",
      all_events: true,
      limit_events: ["a", "b"],
      security_profile: "pretixscan",
    });
    const row = await db().select().from(devices).where(eq(devices.uniqueSerial, created.unique_serial)).get();
    const links = await db().select().from(deviceEvents).where(eq(deviceEvents.deviceId, row!.id));
    expect(links.map((l) => l.eventId).sort()).toEqual([a.id, b.id].sort());

    const cleared = await org.client.patch(url, { limit_events: [] });
    expect(cleared.body.limit_events).toEqual([]);
    expect(await db().select().from(deviceEvents).where(eq(deviceEvents.deviceId, row!.id))).toEqual([]);
    expect((await org.client.get(url)).body).toEqual(cleared.body);
  });

  it("ignores the read-only fields, as pretix does", async () => {
    const org = await seedOrganizer();
    const created = (await org.client.post(devicesUrl(org), { name: "Scanner" })).body;
    const url = `${devicesUrl(org)}${created.device_id}/`;
    const res = await org.client.patch(url, {
      ...HARDWARE,
      device_id: 99,
      unique_serial: "X",
      initialization_token: "abc",
      initialized: "2020-01-01T00:00:00Z",
      created: "2020-01-01T00:00:00Z",
      revoked: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
    expect((await org.client.get(url)).body).toEqual(created);
  });

  it("refuses unknown event slugs and profile names with 400 and changes nothing", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "a" });
    const created = (await org.client.post(devicesUrl(org), { name: "Scanner", limit_events: ["a"] })).body;
    const url = `${devicesUrl(org)}${created.device_id}/`;
    const slug = await org.client.patch(url, { name: "Renamed", limit_events: ["a", "zzz"] });
    expect(slug.status).toBe(400);
    expect(slug.body).toEqual({ limit_events: ["Object with slug=zzz does not exist."] });
    const profile = await org.client.patch(url, { name: "Renamed", security_profile: "admin" });
    expect(profile.status).toBe(400);
    expect(profile.body).toEqual({ security_profile: ['"admin" is not a valid choice.'] });
    expect((await org.client.get(url)).body).toEqual(created);
  });

  it("cannot be deleted (405, as pretix): the device stays as it was", async () => {
    const org = await seedOrganizer();
    const created = (await org.client.post(devicesUrl(org), { name: "Scanner" })).body;
    const url = `${devicesUrl(org)}${created.device_id}/`;
    const res = await org.client.delete(url);
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "DELETE" not allowed.' });
    expect(await countDevices(org.id)).toBe(1);
    expect((await org.client.get(url)).body).toEqual(created);
  });

  it("answers 404 for a device the organizer does not have", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await other.client.post(devicesUrl(other), { name: "Theirs" });
    const res = await org.client.patch(`${devicesUrl(org)}1/`, { name: "Mine now" });
    expect(res.status).toBe(404);
    expect((await other.client.get(`${devicesUrl(other)}1/`)).body.name).toBe("Theirs");
  });
});

describe("devices: setup QR content", () => {
  it("answers pretix's handshake for a new device and 404 once it is initialized", async () => {
    const org = await seedOrganizer();
    const created = (await org.client.post(devicesUrl(org), { name: "Scanner" })).body;
    const connect = `${devicesUrl(org)}${created.device_id}/connect/`;
    const setup = await org.client.get(connect);
    expect(setup.status).toBe(200);
    expect(setup.body).toEqual({ handshake_version: 1, url: BASE, token: created.initialization_token });

    // the QR content is all a pretix client needs: it posts to url + /api/v1/device/initialize
    const init = await anonymous.post(`${setup.body.url}/api/v1/device/initialize`, {
      token: setup.body.token,
      ...HARDWARE,
    });
    expect(init.status).toBe(200);

    const after = await org.client.get(connect);
    expect(after.status).toBe(404);
    expect(after.body.detail).toMatch(/already been initialized/);
    expect((await org.client.get(`${devicesUrl(org)}77/connect/`)).status).toBe(404);
  });
});
