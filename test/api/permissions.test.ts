/// <reference types="vite/client" />
/**
 * The permission matrix: every API route, with the permission it needs, called by a team
 * without that permission (403), a team with only that permission (the route's success
 * status: each row's setup gives it real objects and a valid body), a device (the same, when
 * allowed), a team limited to another event, and another organizer's administrator and device
 * (403: tenant isolation). Every change route is also called by a team with every permission
 * but the one it needs (403: a check that takes another permission instead, or either of two,
 * fails there). A permission several team flags give (`event:read`, `checkin:read`,
 * `checkin:scan`: GIVEN_BY) is held by a team with only the last of its flags, and is missing
 * from a team with every flag but those; each of its flags alone is tested at the end. A route
 * that refuses itself what a caller without the permission names (the check-in RPC) answers
 * its own refusal instead of the 403. Device-only routes refuse teams with 401. A route missing
 * from the matrix fails the completeness test; change routes that need no permission or more
 * than one are listed and tested on their own at the end. Last, a view permission is shown to
 * change nothing at all: the refused change leaves the objects, their rows and the quota's
 * numbers as they were.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { events, exportJobs, orderPayments } from "../../src/db/schema";
import {
  DEVICE_GRANT,
  GIVEN_BY,
  TEAM_PERMISSIONS,
  type Permission,
  type TeamPermission,
} from "../../src/rules/permissions";
import { Client, db, seedDevice, seedEventRow, seedOrganizer, seedTeam, unique } from "../harness";
import type { MatrixRow, RowSetup, SetupWorld } from "../permissions/types";
import { cart, cartsOf, eventIdOf, ordersOf, type Shop, shop, vouchersOf } from "../helpers/sales";

const modules = import.meta.glob<{ rows: MatrixRow[] }>("../permissions/*.ts", { eager: true });
const ROWS: MatrixRow[] = Object.entries(modules)
  .filter(([file]) => !file.endsWith("/types.ts") && !file.endsWith("/fixtures.ts"))
  .flatMap(([, m]) => m.rows);

const FORBIDDEN = { detail: "You do not have permission to perform this action." };

const availability = async (s: Shop, quotaId: number) =>
  (await s.client.get(`${s.path}/quotas/${quotaId}/availability/`)).body;

type World = {
  orgId: number;
  orgSlug: string;
  admin: Client;
  eventSlug: string;
  otherEventSlug: string;
  none: Client;
  only: Map<Permission, Client>;
  /** A team with every permission but the key (for a permission flags give: but every flag that gives it). */
  allBut: Map<Permission, Client>;
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
  const allBut = new Map<Permission, Client>();
  for (const p of TEAM_PERMISSIONS)
    allBut.set(p, (await seedTeam(org.id, { permissions: TEAM_PERMISSIONS.filter((q) => q !== p) })).client);
  for (const [p, by] of Object.entries(GIVEN_BY) as [Permission, TeamPermission[]][]) {
    only.set(p, only.get(by.at(-1)!)!);
    allBut.set(p, (await seedTeam(org.id, { permissions: TEAM_PERMISSIONS.filter((q) => !by.includes(q)) })).client);
  }
  // another organizer, in another organizer group: refused all the same
  const foreign = await seedOrganizer({ group: 1 });
  world = {
    orgId: org.id,
    orgSlug: org.slug,
    admin: org.client,
    eventSlug: event.slug,
    otherEventSlug: other.slug,
    none: (await seedTeam(org.id, { permissions: [] })).client,
    only,
    allBut,
    all: org.client,
    limitedElsewhere: (await seedTeam(org.id, { permissions: "all", allEvents: false, events: [other.id] })).client,
    device: (await seedDevice(org.id)).client,
    foreignDevice: (await seedDevice(foreign.id, { group: 1 })).client,
    foreignAdmin: foreign.client,
  };
});

function split(row: MatrixRow): [string, string] {
  const i = row.route.indexOf(" ");
  return [row.route.slice(0, i), row.route.slice(i + 1)];
}

