/**
 * Structured logs (src/lib/log.ts, docs/deploying.md, "Logs"): every line is one object; a request writes
 * exactly one access line (request id, organizer, event, route pattern, method, status,
 * duration); other lines of a request carry the same ids.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { anonymous, BASE, seedEventRow, seedOrganizer } from "../harness";

type Line = Record<string, unknown>;

/**
 * A line of the queue consumer or a cron run (their context names the queue or the cron). They
 * run in the background of the isolate the project's test files share, for the other files'
 * messages too: not the lines of the requests a test makes.
 */
const background = (line: unknown) => typeof line === "object" && line !== null && ("queue" in line || "cron" in line);

function captureLogs(): { lines: Line[]; calls: { method: string; args: unknown[] }[] } {
  const lines: Line[] = [];
  const calls: { method: string; args: unknown[] }[] = [];
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      if (background(args[0])) return;
      calls.push({ method, args });
      lines.push(args[0] as Line);
    });
  }
  return { lines, calls };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("access line", () => {
  it("an authenticated read writes exactly one line: one JSON object with the request's fields", async () => {
    const org = await seedOrganizer();
    const { lines, calls } = captureLogs();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.status).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.method).toBe("log");
    expect(calls[0]!.args).toHaveLength(1);
    const line = lines[0]!;
    expect(JSON.parse(JSON.stringify(line))).toEqual(line); // plain JSON, nothing lost
    expect(line).toEqual({
      level: "info",
      message: "request",
      request_id: res.headers.get("X-Request-Id"),
      method: "GET",
      route: "/api/v1/organizers/:organizer",
      organizer: org.slug,
      event: null,
      status: 200,
      duration_ms: expect.any(Number),
      d1_session: "unconstrained",
    });
    expect(line.duration_ms as number).toBeGreaterThanOrEqual(0);
  });

  it("a write names the event and the status it answered", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const { lines } = captureLogs();
    const res = await org.client.post(`/api/v1/organizers/${org.slug}/events/${ev.slug}/categories/`, {
      name: { en: "Tickets" },
    });
    expect(res.status).toBe(201);
    expect(lines).toEqual([
      {
        level: "info",
        message: "request",
        request_id: res.headers.get("X-Request-Id"),
        method: "POST",
        route: "/api/v1/organizers/:organizer/events/:event/categories",
        organizer: org.slug,
        event: ev.slug,
        status: 201,
        duration_ms: expect.any(Number),
        d1_session: "primary",
      },
    ]);
  });

  it("refused and unknown requests: the status, no organizer they did not get to, no route for an unknown path", async () => {
    const org = await seedOrganizer();
    const { lines } = captureLogs();
    const denied = await anonymous.get(`/api/v1/organizers/${org.slug}/`);
    expect(denied.status).toBe(401);
    const unknown = await org.client.get(`/api/v1/nothing/here/`);
    expect(unknown.status).toBe(404);
    const page = await anonymous.get(`/${org.slug}/no-such-event/`);
    expect(page.status).toBe(404);
    expect(lines.map((l) => [l.message, l.method, l.route, l.organizer, l.status, l.request_id])).toEqual([
      ["request", "GET", "/api/v1/organizers/:organizer", null, 401, denied.headers.get("X-Request-Id")],
      ["request", "GET", null, null, 404, unknown.headers.get("X-Request-Id")],
      ["request", "GET", "/:organizer/:event", null, 404, page.headers.get("X-Request-Id")],
    ]);
  });

  it("an unexpected error: one error line and one access line, with the same request id and route", async () => {
    const org = await seedOrganizer();
    // a database binding that throws on every query something that is no Failure and no D1
    // fault (a D1 fault is a 503: the next test)
    const broken = () => {
      throw new Error("the binding is broken");
    };
    const session = { prepare: broken, batch: broken, getBookmark: () => null };
    const brokenDb = {
      prepare: broken,
      batch: broken,
      exec: broken,
      withSession: () => session,
    } as unknown as D1Database;
    const { lines } = captureLogs();
    const res = await createApp().fetch(
      new Request(`${BASE}/api/v1/organizers/${org.slug}/`, { headers: { Authorization: org.client.authorization! } }),
      { ...env, DB_2: brokenDb },
      createExecutionContext(),
    );
    expect(res.status).toBe(500);
    const id = res.headers.get("X-Request-Id");
    expect(await res.json()).toEqual({ detail: `Internal server error (request ${id}).` });
    expect(lines).toEqual([
      {
        level: "error",
        message: "unhandled error",
        request_id: id,
        method: "GET",
        route: "/api/v1/organizers/:organizer",
        organizer: null,
        event: null,
        error: { name: "Error", message: "the binding is broken", stack: expect.any(String) },
      },
      expect.objectContaining({
        level: "info",
        message: "request",
        request_id: id,
        status: 500,
        route: "/api/v1/organizers/:organizer",
      }),
    ]);
  });

  it("a D1 fault no service answered: a 503 to retry, one error line and one access line with the same request id", async () => {
    const org = await seedOrganizer();
    const broken = () => {
      throw new Error("D1 is down");
    };
    const session = { prepare: broken, batch: broken, getBookmark: () => null };
    const brokenDb = {
      prepare: broken,
      batch: broken,
      exec: broken,
      withSession: () => session,
    } as unknown as D1Database;
    const { lines } = captureLogs();
    const res = await createApp().fetch(
      new Request(`${BASE}/api/v1/organizers/${org.slug}/`, { headers: { Authorization: org.client.authorization! } }),
      { ...env, DB_2: brokenDb },
      createExecutionContext(),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("Retry-After")).toBe("1");
    const id = res.headers.get("X-Request-Id");
    expect(await res.json()).toEqual({ detail: "The database could not be reached. Retry in a moment." });
    expect(lines).toEqual([
      {
        level: "error",
        message: "D1 fault",
        request_id: id,
        method: "GET",
        route: "/api/v1/organizers/:organizer",
        organizer: null,
        event: null,
        error: { name: "Error", message: "D1 is down", stack: expect.any(String) },
      },
      expect.objectContaining({
        level: "info",
        message: "request",
        request_id: id,
        status: 503,
        route: "/api/v1/organizers/:organizer",
      }),
    ]);
  });
});
