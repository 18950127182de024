/**
 * Device authentication (initialize, update, info, roll, revoke), the device's fixed grant,
 * its events, its security profile, and tenant isolation of devices.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { devices } from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/crypto";
import { anonymous, type Client, db, deviceClient, seedDevice, seedEventRow, seedOrganizer } from "../harness";

const HARDWARE = {
  hardware_brand: "Samsung",
  hardware_model: "Galaxy S",
  software_brand: "pretixdroid",
  software_version: "4.0.0",
};
const INITIALIZE = "/api/v1/device/initialize";
const PROFILE_DENIED = { detail: "Request denied by device security profile." };

type Org = Awaited<ReturnType<typeof seedOrganizer>>;

async function createDevice(org: Org, body: Record<string, unknown> = {}) {
  const res = await org.client.post(`/api/v1/organizers/${org.slug}/devices/`, {
    name: "Scanner",
    all_events: true,
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body as { device_id: number; initialization_token: string; unique_serial: string };
}

/** A device created by the organizer and initialized through the API. */
async function initializedDevice(org: Org, body: Record<string, unknown> = {}) {
  const created = await createDevice(org, body);
  const init = await anonymous.post(INITIALIZE, { token: created.initialization_token, ...HARDWARE });
  expect(init.status).toBe(200);
  return { ...created, key: init.body.api_token as string, client: deviceClient(init.body.api_token) };
}

describe("device lifecycle", () => {
  it("create → initialize → info → update → roll → revoke, each as the spec and pretix answer it", async () => {
    const org = await seedOrganizer();
    const created = await createDevice(org, { name: "Door 1", security_profile: "pretixscan" });
    const detailUrl = `/api/v1/organizers/${org.slug}/devices/${created.device_id}/`;

    // initialize: no credentials; the credential response
    const init = await anonymous.post(INITIALIZE, {
      token: created.initialization_token,
      ...HARDWARE,
      os_name: "Android",
      os_version: "8.1.0",
    });
    expect(init.status).toBe(200);
    expect(init.body).toEqual({
      organizer: org.slug,
      device_id: created.device_id,
      unique_serial: created.unique_serial,
      api_token: expect.stringMatching(/^[a-z0-9]{64}$/),
      name: "Door 1",
      security_profile: "pretixscan",
      gate: null,
    });
    const key1: string = init.body.api_token;

    // the key is stored only as its hash
    const row = await db().select().from(devices).where(eq(devices.uniqueSerial, created.unique_serial)).get();
    expect(row!.apiTokenHash).toBe(await sha256Hex(key1));
    expect(Object.values(row!).some((v) => typeof v === "string" && v.includes(key1))).toBe(false);

    const detail = await org.client.get(detailUrl);
    expect(detail.body).toMatchObject({ ...HARDWARE, revoked: false, initialized: expect.any(String) });

    // info
    const device1 = deviceClient(key1);
    const info = await device1.get("/api/v1/device/info");
    expect(info.status).toBe(200);
    expect(info.body).toEqual({
      device: { ...init.body },
      server: { version: { pretix: "4.17.0", pretix_numeric: 40170005000 } },
    });

    // update: new hardware and software, same key
    const update = await device1.post("/api/v1/device/update", {
      ...HARDWARE,
      software_version: "4.1.0",
      info: { battery: 80 },
    });
    expect(update.status).toBe(200);
    expect(update.body).toEqual(init.body);
    expect((await org.client.get(detailUrl)).body.software_version).toBe("4.1.0");
    expect((await db().select().from(devices).where(eq(devices.id, row!.id)).get())!.info).toEqual({ battery: 80 });

    // roll: a new key; the old one is refused on the very next request
    const roll = await device1.post("/api/v1/device/roll");
    expect(roll.status).toBe(200);
    const key2: string = roll.body.api_token;
    expect(roll.body).toEqual({ ...init.body, api_token: key2 });
    expect(key2).not.toBe(key1);
    const old = await device1.get("/api/v1/device/info");
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ detail: "Invalid token." });
    expect((await device1.get(`/api/v1/organizers/${org.slug}/events/`)).status).toBe(401);
    const device2 = deviceClient(key2);
    expect((await device2.get("/api/v1/device/info")).body.device.api_token).toBe(key2);
    expect((await device2.get(`/api/v1/organizers/${org.slug}/events/`)).status).toBe(200);

    // revoke: irreversible, refused at once with pretix's message (its clients look for it)
    const revoke = await device2.post("/api/v1/device/revoke");
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({ ...init.body, api_token: key2 });
    for (const res of [
      await device2.get("/api/v1/device/info"),
      await device2.get(`/api/v1/organizers/${org.slug}/events/`),
      await device2.post("/api/v1/device/roll"),
      await device2.post("/api/v1/device/revoke"),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: "Device access has been revoked." });
    }
    expect((await org.client.get(detailUrl)).body.revoked).toBe(true);
    // the old initialization token cannot bring it back
    const again = await anonymous.post(INITIALIZE, { token: created.initialization_token, ...HARDWARE });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ token: ["This initialization token has already been used."] });
    // nor can the organizer's PATCH (revoked is read-only)
    expect((await org.client.patch(detailUrl, { revoked: false })).body.revoked).toBe(true);
    expect((await device2.get("/api/v1/device/info")).status).toBe(401);
  });
});

