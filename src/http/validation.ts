/**
 * Request input: JSON bodies validated with zod, and query parameters. Failures become the
 * field-error bodies (docs/api.md) with DRF-style messages, so pretix clients see familiar texts.
 */
import type { MiddlewareHandler } from "hono";
import { validator } from "hono/validator";
import { resolver, uniqueSymbol } from "hono-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import { z } from "zod";
import { parseDateTime } from "../lib/datetime";
import { parseDecimal } from "../lib/money";
import type { AppContext, AppEnv } from "./context";
import { badRequest, type FieldErrors, MESSAGES, fieldError, notFound, validationError } from "../lib/failure";
import { DATETIME_FORMAT_MESSAGE } from "../rules/fields";
import { log } from "../lib/log";
import { IGNORED_FIELDS_HEADER, ignoredFields, MAX_NAMED_FIELDS } from "./ignored-fields";

function typeName(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "list";
  if (typeof input === "string") return "str";
  if (typeof input === "number") return Number.isInteger(input) ? "int" : "float";
  if (typeof input === "boolean") return "bool";
  return typeof input === "object" ? "dict" : typeof input;
}

/**
 * A refused choice: a scalar is shown as sent (at most 100 characters), a list or an object only
 * by its kind — never rendered, since it may be nested thousands of levels deep (its string
 * conversion recursed until the stack overflowed: a 500, found by the fuzz test).
 */
function shownChoice(input: unknown): string {
  if (typeof input === "string")
    return `"${input.length > 100 ? `${input.slice(0, 100)}…` : input}" is not a valid choice.`;
  if (typeof input === "number" || typeof input === "boolean" || typeof input === "bigint")
    return `"${String(input)}" is not a valid choice.`;
  return `Expected a valid choice but got type "${typeName(input)}".`;
}

// Messages in the style of Django REST framework, which pretix clients know.
z.config({
  customError: (iss) => {
    switch (iss.code) {
      case "invalid_type": {
        if (iss.input === undefined) return MESSAGES.required;
        if (iss.input === null) return MESSAGES.notNull;
        switch (iss.expected) {
          case "string":
            return "Not a valid string.";
          case "number":
          case "int":
            return "A valid integer is required.";
          case "boolean":
            return "Must be a valid boolean.";
          case "array":
            return `Expected a list of items but got type "${typeName(iss.input)}".`;
          case "object":
          case "record":
            return `Expected a dictionary of items but got type "${typeName(iss.input)}".`;
          default:
            return "Invalid value.";
        }
      }
      case "too_small":
        if (iss.origin === "string")
          return Number(iss.minimum) <= 1
            ? MESSAGES.blank
            : `Ensure this field has at least ${iss.minimum} characters.`;
        if (iss.origin === "array" || iss.origin === "set")
          return Number(iss.minimum) <= 1
            ? "This list may not be empty."
            : `Ensure this field has at least ${iss.minimum} elements.`;
        return `Ensure this value is greater than or equal to ${iss.minimum}.`;
      case "too_big":
        if (iss.origin === "string") return `Ensure this field has no more than ${iss.maximum} characters.`;
        if (iss.origin === "array" || iss.origin === "set")
          return `Ensure this field has no more than ${iss.maximum} elements.`;
        return `Ensure this value is less than or equal to ${iss.maximum}.`;
      case "invalid_value":
        if (iss.input === undefined) return MESSAGES.required;
        return shownChoice(iss.input);
      case "invalid_union":
        if (iss.input === undefined) return MESSAGES.required;
        if (iss.input === null) return MESSAGES.notNull;
        return "Invalid value.";
      case "invalid_format":
        if (iss.format === "email") return "Enter a valid email address.";
        if (iss.format === "url") return "Enter a valid URL.";
        if (iss.format === "datetime") return DATETIME_FORMAT_MESSAGE;
        return "Invalid format.";
      case "not_multiple_of":
        return "Invalid value.";
      default:
        return undefined;
    }
  },
});

