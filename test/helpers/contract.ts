/**
 * Contract checks: every answer the suite receives through the harness's `Client` is held to
 * the API description (`GET /api/v1/openapi.json`, built here from the same app): the route's
 * operation must declare the answer's status, a JSON body must match the declared schema
 * (success bodies and error bodies alike, validated as JSON Schema 2020-12 with
 * @cfworker/json-schema, which runs in workerd), a body-less status must come without a body,
 * and every query parameter sent must be one the operation declares. A response declared with
 * another media type (a file) must come with a matching Content-Type. Fields named by a
 * parameter marked `x-omits-fields` (pretix's `exclude`) may be missing, and so may those not
 * named by a parameter marked `x-keeps-fields` (pretix's `include`). A mismatch throws, so
 * the test that made the request fails, naming the route, the status and the first errors.
 *
 * Opt out per request (`{ contract: false }`) only where a test deliberately sends what the
 * description does not allow.
 */
import { dereference, type Schema, validate } from "@cfworker/json-schema";
import { API_PREFIX, createApp } from "../../src/app";
import { buildOpenApiDocument } from "../../src/http/openapi";

type Json = any;
type Operation = { responses: Record<string, Json>; parameters?: Json[] };
type PathEntry = { template: string; regex: RegExp; literals: number; operations: Record<string, Operation> };
type Contract = { doc: Json; lookup: Record<string, Schema | boolean>; paths: PathEntry[] };

const BASE_URI = "https://contract.test/openapi.json";

let loaded: Promise<Contract> | null = null;

/** The description of the app, built once per test file (the worker's own copy is built the same way). */
export function openApiDocument(): Promise<Json> {
  return contract().then((c) => c.doc);
}