describe("device initialization", () => {
  it("takes each token once: a second use is 400 {token: [...]} and keeps the first key", async () => {
    const org = await seedOrganizer();
    const created = await createDevice(org);
    const first = await anonymous.post(INITIALIZE, { token: created.initialization_token, ...HARDWARE });
    expect(first.status).toBe(200);
    const second = await anonymous.post(INITIALIZE, {
      token: created.initialization_token,
      ...HARDWARE,
      hardware_brand: "Other",
    });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ token: ["This initialization token has already been used."] });
    expect((await deviceClient(first.body.api_token).get("/api/v1/device/info")).status).toBe(200);
    const row = await db().select().from(devices).where(eq(devices.uniqueSerial, created.unique_serial)).get();
    expect(row!.hardwareBrand).toBe("Samsung");
    expect(row!.apiTokenHash).toBe(await sha256Hex(first.body.api_token));
  });

  it("gives exactly one key when one token is used many times at once", async () => {
    const org = await seedOrganizer();
    const created = await createDevice(org);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        anonymous.post(INITIALIZE, { token: created.initialization_token, ...HARDWARE, hardware_model: `M${i}` }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ token: ["This initialization token has already been used."] });
    }
    const row = await db().select().from(devices).where(eq(devices.uniqueSerial, created.unique_serial)).get();
    expect(row!.apiTokenHash).toBe(await sha256Hex(ok[0]!.body.api_token));
    expect(row!.hardwareModel).toBe(`M${results.indexOf(ok[0]!)}`);
  });

  it("refuses an unknown token, missing and blank fields with field errors", async () => {
    const unknown = await anonymous.post(INITIALIZE, { token: "doesnotexist1234", ...HARDWARE });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ token: ["Unknown initialization token."] });

    const missing = await anonymous.post(INITIALIZE, {});
    expect(missing.status).toBe(400);
    const required = ["This field is required."];
    expect(missing.body).toEqual({
      token: required,
      hardware_brand: required,
      hardware_model: required,
      software_brand: required,
      software_version: required,
    });

    const org = await seedOrganizer();
    const created = await createDevice(org);
    const blank = await anonymous.post(INITIALIZE, {
      token: created.initialization_token,
      ...HARDWARE,
      software_version: "",
    });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ software_version: ["This field may not be blank."] });
    // nothing was used up by the refused attempts
    expect((await anonymous.post(INITIALIZE, { token: created.initialization_token, ...HARDWARE })).status).toBe(200);
  });

  it("refuses a revoked device's token", async () => {
    const org = await seedOrganizer();
    const created = await createDevice(org);
    await db().update(devices).set({ revoked: true }).where(eq(devices.uniqueSerial, created.unique_serial));
    const res = await anonymous.post(INITIALIZE, { token: created.initialization_token, ...HARDWARE });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ token: ["This initialization token has been revoked."] });
  });
});

