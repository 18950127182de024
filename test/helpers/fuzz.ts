/**
 * The fuzz test's machinery (test/api/fuzz.test.ts): the operations of the API description
 * (GET /api/v1/openapi.json, so a route added later is fuzzed too), arbitraries (fast-check)
 * derived from their path parameters, query parameters and request body schemas, raw bodies
 * (duplicate keys, deep nesting, invalid JSON, wrong content types), and a cheap fingerprint
 * of the database (row count and largest rowid of every table) to show that a refused request
 * stored nothing.
 */
import { validate, type Schema } from "@cfworker/json-schema";
import { env } from "cloudflare:workers";
import fc from "fast-check";

type Json = any;

const METHODS = ["get", "put", "post", "patch", "delete"] as const;

export type Param = { name: string; in: "path" | "query" | "header"; schema: Json; style?: string };

export type Operation = {
  method: string;
  /** The description's path, e.g. `/api/v1/organizers/{organizer}/teams/{team}/` */
  path: string;
  params: Param[];
  /** The JSON request body's schema (resolved at the top), if the operation takes one. */
  body: Json | null;
  /** Media types of the request body (`*​/*` for the upload). */
  bodyTypes: string[];
  /** Who may call it: `Token`, `Device` (device keys only), or nobody (public). */
  auth: "token" | "device" | "none";
};

export function resolveRef(doc: Json, value: Json): Json {
  let v = value;
  while (v && typeof v === "object" && typeof v.$ref === "string") {
    v = v.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: Json, key: string) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  }
  return v;
}

/** Every operation of the description. */
export function operations(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params: Param[] = (op.parameters ?? []).map((p: Json) => resolveRef(doc, p));
      const content = op.requestBody ? (resolveRef(doc, op.requestBody).content ?? {}) : {};
      const security: Json[] = op.security ?? [];
      const auth = security.length === 0 ? "none" : security.some((s) => "Token" in s) ? "token" : "device";
      ops.push({
        method: method.toUpperCase(),
        path,
        params,
        body: content["application/json"]?.schema ? resolveRef(doc, content["application/json"].schema) : null,
        bodyTypes: Object.keys(content),
        auth,
      });
    }
  }
  return ops;
}

/** A piece of JSON text put into a body as it is (`1e999`, `-0`, a number beyond doubles). */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON() {
    return JSON.parse(this.text);
  }
}

/** JSON text of a value that may hold RawJson pieces. */
export function serialize(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(serialize).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${serialize(x)}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

// ---------------------------------------------------------------- junk values

const LONG = "x".repeat(300);
const VERY_LONG = "ü".repeat(20_000);

/** Strings no field should take as they are: invalid numbers, decimals, dates, relative dates, control characters. */
export const JUNK_STRINGS = [
  "",
  " ",
  "abc",
  "null",
  "true",
  "0",
  "-1",
  "1e999",
  "-1e999",
  "NaN",
  "Infinity",
  "0x1F",
  "1_000",
  "12.345678901234567890",
  "1.2.3",
  "1,50",
  "-0.00",
  "99999999999999999999999999.99",
  "9007199254740993",
  "2020-02-30T25:61:00Z",
  "2030-13-01",
  "0000-00-00T00:00:00Z",
  "+275760-09-13T00:00:00.001Z",
  "now",
  "today",
  "yesterday",
  "-1 day",
  "+1 week",
  "P1D",
  "1700000000",
  "a\u0000b",
  "\u0000",
  "\ud800",
  "😀",
  "%",
  "_",
  "\\",
  "%_\\".repeat(30),
  "'; DROP TABLE orders; --",
  "<script>alert(1)</script>",
  LONG,
  VERY_LONG,
];

/** Numbers at and beyond the edges. */
export const JUNK_NUMBERS: unknown[] = [
  -1,
  0,
  -0.5,
  1.5,
  2 ** 31,
  2 ** 53,
  -(2 ** 53),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  new RawJson("1e999"),
  new RawJson("-1e999"),
  new RawJson("-0"),
  new RawJson("1e-999"),
  new RawJson("123456789012345678901234567890"),
  new RawJson("9007199254740993"),
];

/** A value of the wrong shape for almost any field. */
export const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...JUNK_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...JUNK_NUMBERS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { "": null }, [[[]]], {
      __proto__: null,
      constructor: {},
    }),
  },
  { weight: 1, arbitrary: fc.constant(deepArray(200)) },
  { weight: 1, arbitrary: fc.constant(deepObject(200)) },
  {
    weight: 1,
    arbitrary: fc.array(fc.constantFrom(...JUNK_STRINGS.slice(0, 20)), { minLength: 1001, maxLength: 1001 }),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
);

