/**
 * The API description (GET /api/v1/openapi.json) against the router: every path and method the
 * router serves under /api/v1 is described, nothing else is; every route declares itself; the
 * description says who may call what, and its schemas hold. The answers of the whole suite are
 * checked against it by the harness (test/helpers/contract.ts); the last tests here show that
 * those checks fail when the service and the description disagree.
 */
import type { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { API_PREFIX, createApp } from "../../src/app";
import { apiDocs, buildOpenApiDocument, undescribedRoutes } from "../../src/http/openapi";
import { RouteTable } from "../../src/http/routing";
import { authenticatedScope } from "../../src/http/tenancy";
import { anonymous, BASE, type Json, seedEventRow, seedOrganizer } from "../harness";
import { pendingOrder, type SetupWorld } from "../permissions/fixtures";
import { checkContract, ContractError, openApiDocument } from "../helpers/contract";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** `GET /api/v1/organizers/{organizer}/events` for a pattern or a description path. */
function key(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/:(\w+)(\{[^/]*\})?/g, "{$1}").replace(/(.)\/$/, "$1")}`;
}

function tableOperations(app: Hono<any>): string[] {
  return new RouteTable(app, API_PREFIX)
    .routes()
    .map((r) => key(r.method, r.path))
    .sort();
}

function documentOperations(doc: Json): string[] {
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => key(m, path)),
    )
    .sort();
}

/** What the description lacks and what it has in excess, route by route. */
function compare(table: string[], described: string[]) {
  return { missing: table.filter((r) => !described.includes(r)), extra: described.filter((r) => !table.includes(r)) };
}

describe("GET /api/v1/openapi.json", () => {
  it("is public, OpenAPI 3.1, and the same document the app builds", async () => {
    const res = await anonymous.get("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe("3.1.0");
    expect(res.body).toEqual(await openApiDocument());
    // the isolate's copy: the second answer is the same text
    expect((await anonymous.get("/api/v1/openapi.json")).text).toBe(res.text);
  });

  it("describes exactly the routes of the route table under /api/v1 (no missing, no extra)", async () => {
    const app = createApp();
    const table = tableOperations(app);
    const described = documentOperations(await buildOpenApiDocument(app, API_PREFIX));
    expect(table.length).toBeGreaterThan(150);
    expect(compare(table, described)).toEqual({ missing: [], extra: [] });
    expect(table).toContain("GET /api/v1/openapi.json");
    expect(table).toContain("POST /api/v1/upload");
  });

  it("every route declares its answer, its scope and typed path parameters", () => {
    expect(undescribedRoutes(createApp(), API_PREFIX)).toEqual([]);
  });

  it("a route without its declaration is named (the comparison fails loudly)", async () => {
    const app = createApp();
    app.get(`${API_PREFIX}/organizers/:organizer/undeclared/:thing`, authenticatedScope(), (c) => c.json({}));
    app.post(
      `${API_PREFIX}/undeclared`,
      authenticatedScope(),
      apiDocs("Test").noContent({ summary: "declared" }),
      (c) => c.body(null, 204),
    );
    const described = documentOperations(await buildOpenApiDocument(app, API_PREFIX));
    expect(compare(tableOperations(app), described)).toEqual({
      missing: ["GET /api/v1/organizers/{organizer}/undeclared/{thing}"],
      extra: [],
    });
    expect(undescribedRoutes(app, API_PREFIX)).toEqual([
      "GET /api/v1/organizers/:organizer/undeclared/:thing: no apiDocs(...) declaration (list/ok/created/noContent) in its middleware chain",
      'GET /api/v1/organizers/:organizer/undeclared/:thing: path parameter "thing" is not in PATH_PARAMETERS (src/http/openapi.ts)',
    ]);
  });

  it("security schemes Token and Device; public, device-only, token-only and shared routes", async () => {
    const doc = await openApiDocument();
    expect(doc.components.securitySchemes.Token).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });
    expect(doc.components.securitySchemes.Token.description).toContain("Authorization: Token <token>");
    expect(doc.components.securitySchemes.Device).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "Authorization",
    });
    expect(doc.components.securitySchemes.Device.description).toContain("Authorization: Device <api_token>");
    const op = (path: string, method: string) => doc.paths[path][method];
    expect(op("/api/v1/device/initialize", "post").security).toEqual([]);
    expect(op("/api/v1/openapi.json", "get").security).toEqual([]);
    expect(op("/api/v1/device/info", "get").security).toEqual([{ Device: [] }]);
    // refused to team tokens by the handler itself (deviceOnly)
    expect(op("/api/v1/device/eventselection", "get").security).toEqual([{ Device: [] }]);
    expect(op("/api/v1/organizers/{organizer}/events/{event}/orders/", "get").security).toEqual([
      { Token: [] },
      { Device: [] },
    ]);
    expect(op("/api/v1/organizers/{organizer}/events/{event}/orders/", "get")["x-permission"]).toBe("can_view_orders");
    expect(op("/api/v1/organizers/{organizer}/events/{event}/items/", "post").security).toEqual([{ Token: [] }]);
    expect(op("/api/v1/organizers/{organizer}/teams/", "get").security).toEqual([{ Token: [] }]);
    expect(op("/api/v1/organizers/", "get").security).toEqual([{ Token: [] }, { Device: [] }]);
    // no credentials, no 401; credentials, 401 and 403
    expect(Object.keys(op("/api/v1/openapi.json", "get").responses)).toEqual(["200", "429"]);
    expect(op("/api/v1/organizers/{organizer}/events/{event}/orders/", "get").responses["401"]).toEqual({
      $ref: "#/components/responses/Unauthenticated",
    });
  });

  it("lists: the envelope around the family's schema, page, page_size and the ordering fields of the list", async () => {
    const doc = await openApiDocument();
    const list = doc.paths["/api/v1/organizers/{organizer}/events/{event}/orders/"].get;
    const schema = list.responses["200"].content["application/json"].schema;
    expect(schema.required).toEqual(["count", "next", "previous", "results"]);
    expect(schema.properties.results.items).toEqual({ $ref: "#/components/schemas/OrderInList" });
    const inList = doc.components.schemas.OrderInList;
    expect(inList.required).toEqual(doc.components.schemas.Order.required);
    expect(doc.components.schemas.OrderPositionInList.properties.canceled).toMatchObject({ type: "boolean" });
    const params = Object.fromEntries(list.parameters.map((p: Json) => [`${p.in} ${p.name}`, p]));
    expect(Object.keys(params)).toEqual([
      "path organizer",
      "path event",
      "query page",
      "query page_size",
      "query ordering",
      "query status",
      "query code",
      "query testmode",
      "query email",
      "query locale",
      "query modified_since",
      "query customer",
      "query search",
      "query item",
      "query variation",
      "query subevent",
      "query require_approval",
      "query created_since",
      "query created_before",
      "query subevent_after",
      "query subevent_before",
      "query sales_channel",
      "query payment_provider",
      "query include_canceled_positions",
      "query include_canceled_fees",
      "query include",
      "query exclude",
      "query pdf_data",
    ]);
    expect(params["query include"]).toMatchObject({
      schema: { type: "array", items: { type: "string" } },
      style: "form",
      explode: true,
      "x-keeps-fields": true,
    });
    expect(params["query exclude"]).toMatchObject({
      schema: { type: "array", items: { type: "string" } },
      style: "form",
      explode: true,
      "x-omits-fields": true,
    });
    expect(params["query status"].schema).toEqual({ type: "string", enum: ["n", "p", "e", "c"] });
    expect(params["query testmode"].schema).toEqual({ type: "boolean" });
    expect(params["query modified_since"].schema).toEqual({ type: "string", format: "date-time" });
    expect(params["query ordering"].description).toContain("`datetime`");
    expect(params["path event"]).toMatchObject({ required: true, schema: { type: "string" } });
    expect(list.responses["404"]).toEqual({ $ref: "#/components/responses/NotFound" });
    // the event list: attr[...] as a deepObject, with_availability_for as the sales channels
    const events = doc.paths["/api/v1/organizers/{organizer}/events/"].get.parameters;
    expect(events.find((p: Json) => p.name === "attr")).toMatchObject({
      in: "query",
      style: "deepObject",
      explode: true,
    });
    expect(events.find((p: Json) => p.name === "with_availability_for").schema.enum).toContain("web");
  });

  it("request bodies are the schemas the routes validate with; path ids are integers", async () => {
    const doc = await openApiDocument();
    const create = doc.paths["/api/v1/organizers/{organizer}/events/{event}/orders/"].post;
    expect(create.requestBody.required).toBe(true);
    const body = create.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(expect.arrayContaining(["positions"]));
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["email", "positions", "payment_provider"]));
    // a body whose fields are all optional may be left out
    expect(
      doc.paths["/api/v1/organizers/{organizer}/events/{event}/orders/{code}/mark_paid/"].post.requestBody.required,
    ).toBe(false);
    // cart bulk_create is validated entry by entry and described as a list of cart positions
    const bulk =
      doc.paths["/api/v1/organizers/{organizer}/events/{event}/cartpositions/bulk_create/"].post.requestBody.content[
        "application/json"
      ].schema;
    expect(bulk).toMatchObject({ type: "array", maxItems: 1000 });
    expect(Object.keys(bulk.items.properties)).toContain("item");
    const detail = doc.paths["/api/v1/organizers/{organizer}/events/{event}/vouchers/{id}/"].get;
    expect(detail.parameters.find((p: Json) => p.name === "id").schema).toMatchObject({ type: "integer", minimum: 0 });
    const upload = doc.paths["/api/v1/upload"].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(["*/*"]);
    expect(Object.keys(upload.responses)).toEqual(["201", "400", "401", "403", "409", "429", "503"]);
  });

  it("a route's own answers: a scan's refusals beside the failure table, an export's states, a file", async () => {
    const doc = await openApiDocument();
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const rpc = doc.paths["/api/v1/organizers/{organizer}/checkinrpc/redeem/"].post;
    expect(Object.keys(rpc.responses)).toEqual(["201", "400", "401", "403", "404", "409", "429", "503"]);
    expect(rpc.responses["201"].content["application/json"].schema).toEqual(ref("RedeemAnswer"));
    // 400: the scan's `error`/`incomplete`, pretix's bare list of messages about the lists, or field errors of the body
    expect(rpc.responses["400"].content["application/json"].schema).toEqual({
      anyOf: [{ anyOf: [ref("RedeemAnswer"), ref("ListMessages")] }, ref("BadRequestBody")],
    });
    const search = doc.paths["/api/v1/organizers/{organizer}/checkinrpc/search/"].get;
    expect(search.responses["400"].content["application/json"].schema).toEqual({
      anyOf: [ref("ListMessages"), ref("BadRequestBody")],
    });
    // any credential of the organizer: each list needs the check-in permission of its event
    expect(rpc["x-permission"]).toBe("checkin:scan");
    expect(rpc.description).toContain("each list needs `checkin:scan` (`can_change_orders` or `can_checkin_orders`)");
    // 404: only the scan's `invalid` (no id in the path)
    expect(rpc.responses["404"].content["application/json"].schema).toEqual(ref("RedeemAnswer"));
    const onList =
      doc.paths["/api/v1/organizers/{organizer}/events/{event}/checkinlists/{list}/positions/{id}/redeem/"].post;
    expect(onList.responses["404"].content["application/json"].schema).toEqual({
      anyOf: [ref("RedeemAnswer"), ref("Detail")],
    });
    // the ticket in the path is a secret or an id: a string here, unlike other ids
    expect(onList.parameters.find((p: Json) => p.name === "id").schema).toEqual({ type: "string" });
    expect(onList.parameters.find((p: Json) => p.name === "list").schema).toMatchObject({ type: "integer" });

    const run = doc.paths["/api/v1/organizers/{organizer}/events/{event}/exporters/{identifier}/run/"].post;
    expect(Object.keys(run.responses)).toEqual(["202", "400", "401", "403", "404", "409", "429", "503"]);
    expect(run.requestBody).toMatchObject({
      required: false,
      content: { "application/json": { schema: { type: "object" } } },
    });
    // every organizer-level exporter has a `_format` to choose: that body is required
    const orgRun = doc.paths["/api/v1/organizers/{organizer}/exporters/{identifier}/run/"].post;
    expect(orgRun.requestBody).toMatchObject({
      required: true,
      content: { "application/json": { schema: { type: "object", required: ["_format"] } } },
    });
    expect(run.parameters.find((p: Json) => p.name === "identifier").description).toContain("exporter");
    const download = doc.paths["/api/v1/organizers/{organizer}/exporters/{identifier}/download/{id}/"].get;
    expect(Object.keys(download.responses["200"].content)).toEqual(["*/*"]);
    expect(Object.keys(download.responses["409"].headers)).toEqual(["Retry-After"]);
    expect(download.responses["410"].content["application/json"].schema.required).toEqual(["status", "message"]);
    expect(download.parameters.find((p: Json) => p.name === "id").schema).toEqual({ type: "string", format: "uuid" });

    const selection = doc.paths["/api/v1/device/eventselection"].get;
    expect(Object.keys(selection.responses)).toEqual(["200", "304", "400", "401", "403", "404", "429", "503"]);
    expect(selection.responses["304"].content).toBeUndefined();
  });

  it("error responses from the failure table: field errors, detail, and the headers of retryable answers", async () => {
    const doc = await openApiDocument();
    const r = doc.components.responses;
    expect(r.BadRequest.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/BadRequestBody" });
    expect(r.NotFound.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Detail" });
    expect(Object.keys(r.Unavailable.headers)).toEqual(["Retry-After"]);
    expect(Object.keys(r.Unauthenticated.headers)).toEqual(["WWW-Authenticate"]);
    expect(r.Conflict.description).toContain("`busy`");
    const vouchers = doc.paths["/api/v1/organizers/{organizer}/events/{event}/vouchers/"].post.responses;
    expect(Object.keys(vouchers)).toEqual(["201", "400", "401", "403", "409", "429", "503"]);
    // a D1 fault is a 503 on every route with credentials; the public description reads no database
    expect(doc.paths["/api/v1/organizers/{organizer}/events/"].get.responses["503"]).toEqual({
      $ref: "#/components/responses/Unavailable",
    });
    expect(doc.paths["/api/v1/device/initialize"].post.responses["503"]).toEqual({
      $ref: "#/components/responses/Unavailable",
    });
    expect(doc.paths["/api/v1/openapi.json"].get.responses["503"]).toBeUndefined();
    const carts = doc.paths["/api/v1/organizers/{organizer}/events/{event}/cartpositions/"].post.responses;
    expect(carts["503"]).toEqual({ $ref: "#/components/responses/Unavailable" });
  });
});

describe("the contract checks of the harness fail on a disagreement", () => {
  const url = (path: string) => `${BASE}${path}`;
  const answer = (status: number, body: unknown) => ({
    status,
    headers: new Headers({ "content-type": "application/json" }),
    text: body === null ? "" : JSON.stringify(body),
    body,
  });

  it("a success body with a missing, an extra or a mistyped field", async () => {
    const org = await seedOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.status).toBe(200);
    const path = url(`/api/v1/organizers/${org.slug}/`);
    await expect(checkContract("GET", path, answer(200, res.body))).resolves.toBeUndefined();
    const { public_url: _, ...missing } = res.body;
    await expect(checkContract("GET", path, answer(200, missing))).rejects.toThrow(/public_url/);
    await expect(checkContract("GET", path, answer(200, { ...res.body, extra: 1 }))).rejects.toThrow(ContractError);
    await expect(checkContract("GET", path, answer(200, { ...res.body, slug: 7 }))).rejects.toThrow(/\/slug/);
    await expect(checkContract("GET", path, answer(200, { ...res.body, public_url: "not a url" }))).rejects.toThrow(
      /format/,
    );
  });

  it("fields left out with `exclude` may be missing, others not (also inside the positions)", async () => {
    const org = await seedOrganizer();
    const ev = await seedEventRow(org.id);
    const w: SetupWorld = {
      admin: org.client,
      orgId: org.id,
      orgSlug: org.slug,
      eventSlug: ev.slug,
      org: `/api/v1/organizers/${org.slug}`,
      ev: `/api/v1/organizers/${org.slug}/events/${ev.slug}`,
    };
    await pendingOrder(w);
    const res = await org.client.get(`${w.ev}/orders/`);
    expect(res.status).toBe(200);
    const { email: _, ...noEmail } = res.body.results[0];
    const page = (order: Json) => answer(200, { ...res.body, results: [order] });
    await expect(checkContract("GET", url(`${w.ev}/orders/`), page(noEmail))).rejects.toThrow(/email/);
    await expect(checkContract("GET", url(`${w.ev}/orders/?exclude=email`), page(noEmail))).resolves.toBeUndefined();
    // another field still counts
    const { code: __, ...noCode } = noEmail;
    await expect(checkContract("GET", url(`${w.ev}/orders/?exclude=email`), page(noCode))).rejects.toThrow(/code/);
    const noDownloads = { ...noEmail, positions: noEmail.positions.map(({ downloads: _d, ...p }: Json) => p) };
    expect(noDownloads.positions.length).toBeGreaterThan(0);
    await expect(checkContract("GET", url(`${w.ev}/orders/?exclude=email`), page(noDownloads))).rejects.toThrow(
      /downloads/,
    );
    await expect(
      checkContract("GET", url(`${w.ev}/orders/?exclude=email&exclude=positions.downloads`), page(noDownloads)),
    ).resolves.toBeUndefined();
    // the service's own answer to the same request
    expect(
      (await org.client.get(`${w.ev}/orders/?exclude=email&exclude=positions.downloads`)).body.results[0],
    ).not.toHaveProperty("email");
  });

  it("a file answer: any content type where a file is declared, JSON only where JSON is", async () => {
    const download = url("/api/v1/organizers/x/exporters/orderlist/download/0b5c3f7e-8d3a-4f0e-9a55-7d7a1d2c9e10/");
    const file = { status: 200, headers: new Headers({ "content-type": "text/csv" }), text: "a,b\n", body: "a,b\n" };
    await expect(checkContract("GET", download, file)).resolves.toBeUndefined();
    await expect(checkContract("GET", url("/api/v1/organizers/x/"), file)).rejects.toThrow(/declared as JSON/);
    await expect(
      checkContract("GET", download, answer(410, { status: "failed", message: "x" })),
    ).resolves.toBeUndefined();
    await expect(checkContract("GET", download, answer(410, { status: "failed" }))).rejects.toThrow(/message/);
  });

  it("a list result that does not match the family's schema", async () => {
    const path = url("/api/v1/organizers/");
    const page = { count: 1, next: null, previous: null, results: [{ name: "x", slug: "x" }] };
    await expect(checkContract("GET", path, answer(200, page))).rejects.toThrow(/results\/0/);
  });

  it("an undeclared status, an error body of the wrong shape, an undeclared query parameter", async () => {
    const detail = url("/api/v1/organizers/x/events/y/vouchers/1/");
    await expect(checkContract("GET", detail, answer(418, { detail: "teapot" }))).rejects.toThrow(
      /status 418 is not declared/,
    );
    await expect(checkContract("GET", detail, answer(404, { detail: "Not found." }))).resolves.toBeUndefined();
    await expect(checkContract("GET", detail, answer(404, { message: "Not found." }))).rejects.toThrow(ContractError);
    await expect(
      checkContract("POST", url("/api/v1/organizers/x/events/y/vouchers/"), answer(400, { code: "not a list" })),
    ).rejects.toThrow(ContractError);
    await expect(
      checkContract(
        "POST",
        url("/api/v1/organizers/x/events/y/vouchers/"),
        answer(400, { code: ["Required."], nested: { a: ["b"] } }),
      ),
    ).resolves.toBeUndefined();
    await expect(
      checkContract("GET", url("/api/v1/organizers/x/events/y/vouchers/?colour=red"), answer(403, { detail: "x" })),
    ).rejects.toThrow(/"colour" is not declared/);
    await expect(
      checkContract(
        "GET",
        url("/api/v1/organizers/x/events/y/vouchers/?tag=a&attr[x]=1"),
        answer(403, { detail: "x" }),
      ),
    ).rejects.toThrow(/"attr\[x\]"/);
    await expect(
      checkContract("GET", url("/api/v1/organizers/x/events/?attr[x]=1"), answer(403, { detail: "x" })),
    ).resolves.toBeUndefined();
  });

  it("a body on 204, unknown paths and methods", async () => {
    await expect(checkContract("DELETE", url("/api/v1/organizers/x/teams/1/"), answer(204, { id: 1 }))).rejects.toThrow(
      /without a body/,
    );
    await expect(
      checkContract("GET", url("/api/v1/nowhere/"), answer(404, { detail: "Not found." })),
    ).resolves.toBeUndefined();
    await expect(checkContract("GET", url("/api/v1/nowhere/"), answer(200, {}))).rejects.toThrow(/404 was expected/);
    await expect(
      checkContract("PUT", url("/api/v1/organizers/"), answer(405, { detail: 'Method "PUT" not allowed.' })),
    ).resolves.toBeUndefined();
    // credentials are asked for before the method is looked at
    await expect(
      checkContract(
        "DELETE",
        url("/api/v1/organizers/x/"),
        answer(401, { detail: "Authentication credentials were not provided." }),
      ),
    ).resolves.toBeUndefined();
    await expect(checkContract("DELETE", url("/api/v1/organizers/x/"), answer(200, { detail: "x" }))).rejects.toThrow(
      /405 was expected/,
    );
  });
});

describe("GET /api/docs", () => {
  /** Hosts a reference page could load its script, styles or fonts from. */
  const CDN_HOSTS = [
    "cdn.jsdelivr.net",
    "unpkg.com",
    "cdnjs.cloudflare.com",
    "esm.sh",
    "esm.run",
    "skypack.dev",
    "fonts.googleapis.com",
    "fonts.gstatic.com",
  ];

  it("serves the interactive reference from the service: the page, its script, nothing from another host", async () => {
    const page = await anonymous.get("/api/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    // the plain link to the description, in the page itself (shown when the script cannot run)
    expect(page.text).toMatch(/<a href="\/api\/v1\/openapi\.json">openapi\.json<\/a>/);
    expect(page.text).toContain('<script id="api-reference" data-url="/api/v1/openapi.json"');
    // every reference of the page is a path of this service: no absolute URL, no other host
    const refs = [...page.text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(refs).toEqual(["/api/v1/openapi.json", "/api/docs/api-reference.js"]);
    expect(page.text).not.toMatch(/https?:\/\//);
    // the browser may load from nowhere else
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");

    const script = await anonymous.get("/api/docs/api-reference.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=UTF-8");
    expect(script.text.length).toBeGreaterThan(1_000_000);
    expect(script.text).toContain("createApiReference");
    for (const host of CDN_HOSTS) {
      expect(page.text, host).not.toContain(host);
      expect(script.text, host).not.toContain(host);
    }
    // revalidation: the same bundle answers 304 to its tag
    const etag = script.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{24}"$/);
    const again = await anonymous.get("/api/docs/api-reference.js", { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });
});
