/** Authentication (Token, Device) and the permission layer's answers. */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devices, teamApiTokens } from "../../src/db/schema";
import { Client, anonymous, db, seedDevice, seedEventRow, seedOrganizer, seedTeam, tokenClient } from "../harness";

describe("token authentication", () => {
  it("accepts a team token and rejects missing, wrong and inactive ones with 401", async () => {
    const org = await seedOrganizer();
    expect((await org.client.get("/api/v1/organizers/")).status).toBe(200);

    const missing = await anonymous.get("/api/v1/organizers/");
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Token realm="api"');

    expect((await tokenClient("x".repeat(64)).get("/api/v1/organizers/")).body).toEqual({ detail: "Invalid token." });
    expect((await new Client("Token").get("/api/v1/organizers/")).body).toEqual({ detail: "Invalid token header." });
    expect((await new Client(`Token ${org.token} extra`).get("/api/v1/organizers/")).status).toBe(401);

    await db().update(teamApiTokens).set({ active: false }).where(eq(teamApiTokens.teamId, org.teamId));
    const inactive = await org.client.get("/api/v1/organizers/");
    expect(inactive.status).toBe(401);
    expect(inactive.body).toEqual({ detail: "Invalid token." });
  });

  it("accepts the scheme case-insensitively", async () => {
    const org = await seedOrganizer();
    expect((await new Client(`token ${org.token}`).get("/api/v1/organizers/")).status).toBe(200);
  });

  it("offers neither OAuth bearer tokens nor browser sessions", async () => {
    const org = await seedOrganizer();
    const bearer = await new Client(`Bearer ${org.token}`).get("/api/v1/organizers/");
    expect(bearer.status).toBe(401);
    expect(bearer.body.detail).toMatch(/Unsupported authorization scheme/);
    const cookie = await anonymous.get("/api/v1/organizers/", { headers: { Cookie: "sessionid=abc; csrftoken=x" } });
    expect(cookie.status).toBe(401);
  });
});

describe("device authentication", () => {
  it("accepts an initialized device's token and rejects a revoked device", async () => {
    const org = await seedOrganizer();
    const device = await seedDevice(org.id);
    const ok = await device.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(ok.status).toBe(200);
    expect(ok.body.slug).toBe(org.slug);

    await db().update(devices).set({ revoked: true }).where(eq(devices.id, device.id));
    const revoked = await device.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual({ detail: "Device access has been revoked." });
  });

  it("does not let a device use a team-only endpoint", async () => {
    const org = await seedOrganizer();
    const device = await seedDevice(org.id);
    expect((await device.client.get(`/api/v1/organizers/${org.slug}/teams/`)).status).toBe(403);
  });
});

describe("permission layer", () => {
  it("answers 403 for an organizer that does not exist, the same as for one of another tenant", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    const missing = await org.client.get("/api/v1/organizers/does-not-exist/");
    const foreign = await org.client.get(`/api/v1/organizers/${other.slug}/`);
    expect(missing.status).toBe(403);
    expect(foreign.status).toBe(403);
    expect(missing.body).toEqual(foreign.body);
  });

  it("checks the permission before looking up the object (403, not 404)", async () => {
    const org = await seedOrganizer();
    const weak = await seedTeam(org.id, { permissions: ["can_view_orders"] });
    const res = await weak.client.get(`/api/v1/organizers/${org.slug}/teams/999999/`);
    expect(res.status).toBe(403);
    const strong = await org.client.get(`/api/v1/organizers/${org.slug}/teams/999999/`);
    expect(strong.status).toBe(404);
  });

  it("lists only the caller's organizer", async () => {
    const a = await seedOrganizer();
    await seedOrganizer();
    const res = await a.client.get("/api/v1/organizers/?ordering=-name");
    expect(res.body.count).toBe(1);
    expect(res.body.results.map((o: { slug: string }) => o.slug)).toEqual([a.slug]);
  });
});

describe("event scope of teams and devices", () => {
  it("lets a team limited to some events work on exactly those", async () => {
    const org = await seedOrganizer();
    const mine = await seedEventRow(org.id);
    const theirs = await seedEventRow(org.id);
    const limited = await seedTeam(org.id, {
      permissions: ["can_change_items", "can_change_event_settings"],
      allEvents: false,
      events: [mine.id],
    });
    const base = `/api/v1/organizers/${org.slug}/events`;
    expect((await limited.client.get(`${base}/${mine.slug}/items/`)).status).toBe(200);
    expect((await limited.client.post(`${base}/${mine.slug}/categories/`, { name: { en: "Mine" } })).status).toBe(201);
    expect((await limited.client.get(`${base}/${theirs.slug}/items/`)).status).toBe(403);
    expect((await limited.client.post(`${base}/${theirs.slug}/categories/`, { name: { en: "Theirs" } })).status).toBe(
      403,
    );
    const list = await limited.client.get(`${base}/`);
    expect(list.body.results.map((e: { slug: string }) => e.slug)).toEqual([mine.slug]);
  });

  it("lets a device limited to some events read exactly those", async () => {
    const org = await seedOrganizer();
    const mine = await seedEventRow(org.id);
    const theirs = await seedEventRow(org.id);
    const device = await seedDevice(org.id, { allEvents: false, events: [mine.id] });
    const base = `/api/v1/organizers/${org.slug}/events`;
    expect((await device.client.get(`${base}/${mine.slug}/`)).status).toBe(200);
    expect((await device.client.get(`${base}/${theirs.slug}/`)).status).toBe(403);
  });
});