function deepArray(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

function deepObject(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

// ---------------------------------------------------------------- values from schemas

/** Real values of the fixtures (ids, codes, slugs), which generated fields take now and then. */
export type Known = { ints: number[]; strings: string[] };

const SAMPLE_FORMATS: Record<string, string[]> = {
  "date-time": ["2030-06-01T19:00:00Z", "2030-06-01T19:00:00+02:00", "2031-01-01T00:00:00.000Z"],
  date: ["2030-06-01", "2031-12-31"],
  time: ["18:00", "18:00:00"],
  email: ["fuzz@example.org"],
  uri: ["https://example.org/fuzz"],
  uuid: ["00000000-0000-4000-8000-000000000000"],
};

/** Values at the edges of what a format allows (or beyond what the service can store). */
const EDGE_FORMATS: Record<string, string[]> = {
  "date-time": [
    "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
    "2030-06-01T19:00:00-23:59",
    "2030-06-01T19:00:00.123456789Z",
  ],
  date: ["9999-12-31", "0001-01-01"],
  email: [`${"a".repeat(64)}@${"b".repeat(60)}.example.org`],
  uri: [`https://example.org/${"%00".repeat(50)}`],
};

const DECIMAL_NAMES = /(^|_)(price|value|amount|rate|percent|fee|total|designated_price|min_value|max_value)$/;
const DATETIME_NAMES = /(^|_)(date|datetime|from|until|to|start|end|expires|since|before|after|at|date_from|date_to)$/;

/** Plausible values for a field whose description is a plain string (or string-or-number) by its name. */
function byName(name: string, s: Json): fc.Arbitrary<unknown> | null {
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (!types.includes("string") || s.enum || s.format || s.pattern) return null;
  const nullable = types.includes("null") ? [null] : [];
  if (DECIMAL_NAMES.test(name)) return fc.constantFrom<unknown>("10.00", "0.00", "1.50", "19.00", ...nullable);
  if (DATETIME_NAMES.test(name) || /date|time/.test(name)) {
    if (/time$/.test(name) && !/datetime/.test(name)) return fc.constantFrom<unknown>("18:00", "09:30:00", ...nullable);
    if (/(^|_)date(_|$)/.test(name) && /(min|max)/.test(name))
      return fc.constantFrom<unknown>("2030-06-01", ...nullable);
    return fc.constantFrom<unknown>("2030-06-01T19:00:00Z", "2031-01-01T10:00:00+02:00", ...nullable);
  }
  if (name === "timezone") return fc.constantFrom("Europe/Berlin", "UTC");
  if (name === "currency") return fc.constant("EUR");
  if (name === "locale") return fc.constantFrom("en", "de");
  if (/email/.test(name)) return fc.constantFrom<unknown>("fuzz@example.org", ...nullable);
  if (name === "cart_id") return fc.constant("fuzz@api");
  if (name === "sales_channel") return fc.constant("web");
  return null;
}

function shapedPlain(s: Json, edge: boolean): fc.Arbitrary<unknown> {
  return edge
    ? fc.constantFrom<unknown>(...EXTREME_STRINGS_FOR_EDGE)
    : fc.string({ maxLength: 10 }).map((x) => (s.type === "null" ? null : x));
}

const EXTREME_STRINGS_FOR_EDGE = [
  "9999-12-31T23:59:59Z",
  "0001-01-01T00:00:00Z",
  "99999999999999.99",
  "-0.00",
  "\u0000",
  "😀",
];

function patternArb(pattern: string, minLength = 0, maxLength = 64): fc.Arbitrary<string> | null {
  try {
    return fc
      .stringMatching(new RegExp(pattern))
      .filter((s) => s.length >= minLength && s.length <= Math.min(maxLength, 64));
  } catch {
    return null;
  }
}

/**
 * Values of the schema's shape (mostly valid by the description, with real ids and strings of
 * the fixtures mixed in); depth-limited.
 */
export function shaped(
  doc: Json,
  schema: Json,
  known: Known,
  depth = 0,
  edge = false,
  name = "",
): fc.Arbitrary<unknown> {
  const s = resolveRef(doc, schema);
  const shaped_ = (x: Json, d: number, n = name) => shaped(doc, x, known, d, edge, n);
  // what the description leaves as a plain string, the field's name tells (dates, decimals, ...)
  const hint = byName(name, s);
  if (hint) return edge ? fc.oneof(hint, shapedPlain(s, edge)) : hint;
  if (s === true || s === undefined || s === null || (typeof s === "object" && Object.keys(s).length === 0)) {
    return fc.jsonValue({ maxDepth: 1 });
  }
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b: Json) => shaped_(b, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return shaped_(s.allOf[0], depth + 1);
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((t: string) => shaped_({ ...s, type: t }, depth)));
  switch (s.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const min = Math.max(s.minimum ?? -1000, -1000);
      const max = Math.min(s.maximum ?? 1000, 1000);
      const range = min <= max ? fc.integer({ min, max }) : fc.constant(min);
      if (edge)
        return fc.oneof(
          range,
          fc.constantFrom(
            ...new Set(
              [s.minimum ?? -(2 ** 53 - 1), s.maximum ?? 2 ** 53 - 1, 0, (s.maximum ?? 2 ** 53 - 1) - 1].filter(
                (n) => n >= (s.minimum ?? -Infinity) && n <= (s.maximum ?? Infinity),
              ),
            ),
          ),
        );
      const real = known.ints.filter((n) => n >= (s.minimum ?? -Infinity) && n <= (s.maximum ?? Infinity));
      return real.length ? fc.oneof(range, fc.constantFrom(...real)) : range;
    }
    case "number":
      if (edge)
        return fc.constantFrom(s.minimum ?? -Number.MAX_VALUE, s.maximum ?? Number.MAX_VALUE, Number.MIN_VALUE, 0);
      return fc.double({
        min: Math.max(s.minimum ?? -1e6, -1e6),
        max: Math.min(s.maximum ?? 1e6, 1e6),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "string": {
      if (edge && s.format && EDGE_FORMATS[s.format])
        return fc.constantFrom(...EDGE_FORMATS[s.format]!, ...(SAMPLE_FORMATS[s.format] ?? []));
      if (s.format && SAMPLE_FORMATS[s.format]) return fc.constantFrom(...SAMPLE_FORMATS[s.format]!);
      if (typeof s.pattern === "string") {
        const p = patternArb(s.pattern, s.minLength ?? 0, s.maxLength ?? 64);
        if (p) return p;
      }
      if (/decimal/.test(s.description ?? "") && edge)
        return fc.constantFrom("99999999999.99", "-99999999999.99", "0.01", "-0.00", "0.001", "1e3", "10.00");
      if (/decimal/.test(s.description ?? "")) return fc.constantFrom("0.00", "1.00", "10.50", "19.00");
      const minLength = s.minLength ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 20, 20));
      if (edge && s.pattern === undefined) {
        const max = Math.min(s.maxLength ?? 5000, 5000);
        return fc
          .constantFrom("\u0000", "😀", "%_\\", "\u202e", "ü", " ")
          .map((unit) =>
            unit.repeat(Math.max(minLength, Math.floor(max / unit.length))).slice(0, Math.max(minLength, max)),
          )
          .filter((v) => v.length >= minLength)
          .chain((v) => fc.constantFrom(v, ...known.strings.slice(0, 3)));
      }
      const plain = fc.string({ minLength, maxLength });
      return known.strings.length ? fc.oneof(plain, fc.constantFrom(...known.strings)) : plain;
    }
    case "array": {
      if (depth > 4) return fc.constant([]);
      const minLength = Math.min(s.minItems ?? 0, 3);
      return fc.array(shaped_(s.items ?? {}, depth + 1), { minLength, maxLength: Math.max(minLength, 2) });
    }
    default: {
      if (depth > 4) return fc.constant({});
      const props: Record<string, Json> = s.properties ?? {};
      const required: string[] = (s.required ?? []).filter((k: string) => k in props);
      const record =
        Object.keys(props).length > 0
          ? fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, shaped_(v, depth + 1, k)])), {
              requiredKeys: required,
            })
          : fc.constant({});
      const extra =
        s.additionalProperties && typeof s.additionalProperties === "object" ? s.additionalProperties : null;
      if (!extra) return record;
      return fc
        .tuple(
          record,
          fc.dictionary(fc.constantFrom("en", "de", "x", "key"), shaped_(extra, depth + 1), { maxKeys: 2 }),
        )
        .map(([a, b]) => ({ ...b, ...a }));
    }
  }
}

