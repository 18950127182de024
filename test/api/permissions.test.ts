/// <reference types="vite/client" />
/**
 * The permission matrix: every API route, with the permission it needs, called by a team
 * without that permission (403), a team with only that permission (the route's success
 * status: each row's setup gives it real objects and a valid body), a device (the same, when
 * allowed), a team limited to another event, and another organizer's administrator and device
 * (403: tenant isolation). Device-only routes refuse teams with 401. A route missing from the
 * matrix fails the completeness test.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { DEVICE_GRANT, TEAM_PERMISSIONS, type Permission } from "../../src/rules/permissions";
import { type Client, seedDevice, seedEventRow, seedOrganizer, seedTeam } from "../harness";
import type { MatrixRow, RowSetup, SetupWorld } from "../permissions/types";

const modules = import.meta.glob<{ rows: MatrixRow[] }>("../permissions/*.ts", { eager: true });
const ROWS: MatrixRow[] = Object.entries(modules)
  .filter(([file]) => !file.endsWith("/types.ts") && !file.endsWith("/fixtures.ts"))
  .flatMap(([, m]) => m.rows);

const FORBIDDEN = { detail: "You do not have permission to perform this action." };

type World = {
  orgId: number;
  orgSlug: string;
  admin: Client;
  eventSlug: string;
  otherEventSlug: string;
  none: Client;
  only: Map<Permission, Client>;
  all: Client;
  limitedElsewhere: Client;
  device: Client;
  foreignAdmin: Client;
  foreignDevice: Client;
};

let world: World;

beforeAll(async () => {
  const org = await seedOrganizer();
  const event = await seedEventRow(org.id);
  const other = await seedEventRow(org.id);
  const only = new Map<Permission, Client>();
  for (const p of TEAM_PERMISSIONS) only.set(p, (await seedTeam(org.id, { permissions: [p] })).client);
  only.set("event:read", only.get("can_change_event_settings")!);
  const foreign = await seedOrganizer();
  world = {
    orgId: org.id,
    orgSlug: org.slug,
    admin: org.client,
    eventSlug: event.slug,
    otherEventSlug: other.slug,
    none: (await seedTeam(org.id, { permissions: [] })).client,
    only,
    all: org.client,
    limitedElsewhere: (await seedTeam(org.id, { permissions: "all", allEvents: false, events: [other.id] })).client,
    device: (await seedDevice(org.id)).client,
    foreignDevice: (await seedDevice(foreign.id)).client,
    foreignAdmin: foreign.client,
  };
});

function split(row: MatrixRow): [string, string] {
  const i = row.route.indexOf(" ");
  return [row.route.slice(0, i), row.route.slice(i + 1)];
}

async function call(client: Client, row: MatrixRow, eventSlug = world.eventSlug, setup: RowSetup = {}) {
  const [method, pattern] = split(row);
  const path = pattern.replace(/:(\w+)/g, (_, name: string) => {
    if (name === "organizer") return world.orgSlug;
    if (name === "event") return setup.event ?? eventSlug;
    return setup.params?.[name] ?? row.params?.[name] ?? "999999";
  });
  const url = setup.query ? `${path}/?${setup.query}` : `${path}/`;
  if (setup.raw) return client.request(method, url, undefined, { raw: setup.raw.body, headers: setup.raw.headers });
  const body = method === "GET" || method === "DELETE" ? undefined : (setup.body ?? row.body ?? {});
  return client.request(method, url, body);
}

/** The status of a call the permission layer let through: the route's success. */
function successStatus(row: MatrixRow): number {
  if (row.status !== undefined) return row.status;
  const [method] = split(row);
  return method === "POST" ? 201 : method === "DELETE" ? 204 : 200;
}

/** Calls an allowed row on real objects (its setup's) and expects the route's success. */
async function expectAllowed(client: Client, row: MatrixRow) {
  const eventSlug = row.ownEvent ? await throwawayEvent() : world.eventSlug;
  const w: SetupWorld = {
    admin: world.admin,
    orgId: world.orgId,
    orgSlug: world.orgSlug,
    eventSlug,
    org: `/api/v1/organizers/${world.orgSlug}`,
    ev: `/api/v1/organizers/${world.orgSlug}/events/${eventSlug}`,
  };
  const setup = row.setup ? await row.setup(w) : {};
  const res = await call(client, row, eventSlug, setup);
  expect(res.status, JSON.stringify(res.body)).toBe(successStatus(row));
  expect(res.body).not.toEqual(FORBIDDEN);
  return res;
}

async function throwawayEvent(): Promise<string> {
  return (await seedEventRow(world.orgId)).slug;
}

describe("permission matrix", () => {
  it("covers every registered API route", () => {
    const registered = new Set(
      createApp()
        .routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/api/v1"))
        .map((r) => `${r.method} ${r.path}`),
    );
    const listed = new Set(ROWS.map((r) => r.route));
    expect([...registered].filter((r) => !listed.has(r)).sort()).toEqual([]);
    expect([...listed].filter((r) => !registered.has(r)).sort()).toEqual([]);
  });

  for (const row of ROWS) {
    const isEventRoute = row.route.includes("/events/:event");
    const device = async () => (row.ownDevice ? (await seedDevice(world.orgId)).client : world.device);

    if (row.auth === "device") {
      it(`${row.route}: 401 for a team (device keys only)`, async () => {
        const res = await call(world.all, row);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: "Authentication credentials were not provided." });
      });
      it(`${row.route}: device allowed`, async () => {
        await expectAllowed(await device(), row);
      });
      continue;
    }

    if (row.permission !== null) {
      it(`${row.route}: 403 without ${row.permission}`, async () => {
        const res = await call(world.none, row);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      });
    }

    if (row.deviceOnly) {
      it(`${row.route}: device only, 401 for a team key`, async () => {
        for (const client of [world.all, world.none]) {
          const res = await call(client, row);
          expect(res.status).toBe(401);
        }
        const res = await call(world.device, row);
        expect(res.status).not.toBe(401);
        expect(res.status).not.toBe(403);
      });
      continue;
    }

    it(`${row.route}: allowed with ${row.permission ?? "any team"}`, async () => {
      const client = row.permission === null ? world.none : world.only.get(row.permission)!;
      await expectAllowed(client, row);
    });

    const deviceAllowed = row.device
      ? row.device === "allow"
      : row.permission === null || DEVICE_GRANT.has(row.permission);
    it(`${row.route}: device ${deviceAllowed ? "allowed" : "denied"}`, async () => {
      if (deviceAllowed) {
        await expectAllowed(await device(), row);
      } else {
        const res = await call(await device(), row, row.ownEvent ? await throwawayEvent() : world.eventSlug);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      }
    });

    if (isEventRoute) {
      it(`${row.route}: 403 for a team limited to another event`, async () => {
        const res = await call(world.limitedElsewhere, row);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      });
    }

    if (row.route.includes(":organizer")) {
      it(`${row.route}: 403 for another organizer's administrator`, async () => {
        const res = await call(world.foreignAdmin, row);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      });
      it(`${row.route}: 403 for another organizer's device`, async () => {
        const res = await call(world.foreignDevice, row);
        expect(res.status).toBe(403);
      });
    }
  }
});