const CHANGE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const isChange = (row: MatrixRow) => CHANGE_METHODS.has(split(row)[0]);

/**
 * The change routes whose scope takes no permission, and why. Each is tested for what it does
 * need: the device's own routes by the matrix (401 for teams), the organizer's export runs below.
 */
const CHANGES_WITHOUT_PERMISSION: Record<string, string> = {
  "POST /api/v1/upload": "any credential uploads a file; the route that references it checks its own permission",
  "POST /api/v1/device/initialize": "no credentials: the initialization token is the proof",
  "POST /api/v1/organizers/:organizer/stripe/webhook":
    "no credentials: the Stripe-Signature header, checked with the organizer's webhook signing secret, is the proof",
  "POST /api/v1/organizers/:organizer/events/:event/queue/join":
    "no credentials: a visitor joins the on-sale queue; the signed queue ticket it gets is its identity",
  "POST /api/v1/device/update": "the device's own route: device keys only",
  "POST /api/v1/device/roll": "the device's own route: device keys only",
  "POST /api/v1/device/revoke": "the device's own route: device keys only",
  "POST /api/v1/organizers/:organizer/exporters/:identifier/run":
    "any team of the organizer; the exporter's own permission (giftcardlist, customerlist) and can_view_orders for the events of event data are checked by the service (tested below)",
};

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
  return client.request(method, url, body, { headers: setup.headers });
}

/** The status of a call the permission layer let through: the route's success. */
function successStatus(row: MatrixRow): number {
  if (row.status !== undefined) return row.status;
  const [method] = split(row);
  return method === "POST" ? 201 : method === "DELETE" ? 204 : 200;
}

/** The row's objects, made by the administrator (on a throwaway event when the row changes its event). */
async function setUp(row: MatrixRow): Promise<{ eventSlug: string; setup: RowSetup }> {
  const eventSlug = row.ownEvent ? await throwawayEvent() : world.eventSlug;
  const w: SetupWorld = {
    admin: world.admin,
    orgId: world.orgId,
    orgSlug: world.orgSlug,
    eventSlug,
    org: `/api/v1/organizers/${world.orgSlug}`,
    ev: `/api/v1/organizers/${world.orgSlug}/events/${eventSlug}`,
  };
  return { eventSlug, setup: row.setup ? await row.setup(w) : {} };
}

