/**
 * Shared test harness: seeds organizers, teams, tokens and devices straight into D1 and
 * talks to the worker through HTTP (`exports.default.fetch`), exactly as a client would.
 */
import { env, exports } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { createDb } from "../src/db/client";
import {
  deviceEvents,
  devices,
  events,
  orderPositions,
  orders,
  organizers,
  teamApiTokens,
  teamEvents,
  teams,
} from "../src/db/schema";
import { TEAM_FLAG_COLUMNS } from "../src/db/teams";
import { TEAM_PERMISSIONS, type TeamPermission } from "../src/rules/permissions";
import { randomString, sha256Hex } from "../src/lib/crypto";
import { groupDatabase, groupEnv } from "../src/lib/data-groups";
import type { Env } from "../src/lib/env";
import { newApiToken, organizerSecret } from "../src/lib/organizer-credentials";
import { organizerRoute } from "../src/services/organizers/organizer-groups";
import { directoryOrganizers } from "../src/db/directory/schema";
import { drizzle } from "drizzle-orm/d1";
import { checkContract } from "./helpers/contract";

export const BASE = "http://ticketing.test";

/**
 * The organizer group the harness seeds into unless a test names another: group 2 (`DB_2`), so
 * every test through the API also shows that requests reach an organizer's own group's
 * database, not the first one.
 */
export const HARNESS_GROUP = 2;

/** The D1 database of an organizer group (the harness's unless named). */
export const groupD1 = (group: number = HARNESS_GROUP) => groupDatabase(env, group);
export const db = (group: number = HARNESS_GROUP) => createDb(groupD1(group));
/** The environment of an organizer group (the harness's unless named), for services called directly. */
export const groupTestEnv = (group: number = HARNESS_GROUP) => groupEnv(env as unknown as Env, group);

let counter = 0;
export function unique(prefix: string): string {
  counter++;
  return `${prefix}${counter}${randomString(4)}`;
}

export type Json = any;

export type ApiResponse = { status: number; headers: Headers; body: Json; text: string };

export type RequestOptions = {
  headers?: Record<string, string>;
  raw?: BodyInit;
  contentType?: string | null;
  /**
   * `false`: do not hold this answer to the API description (test/helpers/contract.ts). Only
   * for requests that deliberately send what the description does not allow.
   */
  contract?: false;
};

/** An HTTP client bound to one Authorization header. */
export class Client {
  constructor(readonly authorization: string | null) {}

  async request(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.authorization) headers.Authorization = this.authorization;
    let payload: BodyInit | undefined = opts.raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      if (opts.contentType !== null) headers["Content-Type"] = opts.contentType ?? "application/json";
    }
    const url = path.startsWith("http") ? path : `${BASE}${path}`;
    const res = await exports.default.fetch(new Request(url, { method, headers, body: payload }));
    const text = await res.text();
    let parsed: Json = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    const answer = { status: res.status, headers: res.headers, body: parsed, text };
    if (opts.contract !== false) await checkContract(method, url, answer);
    return answer;
  }

  get(path: string, opts?: RequestOptions) {
    return this.request("GET", path, undefined, opts);
  }
  post(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request("POST", path, body, opts);
  }
  put(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request("PUT", path, body, opts);
  }
  patch(path: string, body?: unknown, opts?: RequestOptions) {
    return this.request("PATCH", path, body, opts);
  }
  delete(path: string, opts?: RequestOptions) {
    return this.request("DELETE", path, undefined, opts);
  }
}

export const anonymous = new Client(null);
export const tokenClient = (token: string) => new Client(`Token ${token}`);
export const deviceClient = (token: string) => new Client(`Device ${token}`);

export type TeamSpec = {
  permissions?: TeamPermission[] | "all";
  allEvents?: boolean;
  events?: number[];
  name?: string;
};

/** A team with one API token in the organizer; returns the team id and a client. */
export async function seedTeam(organizerId: number, spec: TeamSpec = {}, group: number = HARNESS_GROUP) {
  const perms = spec.permissions === "all" || spec.permissions === undefined ? TEAM_PERMISSIONS : spec.permissions;
  const flags: Record<string, boolean> = {};
  for (const p of TEAM_PERMISSIONS) flags[TEAM_FLAG_COLUMNS[p]] = perms.includes(p);
  const [team] = await db(group)
    .insert(teams)
    .values({ organizerId, name: spec.name ?? unique("team"), allEvents: spec.allEvents ?? true, ...flags })
    .returning();
  if (spec.events?.length)
    await db(group)
      .insert(teamEvents)
      .values(spec.events.map((eventId) => ({ teamId: team!.id, eventId })));
  const token = newApiToken(organizerId);
  await db(group)
    .insert(teamApiTokens)
    .values({ teamId: team!.id, name: "test", tokenHash: await sha256Hex(token), active: true, createdAt: Date.now() });
  return { teamId: team!.id, token, client: tokenClient(token) };
}

