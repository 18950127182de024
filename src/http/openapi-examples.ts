/**
 * The example request body the API description shows for each JSON body (the interactive
 * reference's curl and "try it" take it instead of making one up): only the required fields, each
 * with its documented example, default or a harmless value (false, the smallest number, an empty
 * list), so that an example sent as is never forces, tests or overrides anything. Sent to a fresh
 * server each is accepted or refused as described (test/api/openapi-examples.test.ts).
 */
import type { OpenAPIV3_1 } from "openapi-types";

type Schema = OpenAPIV3_1.SchemaObject & { const?: unknown; examples?: unknown[] };
type Components = Record<string, unknown>;

const MAX_DEPTH = 8;

function resolve(schema: unknown, components: Components): Schema {
  let s = schema as Schema & { $ref?: string };
  for (let i = 0; s && typeof s.$ref === "string" && i < 10; i++) {
    const name = s.$ref.replace(/^#\/components\/schemas\//, "");
    s = components[name] as Schema & { $ref?: string };
  }
  return (s ?? {}) as Schema;
}

/** Strings whose field name says what they hold (the schemas say only "string"). */
const BY_NAME: [RegExp, string][] = [
  [
    /^(date_from|date_to|date_start|date_end|opens_at|datetime|date_admission|presale_start|presale_end)$/,
    "2030-06-01T18:00:00Z",
  ],
  [/(^|_)rate$/, "19.00"],
  [/(^|_)(price|value|amount)$/, "10.00"],
  [/^currency$/, "EUR"],
  [/(^|_)email$/, "buyer@example.org"],
  [/(^|_)url$/, "https://example.org/"],
];

/** A string's example: by its format or its field's name, long enough for `minLength`. */
function stringExample(s: Schema, name: string | undefined): string {
  const named = name === undefined ? undefined : BY_NAME.find(([re]) => re.test(name))?.[1];
  if (named !== undefined) return named;
  const byFormat: Record<string, string> = {
    "date-time": "2030-06-01T18:00:00Z",
    date: "2030-06-01",
    time: "18:00:00",
    email: "buyer@example.org",
    uri: "https://example.org/",
    uuid: "00000000-0000-4000-8000-000000000000",
  };
  const base = (s.format && byFormat[s.format]) || "example";
  return s.minLength && base.length < s.minLength ? base.padEnd(s.minLength, "x") : base;
}

function typeOf(s: Schema): string | undefined {
  const t = s.type as string | string[] | undefined;
  return Array.isArray(t) ? t.find((x) => x !== "null") : t;
}

/** The example of a schema (see the file comment). */
export function schemaExample(schema: unknown, components: Components, depth = 0, name?: string): unknown {
  const s = resolve(schema, components);
  if (s.examples?.length) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (branches?.length) {
    const chosen = branches.map((b) => resolve(b, components)).find((b) => typeOf(b) !== "null" || b.enum);
    // a text in several languages (a string or an object of them) is no amount or date
    const plain = branches.every((b) => typeOf(resolve(b, components)) !== "object");
    return chosen ? schemaExample(chosen, components, depth, plain ? name : undefined) : null;
  }
  if (s.allOf?.length) return Object.assign({}, ...s.allOf.map((b) => schemaExample(b, components, depth) as object));
  switch (typeOf(s)) {
    case "object":
      return depth >= MAX_DEPTH ? {} : objectExample(s, components, depth);
    case "array": {
      const n = Math.min(s.minItems ?? 0, 3);
      const items = (s as { items?: unknown }).items;
      return Array.from({ length: n }, () => schemaExample(items, components, depth + 1));
    }
    case "string":
      return stringExample(s, name);
    case "integer":
      return typeof s.minimum === "number" ? Math.max(s.minimum, 1) : 1;
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 0;
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return s.properties ? objectExample(s, components, depth) : null;
  }
}

function objectExample(s: Schema, components: Components, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of s.required ?? []) out[name] = schemaExample(s.properties?.[name], components, depth + 1, name);
  return out;
}

/** The operation's request body with the example on its JSON content (unchanged without one). */
export function withBodyExample(
  body: OpenAPIV3_1.RequestBodyObject | OpenAPIV3_1.ReferenceObject | undefined,
  components: Components,
): typeof body {
  if (!body || "$ref" in body) return body;
  const json = body.content?.["application/json"];
  if (!json?.schema || json.example !== undefined || json.examples) return body;
  return {
    ...body,
    content: { ...body.content, "application/json": { ...json, example: schemaExample(json.schema, components) } },
  };
}
