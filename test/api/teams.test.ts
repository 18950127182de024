/** Teams: CRUD, members, invites (with the acceptance page), API tokens. */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox, teamEvents, teams, users } from "../../src/db/schema";
import { TEAM_PERMISSIONS } from "../../src/rules/permissions";
import { BASE, anonymous, db, seedEventRow, seedOrganizer, tokenClient } from "../harness";

const FLAGS = TEAM_PERMISSIONS;

async function acceptInvite(link: string, fullname: string) {
  const { exports } = await import("cloudflare:workers");
  const form = new URLSearchParams({ fullname });
  return exports.default.fetch(
    new Request(link, { method: "POST", body: form, headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
  );
}

describe("teams", () => {
  it("creates a team with defaults and reads it back with exactly the spec's fields", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id, { slug: "concert" });
    const res = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, {
      name: "Box office",
      limit_events: ["concert"],
      can_view_orders: true,
      can_checkin_orders: true,
    });
    expect(res.status).toBe(201);
    const expected: Record<string, unknown> = {
      id: res.body.id,
      name: "Box office",
      all_events: false,
      limit_events: ["concert"],
    };
    for (const f of FLAGS) expected[f] = f === "can_view_orders" || f === "can_checkin_orders";
    expect(res.body).toEqual(expected);
    expect(Object.keys(res.body)).toEqual(Object.keys(expected));
    const read = await org.client.get(`/api/v1/organizers/${org.slug}/teams/${res.body.id}/`);
    expect(read.body).toEqual(expected);
    const links = await db().select().from(teamEvents).where(eq(teamEvents.teamId, res.body.id));
    expect(links).toEqual([{ teamId: res.body.id, eventId: ev.id }]);
  });

  it("rejects unknown event slugs in limit_events and creates nothing", async () => {
    const org = await seedOrganizer();
    const before = (await db().select().from(teams).where(eq(teams.organizerId, org.id))).length;
    const res = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, { name: "X", limit_events: ["nope"] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ limit_events: ["Object with slug=nope does not exist."] });
    expect((await db().select().from(teams).where(eq(teams.organizerId, org.id))).length).toBe(before);
  });

  it("does not take event slugs of another organizer", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await seedEventRow(other.id, { slug: "theirs" });
    const res = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, { name: "X", limit_events: ["theirs"] });
    expect(res.status).toBe(400);
  });

  it("PATCH changes only sent fields; PUT resets omitted fields to defaults", async () => {
    const org = await seedOrganizer();
    await seedEventRow(org.id, { slug: "a" });
    const created = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, {
      name: "T",
      all_events: true,
      can_view_orders: true,
      limit_events: ["a"],
    });
    const url = `/api/v1/organizers/${org.slug}/teams/${created.body.id}/`;
    const patched = await org.client.patch(url, { can_change_orders: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "T",
      all_events: true,
      can_view_orders: true,
      can_change_orders: true,
      limit_events: ["a"],
    });
    const put = await org.client.put(url, { name: "T2" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: "T2",
      all_events: false,
      can_view_orders: false,
      can_change_orders: false,
      limit_events: [],
    });
    const putMissing = await org.client.put(url, { all_events: true });
    expect(putMissing.status).toBe(400);
    expect(putMissing.body).toEqual({ name: ["This field is required."] });
  });

  it("lists teams of the organizer only, and 404s for another organizer's team id", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    const list = await org.client.get(`/api/v1/organizers/${org.slug}/teams/`);
    expect(list.body.results.map((t: { id: number }) => t.id)).toEqual([org.teamId]);
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/teams/${other.teamId}/`)).status).toBe(404);
    expect(
      (await org.client.patch(`/api/v1/organizers/${org.slug}/teams/${other.teamId}/`, { name: "x" })).status,
    ).toBe(404);
    expect((await org.client.delete(`/api/v1/organizers/${org.slug}/teams/${other.teamId}/`)).status).toBe(404);
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/teams/abc/`)).status).toBe(404);
  });

  it("may delete the caller's own team, which locks the caller out", async () => {
    const org = await seedOrganizer();
    const res = await org.client.delete(`/api/v1/organizers/${org.slug}/teams/${org.teamId}/`);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await org.client.get("/api/v1/organizers/")).status).toBe(401);
  });

  it("may change the caller's own team, losing the permission at once", async () => {
    const org = await seedOrganizer();
    const res = await org.client.patch(`/api/v1/organizers/${org.slug}/teams/${org.teamId}/`, {
      can_change_teams: false,
    });
    expect(res.status).toBe(200);
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/teams/`)).status).toBe(403);
  });
});

describe("team API tokens", () => {
  it("shows the token only when creating it; a deleted token is inactive and answers 401", async () => {
    const org = await seedOrganizer();
    const base = `/api/v1/organizers/${org.slug}/teams/${org.teamId}/tokens/`;
    const created = await org.client.post(base, { name: "Shop" });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(["active", "id", "name", "token"]);
    expect(created.body).toMatchObject({ name: "Shop", active: true });
    expect(created.body.token).toMatch(/^[a-z0-9]{64}$/);

    const shop = tokenClient(created.body.token);
    expect((await shop.get("/api/v1/organizers/")).status).toBe(200);

    const detail = await org.client.get(`${base}${created.body.id}/`);
    expect(detail.body).toEqual({ id: created.body.id, name: "Shop", active: true });
    const list = await org.client.get(base);
    expect(list.body.results.every((t: Record<string, unknown>) => !("token" in t))).toBe(true);

    const deleted = await org.client.delete(`${base}${created.body.id}/`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.id, name: "Shop", active: false });
    expect((await shop.get("/api/v1/organizers/")).status).toBe(401);
    expect((await org.client.get(`${base}${created.body.id}/`)).body.active).toBe(false);
  });

  it("answers 404 for an unknown team or token", async () => {
    const org = await seedOrganizer();
    expect((await org.client.delete(`/api/v1/organizers/${org.slug}/teams/${org.teamId}/tokens/999999/`)).status).toBe(
      404,
    );
    expect((await org.client.delete(`/api/v1/organizers/${org.slug}/teams/999999/tokens/1/`)).status).toBe(404);
    expect((await org.client.post(`/api/v1/organizers/${org.slug}/teams/999999/tokens/`, { name: "x" })).status).toBe(
      404,
    );
    expect((await org.client.post(`/api/v1/organizers/${org.slug}/teams/${org.teamId}/tokens/`, {})).body).toEqual({
      name: ["This field is required."],
    });
  });
});

describe("team invites and members", () => {
  it("invites by mail; the invitee accepts through the link and becomes a member", async () => {
    const org = await seedOrganizer({ name: "Big Events" });
    const base = `/api/v1/organizers/${org.slug}/teams/${org.teamId}`;
    const invite = await org.client.post(`${base}/invites/`, { email: "Mark@Example.org" });
    expect(invite.status).toBe(201);
    expect(invite.body).toEqual({ id: invite.body.id, email: "Mark@Example.org" });
    expect((await org.client.get(`${base}/invites/${invite.body.id}/`)).body).toEqual(invite.body);
    expect((await org.client.get(`${base}/invites/`)).body.results).toEqual([invite.body]);

    const duplicate = await org.client.post(`${base}/invites/`, { email: "mark@example.org" });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toEqual({ email: ["This user already has been invited for this team."] });

    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.organizerId, org.id));
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ kind: "team_invite", toAddress: "Mark@Example.org", fromName: "Big Events" });
    const link = /https?:\/\/\S+\/invite\/\w+/.exec(mails[0]!.textBody)![0];
    expect(link.startsWith(`${BASE}/invite/`)).toBe(true);

    const { exports } = await import("cloudflare:workers");
    const pageRes = await exports.default.fetch(link);
    expect(pageRes.status).toBe(200);
    expect(await pageRes.text()).toContain("Mark@Example.org");

    expect((await acceptInvite(link, "")).status).toBe(400);
    const accepted = await acceptInvite(link, "Mark Twain");
    expect(accepted.status).toBe(200);
    expect((await exports.default.fetch(link)).status).toBe(404);

    expect((await org.client.get(`${base}/invites/`)).body.count).toBe(0);
    const members = await org.client.get(`${base}/members/`);
    expect(members.body.count).toBe(1);
    const member = members.body.results[0];
    expect(member).toEqual({ id: member.id, email: "Mark@Example.org", fullname: "Mark Twain", require_2fa: false });
    expect((await org.client.get(`${base}/members/${member.id}/`)).body).toEqual(member);

    // An invite for someone who has an account adds them directly: no invite, no id.
    const second = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, { name: "Second" });
    const direct = await org.client.post(`/api/v1/organizers/${org.slug}/teams/${second.body.id}/invites/`, {
      email: "mark@example.org",
    });
    expect(direct.status).toBe(201);
    expect(direct.body).toEqual({ email: "Mark@Example.org" });
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/teams/${second.body.id}/invites/`)).body.count).toBe(
      0,
    );
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/teams/${second.body.id}/members/`)).body.count).toBe(
      1,
    );
    const again = await org.client.post(`/api/v1/organizers/${org.slug}/teams/${second.body.id}/invites/`, {
      email: "mark@example.org",
    });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ email: ["This user already has permissions for this team."] });

    // Removing a member
    expect((await org.client.delete(`${base}/members/${member.id}/`)).status).toBe(204);
    expect((await org.client.get(`${base}/members/${member.id}/`)).status).toBe(404);
    expect(await db().select().from(users).where(eq(users.id, member.id))).toHaveLength(1);
  });

  it("revokes an invite; its link stops working", async () => {
    const org = await seedOrganizer();
    const base = `/api/v1/organizers/${org.slug}/teams/${org.teamId}`;
    const invite = await org.client.post(`${base}/invites/`, { email: "x@example.org" });
    expect((await org.client.delete(`${base}/invites/${invite.body.id}/`)).status).toBe(204);
    expect((await org.client.get(`${base}/invites/${invite.body.id}/`)).status).toBe(404);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.organizerId, org.id));
    const link = /https?:\/\/\S+\/invite\/\w+/.exec(mail!.textBody)![0];
    expect((await acceptInvite(link, "X")).status).toBe(404);
  });

  it("validates the address and answers 404 for unknown teams and objects", async () => {
    const org = await seedOrganizer();
    const base = `/api/v1/organizers/${org.slug}/teams/${org.teamId}`;
    expect((await org.client.post(`${base}/invites/`, { email: "not-an-address" })).body).toEqual({
      email: ["Enter a valid email address."],
    });
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/teams/999999/members/`)).status).toBe(404);
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/teams/999999/invites/`)).status).toBe(404);
    expect((await org.client.get(`${base}/members/999999/`)).status).toBe(404);
    expect((await org.client.delete(`${base}/members/999999/`)).status).toBe(404);
    expect((await org.client.get(`${base}/invites/999999/`)).status).toBe(404);
    expect((await anonymous.get(`${base}/members/`)).status).toBe(401);
  });
  it("answers 404 for the members, invites and tokens of another organizer's team, and shows none of them", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    const theirs = `/api/v1/organizers/${other.slug}/teams/${other.teamId}`;
    expect((await other.client.post(`${theirs}/invites/`, { email: "theirs@example.org" })).status).toBe(201);
    expect((await other.client.post(`${theirs}/tokens/`, { name: "Theirs" })).status).toBe(201);
    for (const list of ["members", "invites", "tokens"]) {
      const res = await org.client.get(`/api/v1/organizers/${org.slug}/teams/${other.teamId}/${list}/`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: "Not found." });
      expect((await other.client.get(`${theirs}/${list}/`)).status).toBe(200);
    }
    expect((await other.client.get(`${theirs}/tokens/`)).body.count).toBe(2);
  });
});