/**
 * An organizer with an all-permission team (like the operator command creates): its id from the
 * directory, its rows in its group's database (the harness's group unless named).
 */
export async function seedOrganizer(opts: { slug?: string; name?: string; group?: number } = {}) {
  const slug = opts.slug ?? unique("org");
  const group = opts.group ?? HARNESS_GROUP;
  const now = Date.now();
  const [entry] = await drizzle(env.DIRECTORY)
    .insert(directoryOrganizers)
    .values({ slug, dataGroup: group, createdAt: now })
    .returning();
  const [org] = await db(group)
    .insert(organizers)
    .values({ id: entry!.id, slug, name: opts.name ?? `Organizer ${slug}`, createdAt: now })
    .returning();
  const admin = await seedTeam(org!.id, { permissions: "all", allEvents: true, name: "Administrators" }, group);
  return { id: org!.id, slug, group, ...admin };
}

/**
 * An organizer whose group this isolate knows already (as after its first request): for tests
 * that count a request's D1 round trips (the directory's answer is the first request's own).
 */
export async function seedKnownOrganizer(opts: { slug?: string; name?: string; group?: number } = {}) {
  const org = await seedOrganizer(opts);
  await organizerRoute(env as unknown as Env, { organizerId: org.id });
  return org;
}

/** An event row straight in D1 (for foundation tests that need one before the events API). */
export async function seedEventRow(organizerId: number, opts: { slug?: string } = {}) {
  const now = Date.now();
  const [ev] = await db()
    .insert(events)
    .values({
      organizerId,
      slug: opts.slug ?? unique("ev"),
      name: { en: "Test event" },
      currency: "EUR",
      dateFrom: now + 30 * 86400_000,
      plugins: [],
      seatCategoryMapping: {},
      itemMetaProperties: {},
      salesChannels: ["web"],
      createdAt: now,
      lastModified: now,
    })
    .returning();
  return ev!;
}

/** An initialized device with an API token. */
export async function seedDevice(
  organizerId: number,
  opts: { allEvents?: boolean; events?: number[]; securityProfile?: string; group?: number } = {},
) {
  const group = opts.group ?? HARNESS_GROUP;
  const token = newApiToken(organizerId);
  const existing = await db(group).select({ id: devices.id }).from(devices);
  const [dev] = await db(group)
    .insert(devices)
    .values({
      organizerId,
      deviceId: existing.length + 1,
      uniqueSerial: randomString(16).toUpperCase(),
      name: "Scanner",
      allEvents: opts.allEvents ?? true,
      createdAt: Date.now(),
      initialized: Date.now(),
      initializationToken: organizerSecret(16, organizerId),
      apiTokenHash: await sha256Hex(token),
      securityProfile: opts.securityProfile ?? "full",
    })
    .returning();
  if (opts.events?.length)
    await db(group)
      .insert(deviceEvents)
      .values(opts.events.map((eventId) => ({ deviceId: dev!.id, eventId })));
  return { id: dev!.id, token, client: deviceClient(token) };
}

/**
 * An order row straight in D1, for tests of other resources that only need "an order
 * exists" (orders are normally created through the API and the event object).
 */
export async function seedOrderRow(
  eventId: number,
  opts: { status?: "n" | "p" | "e" | "c"; customerId?: number | null } = {},
) {
  const now = Date.now();
  const [row] = await db()
    .insert(orders)
    .values({
      eventId,
      code: randomString(8, "ABCDEFGHJKLMNPQRSTUVWXYZ3789").toUpperCase(),
      status: opts.status ?? "n",
      secret: randomString(16),
      datetime: now,
      expires: now + 86400_000,
      total: 0,
      customerId: opts.customerId ?? null,
      lastModified: now,
    })
    .returning();
  return row!;
}

/** A position of an order straight in D1 (see seedOrderRow). */
export async function seedOrderPosition(
  order: { id: number; eventId: number },
  opts: {
    itemId: number;
    variationId?: number | null;
    subeventId?: number | null;
    taxRuleId?: number | null;
    positionid?: number;
  },
) {
  const [row] = await db()
    .insert(orderPositions)
    .values({
      orderId: order.id,
      eventId: order.eventId,
      positionid: opts.positionid ?? 1,
      itemId: opts.itemId,
      variationId: opts.variationId ?? null,
      subeventId: opts.subeventId ?? null,
      taxRuleId: opts.taxRuleId ?? null,
      price: 0,
      attendeeNameParts: {},
      secret: randomString(32),
      pseudonymizationId: randomString(10).toUpperCase(),
      answers: [],
      // the service keeps the order's status with each position (db/payments.ts)
      orderStatus: sql`(SELECT status FROM orders WHERE id = ${order.id})`,
    })
    .returning();
  return row!;
}
