/**
 * The fields of a JSON body that its route ignores: names the schema does not know. pretix
 * ignores unknown fields, and so does the service (a client written for another version keeps
 * working), but a typo (`price` for `default_price`, `admision`) would otherwise pass silently:
 * `jsonBody` names them in the `X-Ignored-Fields` response header and a log line
 * (docs/requests.md).
 */
import type { z } from "zod";

/** The response header naming the ignored fields, comma-separated. */
export const IGNORED_FIELDS_HEADER = "X-Ignored-Fields";

/** At most this many names go into the header (the log line has the count). */
export const MAX_NAMED_FIELDS = 50;

/** Nesting deeper than this is not inspected (a body cannot make the walk recurse without end). */
const MAX_DEPTH = 32;

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  getter?: () => z.ZodType;
};

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A key as a path segment: plain names as they are, anything else percent-encoded (safe in a header). */
function segment(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : encodeURIComponent(key).replace(/\./g, "%2E");
}

const child = (path: string, key: string) => (path ? `${path}.${segment(key)}` : segment(key));

/**
 * The paths of the fields of `value` that `schema` does not know (`price`,
 * `positions[0].admision`, `[1].cde` in a list), in the order of the body. Only what the
 * schema's objects leave out counts: an object that takes any key (a catch-all, a record)
 * ignores nothing, and neither does a part the schema does not describe field by field (a
 * preprocessed value). Of a union, the member that accepts the value is followed.
 */
export function ignoredFields(schema: z.ZodType, value: unknown): string[] {
  const out: string[] = [];
  walk(schema, value, "", 0, out);
  return out;
}

function walk(schema: z.ZodType, value: unknown, path: string, depth: number, out: string[]): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return;
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      walk(def.innerType!, value, path, depth, out);
      return;
    case "pipe":
      // the input side of a transform or a pipe
      walk(def.in!, value, path, depth, out);
      return;
    case "lazy":
      walk(def.getter!(), value, path, depth + 1, out);
      return;
    case "object": {
      if (!isRecord(value)) return;
      const shape = def.shape!;
      for (const [key, v] of Object.entries(value)) {
        if (Object.hasOwn(shape, key)) walk(shape[key]!, v, child(path, key), depth + 1, out);
        else if (!def.catchall) out.push(child(path, key));
      }
      return;
    }
    case "array":
      if (Array.isArray(value))
        for (const [i, v] of value.entries()) walk(def.element!, v, `${path}[${i}]`, depth + 1, out);
      return;
    case "tuple":
      if (Array.isArray(value))
        for (const [i, v] of value.entries()) {
          const item = def.items![i] ?? def.rest;
          if (item) walk(item, v, `${path}[${i}]`, depth + 1, out);
        }
      return;
    case "record":
      if (isRecord(value))
        for (const [key, v] of Object.entries(value)) walk(def.valueType!, v, child(path, key), depth + 1, out);
      return;
    case "union": {
      const member = def.options!.find((o) => o.safeParse(value).success);
      if (member) walk(member, value, path, depth, out);
      return;
    }
    default:
      return;
  }
}
