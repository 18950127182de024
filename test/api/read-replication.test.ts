/**
 * D1 read replication through the Sessions API (src/db/sessions.ts, docs/api.md, "Global read
 * latency"). Locally there is one database and no replica, so these tests check the plumbing:
 * the session each request starts (and with what), the `x-d1-bookmark` header out and back in,
 * and that a bookmark handed out after a write covers the write, the event object's included.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { BOOKMARK_HEADER, newerBookmark, sessionStart } from "../../src/db/sessions";
import { BASE, seedOrganizer } from "../harness";
import { venue } from "../helpers/checkin";
import { shop } from "../helpers/sales";

const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** The database's newest bookmark, as a fresh session at the primary sees it. */
async function currentBookmark(): Promise<string> {
  const session = env.DB_2.withSession("first-primary");
  await session.prepare("SELECT 1").first();
  return session.getBookmark()!;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("where a request's session starts", () => {
  const bookmark = "00000001-00000002-00004e2f-0a83ea2fceebc654de0640c422be4653";

  it("writes at the primary, whatever the client sends", () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect(sessionStart(method, null)).toEqual({ kind: "primary", constraint: "first-primary" });
      expect(sessionStart(method, bookmark)).toEqual({ kind: "primary", constraint: "first-primary" });
    }
  });

  it("a scan (the event object decides and writes it) starts where a read does: nearest copy or the client's bookmark", () => {
    expect(sessionStart("POST", null, true)).toEqual({ kind: "unconstrained", constraint: "first-unconstrained" });
    expect(sessionStart("POST", bookmark, true)).toEqual({ kind: "bookmark", constraint: bookmark });
    expect(sessionStart("POST", "first-primary", true)).toEqual({ kind: "primary", constraint: "first-primary" });
  });

  it("reads at the client's bookmark, anywhere without one, at the primary when asked or when the bookmark is malformed", () => {
    for (const method of ["GET", "HEAD", "OPTIONS", "get"]) {
      expect(sessionStart(method, bookmark)).toEqual({ kind: "bookmark", constraint: bookmark });
      expect(sessionStart(method, ` ${bookmark} `)).toEqual({ kind: "bookmark", constraint: bookmark });
      expect(sessionStart(method, undefined)).toEqual({ kind: "unconstrained", constraint: "first-unconstrained" });
      expect(sessionStart(method, "")).toEqual({ kind: "unconstrained", constraint: "first-unconstrained" });
      expect(sessionStart(method, "first-unconstrained")).toEqual({
        kind: "unconstrained",
        constraint: "first-unconstrained",
      });
      expect(sessionStart(method, "first-primary")).toEqual({ kind: "primary", constraint: "first-primary" });
      for (const bad of [
        "garbage",
        bookmark.toUpperCase(),
        `${bookmark}0`,
        "zzzzzzzz-00000002-00004e2f-0a83ea2fceebc654de0640c422be4653",
        "a".repeat(5000),
      ]) {
        expect(sessionStart(method, bad), bad.slice(0, 40)).toEqual({ kind: "primary", constraint: "first-primary" });
      }
    }
  });

  it("the newer of two bookmarks; malformed ones never win", () => {
    const older = "00000001-00000002-00004e2f-0a83ea2fceebc654de0640c422be4653";
    const newer = "00000001-00000003-00000001-0000000000000000000000000000000a";
    expect(newerBookmark(older, newer)).toBe(newer);
    expect(newerBookmark(newer, older)).toBe(newer);
    expect(newerBookmark(null, older)).toBe(older);
    expect(newerBookmark(older, null)).toBe(older);
    expect(newerBookmark(null, null)).toBeNull();
    expect(newerBookmark("zzz", older)).toBe(older);
    expect(newerBookmark(older, "zzz")).toBe(older);
  });

  it("the worker opens exactly one session per request, with the constraint or bookmark chosen", async () => {
    const org = await seedOrganizer();
    const seen: (string | undefined)[] = [];
    const spying = {
      ...env.DB_2,
      withSession: (c?: string) => {
        seen.push(c);
        return env.DB_2.withSession(c);
      },
    } as unknown as D1Database;
    const app = createApp();
    const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
      app.fetch(
        new Request(`${BASE}${path}`, {
          method,
          headers: {
            Authorization: org.client.authorization!,
            ...(body ? { "Content-Type": "application/json" } : {}),
            ...headers,
          },
          body: body ? JSON.stringify(body) : undefined,
        }),
        { ...env, DB_2: spying },
        createExecutionContext(),
      );
    const write = await send(
      "PATCH",
      `/api/v1/organizers/${org.slug}/settings/`,
      { [BOOKMARK_HEADER]: "first-unconstrained" },
      { contact_mail: "a@example.org" },
    );
    expect(write.status).toBe(200);
    const b = write.headers.get(BOOKMARK_HEADER)!;
    expect(b).toMatch(BOOKMARK);
    expect((await send("GET", `/api/v1/organizers/${org.slug}/settings/`, { [BOOKMARK_HEADER]: b })).status).toBe(200);
    expect((await send("GET", `/api/v1/organizers/${org.slug}/settings/`)).status).toBe(200);
    expect(
      (await send("GET", `/api/v1/organizers/${org.slug}/settings/`, { [BOOKMARK_HEADER]: "not a bookmark" })).status,
    ).toBe(200);
    expect(seen).toEqual(["first-primary", b, "first-unconstrained", "first-primary"]);
  });
});

