/** X-Idempotency-Key (spec "Limits"). */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { idempotencyKeys, teams } from "../../src/db/schema";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { env } from "cloudflare:workers";
import { db, seedOrganizer, tokenClient } from "../harness";

const teamCount = async (organizerId: number) =>
  (await db().select().from(teams).where(eq(teams.organizerId, organizerId))).length;

describe("idempotency keys", () => {
  it("a repeat with the same key returns the stored response without acting again", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    const first = await org.client.post(url, { name: "Once" }, { headers: { "X-Idempotency-Key": key } });
    expect(first.status).toBe(201);
    const again = await org.client.post(url, { name: "Once" }, { headers: { "X-Idempotency-Key": key } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(await teamCount(org.id)).toBe(2); // the seeded admin team and "Once"
  });

  it("stores most errors too: a 403 stays a 403 for that key", async () => {
    const org = await seedOrganizer();
    const key = crypto.randomUUID();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const denied = await tokenClient(org.token).post(
      `/api/v1/organizers/someone-else/teams/`,
      { name: "x" },
      { headers: { "X-Idempotency-Key": key } },
    );
    expect(denied.status).toBe(403);
    const bad = await org.client.post(url, {}, { headers: { "X-Idempotency-Key": key } });
    expect(bad.status).toBe(403);
  });

  it("keys are scoped to the Authorization and Cookie headers", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    await org.client.post(url, { name: "A" }, { headers: { "X-Idempotency-Key": key } });
    const withCookie = await org.client.post(
      url,
      { name: "B" },
      { headers: { "X-Idempotency-Key": key, Cookie: "x=1" } },
    );
    expect(withCookie.status).toBe(201);
    expect(withCookie.body.name).toBe("B");
    expect(await teamCount(org.id)).toBe(3);
  });

  it("has no effect on GET", async () => {
    const org = await seedOrganizer();
    const key = crypto.randomUUID();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    await org.client.get(url, { headers: { "X-Idempotency-Key": key } });
    await org.client.post(url, { name: "After GET" }, { headers: { "X-Idempotency-Key": key } });
    const list = await org.client.get(url, { headers: { "X-Idempotency-Key": key } });
    expect(list.body.count).toBe(2);
  });

  it("two simultaneous requests with one key never both act", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        org.client.post(url, { name: "Parallel" }, { headers: { "X-Idempotency-Key": key } }),
      ),
    );
    expect(await teamCount(org.id)).toBe(2);
    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status === 409);
    expect(created.length + busy.length).toBe(12);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of busy) {
      expect(r.headers.get("retry-after")).toBe("5");
      expect(r.body.detail).toMatch(/still being processed/);
    }
  });

  it("a 409 is not stored, and an in-progress key answers 409 until it completes", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    const { sha256Hex } = await import("../../src/lib/crypto");
    const keyHash = await sha256Hex(JSON.stringify([key, `Token ${org.token}`, ""]));
    await db().insert(idempotencyKeys).values({ keyHash, state: "running", createdAt: Date.now() });
    const busy = await org.client.post(url, { name: "Busy" }, { headers: { "X-Idempotency-Key": key } });
    expect(busy.status).toBe(409);
    expect(await teamCount(org.id)).toBe(1);
    // the 409 left the first request's record alone; once it is gone the key acts again
    await db().delete(idempotencyKeys).where(eq(idempotencyKeys.keyHash, keyHash));
    const done = await org.client.post(url, { name: "Busy" }, { headers: { "X-Idempotency-Key": key } });
    expect(done.status).toBe(201);
  });

  it("keys expire after 24 hours and the cron trigger removes them", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/teams/`;
    const key = crypto.randomUUID();
    await org.client.post(url, { name: "Old" }, { headers: { "X-Idempotency-Key": key } });
    await db()
      .update(idempotencyKeys)
      .set({ createdAt: Date.now() - 25 * 3600 * 1000 });
    const fresh = await org.client.post(url, { name: "Old" }, { headers: { "X-Idempotency-Key": key } });
    expect(fresh.status).toBe(201);
    expect(await teamCount(org.id)).toBe(3);

    await db()
      .update(idempotencyKeys)
      .set({ createdAt: Date.now() - 25 * 3600 * 1000 });
    await runHousekeeping(env, Date.now());
    expect(await db().select().from(idempotencyKeys)).toHaveLength(0);
  });
});