/** Every location in a JSON value (the empty path is the value itself). */
function locations(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => locations(x, [...at, i], out));
  else if (v !== null && typeof v === "object" && !(v instanceof RawJson))
    for (const [k, x] of Object.entries(v)) locations(x, [...at, k], out);
  return out;
}

function replaceAt(v: unknown, at: (string | number)[], put: (old: unknown) => unknown | typeof REMOVE): unknown {
  if (at.length === 0) {
    const r = put(v);
    return r === REMOVE ? undefined : r;
  }
  const [head, ...rest] = at;
  if (Array.isArray(v)) {
    const copy = [...v];
    const r = replaceAt(copy[head as number], rest, put);
    if (rest.length === 0 && r === undefined) copy.splice(head as number, 1);
    else copy[head as number] = r;
    return copy;
  }
  const copy: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  const r = replaceAt(copy[head as string], rest, put);
  if (rest.length === 0 && r === undefined) delete copy[head as string];
  else copy[head as string] = r;
  return copy;
}

const REMOVE = Symbol("remove");

export type Mutation = {
  kind: "replace" | "remove" | "wrap" | "add" | "extreme";
  at: (string | number)[];
  value?: unknown;
};

/** Values of the right type at or beyond the edges: the field may well take them. */
const EXTREME_NUMBERS: unknown[] = [
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  2 ** 31,
  -1,
  0,
  999999999999999,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  new RawJson("-0"),
  new RawJson("1e999"),
  0.1,
];
const EXTREME_STRINGS = [
  "",
  "\u0000",
  "a\u0000b",
  "😀".repeat(200),
  "x".repeat(10_000),
  "%_\\".repeat(30),
  "9999-12-31T23:59:59Z",
  "0001-01-01T00:00:00Z",
  "1970-01-01T00:00:00Z",
  "2030-06-01T19:00:00.999999Z",
  "2030-06-01T19:00:00+14:00",
  "2030-06-01",
  "23:59:59",
  "99999999999999.99",
  "-99999999999999.99",
  "0.00",
  "-0.00",
  "-1.00",
  "1e3",
  "10.00 ",
  "0.1",
  "\u202e",
];

