/**
 * Webhooks, the API (pretix docs api/resources/webhooks.rst): create, read, list, PUT, PATCH,
 * DELETE (disables), the secret shown once and rotated, pretix's validation, the target URL
 * rules, and which notifications an order change writes for which webhook.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookCalls, webhookEvents, webhooks } from "../../src/db/schema";
import { db, seedEventRow, seedOrganizer, seedTeam } from "../harness";
import { shop } from "../helpers/sales";
import { receiver, useReceivers } from "../helpers/receivers";

useReceivers();

const FIELDS = ["id", "enabled", "target_url", "all_events", "limit_events", "action_types", "comment"];
const url = (org: { slug: string }) => `/api/v1/organizers/${org.slug}/webhooks/`;
const body = (extra: Record<string, unknown> = {}) => ({
  target_url: "https://hooks.example.org/in",
  action_types: ["pretix.event.order.placed"],
  ...extra,
});

async function rowCount(organizerId: number) {
  return (await db().select().from(webhooks).where(eq(webhooks.organizerId, organizerId))).length;
}

describe("webhooks: create and read", () => {
  it("creates a webhook with pretix's fields and shows its secret once", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "democon" });
    await seedEventRow(org.id, { slug: "anothercon" });
    const res = await org.client.post(url(org), {
      enabled: true,
      target_url: "https://hooks.example.org/pretix",
      all_events: false,
      limit_events: ["democon", "anothercon", "democon"],
      action_types: ["pretix.event.order.placed", "pretix.event.order.paid", "pretix.event.order.placed"],
      comment: "Called for changes",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...FIELDS, "secret"].sort());
    expect(res.body).toEqual({
      id: expect.any(Number),
      enabled: true,
      target_url: "https://hooks.example.org/pretix",
      all_events: false,
      limit_events: ["anothercon", "democon"],
      action_types: ["pretix.event.order.paid", "pretix.event.order.placed"],
      comment: "Called for changes",
      secret: expect.stringMatching(/^[A-Za-z0-9]{48}$/),
    });
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, res.body.id));
    expect(row!.secret).toBe(res.body.secret);

    const read = await org.client.get(`${url(org)}${res.body.id}/`);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual([...FIELDS].sort());
    const { secret: _secret, ...withoutSecret } = res.body;
    expect(read.body).toEqual(withoutSecret);

    const list = await org.client.get(url(org));
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ count: 1, next: null, previous: null, results: [withoutSecret] });
  });

  it("defaults: enabled, all events (unless limit_events are given), comment null", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "democon" });
    const a = await org.client.post(url(org), body());
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      enabled: true,
      all_events: true,
      limit_events: [],
      comment: null,
      action_types: ["pretix.event.order.placed"],
    });
    const b = await org.client.post(url(org), body({ limit_events: ["democon"] }));
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ all_events: false, limit_events: ["democon"] });
    expect(a.body.secret).not.toBe(b.body.secret);
  });

  it("another organizer's webhook is not found; an unknown id is 404", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    const created = await org.client.post(url(org), body());
    expect((await other.client.get(`${url(other)}${created.body.id}/`)).status).toBe(404);
    expect((await other.client.patch(`${url(other)}${created.body.id}/`, { enabled: false })).status).toBe(404);
    expect((await other.client.delete(`${url(other)}${created.body.id}/`)).status).toBe(404);
    expect((await other.client.post(`${url(other)}${created.body.id}/rotate_secret/`)).status).toBe(404);
    expect((await other.client.get(`${url(other)}${created.body.id}/calls/`)).status).toBe(404);
    expect((await org.client.get(`${url(org)}999999/`)).status).toBe(404);
    expect((await other.client.get(url(other))).body.count).toBe(0);
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, created.body.id));
    expect(row!.enabled).toBe(true);
  });

  it("needs can_change_organizer_settings, for reading too (pretix's permission)", async () => {
    const org = await seedOrganizer();
    const created = await org.client.post(url(org), body());
    const team = await seedTeam(org.id, {
      permissions: ["can_change_event_settings", "can_view_orders", "can_change_orders"],
    });
    expect((await team.client.get(url(org))).status).toBe(403);
    expect((await team.client.get(`${url(org)}${created.body.id}/`)).status).toBe(403);
    expect((await team.client.post(url(org), body())).status).toBe(403);
    expect(await rowCount(org.id)).toBe(1);
  });
});

describe("webhooks: validation as pretix does it", () => {
  it("refuses unknown action types, naming each", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(
      url(org),
      body({ action_types: ["foo", "pretix.event.order.paid", "pretix.event.order.changed.item"] }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      action_types: ['Invalid action type "foo".', 'Invalid action type "pretix.event.order.changed.item".'],
    });
    expect(await rowCount(org.id)).toBe(0);
  });

  it("refuses events that are not the organizer's", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await seedEventRow(other.id, { slug: "theirs" });
    const res = await org.client.post(url(org), body({ all_events: false, limit_events: ["theirs"] }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ limit_events: ["Object with slug=theirs does not exist."] });
    expect((await org.client.post(url(org), body({ all_events: false, limit_events: ["foo"] }))).body).toEqual({
      limit_events: ["Object with slug=foo does not exist."],
    });
    expect(await rowCount(org.id)).toBe(0);
  });

  it("refuses all_events together with limit_events", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "democon" });
    const res = await org.client.post(url(org), body({ all_events: true, limit_events: ["democon"] }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ non_field_errors: ["You can set either limit_events or all_events."] });
    expect(await rowCount(org.id)).toBe(0);
  });

  it("requires target_url and action_types on POST and PUT", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(url(org), { enabled: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ target_url: ["This field is required."], action_types: ["This field is required."] });
    const created = await org.client.post(url(org), body());
    const put = await org.client.put(`${url(org)}${created.body.id}/`, {
      target_url: "https://hooks.example.org/other",
    });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ action_types: ["This field is required."] });
    expect(await rowCount(org.id)).toBe(1);
  });

  it("refuses target URLs that are not https or point at private, loopback or link-local hosts", async () => {
    const org = await seedOrganizer();
    const cases: [string, string][] = [
      ["foo.bar", "Enter a valid URL."],
      ["ftp://hooks.example.org/", "Enter a valid URL."],
      [
        "http://hooks.example.org/in",
        "Enter an https URL (http is accepted only for the loopback interface when the deployment allows it).",
      ],
      [
        "http://127.0.0.1:8787/in",
        "Enter an https URL (http is accepted only for the loopback interface when the deployment allows it).",
      ],
      [
        "https://127.0.0.1/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://127.1/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://2130706433/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://10.1.2.3/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://169.254.169.254/latest/meta-data",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://192.168.0.10/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://[::1]/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://[::ffff:10.0.0.1]/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://[fd00::1]/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://[fe80::1]/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://10-0-0-1.sslip.io/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      [
        "https://localhost/in",
        "The URL must not point to a private, loopback, link-local or otherwise non-public address.",
      ],
      ["https://intranet/in", "The URL must point to a public host name or address."],
      ["https://printer.local/in", "The URL must point to a public host name or address."],
      [`https://hooks.example.org/${"x".repeat(200)}`, "Ensure this field has no more than 200 characters."],
    ];
    for (const [target, message] of cases) {
      const res = await org.client.post(url(org), body({ target_url: target }));
      expect(res.status, target).toBe(400);
      expect(res.body, target).toEqual({ target_url: [message] });
    }
    expect(await rowCount(org.id)).toBe(0);
    for (const ok of [
      "https://hooks.example.org/in",
      "https://user:secret@hooks.example.org:8443/in?x=1",
      "https://93.184.215.14/in",
      "https://[2606:4700::1111]/in",
    ]) {
      expect((await org.client.post(url(org), body({ target_url: ok }))).status, ok).toBe(201);
    }
  });
});

describe("webhooks: change, disable, rotate", () => {
  it("PATCH changes only what is sent; PUT resets omitted fields", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "democon" });
    const created = await org.client.post(
      url(org),
      body({
        all_events: false,
        limit_events: ["democon"],
        action_types: ["pretix.event.order.placed", "pretix.event.order.paid"],
        comment: "x",
      }),
    );
    const path = `${url(org)}${created.body.id}/`;
    const patched = await org.client.patch(path, { target_url: "https://pretix.example.org/" });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      id: created.body.id,
      enabled: true,
      target_url: "https://pretix.example.org/",
      all_events: false,
      limit_events: ["democon"],
      action_types: ["pretix.event.order.paid", "pretix.event.order.placed"],
      comment: "x",
    });
    const types = await org.client.patch(path, {
      action_types: ["pretix.event.order.placed", "pretix.event.order.canceled"],
    });
    expect(types.body.action_types).toEqual(["pretix.event.order.canceled", "pretix.event.order.placed"]);
    expect(types.body.limit_events).toEqual(["democon"]);
    // all_events while limit_events are stored: pretix's error, nothing changes
    const both = await org.client.patch(path, { all_events: true });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ non_field_errors: ["You can set either limit_events or all_events."] });
    expect((await org.client.patch(path, { all_events: true, limit_events: [] })).body).toMatchObject({
      all_events: true,
      limit_events: [],
    });
    expect(await db().select().from(webhookEvents).where(eq(webhookEvents.webhookId, created.body.id))).toEqual([]);
    const put = await org.client.put(path, {
      target_url: "https://hooks.example.org/put",
      action_types: ["pretix.event.order.expired"],
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      id: created.body.id,
      enabled: true,
      target_url: "https://hooks.example.org/put",
      all_events: true,
      limit_events: [],
      action_types: ["pretix.event.order.expired"],
      comment: null,
    });
    const bad = await org.client.patch(path, { target_url: "https://192.168.1.1/" });
    expect(bad.status).toBe(400);
    expect((await org.client.get(path)).body.target_url).toBe("https://hooks.example.org/put");
  });

  it("DELETE disables the webhook (as pretix does) and cancels its pending notifications", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const hook = await s.client.post(url({ slug: s.orgSlug }), body({ target_url: receiver().url }));
    const order = await s.post("/orders/", { positions: [{ item: ticket.id }] });
    const res = await s.client.delete(`${url({ slug: s.orgSlug })}${hook.body.id}/`);
    expect(res.status).toBe(204);
    expect((await s.client.get(`${url({ slug: s.orgSlug })}${hook.body.id}/`)).body.enabled).toBe(false);
    const calls = await db().select().from(webhookCalls).where(eq(webhookCalls.webhookId, hook.body.id));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ code: order.code, state: "canceled", nextAttemptAt: null });
    // a disabled webhook is not written to
    await s.post("/orders/", { positions: [{ item: ticket.id }] });
    expect(await db().select().from(webhookCalls).where(eq(webhookCalls.webhookId, hook.body.id))).toHaveLength(1);
  });

  it("rotate_secret answers a new secret once; the old one is gone", async () => {
    const org = await seedOrganizer();
    const created = await org.client.post(url(org), body());
    const res = await org.client.post(`${url(org)}${created.body.id}/rotate_secret/`);
    expect(res.status).toBe(200);
    const { secret, ...rest } = res.body;
    expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(secret).not.toBe(created.body.secret);
    expect(rest).toEqual((await org.client.get(`${url(org)}${created.body.id}/`)).body);
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, created.body.id));
    expect(row!.secret).toBe(secret);
  });
});