describe("lists a client syncs from (X-Page-Generated, passed back as modified_since)", () => {
  it("read their page at the primary, with or without a bookmark: a lagging replica would make the next sync skip changes for good", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const sub = await s.subevent();
    await s.quota({ size: 5, items: [ticket.id], subevent: sub.id });
    expect(
      (await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id, subevent: sub.id }] })).status,
    ).toBe(201);
    const bookmark = await currentBookmark();
    for (const list of ["orders", "subevents", "cartpositions"]) {
      for (const header of [{}, { [BOOKMARK_HEADER]: bookmark }] as Record<string, string>[]) {
        /** Every statement prepared, with the constraint of the session that ran it. */
        const prepared: { constraint: string | undefined; sql: string }[] = [];
        const spying = {
          withSession: (constraint?: string) => {
            const session = env.DB_2.withSession(constraint);
            return {
              prepare: (sql: string) => {
                prepared.push({ constraint, sql });
                return session.prepare(sql);
              },
              batch: (statements: D1PreparedStatement[]) => session.batch(statements),
              getBookmark: () => session.getBookmark(),
            };
          },
        } as unknown as D1Database;
        const res = await createApp().fetch(
          new Request(`${BASE}${s.path}/${list}/`, { headers: { Authorization: s.client.authorization!, ...header } }),
          { ...env, DB_2: spying },
          createExecutionContext(),
        );
        expect(res.status, list).toBe(200);
        expect(res.headers.get("X-Page-Generated"), list).not.toBeNull();
        const table = list === "cartpositions" ? "cart_positions" : list;
        const page = prepared.filter((p) => p.sql.includes(`from "${table}"`));
        expect(page.length, list).toBeGreaterThan(0);
        expect(new Set(page.map((p) => p.constraint)), list).toEqual(new Set(["first-primary"]));
        // the credential was still read where the client asked; the orders list's second time
        // (the credential admitted to the event) it rides in the page's batch, at the primary
        const credential = prepared.find((p) => p.sql.includes(`from "team_api_tokens"`));
        const ridesAlong = list === "orders" && BOOKMARK_HEADER in header;
        expect(credential?.constraint, list).toBe(
          ridesAlong ? "first-primary" : BOOKMARK_HEADER in header ? bookmark : "first-unconstrained",
        );
        expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
      }
    }
  });

  it("other reads stay where the client asked", async () => {
    const s = await shop();
    const constraints: (string | undefined)[] = [];
    const spying = {
      withSession: (c?: string) => {
        constraints.push(c);
        return env.DB_2.withSession(c);
      },
    } as unknown as D1Database;
    for (const path of ["/categories/", "/items/", "/quotas/", "/checkinlists/"]) {
      const res = await createApp().fetch(
        new Request(`${BASE}${s.path}${path}`, { headers: { Authorization: s.client.authorization! } }),
        { ...env, DB_2: spying },
        createExecutionContext(),
      );
      expect(res.status, path).toBe(200);
    }
    expect(constraints).toEqual([
      "first-unconstrained",
      "first-unconstrained",
      "first-unconstrained",
      "first-unconstrained",
    ]);
  });
});