describe("the device's own routes", () => {
  it("refuse a team key with 401 and change nothing", async () => {
    const org = await seedOrganizer();
    const device = await initializedDevice(org);
    for (const res of [
      await org.client.get("/api/v1/device/info"),
      await org.client.post("/api/v1/device/update", HARDWARE),
      await org.client.post("/api/v1/device/roll"),
      await org.client.post("/api/v1/device/revoke"),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: "Authentication credentials were not provided." });
    }
    expect((await anonymous.get("/api/v1/device/info")).status).toBe(401);
    expect((await device.client.get("/api/v1/device/info")).status).toBe(200);
    const row = await db().select().from(devices).where(eq(devices.uniqueSerial, device.unique_serial)).get();
    expect(row!.revoked).toBe(false);
    expect(row!.apiTokenHash).toBe(await sha256Hex(device.key));
  });

  it("update needs the hardware and software fields", async () => {
    const org = await seedOrganizer();
    const device = await initializedDevice(org);
    const res = await device.client.post("/api/v1/device/update", { hardware_brand: "X" });
    expect(res.status).toBe(400);
    const required = ["This field is required."];
    expect(res.body).toEqual({ hardware_model: required, software_brand: required, software_version: required });
  });

  it("never replay a stored response to a rolled or revoked key (idempotency keys)", async () => {
    const org = await seedOrganizer();
    const device = await initializedDevice(org);
    const headers = { "X-Idempotency-Key": crypto.randomUUID() };
    const roll = await device.client.post("/api/v1/device/roll", undefined, { headers });
    expect(roll.status).toBe(200);
    // the same request again with the old key: refused, the new key is not handed out again
    const replay = await device.client.post("/api/v1/device/roll", undefined, { headers });
    expect(replay.status).toBe(401);
    expect(replay.text).not.toContain(roll.body.api_token);

    const device2 = deviceClient(roll.body.api_token);
    const key = { "X-Idempotency-Key": crypto.randomUUID() };
    expect((await device2.post("/api/v1/device/update", HARDWARE, { headers: key })).status).toBe(200);
    expect((await device2.post("/api/v1/device/revoke")).status).toBe(200);
    const afterRevoke = await device2.post("/api/v1/device/update", HARDWARE, { headers: key });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body).toEqual({ detail: "Device access has been revoked." });
  });

  it("many rolls at once with one key: exactly one new key is handed out, and it works", async () => {
    const org = await seedOrganizer();
    const device = await initializedDevice(org);
    const results = await Promise.all(Array.from({ length: 8 }, () => device.client.post("/api/v1/device/roll")));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ detail: "Invalid token." });
    }
    expect((await deviceClient(ok[0]!.body.api_token).get("/api/v1/device/info")).status).toBe(200);
    expect((await device.client.get("/api/v1/device/info")).status).toBe(401);
  });
});

describe("what a device may do", () => {
  it("limit_events is enforced on every call, and a change of it applies at the next request", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "event-a" });
    await seedEventRow(org.id, { slug: "event-b" });
    const device = await initializedDevice(org, { all_events: false, limit_events: ["event-a"] });
    const ev = `/api/v1/organizers/${org.slug}/events`;

    expect((await device.client.get(`${ev}/event-a/`)).status).toBe(200);
    expect((await device.client.get(`${ev}/event-a/orders/`)).status).toBe(200);
    for (const path of [`${ev}/event-b/`, `${ev}/event-b/orders/`, `${ev}/event-b/items/`, `${ev}/event-b/settings/`]) {
      const res = await device.client.get(path);
      expect(res.status, path).toBe(403);
    }
    const list = await device.client.get(`${ev}/`);
    expect(list.body.results.map((e: { slug: string }) => e.slug)).toEqual(["event-a"]);

    await org.client.patch(`/api/v1/organizers/${org.slug}/devices/${device.device_id}/`, {
      limit_events: ["event-b"],
    });
    expect((await device.client.get(`${ev}/event-a/`)).status).toBe(403);
    expect((await device.client.get(`${ev}/event-b/`)).status).toBe(200);
    await org.client.patch(`/api/v1/organizers/${org.slug}/devices/${device.device_id}/`, { all_events: true });
    expect((await device.client.get(`${ev}/event-a/`)).status).toBe(200);
  });

  it("is refused vouchers and changes of events and products, even with all events", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "fest" });
    const device = await initializedDevice(org, { all_events: true });
    const ev = `/api/v1/organizers/${org.slug}/events/fest`;
    const refused: [string, string, unknown?][] = [
      ["GET", `${ev}/vouchers/`],
      ["POST", `${ev}/vouchers/`, { code: "ABCDEFG" }],
      ["PATCH", `${ev}/`, { name: { en: "Renamed" } }],
      ["DELETE", `${ev}/`],
      ["PATCH", `${ev}/settings/`, { locale: "de" }],
      ["POST", `${ev}/items/`, { name: { en: "Beer" }, default_price: "3.00" }],
      ["POST", `${ev}/categories/`, { name: { en: "Drinks" } }],
      ["POST", `${ev}/quotas/`, { name: "Q", size: 10 }],
      [
        "POST",
        `/api/v1/organizers/${org.slug}/events/`,
        { name: { en: "New" }, slug: "new", currency: "EUR", date_from: "2030-01-01T10:00:00Z" },
      ],
      ["GET", `/api/v1/organizers/${org.slug}/devices/`],
      ["GET", `/api/v1/organizers/${org.slug}/teams/`],
    ];
    for (const [method, path, body] of refused) {
      const res = await device.client.request(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    // what the grant allows: event metadata, products, orders, gift cards
    for (const path of [`${ev}/`, `${ev}/items/`, `${ev}/orders/`, `/api/v1/organizers/${org.slug}/giftcards/`]) {
      expect((await device.client.get(path)).status, path).toBe(200);
    }
    expect((await org.client.get(`${ev}/`)).body.name).toEqual({ en: "Test event" });
  });

  it("gets nothing of another organizer (403)", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await seedEventRow(other.id, { slug: "theirs" });
    const device = await initializedDevice(org, { all_events: true });
    const theirs = `/api/v1/organizers/${other.slug}`;
    for (const path of [
      `${theirs}/`,
      `${theirs}/events/`,
      `${theirs}/events/theirs/`,
      `${theirs}/events/theirs/orders/`,
      `${theirs}/giftcards/`,
    ]) {
      const res = await device.client.get(path);
      expect(res.status, path).toBe(403);
    }
    const orgs = await device.client.get("/api/v1/organizers/");
    expect(orgs.body.results.map((o: { slug: string }) => o.slug)).toEqual([org.slug]);
  });
});

