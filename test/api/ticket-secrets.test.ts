/**
 * The lists of secrets scanners download to refuse tickets offline (pretix docs orders.rst
 * "Revoked ticket secrets", "Blocked ticket secrets"; api/ticket-secrets.ts): their order, their
 * `…_since` filters from `X-Page-Generated`, `If-Modified-Since`, and who may read them.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { blockedSecrets, revokedSecrets } from "../../src/db/schema";
import { db, type Json, seedDevice } from "../harness";
import { signedVenue, venue } from "../helpers/checkin";

describe("the lists scanners download", () => {
  it("revokedsecrets: newest first, ordering by secret, created_since (and modified_since) from X-Page-Generated, pages", async () => {
    const v = await signedVenue();
    const tickets = [await v.sell(), await v.sell(), await v.sell()];
    // two revocations, the first longer ago (their times set, rather than waited for)
    for (const [i, t] of tickets.slice(0, 2).entries()) {
      await v.client.post(`${v.path}/orderpositions/${t.id}/regenerate_secrets/`);
      await db()
        .update(revokedSecrets)
        .set({ created: Date.now() - 2000 + i * 1000 })
        .where(eq(revokedSecrets.secret, t.secret));
    }
    const first = await v.client.get(`${v.path}/revokedsecrets/`);
    expect(first.status).toBe(200);
    const generated = first.headers.get("x-page-generated")!;
    expect(Date.parse(generated)).toBeGreaterThan(0);
    expect(first.body.results.map((r: Json) => r.secret)).toEqual([tickets[1].secret, tickets[0].secret]);
    const bySecret = (await v.client.get(`${v.path}/revokedsecrets/?ordering=secret`)).body.results.map(
      (r: Json) => r.secret,
    );
    expect(bySecret).toEqual([tickets[0].secret, tickets[1].secret].sort());
    const paged = await v.client.get(`${v.path}/revokedsecrets/?page_size=1`);
    expect(paged.body).toMatchObject({ count: 2, previous: null });
    expect(paged.body.next).toContain("page=2");
    // a scanner's next run: only what was revoked since
    await v.client.post(`${v.path}/orderpositions/${tickets[2].id}/regenerate_secrets/`);
    for (const q of [
      `created_since=${encodeURIComponent(generated)}`,
      `modified_since=${encodeURIComponent(generated)}`,
      `ordering=-created&created_since=${encodeURIComponent(first.body.results[0].created)}`,
    ]) {
      const since = (await v.client.get(`${v.path}/revokedsecrets/?${q}`)).body.results.map((r: Json) => r.secret);
      expect(since[0], q).toBe(tickets[2].secret);
      expect(since).not.toContain(tickets[0].secret);
    }
    expect((await v.client.get(`${v.path}/revokedsecrets/?created_since=yesterday`)).status).toBe(400);
  });

  it("If-Modified-Since: 304 while nothing was revoked since Last-Modified, the full list after", async () => {
    const v = await signedVenue();
    const pos = await v.sell();
    const empty = await v.client.get(`${v.path}/revokedsecrets/`);
    expect(empty.headers.get("last-modified")).toBeNull();
    await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    const full = await v.client.get(`${v.path}/revokedsecrets/`);
    const lastModified = full.headers.get("last-modified")!;
    expect(lastModified).toMatch(/GMT$/);
    const again = await v.client.get(`${v.path}/revokedsecrets/`, { headers: { "If-Modified-Since": lastModified } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    // the revocation happened a while ago (no waiting in tests: its time is moved back)
    await db()
      .update(revokedSecrets)
      .set({ created: Date.now() - 5000 })
      .where(eq(revokedSecrets.eventId, v.eventId));
    const older = (await v.client.get(`${v.path}/revokedsecrets/`)).headers.get("last-modified")!;
    expect((await v.client.get(`${v.path}/revokedsecrets/`, { headers: { "If-Modified-Since": older } })).status).toBe(
      304,
    );
    await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    const changed = await v.client.get(`${v.path}/revokedsecrets/`, { headers: { "If-Modified-Since": older } });
    expect(changed.status).toBe(200);
    expect(changed.body.count).toBe(2);
  });

  it("blockedsecrets: newest change first, updated_since (and modified_since) from X-Page-Generated, blocked, If-Modified-Since", async () => {
    const v = await venue();
    const [older, newer] = [await v.sell(), await v.sell()];
    // two blocks, the first longer ago (their times set, rather than waited for)
    for (const [i, t] of [older, newer].entries()) {
      const blocked = await v.client.post(`${v.path}/orderpositions/${t.id}/add_block/`, { name: "admin" });
      expect(blocked.status).toBe(200);
      await db()
        .update(blockedSecrets)
        .set({ updated: Date.now() - 3000 + i * 1000 })
        .where(eq(blockedSecrets.secret, t.secret));
    }
    const first = await v.client.get(`${v.path}/blockedsecrets/`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      count: 2,
      next: null,
      previous: null,
      results: [
        { id: expect.any(Number), secret: newer.secret, updated: expect.any(String), blocked: true },
        { id: expect.any(Number), secret: older.secret, updated: expect.any(String), blocked: true },
      ],
    });
    const generated = first.headers.get("x-page-generated")!;
    expect(Date.parse(generated)).toBeGreaterThan(Date.parse(first.body.results[0].updated));
    const lastModified = first.headers.get("last-modified")!;
    expect(lastModified).toMatch(/GMT$/);
    const unchanged = await v.client.get(`${v.path}/blockedsecrets/`, {
      headers: { "If-Modified-Since": lastModified },
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe("");

    // the older ticket's last block goes: its secret comes first, no longer blocked
    expect(
      (await v.client.post(`${v.path}/orderpositions/${older.id}/remove_block/`, { name: "admin" })).body.blocked,
    ).toBeNull();
    const changed = await v.client.get(`${v.path}/blockedsecrets/`, { headers: { "If-Modified-Since": lastModified } });
    expect(changed.status).toBe(200);
    expect(changed.body.results.map((r: Json) => [r.secret, r.blocked])).toEqual([
      [older.secret, false],
      [newer.secret, true],
    ]);
    // a scanner's next run: only what changed since
    for (const q of [
      `updated_since=${encodeURIComponent(generated)}`,
      `modified_since=${encodeURIComponent(generated)}`,
      `ordering=-updated&updated_since=${encodeURIComponent(generated)}`,
    ]) {
      const since = await v.client.get(`${v.path}/blockedsecrets/?${q}`);
      expect(
        since.body.results.map((r: Json) => [r.secret, r.blocked]),
        q,
      ).toEqual([[older.secret, false]]);
    }
    const only = async (blocked: boolean) =>
      (await v.client.get(`${v.path}/blockedsecrets/?blocked=${blocked}`)).body.results.map((r: Json) => r.secret);
    expect(await only(true)).toEqual([newer.secret]);
    expect(await only(false)).toEqual([older.secret]);
    for (const q of ["updated_since=yesterday", "blocked=perhaps"]) {
      const bad = await v.client.get(`${v.path}/blockedsecrets/?${q}`);
      expect(bad.status, q).toBe(400);
      expect(Object.keys(bad.body), q).toEqual([q.split("=")[0]]);
    }
    // another event's blocks are not on this event's list
    const elsewhere = await venue();
    expect((await elsewhere.client.get(`${elsewhere.path}/blockedsecrets/`)).body.count).toBe(0);
  });

  it("a scanner with the pretixscan security profile may read both lists (pretix's url names revokedsecrets-list, blockedsecrets-list)", async () => {
    const v = await signedVenue();
    const device = await seedDevice(v.org.id, { securityProfile: "pretixscan" });
    const kiosk = await seedDevice(v.org.id, { securityProfile: "pretixscan_online_kiosk" });
    for (const d of [device, kiosk]) {
      expect((await d.client.get(`${v.path}/revokedsecrets/`)).status).toBe(200);
      expect((await d.client.get(`${v.path}/blockedsecrets/`)).status).toBe(200);
    }
  });
});