function extremeFor(old: unknown, pick: number): unknown {
  if (typeof old === "number") return EXTREME_NUMBERS[pick % EXTREME_NUMBERS.length];
  if (typeof old === "string") return EXTREME_STRINGS[pick % EXTREME_STRINGS.length];
  if (Array.isArray(old)) return pick % 2 === 0 ? [] : Array.from({ length: 1001 }, () => old[0] ?? null);
  if (old !== null && typeof old === "object") return {};
  return null;
}

/** A shaped body with one location mutated: replaced by junk, removed, wrapped in a list, or a key added. */
export function mutated(doc: Json, schema: Json, known: Known): fc.Arbitrary<{ body: unknown; mutation: Mutation }> {
  return fc
    .tuple(
      shaped(doc, schema, known),
      fc.nat(),
      fc.constantFrom("replace", "replace", "replace", "remove", "wrap", "add", "extreme", "extreme", "extreme"),
      junkValue,
      fc.constantFrom("__proto__", "constructor", "id", "", "é", "a\u0000"),
      fc.nat(),
    )
    .map(([base, pick, kind, junk, key, which]) => {
      const spots = locations(base);
      const at = spots[pick % spots.length]!;
      let body: unknown;
      let value: unknown = junk;
      if (kind === "extreme") {
        body = replaceAt(base, at, (old) => (value = extremeFor(old, which)));
      } else if (kind === "remove" && at.length > 0) body = replaceAt(base, at, () => REMOVE);
      else if (kind === "wrap") body = replaceAt(base, at, (old) => [old]);
      else if (kind === "add") {
        const parent = at.length ? at : [];
        body = replaceAt(base, parent, (old) =>
          old !== null && typeof old === "object" && !Array.isArray(old)
            ? Object.assign(Object.create(null), old, { [key]: junk })
            : junk,
        );
        value = { [key]: junk };
      } else body = replaceAt(base, at, () => junk);
      return { body, mutation: { kind: kind as Mutation["kind"], at, value } };
    });
}