describe("security profiles", () => {
  it("a call inside the profile works, one outside is 403; a profile change applies at the next request", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "fest" });
    const device = await initializedDevice(org, { security_profile: "pretixscan_online_kiosk" });
    const ev = `/api/v1/organizers/${org.slug}/events/fest`;

    expect((await device.client.get(`${ev}/`)).status).toBe(200);
    expect((await device.client.get(`${ev}/items/`)).status).toBe(200);
    expect((await device.client.get(`${ev}/settings/`)).status).toBe(200);
    expect((await device.client.get("/api/v1/device/info")).status).toBe(200);
    for (const path of [
      `${ev}/orders/`,
      `${ev}/quotas/`,
      `/api/v1/organizers/${org.slug}/giftcards/`,
      "/api/v1/organizers/",
    ]) {
      const res = await device.client.get(path);
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual(PROFILE_DENIED);
    }

    await org.client.patch(`/api/v1/organizers/${org.slug}/devices/${device.device_id}/`, {
      security_profile: "pretixscan",
    });
    expect((await device.client.get(`${ev}/orders/`)).status).toBe(200);
    expect((await device.client.get(`${ev}/quotas/`)).body).toEqual(PROFILE_DENIED);

    await org.client.patch(`/api/v1/organizers/${org.slug}/devices/${device.device_id}/`, { security_profile: "full" });
    expect((await device.client.get(`${ev}/quotas/`)).status).toBe(200);
    expect((await device.client.get(`/api/v1/organizers/${org.slug}/giftcards/`)).status).toBe(200);
  });

  it("the organizer can cut a device off through PATCH (no events, kiosk profile) from its next request on", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "fest" });
    const device = await initializedDevice(org, { all_events: true });
    const ev = `/api/v1/organizers/${org.slug}/events/fest`;
    expect((await device.client.get(`${ev}/orders/`)).status).toBe(200);
    const patch = await org.client.patch(`/api/v1/organizers/${org.slug}/devices/${device.device_id}/`, {
      all_events: false,
      limit_events: [],
      security_profile: "pretixscan_online_kiosk",
    });
    expect(patch.status).toBe(200);
    expect((await device.client.get(`/api/v1/organizers/${org.slug}/events/`)).body.results).toEqual([]);
    for (const path of [
      `${ev}/`,
      `${ev}/items/`,
      `${ev}/orders/`,
      `/api/v1/organizers/${org.slug}/giftcards/`,
      `/api/v1/organizers/${org.slug}/`,
    ]) {
      expect((await device.client.get(path)).status, path).toBe(403);
    }
  });

  it("a call outside the profile is refused before its input is looked at (403, not 400)", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "fest" });
    const device = await initializedDevice(org, { security_profile: "pretixscan" });
    const res = await device.client.post(`/api/v1/organizers/${org.slug}/events/fest/orders/`, { positions: [] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(PROFILE_DENIED);
  });
});