type Path = readonly PropertyKey[];

/** Turns zod issues into the nested field-error body. */
export function issuesToFieldErrors(issues: readonly { path: Path; message: string }[]): FieldErrors {
  const root: Record<string, unknown> = {};
  for (const issue of issues) {
    const path = issue.path.length ? issue.path.map(String) : ["non_field_errors"];
    let node: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < path.length; i++) {
      const key = path[i]!;
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(path[i + 1]!);
      if (Array.isArray(node)) {
        const idx = Number(key);
        while (node.length <= idx) node.push({});
        if (last) {
          // an error on a list element itself (not one of its fields)
          const cur = node[idx];
          node[idx] = Array.isArray(cur) ? [...cur, issue.message] : [issue.message];
        } else {
          node = node[idx] as Record<string, unknown>;
        }
        continue;
      }
      const obj = node as Record<string, unknown>;
      if (last) {
        const cur = obj[key];
        obj[key] =
          Array.isArray(cur) && cur.every((x) => typeof x === "string") ? [...cur, issue.message] : [issue.message];
      } else {
        if (nextIsIndex && /^\d+$/.test(path[i + 1]!) && i + 2 < path.length) {
          if (!Array.isArray(obj[key])) obj[key] = [];
        } else if (typeof obj[key] !== "object" || obj[key] === null || Array.isArray(obj[key])) {
          obj[key] = {};
        }
        node = obj[key] as Record<string, unknown>;
      }
    }
  }
  return root as FieldErrors;
}

/**
 * Reads the JSON body of a request whose form requireJsonBody checked: an empty body is `{}`,
 * as pretix (Django REST framework) takes it, whatever the Content-Type says.
 */
async function readJsonBody(c: AppContext): Promise<unknown> {
  const text = await c.req.text();
  if (text === "") return {};
  try {
    return JSON.parse(text);
  } catch (e) {
    // biome-ignore lint/plugin: requireJsonBody refused it already when the request declared a body
    throw badRequest(`JSON parse error - ${e instanceof Error ? e.message : "invalid JSON"}`);
  }
}

/**
 * Validates the JSON body with `schema`, and describes it as the route's request body in the
 * API description (src/http/openapi.ts). A wrong content type or malformed JSON is refused
 * earlier (see requireJsonBody); here only field errors remain. An empty body is validated as
 * `{}`: where `{}` is valid, the body may be left out (the description says so). Fields the
 * schema does not know are ignored, and named in the `X-Ignored-Fields` header and a log line
 * (ignored-fields.ts). `describeAs`: the schema to show when the route validates in two steps
 * (a list whose entries are validated one by one); its fields are the known ones.
 */
export function jsonBody<S extends z.ZodType>(schema: S, opts: { describeAs?: z.ZodType } = {}) {
  const shown = opts.describeAs ?? schema;
  const middleware: MiddlewareHandler<AppEnv, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }> =
    async function jsonBody(c, next) {
      const body = await readJsonBody(c);
      const ignored = ignoredFields(shown, body);
      const header = ignored.slice(0, MAX_NAMED_FIELDS).join(", ");
      if (ignored.length) {
        log.info("ignored fields", {
          ignored_fields: ignored.slice(0, MAX_NAMED_FIELDS),
          ignored_count: ignored.length,
        });
        // before validation: a refused body's answer names them too
        c.header(IGNORED_FIELDS_HEADER, header);
      }
      const result = await schema.safeParseAsync(body);
      if (!result.success) throw validationError(issuesToFieldErrors(result.error.issues));
      c.req.addValidatedData("json", result.data as object);
      await next();
      // also on an answer the handler built itself
      if (ignored.length) c.header(IGNORED_FIELDS_HEADER, header);
    };
  const requestBody = {
    required: !schema.safeParse({}).success,
    content: { "application/json": { schema: resolver(shown, { options: { io: "input" } }) } },
  };
  return Object.assign(middleware, { [uniqueSymbol]: { spec: { requestBody } } });
}