/** Whether a body is valid by the description's schema (RawJson pieces taken as parsed). */
export function validBySchema(
  _doc: Json,
  lookup: Record<string, Schema | boolean>,
  schema: Json,
  body: unknown,
): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(serialize(body));
  } catch {
    return false;
  }
  return validate(parsed, schema as Schema, "2020-12", lookup, false).valid;
}

// ---------------------------------------------------------------- raw bodies

export type RawBody = { label: string; text?: string; bytes?: Uint8Array; contentType: string | null };

const DEEP = 10_000;

/** Bodies that are not (the expected) JSON, and JSON that a plain JSON.parse reads one way only. */
export function rawBodies(valid: unknown): fc.Arbitrary<RawBody> {
  const text = serialize(valid);
  const obj =
    valid !== null && typeof valid === "object" && !Array.isArray(valid) ? (valid as Record<string, unknown>) : null;
  const keys = obj ? Object.keys(obj) : [];
  const json = "application/json";
  const dup = fc.tuple(fc.nat(), junkValue, fc.boolean()).map(([i, junk, junkFirst]): RawBody => {
    const key = keys.length ? keys[i % keys.length]! : "name";
    const rest = text.length > 2 && text.startsWith("{") ? text.slice(1, -1) : "";
    const junkPart = `${JSON.stringify(key)}:${serialize(junk)}`;
    const inner = junkFirst ? [junkPart, rest].filter(Boolean).join(",") : [rest, junkPart].filter(Boolean).join(",");
    return { label: `duplicate key ${key}`, text: `{${inner}}`, contentType: json };
  });
  const nested = fc.constantFrom<RawBody>(
    { label: `array nested ${DEEP} deep`, text: "[".repeat(DEEP) + "]".repeat(DEEP), contentType: json },
    { label: `object nested ${DEEP} deep`, text: `${'{"a":'.repeat(DEEP)}1${"}".repeat(DEEP)}`, contentType: json },
    {
      label: `field nested ${DEEP} deep`,
      text: keys.length
        ? `{${JSON.stringify(keys[0])}:${"[".repeat(DEEP)}${"]".repeat(DEEP)}}`
        : `{"name":${'{"en":'.repeat(DEEP)}"x"${"}".repeat(DEEP)}}`,
      contentType: json,
    },
    {
      label: "100,000 keys",
      text: `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`,
      contentType: json,
    },
  );
  const invalid = fc.constantFrom<RawBody>(
    { label: "empty", text: "", contentType: json },
    { label: "truncated", text: text.slice(0, Math.max(1, Math.floor(text.length / 2))), contentType: json },
    { label: "trailing comma", text: "[1,]", contentType: json },
    { label: "single quotes", text: "{'a': 1}", contentType: json },
    { label: "NaN", text: "NaN", contentType: json },
    { label: "1e999", text: "1e999", contentType: json },
    { label: "null", text: "null", contentType: json },
    { label: "true", text: "true", contentType: json },
    { label: "string", text: '"text"', contentType: json },
    { label: "byte order mark", text: `\ufeff${text}`, contentType: json },
    { label: "NUL", text: "\u0000", contentType: json },
    { label: "two documents", text: `${text}${text}`, contentType: json },
    { label: "comment", text: `/* c */ ${text}`, contentType: json },
    {
      label: "invalid UTF-8",
      bytes: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      contentType: json,
    },
    { label: "lone surrogate escape", text: '{"name":"\\ud800"}', contentType: json },
    {
      label: "__proto__ key",
      text: obj ? `{"__proto__":{"admin":true},${text.slice(1)}` : '{"__proto__":{"admin":true}}',
      contentType: json,
    },
  );
  const wrongType = fc
    .constantFrom<string | null>(
      null,
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=xyz",
      "application/xml",
      "application/json; charset=utf-16",
      "application/JSON",
      "application/merge-patch+json",
      "application/octet-stream",
      "*/*",
      "",
      "application/json, text/plain",
    )
    .map((ct): RawBody => ({ label: `valid body as ${ct ?? "no Content-Type"}`, text, contentType: ct }));
  return fc.oneof(dup, nested, invalid, wrongType);
}