describe("the bookmark round trip", () => {
  it("a write hands out a bookmark that covers it; a read with it sees the write and hands back one at least as new", async () => {
    const s = await shop();
    const before = await currentBookmark();
    const created = await s.client.post(`${s.path}/categories/`, { name: { en: "Tickets" } });
    expect(created.status).toBe(201);
    const b = created.headers.get(BOOKMARK_HEADER)!;
    expect(b).toMatch(BOOKMARK);
    expect(b > before).toBe(true); // newer than anything before the request

    const read = await s.client.get(`${s.path}/categories/${created.body.id}/`, { headers: { [BOOKMARK_HEADER]: b } });
    expect(read.status).toBe(200);
    expect(read.body.name).toEqual({ en: "Tickets" });
    const back = read.headers.get(BOOKMARK_HEADER)!;
    expect(back).toMatch(BOOKMARK);
    expect(back >= b).toBe(true);
  });

  it("an order written by the event object: the bookmark covers the object's write, not only the Worker's own queries", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 5, items: [ticket.id] });
    // the Worker's session, to compare its own bookmark with the one handed out
    let workerSession: D1DatabaseSession | undefined;
    const constraints: (string | undefined)[] = [];
    const spying = {
      withSession: (c?: string) => {
        constraints.push(c);
        return (workerSession = env.DB_2.withSession(c));
      },
    } as unknown as D1Database;
    const placed = await createApp().fetch(
      new Request(`${BASE}${s.path}/orders/`, {
        method: "POST",
        headers: { Authorization: s.client.authorization!, "Content-Type": "application/json" },
        body: JSON.stringify({ positions: [{ item: ticket.id }] }),
      }),
      { ...env, DB_2: spying },
      createExecutionContext(),
    );
    expect(placed.status).toBe(201);
    const order = (await placed.json()) as { code: string };
    const b = placed.headers.get(BOOKMARK_HEADER)!;
    expect(b).toMatch(BOOKMARK);
    // the Worker read the credential and the catalog where a read does (the object decides and writes)
    expect(constraints).toEqual(["first-unconstrained"]);
    // the object wrote the order (its first: before answering) after the Worker's last query: its bookmark is the newer one
    const own = workerSession!.getBookmark();
    if (own !== null) expect(b > own, `${b} vs ${own}`).toBe(true);
    expect(b <= (await currentBookmark())).toBe(true);

    const read = await s.client.get(`${s.path}/orders/${order.code}/`, { headers: { [BOOKMARK_HEADER]: b } });
    expect(read.status).toBe(200);
    expect(read.body.code).toBe(order.code);
  });

  it("a scan at the door (checkinrpc, then the per-list redeem): the bookmark covers a check-in the object wrote before answering; one it answered from its storage follows", async () => {
    const v = await venue();
    const list = await v.list();
    const first = await v.sell();
    const second = await v.sell();
    const scans = [
      {
        path: `/api/v1/organizers/${v.orgSlug}/checkinrpc/redeem/`,
        body: { secret: first.secret, lists: [list.id] },
        position: first,
      },
      { path: `${v.path}/checkinlists/${list.id}/positions/${second.id}/redeem/`, body: {}, position: second },
    ];
    for (const scan of scans) {
      let workerSession: D1DatabaseSession | undefined;
      const spying = {
        withSession: (c?: string) => (workerSession = env.DB_2.withSession(c)),
      } as unknown as D1Database;
      const res = await createApp().fetch(
        new Request(`${BASE}${scan.path}`, {
          method: "POST",
          headers: { Authorization: v.scanner.authorization!, "Content-Type": "application/json" },
          body: JSON.stringify(scan.body),
        }),
        { ...env, DB_2: spying },
        createExecutionContext(),
      );
      expect(res.status, scan.path).toBe(201);
      expect(((await res.json()) as { status: string }).status).toBe("ok");
      const b = res.headers.get(BOOKMARK_HEADER)!;
      expect(b).toMatch(BOOKMARK);
      if (scan === scans[0]) {
        // the object's first scan: it wrote the check-in (and leased check-in ids) after the
        // Worker's last query, before answering; its bookmark is the newer one
        expect(b > workerSession!.getBookmark()!, scan.path).toBe(true);
      } else {
        // answered from the object's storage: the bookmark is the Worker's own, the check-in follows
        expect(b, scan.path).toBe(workerSession!.getBookmark());
        await v.settle();
      }
      expect(b <= (await currentBookmark())).toBe(true);

      const read = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${scan.position.id}/`, {
        headers: { [BOOKMARK_HEADER]: b },
      });
      expect(read.status).toBe(200);
      expect(read.body.checkins).toEqual([expect.objectContaining({ list: list.id, type: "entry" })]);
    }
  });

  it("reads without a bookmark, and errors, still answer normally; a request without D1 work hands none out", async () => {
    const org = await seedOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
    const odd = await org.client.get(`/api/v1/organizers/${org.slug}/`, {
      headers: { [BOOKMARK_HEADER]: "garbage, with spaces" },
    });
    expect(odd.status).toBe(200);
    expect(odd.headers.get(BOOKMARK_HEADER)).toMatch(BOOKMARK);
    const nothing = await org.client.get(`/api/v1/no/such/path/`);
    expect(nothing.status).toBe(404);
    expect(nothing.headers.get(BOOKMARK_HEADER)).toBeNull();
  });
});
