/// <reference types="vite/client" />
/**
 * Calls of any API route on real objects, for tests that go over every route: the rows of the
 * permission matrix (test/permissions/) say, per route, what its call acts on and a valid body
 * (their `setup`). `prepareCall` makes those objects with the organizer's administrator and
 * answers the request a valid call sends; tests then change its body and see what the service
 * answers.
 */
import {
  anonymous,
  type ApiResponse,
  type Client,
  type RequestOptions,
  seedDevice,
  seedEventRow,
  seedOrganizer,
} from "../harness";
import type { MatrixRow, RowSetup, SetupWorld } from "../permissions/types";

const modules = import.meta.glob<{ rows: MatrixRow[] }>("../permissions/*.ts", { eager: true });

/** Every row of the permission matrix (one per registered route). */
export const ROUTE_ROWS: MatrixRow[] = Object.entries(modules)
  .filter(([file]) => !file.endsWith("/types.ts") && !file.endsWith("/fixtures.ts"))
  .flatMap(([, m]) => m.rows);

/** The row of `METHOD /api/v1/...pattern` (as registered: `:name` parameters). */
export function rowOf(method: string, pattern: string): MatrixRow {
  const row = ROUTE_ROWS.find((r) => r.route === `${method} ${pattern}`);
  if (!row) throw new Error(`no row of the permission matrix for ${method} ${pattern}`);
  return row;
}

export type RouteWorld = { orgId: number; orgSlug: string; admin: Client; eventSlug: string; device: Client };

/** An organizer with its administrator, an event and a device. */
export async function newRouteWorld(): Promise<RouteWorld> {
  const org = await seedOrganizer();
  const event = await seedEventRow(org.id);
  return {
    orgId: org.id,
    orgSlug: org.slug,
    admin: org.client,
    eventSlug: event.slug,
    device: (await seedDevice(org.id)).client,
  };
}

/** A request of a route, ready to send (its objects exist). */
export type PreparedCall = {
  method: string;
  url: string;
  client: Client;
  /** The body a valid call sends (undefined for GET and DELETE). */
  body: unknown;
  send(body: unknown, opts?: RequestOptions): Promise<ApiResponse>;
};

/**
 * The objects of `row`'s call made anew (its setup, on a new event when the call changes the
 * event itself, with a new device when it changes the device), and the call. `params`: path
 * parameters that take the place of the setup's (another object of the same kind).
 */
export async function prepareCall(
  world: RouteWorld,
  row: MatrixRow,
  opts: { params?: Record<string, string> } = {},
): Promise<PreparedCall> {
  const i = row.route.indexOf(" ");
  const method = row.route.slice(0, i);
  const pattern = row.route.slice(i + 1);
  const eventSlug = row.ownEvent ? (await seedEventRow(world.orgId)).slug : world.eventSlug;
  const w: SetupWorld = {
    admin: world.admin,
    orgId: world.orgId,
    orgSlug: world.orgSlug,
    eventSlug,
    org: `/api/v1/organizers/${world.orgSlug}`,
    ev: `/api/v1/organizers/${world.orgSlug}/events/${eventSlug}`,
  };
  const setup: RowSetup = row.setup ? await row.setup(w) : {};
  if (setup.raw) throw new Error(`${row.route}: not a JSON call`);
  const path = pattern.replace(/:(\w+)/g, (_, name: string) => {
    if (name === "organizer") return world.orgSlug;
    if (name === "event") return setup.event ?? eventSlug;
    return opts.params?.[name] ?? setup.params?.[name] ?? row.params?.[name] ?? "999999";
  });
  const url = setup.query ? `${path}/?${setup.query}` : `${path}/`;
  const device = row.auth === "device" || row.deviceOnly;
  const client =
    row.auth === "none"
      ? anonymous
      : device
        ? row.ownDevice
          ? (await seedDevice(world.orgId)).client
          : world.device
        : world.admin;
  const body = method === "GET" || method === "DELETE" ? undefined : (setup.body ?? row.body ?? {});
  return { method, url, client, body, send: (b, o) => client.request(method, url, b, o) };
}

/** The status of a valid call: the row's, else GET 200, POST 201, PUT and PATCH 200, DELETE 204. */
export function successStatus(row: MatrixRow): number {
  if (row.status !== undefined) return row.status;
  const method = row.route.slice(0, row.route.indexOf(" "));
  return method === "POST" ? 201 : method === "DELETE" ? 204 : 200;
}

/**
 * Routes whose body only counts with its signature over the exact bytes (Stripe's webhook): a
 * changed or empty body fails the signature before anything reads it; stripe-webhooks.test.ts
 * shows what such a route answers.
 */
export const SIGNED_BODIES = new Set(["POST /api/v1/organizers/:organizer/stripe/webhook"]);