// ---------------------------------------------------------------- path and query values

/** Path ids no route should take. `%`-encoded entries go into the URL as they are. */
export const MALFORMED_IDS = [
  "0",
  "-1",
  "1e999",
  "1.5",
  "abc",
  "NaN",
  "9007199254740993",
  "99999999999999999999999999",
  "%00",
  "a%00b",
  "%ZZ",
  "%E0%A4%A",
  "%F0%9F%98%80",
  "%25",
  "%5F",
  "%2F",
  "%20",
  "%C3%BC",
  encodeURIComponent("x".repeat(300)),
  encodeURIComponent("😀".repeat(100)),
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "0x10",
  "1%2C2",
];

/** A query parameter's values: the junk strings plus its kind's near misses. */
export function queryValue(param: Param): fc.Arbitrary<string> {
  const junk = JUNK_STRINGS.filter((s) => !s.includes("\ud800"));
  const kind = [
    ...(param.schema?.type === "integer" || param.schema?.items?.type === "integer"
      ? ["1", "-5", "2147483648", "1e3", "1,2,x", "999999999999999"]
      : []),
    ...(param.schema?.type === "boolean" ? ["True", "yes", "2", "falsey"] : []),
    ...(param.schema?.format === "date-time"
      ? ["2030-06-01T19:00:00", "2030-06-01", "2030-06-01T19:00:00+25:00", "-000001-01-01T00:00:00Z"]
      : []),
    ...(param.name === "ordering" ? ["-", "--id", "id,-id", "nonexistent", "id;drop"] : []),
    ...(param.name === "page" || param.name === "page_size" ? ["0", "-1", "1000000000", "1e999", "2.5"] : []),
  ];
  return fc.constantFrom(...kind, ...junk);
}

// ---------------------------------------------------------------- database fingerprint

let tableList: Promise<{ name: string; rowid: number }[]> | null = null;

/**
 * Tables the service writes (not SQLite's, not D1's, not the migrations'). The full-text
 * indexes (virtual tables and their shadow tables) are left out: triggers derive them from the
 * tables counted here, and their shadow tables need not have a rowid. `rowid` 0: a table
 * WITHOUT ROWID (position_tallies, also kept by triggers), fingerprinted by its row count.
 */
function tables(): Promise<{ name: string; rowid: number }[]> {
  tableList ??= env.DB.prepare(
    "SELECT t.name, t.sql NOT LIKE '%WITHOUT ROWID%' AS rowid FROM sqlite_master t WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND t.name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND t.name <> 'd1_migrations' " +
      "AND NOT EXISTS (SELECT 1 FROM sqlite_master v WHERE v.type = 'table' AND v.sql LIKE 'CREATE VIRTUAL TABLE%' AND (t.name = v.name OR substr(t.name, 1, length(v.name) + 1) = v.name || '_')) ORDER BY t.name",
  )
    .all<{ name: string; rowid: number }>()
    .then((r) => r.results);
  return tableList;
}

/** Row count and largest rowid of every table, in one D1 batch: `{table: "count/max"}`. */
export async function fingerprint(): Promise<Record<string, string>> {
  const list = await tables();
  const results = await env.DB.batch(
    list.map((t) =>
      env.DB.prepare(`SELECT count(*) AS c, ${t.rowid ? "coalesce(max(rowid), 0)" : "0"} AS m FROM "${t.name}"`),
    ),
  );
  const out: Record<string, string> = {};
  list.forEach(({ name: n }, i) => {
    const r = results[i]!.results[0] as { c: number; m: number };
    out[n] = `${r.c}/${r.m}`;
  });
  return out;
}

/** The tables whose fingerprint differs. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t]);
}

declare module "vitest" {
  export interface ProvidedContext {
    fuzzRuns: string;
    fuzzSeed: string;
    fuzzOnly: string;
  }
}
