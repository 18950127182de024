/** The spec's interface conventions: errors, unknown paths and methods, bodies, pagination. */
import { describe, expect, it } from "vitest";
import { anonymous, seedOrganizer, seedTeam } from "../harness";

describe("unknown paths and methods", () => {
  it("answers 404 with a JSON detail for unknown API paths, with or without credentials", async () => {
    const org = await seedOrganizer();
    for (const client of [anonymous, org.client]) {
      const res = await client.get("/api/v1/nothing-here/");
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.body).toEqual({ detail: "Not found." });
    }
    const outside = await org.client.get("/definitely/not/here");
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ detail: "Not found." });
  });

  it("answers 405 with Allow for a known path and an unsupported method", async () => {
    const org = await seedOrganizer();
    const res = await org.client.delete(`/api/v1/organizers/${org.slug}/`);
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "DELETE" not allowed.' });
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    const put = await org.client.put(`/api/v1/organizers/${org.slug}/settings/`, { locales: ["en"] });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, PATCH");
  });

  it("asks for credentials before telling about methods (401 first, like DRF)", async () => {
    const res = await anonymous.delete("/api/v1/organizers/x/");
    expect(res.status).toBe(401);
  });

  it("accepts paths with and without the trailing slash", async () => {
    const org = await seedOrganizer();
    expect((await org.client.get(`/api/v1/organizers/${org.slug}`)).status).toBe(200);
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/`)).status).toBe(200);
  });

  it("tags every response with a request id", async () => {
    const res = await anonymous.get("/api/v1/organizers/");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("request bodies", () => {
  it("rejects malformed JSON with 400 and changes nothing", async () => {
    const org = await seedOrganizer();
    const before = await org.client.get(`/api/v1/organizers/${org.slug}/teams/`);
    const res = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, undefined, {
      raw: '{"name": "x",',
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^JSON parse error/);
    const after = await org.client.get(`/api/v1/organizers/${org.slug}/teams/`);
    expect(after.body.count).toBe(before.body.count);
  });

  it("rejects a body that is not JSON with 400", async () => {
    const org = await seedOrganizer();
    const form = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, undefined, {
      raw: "name=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(400);
    expect(form.body).toEqual({
      detail:
        'Unsupported media type "application/x-www-form-urlencoded" in request. Send Content-Type: application/json.',
    });
    const none = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, undefined, { raw: '{"name": "x"}' });
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatch(/Content-Type/);
  });

  it("reports field errors per field, and non_field_errors for a body of the wrong shape", async () => {
    const org = await seedOrganizer();
    const fields = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, {
      name: "",
      all_events: "yes",
      limit_events: "x",
    });
    expect(fields.status).toBe(400);
    expect(fields.body).toEqual({
      name: ["This field may not be blank."],
      all_events: ["Must be a valid boolean."],
      limit_events: ['Expected a list of items but got type "str".'],
    });
    const missing = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, {});
    expect(missing.body).toEqual({ name: ["This field is required."] });
    const list = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, [1, 2]);
    expect(list.status).toBe(400);
    expect(list.body).toEqual({ non_field_errors: ['Expected a dictionary of items but got type "list".'] });
  });
});

describe("pagination", () => {
  it("pages by 50 with absolute next/previous URLs, page_size lowering but never raising", async () => {
    const org = await seedOrganizer();
    for (let i = 0; i < 59; i++) await seedTeam(org.id, { permissions: [] });
    const base = `http://ticketing.test/api/v1/organizers/${org.slug}/teams/`;

    const first = await org.client.get(`/api/v1/organizers/${org.slug}/teams/`);
    expect(first.status).toBe(200);
    expect(first.body.count).toBe(60);
    expect(first.body.results).toHaveLength(50);
    expect(first.body.previous).toBeNull();
    expect(first.body.next).toBe(`${base}?page=2`);

    const second = await org.client.get(`/api/v1/organizers/${org.slug}/teams/?page=2`);
    expect(second.body.results).toHaveLength(10);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).toBe(base);
    const ids = [...first.body.results, ...second.body.results].map((t: { id: number }) => t.id);
    expect(new Set(ids).size).toBe(60);

    const small = await org.client.get(`/api/v1/organizers/${org.slug}/teams/?page_size=20&page=2`);
    expect(small.body.results).toHaveLength(20);
    expect(small.body.next).toBe(`${base}?page_size=20&page=3`);
    expect(small.body.previous).toBe(`${base}?page_size=20`);

    const big = await org.client.get(`/api/v1/organizers/${org.slug}/teams/?page_size=500`);
    expect(big.body.results).toHaveLength(50);
  });

  it("answers 404 with a detail for a page past the end or a page that is not a number", async () => {
    const org = await seedOrganizer();
    for (const page of ["2", "0", "-1", "abc"]) {
      const res = await org.client.get(`/api/v1/organizers/${org.slug}/teams/?page=${page}`);
      expect(res.status, page).toBe(404);
      expect(res.body).toEqual({ detail: "Invalid page." });
    }
  });

  it("answers the first page of an empty list with 200", async () => {
    const org = await seedOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/teams/${org.teamId}/members/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 0, next: null, previous: null, results: [] });
  });
});

describe("boolean filters", () => {
  it("accept true/false and reject other values with a field error", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/settings/`;
    expect((await org.client.get(`${url}?explain=true`)).body.locales).toHaveProperty("value");
    expect((await org.client.get(`${url}?explain=false`)).body.locales).toEqual(["en"]);
    const bad = await org.client.get(`${url}?explain=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ explain: ["Select a valid choice. Use true or false."] });
  });
});
