/// <reference types="vite/client" />
/**
 * The permission matrix: every API route, with the permission it needs, called by a team
 * without that permission (403), a team with only that permission (not 403), a device, a
 * team limited to another event, and another organizer's administrator (403: tenant
 * isolation). A route missing from the matrix fails the completeness test.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { DEVICE_GRANT, TEAM_PERMISSIONS, type Permission } from "../../src/domain/permissions";
import { type Client, seedDevice, seedEventRow, seedOrganizer, seedTeam } from "../harness";
import type { MatrixRow } from "../permissions/types";

const modules = import.meta.glob<{ rows: MatrixRow[] }>("../permissions/*.ts", { eager: true });
const ROWS: MatrixRow[] = Object.entries(modules)
  .filter(([file]) => !file.endsWith("/types.ts"))
  .flatMap(([, m]) => m.rows);

type World = {
  orgId: number;
  orgSlug: string;
  eventSlug: string;
  otherEventSlug: string;
  none: Client;
  only: Map<Permission, Client>;
  all: Client;
  limitedElsewhere: Client;
  device: Client;
  foreignAdmin: Client;
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
    eventSlug: event.slug,
    otherEventSlug: other.slug,
    none: (await seedTeam(org.id, { permissions: [] })).client,
    only,
    all: org.client,
    limitedElsewhere: (await seedTeam(org.id, { permissions: "all", allEvents: false, events: [other.id] })).client,
    device: (await seedDevice(org.id)).client,
    foreignAdmin: foreign.client,
  };
});

function split(row: MatrixRow): [string, string] {
  const i = row.route.indexOf(" ");
  return [row.route.slice(0, i), row.route.slice(i + 1)];
}

async function call(client: Client, row: MatrixRow, eventSlug = world.eventSlug) {
  const [method, pattern] = split(row);
  const path = pattern.replace(/:(\w+)/g, (_, name: string) => {
    if (name === "organizer") return world.orgSlug;
    if (name === "event") return eventSlug;
    return row.params?.[name] ?? "999999";
  });
  const body = method === "GET" || method === "DELETE" ? undefined : (row.body ?? {});
  return client.request(method, `${path}/`, body);
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

    if (row.permission !== null) {
      it(`${row.route}: 403 without ${row.permission}`, async () => {
        const res = await call(world.none, row);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ detail: "You do not have permission to perform this action." });
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
      const res = await call(client, row, row.ownEvent ? await throwawayEvent() : world.eventSlug);
      expect(res.status, JSON.stringify(res.body)).not.toBe(403);
      expect(res.status).not.toBe(401);
    });

    const deviceAllowed = row.device ? row.device === "allow" : row.permission === null || DEVICE_GRANT.has(row.permission);
    it(`${row.route}: device ${deviceAllowed ? "allowed" : "denied"}`, async () => {
      const res = await call(world.device, row, row.ownEvent ? await throwawayEvent() : world.eventSlug);
      if (deviceAllowed) expect(res.status, JSON.stringify(res.body)).not.toBe(403);
      else expect(res.status).toBe(403);
    });

    if (isEventRoute) {
      it(`${row.route}: 403 for a team limited to another event`, async () => {
        const res = await call(world.limitedElsewhere, row);
        expect(res.status).toBe(403);
      });
    }

    if (row.route.includes(":organizer")) {
      it(`${row.route}: 403 for another organizer's administrator`, async () => {
        const res = await call(world.foreignAdmin, row);
        expect(res.status).toBe(403);
      });
    }
  }
});
