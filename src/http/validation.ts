/**
 * Request input: JSON bodies validated with zod (through @hono/zod-validator) and query
 * parameters. Failures become the spec's field-error bodies with DRF-style messages, so
 * pretix clients see familiar texts.
 */
import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { parseDateTime } from "../lib/datetime";
import type { AppContext, AppEnv } from "./context";
import { badRequest, type FieldErrors, MESSAGES, fieldError, notFound, validationError } from "../domain/failure";
import { DATETIME_FORMAT_MESSAGE } from "../domain/fields";

function typeName(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "list";
  if (typeof input === "string") return "str";
  if (typeof input === "number") return Number.isInteger(input) ? "int" : "float";
  if (typeof input === "boolean") return "bool";
  return typeof input === "object" ? "dict" : typeof input;
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
        if (iss.origin === "string") return Number(iss.minimum) <= 1 ? MESSAGES.blank : `Ensure this field has at least ${iss.minimum} characters.`;
        if (iss.origin === "array" || iss.origin === "set")
          return Number(iss.minimum) <= 1 ? "This list may not be empty." : `Ensure this field has at least ${iss.minimum} elements.`;
        return `Ensure this value is greater than or equal to ${iss.minimum}.`;
      case "too_big":
        if (iss.origin === "string") return `Ensure this field has no more than ${iss.maximum} characters.`;
        if (iss.origin === "array" || iss.origin === "set") return `Ensure this field has no more than ${iss.maximum} elements.`;
        return `Ensure this value is less than or equal to ${iss.maximum}.`;
      case "invalid_value":
        if (iss.input === undefined) return MESSAGES.required;
        return `"${String(iss.input)}" is not a valid choice.`;
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
        obj[key] = Array.isArray(cur) && cur.every((x) => typeof x === "string") ? [...cur, issue.message] : [issue.message];
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
 * Validates the JSON body with `schema`. A wrong content type or malformed JSON is rejected
 * earlier (see requireJsonBody); here only field errors remain.
 */
export function jsonBody<S extends z.ZodType>(schema: S) {
  return zValidator("json", schema, (result) => {
    if (!result.success) throw validationError(issuesToFieldErrors(result.error.issues));
  });
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
 * another content type, or larger than MAX_BODY_BYTES, is refused before any handler runs.
 */
export function requireJsonBody(opts: { except: string[]; maxBytes: (c: AppContext) => number | null }): MiddlewareHandler<AppEnv> {
  return async function requireJsonBody(c, next) {
    const method = c.req.method;
    if ((method === "POST" || method === "PUT" || method === "PATCH") && !opts.except.includes(c.req.path.replace(/\/$/, ""))) {
      const length = c.req.header("Content-Length");
      const hasBody = (length !== undefined && length !== "0") || c.req.header("Transfer-Encoding") !== undefined;
      const max = opts.maxBytes(c);
      const tooLarge = () => badRequest(`Request body too large (at most ${max} bytes).`);
      if (max !== null && length !== undefined && Number(length) > max) throw tooLarge();
      if (hasBody) {
        const type = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim();
        if (!JSON_MEDIA.test(type)) {
          throw badRequest(
            type ? `Unsupported media type "${type}" in request. Send Content-Type: application/json.` : "Missing Content-Type header. Send Content-Type: application/json.",
          );
        }
        const text = await c.req.text();
        if (max !== null && new TextEncoder().encode(text).length > max) throw tooLarge();
        try {
          JSON.parse(text);
        } catch (e) {
          throw badRequest(`JSON parse error - ${e instanceof Error ? e.message : "invalid JSON"}`);
        }
      }
    }
    await next();
  };
}

// ---- query parameters ----

const TRUE = new Set(["true", "True", "1", "yes", "on"]);
const FALSE = new Set(["false", "False", "0", "no", "off"]);

/** A boolean filter: `true` / `false`; absent → undefined; anything else → 400. */
export function queryBool(c: AppContext, name: string): boolean | undefined {
  const v = c.req.query(name);
  if (v === undefined || v === "") return undefined;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw fieldError(name, "Select a valid choice. Use true or false.");
}

/** An integer filter; absent → undefined; not an integer → 400. */
export function queryInt(c: AppContext, name: string): number | undefined {
  const v = c.req.query(name);
  if (v === undefined || v === "") return undefined;
  if (!/^-?\d+$/.test(v)) throw fieldError(name, "Enter a whole number.");
  return Number(v);
}

/**
 * The most values a list filter (`item__in=1,2`) takes: the values go into the statement as
 * literals, and four such filters together stay well within D1's 100,000-byte statements.
 */
export const MAX_QUERY_LIST_VALUES = 500;

/** A list of integers from a repeated or comma-separated parameter (`item__in=1,2`); at most `MAX_QUERY_LIST_VALUES` distinct values. */
export function queryIntList(c: AppContext, name: string): number[] | undefined {
  const raw = c.req.queries(name);
  if (!raw || raw.length === 0) return undefined;
  const parts = raw.flatMap((v) => v.split(",")).filter((v) => v !== "");
  for (const p of parts) if (!/^-?\d{1,15}$/.test(p)) throw fieldError(name, "Enter a whole number.");
  const values = [...new Set(parts.map(Number))];
  if (values.length > MAX_QUERY_LIST_VALUES) throw fieldError(name, `Ensure this filter has no more than ${MAX_QUERY_LIST_VALUES} values.`);
  return values;
}

/** A datetime filter (ISO 8601 with offset); absent → undefined; malformed → 400. */
export function queryDateTime(c: AppContext, name: string): number | undefined {
  const v = c.req.query(name);
  if (v === undefined || v === "") return undefined;
  // a '+' of an offset arrives as a space when the client did not encode it
  const ms = parseDateTime(v.replace(/ (\d{2}(?::?\d{2})?)$/, "+$1"));
  if (ms === null) throw fieldError(name, "Enter a valid date/time.");
  return ms;
}

/** A string filter; absent or empty → undefined. */
export function queryString(c: AppContext, name: string): string | undefined {
  const v = c.req.query(name);
  return v === undefined || v === "" ? undefined : v;
}

/** A numeric id from the path; anything else is a 404 (no such object). */
export function pathId(c: AppContext, name: string): number {
  const v = c.req.param(name);
  if (!v || !/^\d{1,15}$/.test(v)) throw notFound();
  return Number(v);
}