/** Parses a value against a schema outside of the middleware chain (e.g. PUT vs PATCH). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(issuesToFieldErrors(result.error.issues));
  return result.data;
}

const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i;

/**
 * Bodies of POST, PUT and PATCH must be JSON (except the raw file upload). A body with
 * another content type, or larger than MAX_BODY_BYTES, is refused before any handler runs. An
 * empty body is no body, whatever its Content-Type (jsonBody validates it as `{}`).
 */
export function requireJsonBody(opts: {
  except: string[];
  maxBytes: (c: AppContext) => number | null;
}): MiddlewareHandler<AppEnv> {
  return async function requireJsonBody(c, next) {
    const method = c.req.method;
    if (
      (method === "POST" || method === "PUT" || method === "PATCH") &&
      !opts.except.includes(c.req.path.replace(/\/$/, ""))
    ) {
      const length = c.req.header("Content-Length");
      const hasBody = (length !== undefined && length !== "0") || c.req.header("Transfer-Encoding") !== undefined;
      const max = opts.maxBytes(c);
      const tooLarge = () => badRequest(`Request body too large (at most ${max} bytes).`);
      if (max !== null && length !== undefined && Number(length) > max) throw tooLarge();
      if (hasBody) {
        const type = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim();
        if (!JSON_MEDIA.test(type)) {
          throw badRequest(
            type
              ? `Unsupported media type "${type}" in request. Send Content-Type: application/json.`
              : "Missing Content-Type header. Send Content-Type: application/json.",
          );
        }
        const text = await c.req.text();
        if (max !== null && new TextEncoder().encode(text).length > max) throw tooLarge();
        // an empty body (sent chunked) is `{}`, as one without Content-Length
        if (text !== "")
          try {
            JSON.parse(text);
          } catch (e) {
            // biome-ignore lint/plugin: JSON.parse fails only on a body that is no JSON
            throw badRequest(`JSON parse error - ${e instanceof Error ? e.message : "invalid JSON"}`);
          }
      }
    }
    await next();
  };
}

// ---- query parameters ----

/**
 * A query parameter as a route declares it: how it is read (absent or empty → undefined; bad
 * input → 400 with a DRF-style field error) and how the API description shows it. Routes list
 * theirs with `queryParams({...})`, which both parses them (`c.req.valid("query")`) and
 * describes them, so the description cannot drift from what the route reads.
 */
export type QueryParam<T> = {
  read: (c: AppContext, name: string) => T | undefined;
  /** The parameter's schema (OpenAPI 3.1 / JSON Schema) and text. */
  schema: OpenAPIV3_1.SchemaObject;
  description?: string;
  /** `deepObject` for `name[key]=value` families such as `attr[...]`; `form` for lists (comma-separated, or repeated with `explode`). */
  style?: "form" | "deepObject";
  explode?: boolean;
  /**
   * Each value names a response field that is left out of the answer (pretix's `exclude`):
   * the description marks it (`x-omits-fields`), and the contract checks of the test suite
   * accept answers without the named fields.
   */
  omitsFields?: boolean;
  /**
   * The values name the response fields that are kept, the others are left out (pretix's
   * `include`): the description marks it (`x-keeps-fields`), and the contract checks accept
   * answers without the fields not named.
   */
  keepsFields?: boolean;
};

/** The parsed values of `queryParams(P)` (`c.req.valid("query")`). */
export type QueryValues<P extends Record<string, QueryParam<unknown>>> = { [K in keyof P]: ReturnType<P[K]["read"]> };

const TRUE = new Set(["true", "True", "1", "yes", "on"]);
const FALSE = new Set(["false", "False", "0", "no", "off"]);

/** The raw value (the first of a repeated parameter); absent or empty → undefined. */
function raw(c: AppContext, name: string): string | undefined {
  const v = c.req.query(name);
  return v === undefined || v === "" ? undefined : v;
}

/**
 * The most values a list filter (`item__in=1,2`) takes: the values go into the statement as
 * literals, and four such filters together stay well within D1's 100,000-byte statements.
 */
