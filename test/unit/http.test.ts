/** Shared HTTP pieces exercised through small apps: conditional fetching, idempotency on 5xx, ordering. */
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorBoundary } from "../../src/app";
import { createDb } from "../../src/db/client";
import { teams } from "../../src/db/schema";
import type { AppEnv } from "../../src/http/context";
import { modifiedSince, notModified, setPageGenerated } from "../../src/http/conditional";
import { idempotency } from "../../src/http/idempotency";
import { orderBy } from "../../src/db/paging";
import { db, seedOrganizer, seedTeam } from "../harness";
import { eq } from "drizzle-orm";

function app() {
  const a = new Hono<AppEnv>();
  a.onError(errorBoundary);
  a.use(async (c, next) => {
    c.set("db", createDb(env.DB));
    await next();
  });
  return a;
}
const call = (a: Hono<AppEnv>, path: string, init?: RequestInit) => a.request(`http://x${path}`, init, env);

describe("conditional fetching helpers", () => {
  const stamp = Date.UTC(2026, 10, 20, 12, 30, 15, 500);
  const a = app();
  a.get("/list", (c) => notModified(c, stamp) ?? c.json({ results: [] }));
  a.get("/never", (c) => notModified(c, null) ?? c.json({ results: [] }));
  a.get("/orders", (c) => {
    setPageGenerated(c, stamp);
    return c.json({ since: modifiedSince(c) ?? null });
  });

  it("Last-Modified / If-Modified-Since → 304 when nothing changed since", async () => {
    const full = await call(a, "/list");
    expect(full.status).toBe(200);
    expect(full.headers.get("last-modified")).toBe("Fri, 20 Nov 2026 12:30:15 GMT");
    const same = await call(a, "/list", { headers: { "If-Modified-Since": "Fri, 20 Nov 2026 12:30:15 GMT" } });
    expect(same.status).toBe(304);
    expect(await same.text()).toBe("");
    const older = await call(a, "/list", { headers: { "If-Modified-Since": "Fri, 20 Nov 2026 12:30:14 GMT" } });
    expect(older.status).toBe(200);
    const garbage = await call(a, "/list", { headers: { "If-Modified-Since": "yesterday-ish" } });
    expect(garbage.status).toBe(200);
    const never = await call(a, "/never", { headers: { "If-Modified-Since": "Fri, 20 Nov 2026 12:30:15 GMT" } });
    expect(never.status).toBe(200);
    expect(never.headers.get("last-modified")).toBeNull();
  });

  it("X-Page-Generated round-trips as modified_since", async () => {
    const res = await call(a, "/orders");
    const generated = res.headers.get("x-page-generated")!;
    expect(generated).toBe("2026-11-20T12:30:15.500Z");
    const back = await call(a, `/orders?modified_since=${encodeURIComponent(generated)}`);
    expect(await back.json()).toEqual({ since: stamp });
    const unencoded = await call(a, "/orders?modified_since=2026-11-20T13:30:15.500+01:00");
    expect(await unencoded.json()).toEqual({ since: stamp });
    const bad = await call(a, "/orders?modified_since=soon");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ modified_since: ["Enter a valid date/time."] });
  });
});

describe("idempotency on server errors", () => {
  it("does not store 500 and 503 responses: the retry acts again", async () => {
    let calls = 0;
    const a = app();
    a.use(idempotency());
    a.post("/flaky/:status", (c) => {
      calls++;
      return c.json({ calls }, Number(c.req.param("status")) as 200);
    });
    for (const status of [500, 503]) {
      calls = 0;
      const key = crypto.randomUUID();
      const init = { method: "POST", headers: { "X-Idempotency-Key": key } };
      expect((await call(a, `/flaky/${status}`, init)).status).toBe(status);
      expect(await (await call(a, `/flaky/${status}`, init)).json()).toEqual({ calls: 2 });
    }
    calls = 0;
    const key = crypto.randomUUID();
    const init = { method: "POST", headers: { "X-Idempotency-Key": key } };
    await call(a, "/flaky/400", init);
    expect(await (await call(a, "/flaky/400", init)).json()).toEqual({ calls: 1 });
  });
});

describe("ordering", () => {
  it("sorts by allowed fields, reverses with '-', ignores unknown fields", async () => {
    const org = await seedOrganizer();
    await seedTeam(org.id, { name: "b-team", permissions: [] });
    await seedTeam(org.id, { name: "a-team", permissions: [] });
    const a = app();
    a.get("/teams", async (c) => {
      const order = orderBy(
        { fields: { name: teams.name, id: teams.id }, default: "id", tiebreaker: teams.id },
        c.req.query("ordering"),
      );
      const rows = await db()
        .select()
        .from(teams)
        .where(eq(teams.organizerId, org.id))
        .orderBy(...order);
      return c.json(rows.map((r) => r.name));
    });
    expect(await (await call(a, "/teams")).json()).toEqual(["Administrators", "b-team", "a-team"]);
    expect(await (await call(a, "/teams?ordering=name")).json()).toEqual(["Administrators", "a-team", "b-team"]);
    expect(await (await call(a, "/teams?ordering=-name")).json()).toEqual(["b-team", "a-team", "Administrators"]);
    expect(await (await call(a, "/teams?ordering=secret")).json()).toEqual(["Administrators", "b-team", "a-team"]);
    expect(await (await call(a, "/teams?ordering=-id,name")).json()).toEqual(["a-team", "b-team", "Administrators"]);
  });
});