/**
 * pretix's allow-lists (src/pretix/api/auth/devicesecurity.py), written out here as the route
 * shapes of this service that answer their url names (parameters as ":"). Entries of routes the
 * service does not have yet are simply never met.
 */
const O = "/api/v1/organizers/:";
const E = `${O}/events/:`;
const KIOSK = [
  "GET /api/v1/device/eventselection",
  "GET /api/v1/device/info",
  "POST /api/v1/device/update",
  "POST /api/v1/device/revoke",
  "POST /api/v1/device/roll",
  `GET ${O}/events`,
  `GET ${E}`,
  `GET ${O}/subevents`,
  `GET ${E}/subevents`,
  `GET ${E}/subevents/:`,
  `GET ${E}/categories`,
  `GET ${E}/items`,
  `GET ${E}/questions`,
  `GET ${E}/checkinlists`,
  `GET ${E}/checkinlists/:/status`,
  `POST ${E}/checkinlists/:/failed_checkins`,
  `POST ${E}/checkinlists/:/positions/:/redeem`,
  `GET ${E}/revokedsecrets`,
  `GET ${E}/blockedsecrets`,
  `GET ${E}/settings`,
  "POST /api/v1/upload",
  `POST ${O}/checkinrpc/redeem`,
  `GET ${O}/checkinrpc/search`,
  // pretix 2025: turnstiles and pretixSCAN's kiosk mode take back a check-in that did not pass
  `POST ${O}/checkinrpc/annul`,
];
const NOORDERS = [...KIOSK, `GET ${E}/checkinlists/:/positions`];
const PRETIXSCAN = [...NOORDERS, `GET ${E}/orders`];
const EXPECTED: Record<string, string[]> = {
  pretixscan_online_kiosk: KIOSK,
  pretixscan_online_noorders: NOORDERS,
  pretixscan: PRETIXSCAN,
};

const shape = (route: string) => route.replace(/:\w+/g, ":");

describe("security profiles against every registered route", () => {
  const app = createApp();
  const routes = [
    ...new Set(
      app.routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/api/v1")).map((r) => `${r.method} ${r.path}`),
    ),
  ];
  const publicRoutes = new Set(
    app.routes
      .filter((r) => (r.handler as { scopeMarker?: { scope: string } }).scopeMarker?.scope === "public")
      .map((r) => `${r.method} ${r.path}`),
  );
  let org: Org;
  let eventSlug: string;
  const clients = new Map<string, Client>();

  beforeAll(async () => {
    org = await seedOrganizer();
    eventSlug = (await seedEventRow(org.id)).slug;
    for (const profile of Object.keys(EXPECTED))
      clients.set(profile, (await seedDevice(org.id, { securityProfile: profile })).client);
  });

  it("every registered API route declares its scope, so the profile check runs on it", () => {
    const scoped = new Set(
      app.routes.filter((r) => "scopeMarker" in (r.handler as object)).map((r) => `${r.method} ${r.path}`),
    );
    expect(routes.filter((r) => !scoped.has(r))).toEqual([]);
  });

  for (const profile of Object.keys(EXPECTED)) {
    it(`${profile}: exactly pretix's allow-list passes`, async () => {
      const allowed = new Set(EXPECTED[profile]);
      const wrong: string[] = [];
      for (const route of routes) {
        const [method, pattern] = [route.slice(0, route.indexOf(" ")), route.slice(route.indexOf(" ") + 1)];
        if (publicRoutes.has(route)) continue; // public (initialize, the API description): no device is asked
        const path = pattern.replace(/:(\w+)/g, (_, name: string) =>
          name === "organizer" ? org.slug : name === "event" ? eventSlug : "999999",
        );
        // the device's own routes may roll or revoke it: a fresh device for each
        const client = pattern.startsWith("/api/v1/device/")
          ? (await seedDevice(org.id, { securityProfile: profile })).client
          : clients.get(profile)!;
        const res = await client.request(method, `${path}/`, method === "GET" || method === "DELETE" ? undefined : {});
        const denied = res.status === 403 && res.body?.detail === PROFILE_DENIED.detail;
        if (denied === allowed.has(`${method} ${shape(pattern)}`)) wrong.push(`${route} → ${res.status}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});