export const MAX_QUERY_LIST_VALUES = 500;

const DECIMAL_PARAM: OpenAPIV3_1.SchemaObject = {
  type: "string",
  pattern: "^[+-]?\\d+(\\.\\d+)?$",
  description: "a decimal number, at most two places",
};

/** The query parameter kinds of the API (pretix's filters: booleans as true/false, ...). */
export const q = {
  /** A boolean filter: `true` / `false`; anything else → 400. */
  bool: (description?: string): QueryParam<boolean> => ({
    description,
    schema: { type: "boolean" },
    read(c, name) {
      const v = raw(c, name);
      if (v === undefined) return undefined;
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      throw fieldError(name, "Select a valid choice. Use true or false.");
    },
  }),
  /** An integer filter; not an integer → 400. */
  int: (description?: string): QueryParam<number> => ({
    description,
    schema: { type: "integer" },
    read(c, name) {
      const v = raw(c, name);
      if (v === undefined) return undefined;
      if (!/^-?\d+$/.test(v)) throw fieldError(name, "Enter a whole number.");
      return Number(v);
    },
  }),
  /** A list of integers from a repeated or comma-separated parameter (`item__in=1,2`); at most `MAX_QUERY_LIST_VALUES` distinct values. */
  intList: (description?: string): QueryParam<number[]> => ({
    description,
    schema: { type: "array", items: { type: "integer" }, maxItems: MAX_QUERY_LIST_VALUES },
    style: "form",
    read(c, name) {
      const values = c.req.queries(name);
      if (!values || values.length === 0) return undefined;
      const parts = values.flatMap((v) => v.split(",")).filter((v) => v !== "");
      for (const p of parts) if (!/^-?\d{1,15}$/.test(p)) throw fieldError(name, "Enter a whole number.");
      const distinct = [...new Set(parts.map(Number))];
      if (distinct.length > MAX_QUERY_LIST_VALUES)
        throw fieldError(name, `Ensure this filter has no more than ${MAX_QUERY_LIST_VALUES} values.`);
      return distinct;
    },
  }),
  /** A list of decimal numbers from a repeated or comma-separated parameter (`tax_rate__in=7.00,19.00`), each in hundredths. */
  decimalList: (description?: string): QueryParam<number[]> => ({
    description,
    schema: { type: "array", items: DECIMAL_PARAM, maxItems: MAX_QUERY_LIST_VALUES },
    style: "form",
    read(c, name) {
      const values = c.req.queries(name);
      if (!values || values.length === 0) return undefined;
      const parts = values.flatMap((v) => v.split(",")).filter((v) => v !== "");
      const parsed = parts.map((p) => parseDecimal(p));
      if (parsed.some((n) => n === null)) throw fieldError(name, "Enter a number.");
      const distinct = [...new Set(parsed as number[])];
      if (distinct.length > MAX_QUERY_LIST_VALUES)
        throw fieldError(name, `Ensure this filter has no more than ${MAX_QUERY_LIST_VALUES} values.`);
      return distinct;
    },
  }),
  /**
   * Several strings from a repeated parameter (`exclude=a&exclude=b`); `commaSeparated`: also
   * `exclude=a,b` (values trimmed). No value → undefined.
   */
  list: (
    description?: string,
    opts: { commaSeparated?: boolean; omitsFields?: boolean; keepsFields?: boolean } = {},
  ): QueryParam<string[]> => ({
    description,
    schema: { type: "array", items: { type: "string" } },
    style: "form",
    explode: true,
    ...(opts.omitsFields ? { omitsFields: true } : {}),
    ...(opts.keepsFields ? { keepsFields: true } : {}),
    read(c, name) {
      const values = (c.req.queries(name) ?? [])
        .flatMap((v) => (opts.commaSeparated ? v.split(",").map((x) => x.trim()) : [v]))
        .filter((v) => v !== "");
      return values.length === 0 ? undefined : values;
    },
  }),
  /** A datetime filter (ISO 8601 with offset), as epoch milliseconds; malformed → 400. */
  dateTime: (description?: string): QueryParam<number> => ({
    description,
    schema: { type: "string", format: "date-time" },
    read(c, name) {
      const v = raw(c, name);
      if (v === undefined) return undefined;
      // a '+' of an offset arrives as a space when the client did not encode it
      const ms = parseDateTime(v.replace(/ (\d{2}(?::?\d{2})?)$/, "+$1"));
      if (ms === null) throw fieldError(name, "Enter a valid date/time.");
      return ms;
    },
  }),
  /** A string filter. `keepEmpty`: an empty value is passed on as "" (not as absent). */
  string: (description?: string, opts: { keepEmpty?: boolean } = {}): QueryParam<string> => ({
    description,
    schema: { type: "string" },
    read: (c, name) => (opts.keepEmpty ? c.req.query(name) : raw(c, name)),
  }),
  /** One of `choices`; anything else → 400. */
  choice: <T extends string>(choices: readonly T[], description?: string): QueryParam<T> => ({
    description,
    schema: { type: "string", enum: [...choices] },
    read(c, name) {
      const v = raw(c, name);
      if (v === undefined) return undefined;
      if (!(choices as readonly string[]).includes(v))
        throw fieldError(name, `Select a valid choice. ${v} is not one of the available choices.`);
      return v as T;
    },
  }),
  /** A parameter that clients of pretix send and the service accepts without acting on it (any value). */
  ignored: (schema: OpenAPIV3_1.SchemaObject, description: string): QueryParam<never> => ({
    description: `Accepted and ignored: ${description}`,
    schema,
    read: () => undefined,
  }),
  /** A decimal number (`12.50`), as a number; not a number → 400. */
  decimal: (description?: string, opts: { also?: Record<string, number> } = {}): QueryParam<number> => ({
    description,
    schema: opts.also ? { anyOf: [DECIMAL_PARAM, { type: "string", enum: Object.keys(opts.also) }] } : DECIMAL_PARAM,
    read(c, name) {
      const v = raw(c, name);
      if (v === undefined) return undefined;
      if (opts.also && Object.hasOwn(opts.also, v)) return opts.also[v];
      const n = parseDecimal(v);
      if (n === null) throw fieldError(name, "Enter a number.");
      return n;
    },
  }),
};