/** Calls an allowed row on real objects (its setup's) and expects the route's success. */
async function expectAllowed(client: Client, row: MatrixRow) {
  const { eventSlug, setup } = await setUp(row);
  if (setup.byCaller) await setup.byCaller(client);
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

    const refusal = row.refusal;
    if (row.permission !== null && refusal) {
      const permission = row.permission;
      it(`${row.route}: without ${permission}, the route's own refusal of what the call names`, async () => {
        for (const client of [world.none, world.allBut.get(permission)!]) {
          const { eventSlug, setup } = await setUp(row);
          const res = await call(client, row, eventSlug, setup);
          const expected = refusal(setup);
          expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
          expect(res.body).toEqual(expected.body);
        }
      });
    } else if (row.permission !== null) {
      it(`${row.route}: 403 without ${row.permission}`, async () => {
        const res = await call(world.none, row);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      });
    }

    if (row.permission !== null && isChange(row) && !refusal) {
      const permission = row.permission;
      it(`${row.route}: 403 with every permission but ${permission}`, async () => {
        const res = await call(
          world.allBut.get(permission)!,
          row,
          row.ownEvent ? await throwawayEvent() : world.eventSlug,
        );
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

    // a public route (live availability, the on-sale queue's visitors) has no team to limit
    if (isEventRoute && row.auth !== "none") {
      it(`${row.route}: 403 for a team limited to another event`, async () => {
        const res = await call(world.limitedElsewhere, row);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      });
    }

    if (row.route.includes(":organizer") && row.auth === "none") {
      // credentials are no proof here: another organizer's key is refused as no key is
      it(`${row.route}: another organizer's administrator and device are refused as without credentials`, async () => {
        const anonymous = await call(new Client(null), row);
        expect(anonymous.status).toBeGreaterThanOrEqual(400);
        for (const client of [world.foreignAdmin, world.foreignDevice]) {
          const res = await call(client, row);
          expect({ status: res.status, body: res.body }).toEqual({ status: anonymous.status, body: anonymous.body });
        }
      });
    } else if (row.route.includes(":organizer")) {
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

describe("permissions several flags give", () => {
  const given = ROWS.filter((r) => r.permission !== null && (GIVEN_BY[r.permission]?.length ?? 0) > 1);

  it("the check-in routes take either flag (pretix: can_checkin_orders or the orders permission)", () => {
    expect(given.map((r) => r.route).sort()).toEqual(
      ROWS.filter((r) => r.route.includes("/checkinlists") || r.route.includes("/checkinrpc/"))
        .filter((r) => r.permission !== "can_change_event_settings")
        .map((r) => r.route)
        .sort(),
    );
  });

  for (const row of given)
    for (const flag of GIVEN_BY[row.permission!]!)
      it(`${row.route}: allowed with ${flag} alone`, async () => {
        await expectAllowed(world.only.get(flag)!, row);
      });
});

describe("change routes that need no permission, or more than one", () => {
  it("every change route whose scope takes no permission is listed with its reason", () => {
    const without = [...new Set(ROWS.filter((r) => isChange(r) && r.permission === null).map((r) => r.route))];
    expect(without.sort()).toEqual(Object.keys(CHANGES_WITHOUT_PERMISSION).sort());
  });

  it("an organizer's export run: giftcardlist needs can_manage_gift_cards, customerlist can_manage_customers, the events of event data can_view_orders", async () => {
    const org = `/api/v1/organizers/${world.orgSlug}`;
    const jobs = async () =>
      (await db().select({ id: exportJobs.id }).from(exportJobs).where(eq(exportJobs.organizerId, world.orgId))).length;
    const before = await jobs();
    const run = (but: TeamPermission, identifier: string, body: unknown) =>
      world.allBut.get(but)!.post(`${org}/exporters/${identifier}/run/`, body);
    for (const [but, identifier] of [
      ["can_manage_gift_cards", "giftcardlist"],
      ["can_manage_customers", "customerlist"],
    ] as const) {
      const res = await run(but, identifier, { _format: "default" });
      expect([identifier, res.status]).toEqual([identifier, 404]);
      expect(res.body).toEqual({ detail: "Not found." });
    }
    for (const [identifier, format] of [
      ["orderlist", "orders:default"],
      ["invoicedata", "invoices:default"],
    ] as const) {
      const res = await run("can_view_orders", identifier, { _format: format, events: [world.eventSlug] });
      expect([identifier, res.status]).toEqual([identifier, 400]);
      expect(res.body).toEqual({ events: [`Object with slug=${world.eventSlug} does not exist.`] });
    }
    expect(await jobs()).toBe(before);
  });

  it("a protected meta data value of an event or a date also needs can_change_organizer_settings", async () => {
    const org = await seedOrganizer();
    const base = `/api/v1/organizers/${org.slug}`;
    const made = await org.client.post(`${base}/event_meta_properties/`, { name: "Budget", protected: true });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const eventBody = () => ({
      name: { en: "Series" },
      slug: unique("ev"),
      currency: "EUR",
      date_from: "2030-06-01T19:00:00Z",
      has_subevents: true,
    });
    const series = await org.client.post(`${base}/events/`, { ...eventBody(), meta_data: { Budget: "A" } });
    expect(series.status, JSON.stringify(series.body)).toBe(201);
    const ev = `${base}/events/${series.body.slug}`;
    const dateBody = { name: { en: "Date" }, date_from: "2030-07-01T19:00:00Z" };
    const date = await org.client.post(`${ev}/subevents/`, { ...dateBody, meta_data: { Budget: "A" } });
    expect(date.status, JSON.stringify(date.body)).toBe(201);

    const team = (
      await seedTeam(org.id, { permissions: TEAM_PERMISSIONS.filter((p) => p !== "can_change_organizer_settings") })
    ).client;
    const PROTECTED = {
      meta_data: [
        "Meta data property 'Budget' is protected and can only be changed with the permission to change organizer settings.",
      ],
    };
    const changes: [string, () => ReturnType<Client["post"]>][] = [
      ["POST events", () => team.post(`${base}/events/`, { ...eventBody(), meta_data: { Budget: "B" } })],
      ["PATCH event", () => team.patch(`${ev}/`, { meta_data: { Budget: "B" } })],
      ["POST subevents", () => team.post(`${ev}/subevents/`, { ...dateBody, meta_data: { Budget: "B" } })],
      ["PATCH subevent", () => team.patch(`${ev}/subevents/${date.body.id}/`, { meta_data: { Budget: "B" } })],
    ];
    for (const [name, change] of changes) {
      const res = await change();
      expect([name, res.status]).toEqual([name, 400]);
      expect(res.body).toEqual(PROTECTED);
    }
    const eventsOf = await db().select({ id: events.id }).from(events).where(eq(events.organizerId, org.id));
    expect(eventsOf).toHaveLength(1);
    expect((await org.client.get(`${ev}/`)).body.meta_data).toEqual({ Budget: "A" });
    const dates = await org.client.get(`${ev}/subevents/`);
    expect(dates.body.results.map((d: { meta_data: unknown }) => d.meta_data)).toEqual([{ Budget: "A" }]);
    // the routes themselves need only their own permission: the same team changes the rest
    const located = await team.patch(`${ev}/`, { location: { en: "Main hall" } });
    expect(located.status, JSON.stringify(located.body)).toBe(200);
    expect(located.body.meta_data).toEqual({ Budget: "A" });
  });
});

describe("a view permission is never enough to change", () => {
  async function orderWorld() {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const order = await s.client.post(`${s.path}/orders/`, {
      email: "buyer@example.org",
      payment_provider: "manual",
      positions: [{ item: ticket.id }],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.status).toBe("n");
    expect(order.body.payments).toHaveLength(1);
    const held = await cart(s, { item: ticket.id });
    const viewer = (await seedTeam(s.org.id, { permissions: ["can_view_orders"] })).client;
    const eventId = await eventIdOf(s);
    const [row] = await ordersOf(eventId);
    return { s, ticket, q, order: order.body, orderId: row!.id, held, viewer, eventId };
  }

  type OrderWorld = Awaited<ReturnType<typeof orderWorld>>;
  const ORDER_CHANGES: [string, (w: OrderWorld) => Promise<{ status: number; body: unknown }>][] = [
    ["POST orders (create)", (w) => w.viewer.post(`${w.s.path}/orders/`, { positions: [{ item: w.ticket.id }] })],
    [
      "POST orders/:code/mark_paid",
      (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/mark_paid/`, { send_email: false }),
    ],
    [
      "POST orders/:code/mark_canceled",
      (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/mark_canceled/`, { send_email: false }),
    ],
    ["POST orders/:code/mark_expired", (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/mark_expired/`, {})],
    [
      "POST orders/:code/payments/:local/confirm",
      (w) => w.viewer.post(`${w.s.path}/orders/${w.order.code}/payments/1/confirm/`, {}),
    ],
    [
      "POST cartpositions (create)",
      (w) => w.viewer.post(`${w.s.path}/cartpositions/`, { item: w.ticket.id, price: "1.00" }),
    ],
    [
      "POST cartpositions/bulk_create",
      (w) => w.viewer.post(`${w.s.path}/cartpositions/bulk_create/`, [{ item: w.ticket.id, price: "1.00" }]),
    ],
    ["DELETE cartpositions/:id", (w) => w.viewer.delete(`${w.s.path}/cartpositions/${w.held.id}/`)],
  ];

  for (const [name, change] of ORDER_CHANGES) {
    it(`${name} with only can_view_orders: 403, and orders, payments, carts and quota unchanged`, async () => {
      const w = await orderWorld();
      // the viewer sees the very objects it is refused to change
      const seen = await w.viewer.get(`${w.s.path}/orders/${w.order.code}/`);
      expect(seen.status).toBe(200);
      expect(seen.body.code).toBe(w.order.code);
      expect((await w.viewer.get(`${w.s.path}/cartpositions/${w.held.id}/`)).status).toBe(200);
      const before = {
        order: (await w.s.client.get(`${w.s.path}/orders/${w.order.code}/`)).body,
        orders: await ordersOf(w.eventId),
        payments: await db().select().from(orderPayments).where(eq(orderPayments.orderId, w.orderId)),
        carts: await cartsOf(w.eventId),
        availability: await availability(w.s, w.q.id),
      };
      const res = await change(w);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
      expect((await w.s.client.get(`${w.s.path}/orders/${w.order.code}/`)).body).toEqual(before.order);
      expect(await ordersOf(w.eventId)).toEqual(before.orders);
      expect(await db().select().from(orderPayments).where(eq(orderPayments.orderId, w.orderId))).toEqual(
        before.payments,
      );
      expect(await cartsOf(w.eventId)).toEqual(before.carts);
      expect(await availability(w.s, w.q.id)).toEqual(before.availability);
    });
  }

  async function voucherWorld() {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 10, items: [ticket.id] });
    const voucher = await s.voucher({ code: "KEEPME", item: ticket.id, block_quota: true, max_usages: 2 });
    const viewer = (await seedTeam(s.org.id, { permissions: ["can_view_vouchers"] })).client;
    return { s, ticket, q, voucher, viewer, eventId: await eventIdOf(s) };
  }

  type VoucherWorld = Awaited<ReturnType<typeof voucherWorld>>;
  const VOUCHER_CHANGES: [string, (w: VoucherWorld) => Promise<{ status: number; body: unknown }>][] = [
    [
      "POST vouchers (create)",
      (w) => w.viewer.post(`${w.s.path}/vouchers/`, { code: "NEWONE", item: w.ticket.id, block_quota: true }),
    ],
    [
      "POST vouchers/batch_create",
      (w) => w.viewer.post(`${w.s.path}/vouchers/batch_create/`, [{ code: "BATCH1" }, { code: "BATCH2" }]),
    ],
    [
      "PATCH vouchers/:id",
      (w) => w.viewer.patch(`${w.s.path}/vouchers/${w.voucher.id}/`, { max_usages: 5, comment: "changed" }),
    ],
    [
      "PUT vouchers/:id",
      (w) => w.viewer.put(`${w.s.path}/vouchers/${w.voucher.id}/`, { code: "RENAMED", max_usages: 1 }),
    ],
    ["DELETE vouchers/:id", (w) => w.viewer.delete(`${w.s.path}/vouchers/${w.voucher.id}/`)],
  ];

  for (const [name, change] of VOUCHER_CHANGES) {
    it(`${name} with only can_view_vouchers: 403, and vouchers and quota unchanged`, async () => {
      const w = await voucherWorld();
      const seen = await w.viewer.get(`${w.s.path}/vouchers/${w.voucher.id}/`);
      expect(seen.status).toBe(200);
      expect(seen.body).toEqual(w.voucher);
      const before = { vouchers: await vouchersOf(w.eventId), availability: await availability(w.s, w.q.id) };
      expect(before.availability).toMatchObject({ blocking_vouchers: 2, available_number: 8 });
      const res = await change(w);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
      expect((await w.s.client.get(`${w.s.path}/vouchers/${w.voucher.id}/`)).body).toEqual(w.voucher);
      expect(await vouchersOf(w.eventId)).toEqual(before.vouchers);
      expect(await availability(w.s, w.q.id)).toEqual(before.availability);
    });
  }
});
