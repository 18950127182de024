/**
 * The request bodies of the API description against the service, route by route: every route
 * with a JSON body is called with a valid body (the permission matrix's, on real objects) minus
 * one field at a time, at every level the description describes field by field. A field is
 * `required` in the description exactly when the service refuses the body without it (400, or
 * a failed entry of a bulk answer, naming the field); a field the service answers "This field is
 * required." for must be `required` in the description. The answers of the suite are held to
 * the description as well (test/helpers/contract.ts), but only this test sends what the
 * description allows and nothing more.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { API_PREFIX, createApp } from "../../src/app";
import { routeInfos } from "../../src/http/openapi";
import { MESSAGES } from "../../src/lib/failure";
import type { Json } from "../harness";
import { openApiDocument } from "../helpers/contract";
import { newRouteWorld, prepareCall, type RouteWorld, rowOf, SIGNED_BODIES } from "../helpers/route-calls";

type Path = (string | number)[];

function resolve(doc: Json, schema: Json): Json {
  let s = schema;
  while (s && typeof s.$ref === "string")
    s = s.$ref
      .slice(2)
      .split("/")
      .reduce((n: Json, k: string) => n?.[k], doc);
  return s;
}

/** The described object (or list) a value may be: a nullable one is `anyOf` with null. */
function shapeOf(doc: Json, schema: Json): Json {
  const s = resolve(doc, schema);
  if (!s) return undefined;
  if (Array.isArray(s.anyOf))
    return s.anyOf.map((b: Json) => shapeOf(doc, b)).find((b: Json) => b?.properties || b?.items);
  return s;
}

/**
 * The fields of `body` the description describes field by field, with whether it requires
 * them: paths into objects with `properties`, through the first element of lists.
 */
function describedFields(doc: Json, schema: Json, body: unknown, at: Path = []): { path: Path; required: boolean }[] {
  const s = shapeOf(doc, schema);
  if (!s || body === null || typeof body !== "object") return [];
  if (Array.isArray(body)) return s.items && body.length ? describedFields(doc, s.items, body[0], [...at, 0]) : [];
  if (!s.properties) return [];
  const required = new Set<string>(s.required ?? []);
  return Object.entries(body as Record<string, unknown>).flatMap(([key, value]) =>
    key in s.properties
      ? [
          { path: [...at, key], required: required.has(key) },
          ...describedFields(doc, s.properties[key], value, [...at, key]),
        ]
      : [],
  );
}

/** Required fields of the described objects that `body` leaves out (a valid body without them). */
function requiredButMissing(doc: Json, schema: Json, body: unknown, at: Path = []): Path[] {
  const s = shapeOf(doc, schema);
  if (!s || body === null || typeof body !== "object") return [];
  if (Array.isArray(body)) return s.items && body.length ? requiredButMissing(doc, s.items, body[0], [...at, 0]) : [];
  if (!s.properties) return [];
  const own = ((s.required ?? []) as string[]).filter((k) => !(k in (body as object))).map((k) => [...at, k]);
  const deeper = Object.entries(body as Record<string, unknown>).flatMap(([k, v]) =>
    k in s.properties ? requiredButMissing(doc, s.properties[k], v, [...at, k]) : [],
  );
  return [...own, ...deeper];
}

function without(body: unknown, path: Path): unknown {
  const copy = structuredClone(body) as Json;
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k];
  delete node[path[path.length - 1]!];
  return copy;
}

/** The field errors of a refusal: a 400's body, or a bulk answer's entries (`results[i].errors`). */
function refusal(res: { status: number; body: Json }): Json | null {
  if (res.status === 400) return res.body;
  if (Array.isArray(res.body?.results) && res.body.results.some((r: Json) => r?.success === false))
    return res.body.results.map((r: Json) => r?.errors ?? {});
  return null;
}

/** The messages the refusal has at `path` (none: it does not name the field). */
function messagesAt(errors: Json, path: Path): string[] {
  let node = errors;
  for (const k of path) {
    if (node === null || typeof node !== "object") return [];
    node = node[k];
  }
  if (node === undefined) return [];
  return Array.isArray(node) && node.every((m) => typeof m === "string") ? node : ["(nested errors)"];
}

const show = (path: Path) => path.map((k, i) => (typeof k === "number" ? `[${k}]` : i ? `.${k}` : k)).join("");

let world: RouteWorld;
let doc: Json;

beforeAll(async () => {
  world = await newRouteWorld();
  doc = await openApiDocument();
});

/** The routes whose description has a JSON request body. */
const ROUTES = routeInfos(createApp(), API_PREFIX).filter((r) => r.hasBody && r.method !== "GET");

describe("request bodies: the description's `required` is what the service refuses without", () => {
  it("covers the routes with a JSON body", () => {
    expect(ROUTES.length).toBeGreaterThan(80);
  });

  for (const r of ROUTES) {
    it(`${r.method} ${r.docPath}`, async () => {
      const op = doc.paths[r.docPath][r.method.toLowerCase()];
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      if (!schema) return; // a body that is not JSON (the upload)
      // a signed body (Stripe's webhook): a field left out breaks the signature first;
      // stripe-webhooks.test.ts shows a signed body without them refused with field errors
      if (SIGNED_BODIES.has(`${r.method} ${r.path}`)) return;
      const row = rowOf(r.method, r.path);
      const valid = (await prepareCall(world, row)).body;
      const disagreements: string[] = [];
      for (const path of requiredButMissing(doc, schema, valid))
        disagreements.push(`${show(path)}: required in the description, yet a valid body leaves it out`);
      for (const { path, required } of describedFields(doc, schema, valid)) {
        // each try on objects of its own: the valid call may consume what it acts on
        const call = await prepareCall(world, row);
        const res = await call.send(without(call.body, path));
        const errors = refusal(res);
        const named = errors ? messagesAt(errors, path) : [];
        if (required && named.length === 0)
          disagreements.push(
            `${show(path)}: required in the description, but left out the answer is ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
          );
        if (!required && named.includes(MESSAGES.required))
          disagreements.push(
            `${show(path)}: optional in the description, but left out it is refused: ${JSON.stringify(errors).slice(0, 300)}`,
          );
      }
      expect(disagreements).toEqual([]);
    });
  }
});