/**
 * The query parameters of a route: parses them before the handler (in declaration order; the
 * first bad one answers 400) into `c.req.valid("query")`, and describes them in the API
 * description (src/http/openapi.ts).
 */
export function queryParams<P extends Record<string, QueryParam<unknown>>>(params: P) {
  const middleware = validator("query", (_value, c: AppContext) => {
    const out: Record<string, unknown> = {};
    for (const [name, param] of Object.entries(params)) out[name] = param.read(c, name);
    return out as QueryValues<P>;
  }) as MiddlewareHandler<
    AppEnv,
    string,
    { in: { query: Record<string, string | string[]> }; out: { query: QueryValues<P> } }
  >;
  const parameters = Object.entries(params).map(([name, p]) => ({
    name,
    in: "query",
    ...(p.description ? { description: p.description } : {}),
    schema: p.schema,
    ...(p.style === "deepObject"
      ? { style: "deepObject", explode: true }
      : p.style === "form"
        ? { style: "form", explode: p.explode ?? false }
        : {}),
    ...(p.omitsFields ? { "x-omits-fields": true } : {}),
    ...(p.keepsFields ? { "x-keeps-fields": true } : {}),
  })) as OpenAPIV3_1.ParameterObject[];
  return Object.assign(middleware, { [uniqueSymbol]: { spec: { parameters } } });
}

/** A numeric id from the path; anything else is a 404 (no such object). */
export function pathId(c: AppContext, name: string): number {
  const v = c.req.param(name);
  if (!v || !/^\d{1,15}$/.test(v)) throw notFound();
  return Number(v);
}