function contract(): Promise<Contract> {
  loaded ??= (async () => {
    const doc = (await buildOpenApiDocument(createApp(), API_PREFIX)) as Json;
    const lookup = dereference(doc as Schema, Object.create(null), new URL(BASE_URI));
    const paths = Object.entries(doc.paths as Record<string, Record<string, Operation>>).map(
      ([template, operations]) => {
        const source = template
          .replace(/\/$/, "")
          .split(/(\{\w+\})/)
          .map((part) => (/^\{\w+\}$/.test(part) ? "([^/]+)" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
          .join("");
        return {
          template,
          regex: new RegExp(`^${source}/?$`),
          literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
          operations,
        };
      },
    );
    return { doc, lookup, paths };
  })();
  return loaded;
}

export class ContractError extends Error {
  override name = "ContractError";
}

function resolve(doc: Json, value: Json): Json {
  let v = value;
  while (v && typeof v === "object" && typeof v.$ref === "string") {
    v = v.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: Json, key: string) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return v;
}

function checkBody(c: Contract, where: string, schema: Json, body: Json): void {
  const result = validate(body, schema as Schema, "2020-12", c.lookup, false);
  if (!result.valid) {
    const errors = result.errors
      .filter(
        (e) => e.keyword !== "properties" && e.keyword !== "items" && e.keyword !== "$ref" && e.keyword !== "anyOf",
      )
      .slice(0, 8)
      .map((e) => `  ${e.instanceLocation}: ${e.error} (${e.keywordLocation})`);
    const shown = errors.length
      ? errors
      : result.errors.slice(0, 8).map((e) => `  ${e.instanceLocation}: ${e.error} (${e.keywordLocation})`);
    throw new ContractError(
      `${where}: the body does not match the description:\n${shown.join("\n")}\nbody: ${JSON.stringify(body).slice(0, 2000)}`,
    );
  }
}

/**
 * The schema with the named fields no longer required (`exclude=email`, `exclude=positions.downloads`):
 * in the list's results for a list, else in the object itself. Schemas on the way are copied
 * with their `$ref`s resolved; everything else stays as it is.
 */
function withoutFields(doc: Json, schema: Json, fields: string[]): Json {
  if (fields.length === 0) return schema;
  const paths = fields.map((f) => f.split("."));
  return onItems(doc, schema, (item) => omit(doc, item, paths));
}

/** The schema with only the named fields required (`include=code`, `include=positions.secret`), as `withoutFields`. */
function withOnlyFields(doc: Json, schema: Json, fields: string[]): Json {
  if (fields.length === 0) return schema;
  const paths = fields.map((f) => f.split("."));
  return onItems(doc, schema, (item) => keepOnly(doc, item, paths));
}

/** `change` applied to the list's results for a list, else to the object itself. */
function onItems(doc: Json, schema: Json, change: (item: Json) => Json): Json {
  const root = resolve(doc, schema);
  if (root.properties?.results && root.properties?.count) {
    const results = resolve(doc, root.properties.results);
    return { ...root, properties: { ...root.properties, results: { ...results, items: change(results.items) } } };
  }
  return change(root);
}

function keepOnly(doc: Json, schema: Json, paths: string[][]): Json {
  const s = { ...resolve(doc, schema) };
  if (Array.isArray(s.anyOf)) s.anyOf = s.anyOf.map((branch: Json) => keepOnly(doc, branch, paths));
  const heads = new Set(paths.map((p) => p[0]));
  if (Array.isArray(s.required)) s.required = s.required.filter((name: string) => heads.has(name));
  // a field named without a tail is kept whole; one named with tails keeps only those
  const whole = new Set(paths.filter((p) => p.length === 1).map((p) => p[0]));
  const deeper = Map.groupBy(
    paths.filter((p) => p.length > 1 && !whole.has(p[0])),
    (p) => p[0]!,
  );
  if (s.properties && deeper.size > 0) {
    s.properties = { ...s.properties };
    for (const [head, rest] of deeper) {
      const property = s.properties[head];
      if (!property) continue;
      const tails = rest.map((p) => p.slice(1));
      const r = resolve(doc, property);
      s.properties[head] = r.items ? { ...r, items: keepOnly(doc, r.items, tails) } : keepOnly(doc, r, tails);
    }
  }
  return s;
}

function omit(doc: Json, schema: Json, paths: string[][]): Json {
  const s = { ...resolve(doc, schema) };
  if (Array.isArray(s.anyOf)) s.anyOf = s.anyOf.map((branch: Json) => omit(doc, branch, paths));
  const here = new Set(paths.filter((p) => p.length === 1).map((p) => p[0]));
  if (Array.isArray(s.required)) s.required = s.required.filter((name: string) => !here.has(name));
  const deeper = Map.groupBy(
    paths.filter((p) => p.length > 1),
    (p) => p[0]!,
  );
  if (s.properties && deeper.size > 0) {
    s.properties = { ...s.properties };
    for (const [head, rest] of deeper) {
      const property = s.properties[head];
      if (!property) continue;
      const tails = rest.map((p) => p.slice(1));
      const r = resolve(doc, property);
      s.properties[head] = r.items ? { ...r, items: omit(doc, r.items, tails) } : omit(doc, r, tails);
    }
  }
  return s;
}

export type Answer = { status: number; headers: Headers; text: string; body: Json };

/** Holds one answer to the description; throws a ContractError on any disagreement. */
export async function checkContract(method: string, url: string, answer: Answer): Promise<void> {
  const u = new URL(url);
  if (!u.pathname.startsWith(`${API_PREFIX}/`)) return; // pages, media, the reference page
  const c = await contract();
  const where = `${method} ${u.pathname} → ${answer.status}`;
  const candidates = c.paths.filter((p) => p.regex.test(u.pathname)).sort((a, b) => b.literals - a.literals);
  const op = candidates.map((p) => p.operations[method === "HEAD" ? "get" : method.toLowerCase()]).find(Boolean);
  const detail = c.doc.components.schemas.Detail;
  if (!op) {
    // an unknown path (404) or a method the path does not take (405), after the credentials
    // (401) and the rate limit (429): `{"detail": ...}`
    const expected = candidates.length ? 405 : 404;
    if (![expected, 401, 429].includes(answer.status))
      throw new ContractError(`${where}: no operation in the description, so ${expected} was expected`);
    if (method !== "HEAD") checkBody(c, where, detail, answer.body);
    return;
  }
  const template = candidates.find((p) => p.operations[method === "HEAD" ? "get" : method.toLowerCase()])!.template;
  const declared = op.responses[String(answer.status)];
  if (!declared) {
    throw new ContractError(
      `${where} (${method} ${template}): status ${answer.status} is not declared (declared: ${Object.keys(op.responses).join(", ")}); body: ${answer.text.slice(0, 500)}`,
    );
  }
  const response = resolve(c.doc, declared);
  const content = response.content as Record<string, { schema?: Json }> | undefined;
  const params: Json[] = (op.parameters ?? []).map((p) => resolve(c.doc, p)).filter((p: Json) => p.in === "query");
  if (method === "HEAD") return;
  const type = (answer.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (content?.["application/json"]?.schema) {
    if (type !== "application/json")
      throw new ContractError(`${where}: declared as JSON, answered with Content-Type "${type}"`);
    const named = (marker: string) =>
      params
        .filter((p) => p[marker])
        .flatMap((p) => u.searchParams.getAll(p.name))
        .flatMap((v) => v.split(","))
        .map((v) => v.trim())
        .filter(Boolean);
    const schema = withoutFields(
      c.doc,
      withOnlyFields(c.doc, content["application/json"].schema, named("x-keeps-fields")),
      named("x-omits-fields"),
    );
    checkBody(c, `${where} (${template})`, schema, answer.body);
  } else if (content) {
    const media = Object.keys(content);
    const matches = media.some(
      (m) => m === "*/*" || m === type || (m.endsWith("/*") && type.startsWith(m.slice(0, -1))),
    );
    if (!matches)
      throw new ContractError(`${where}: answered with Content-Type "${type}", declared: ${media.join(", ")}`);
  } else if (answer.text !== "") {
    throw new ContractError(`${where}: declared without a body, answered with one: ${answer.text.slice(0, 200)}`);
  }
  for (const name of new Set(u.searchParams.keys())) {
    const known = params.some((p) => p.name === name || (p.style === "deepObject" && name.startsWith(`${p.name}[`)));
    if (!known) {
      throw new ContractError(
        `${where} (${method} ${template}): query parameter "${name}" is not declared (declared: ${params.map((p) => p.name).join(", ") || "none"})`,
      );
    }
  }
}

/**
 * Holds an answer read as bytes (a file download: a PDF, an export) to the description, as
 * `checkContract` does: the status, the Content-Type against the declared media type, a JSON
 * body (an error, a 409 while the file is prepared) against its schema.
 */
export async function checkFileContract(
  method: string,
  url: string,
  answer: { status: number; headers: Headers; bytes: Uint8Array },
): Promise<void> {
  const type = answer.headers.get("content-type") ?? "";
  const text =
    answer.bytes.length === 0 || /json/i.test(type)
      ? new TextDecoder().decode(answer.bytes)
      : `(${answer.bytes.length} bytes of ${type})`;
  let body: Json = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  await checkContract(method, url, { status: answer.status, headers: answer.headers, text, body });
}
