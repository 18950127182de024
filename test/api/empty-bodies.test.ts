/**
 * An empty body with `Content-Type: application/json` (what pretix clients and `curl -X POST -H
 * "Content-Type: application/json"` send when there is nothing to say) is `{}`, as pretix
 * takes it: a route whose body is optional acts on it, a route that needs a body answers the
 * field errors of `{}`. The routes come from their declarations (the API description says
 * whether each body is required), every one of them on real objects (the permission matrix's).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { API_PREFIX, createApp } from "../../src/app";
import { routeInfos } from "../../src/http/openapi";
import type { Json } from "../harness";
import { openApiDocument } from "../helpers/contract";
import {
  newRouteWorld,
  prepareCall,
  type RouteWorld,
  rowOf,
  SIGNED_BODIES,
  successStatus,
} from "../helpers/route-calls";

let world: RouteWorld;
let doc: Json;

beforeAll(async () => {
  world = await newRouteWorld();
  doc = await openApiDocument();
});

const app = createApp();
/** The routes with a JSON body, and whether their description requires it. */
const ROUTES = routeInfos(app, API_PREFIX).filter((r) => r.hasBody && r.method !== "GET");

/**
 * Calls whose body is optional only for some of their objects: an exporter without inputs
 * (`json`) takes an empty body; the permission matrix runs one that needs `_format`.
 */
const OPTIONAL_BODY_CALLS: Record<string, Record<string, string>> = {
  "POST /api/v1/organizers/:organizer/events/:event/exporters/:identifier/run": { identifier: "json" },
};

/** The same request without a body: nothing at all, or `Content-Length: 0`. */
const EMPTY: Record<string, string>[] = [{}, { "Content-Length": "0" }];

async function jsonRequestBody(method: string, docPath: string): Promise<Json | undefined> {
  const d = await openApiDocument();
  return d.paths[docPath][method.toLowerCase()].requestBody;
}

describe("an empty JSON body", () => {
  it("the routes come from the declarations: some take an optional body, most need one", async () => {
    const bodies = await Promise.all(ROUTES.map((r) => jsonRequestBody(r.method, r.docPath)));
    const json = bodies.filter((b) => b?.content?.["application/json"]);
    expect(json.filter((b) => b.required === false).length).toBeGreaterThan(15);
    expect(json.filter((b) => b.required === true).length).toBeGreaterThan(60);
  });

  for (const r of ROUTES) {
    it(`${r.method} ${r.docPath}`, async () => {
      const body = doc.paths[r.docPath][r.method.toLowerCase()].requestBody;
      if (!body?.content?.["application/json"]) return; // not a JSON body (the upload)
      if (SIGNED_BODIES.has(`${r.method} ${r.path}`)) return; // the signature is checked first
      const row = rowOf(r.method, r.path);
      const params = OPTIONAL_BODY_CALLS[`${r.method} ${r.path}`];
      // at most two exports of a caller run at once: each export on an organizer of its own
      const where = async () => (r.path.includes("/exporters/") ? newRouteWorld() : world);
      for (const headers of EMPTY) {
        // each request on objects of its own: a call may change or consume what it acts on
        const braces = await (await prepareCall(await where(), row, { params })).send({});
        const call = await prepareCall(await where(), row, { params });
        const empty = await call.client.request(call.method, call.url, undefined, {
          raw: "",
          headers: { "Content-Type": "application/json", ...headers },
        });
        // the empty body is `{}`
        expect(empty.status, JSON.stringify(empty.body)).toBe(braces.status);
        if (braces.status === 400) expect(empty.body).toEqual(braces.body);
        // and `{}` is what the description says: acted on where the body is optional, else refused
        if (body.required === false) expect(braces.status, JSON.stringify(braces.body)).toBe(successStatus(row));
        else expect(braces.status).toBe(400);
      }
    });
  }

  it("whitespace is not an empty body: malformed JSON", async () => {
    const call = await prepareCall(
      world,
      rowOf("POST", "/api/v1/organizers/:organizer/events/:event/orders/:code/mark_paid"),
    );
    const res = await call.client.request(call.method, call.url, undefined, {
      raw: " ",
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^JSON parse error/);
  });
});
