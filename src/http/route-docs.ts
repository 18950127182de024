/**
 * What each route declares about itself for the API description (src/http/openapi.ts builds
 * the document from it): its success answer and the failures it adds (`apiDocs(tag)`), the
 * types of the path parameters, and the route table as the description reads it (each
 * route's declaration, scope, body and query parameters, found in its middleware chain).
 */
import type { Hono, MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { findTargetHandler } from "hono/utils/handler";
import { describeRoute, resolver, uniqueSymbol } from "hono-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import type { z } from "zod";
import type { OrderingTable } from "../db/paging";
import type { FailureCode } from "../lib/failure";
import { envelopeSchema, PAGE_SIZE } from "./pagination";
import { type ScopeMarker, scopeMarkerOf } from "./tenancy";

type Schema = OpenAPIV3_1.SchemaObject;

// ---- declarations ----

/** An answer of the route's own (not from the failure table), by status. */
export type OwnAnswer = {
  description: string;
  /** The JSON body; none: the answer has no body. */
  schema?: z.ZodType;
  /** Response headers: name → description. */
  headers?: Record<string, string>;
};

/** A path parameter's type and text. */
export type PathParam = { schema: Schema; description: string };

/** What a route says about itself beyond its body and query parameters. */
export type RouteDoc = {
  summary: string;
  description?: string;
  /** Failure codes this route can answer beyond the defaults (see the file comment). */
  failures?: FailureCode[];
  /** Answers 304 to `If-Modified-Since` (lists with Last-Modified). */
  conditional?: boolean;
  /** A request body that is not JSON (the file upload); JSON bodies are described by `jsonBody`. */
  rawBody?: OpenAPIV3_1.RequestBodyObject;
  /**
   * A JSON body that the service checks itself rather than through `jsonBody` (an exporter's
   * input parameters, which depend on the exporter): the shape the description shows.
   */
  serviceBody?: z.ZodType;
  /**
   * Answers beyond the success and the failure table, by status (a scan's `error` answer, an
   * export that is still running). Where the failure table answers the same status too, the
   * description offers both bodies.
   */
  answers?: Record<number, OwnAnswer>;
  /** Path parameters that mean something else on this route than in PATH_PARAMETERS. */
  pathParams?: Record<string, PathParam>;
  /** The handler itself refuses team tokens (401): device keys only. */
  deviceOnly?: boolean;
};

export type ListDoc = RouteDoc & {
  /** The list's ordering table: its fields are the `ordering` values offered. Lists in a fixed order leave it out. */
  ordering?: OrderingTable;
};

type RouteMeta = {
  tag: string;
  success: number;
  list: boolean;
  failures: FailureCode[];
  conditional: boolean;
  pathParams: Record<string, PathParam>;
  deviceOnly: boolean;
};

const ROUTE_DOC = Symbol("routeDoc");

const json = (schema: z.ZodType) => ({
  "application/json": { schema: resolver(schema, { options: { io: "output" } }) },
});

function declare(meta: RouteMeta, spec: Parameters<typeof describeRoute>[0]): MiddlewareHandler {
  return Object.assign(describeRoute(spec), { [ROUTE_DOC]: meta });
}

function orderingParameter(table: OrderingTable): OpenAPIV3_1.ParameterObject {
  const fields = Object.keys(table.fields);
  return {
    name: "ordering",
    in: "query",
    description: `Comma-separated fields, \`-\` reverses: ${fields.map((f) => `\`${f}\``).join(", ")}. Default: \`${table.default}\`.`,
    schema: { type: "string", examples: [`-${fields[0]}`] } as OpenAPIV3_1.ParameterObject["schema"],
  };
}

const PAGE_PARAMETERS: OpenAPIV3_1.ParameterObject[] = [
  {
    name: "page",
    in: "query",
    description: "1-based page number; a page past the end is 404.",
    schema: { type: "integer", minimum: 1 },
  },
  {
    name: "page_size",
    in: "query",
    description: `Results per page: at most ${PAGE_SIZE} (the default); larger values are lowered to it.`,
    schema: { type: "integer", minimum: 1 },
  },
];

/** What the description and the checks know of a route. */
function routeMeta(tag: string, success: number, doc: RouteDoc, list = false): RouteMeta {
  return {
    tag,
    success,
    list,
    failures: doc.failures ?? [],
    conditional: doc.conditional ?? false,
    pathParams: doc.pathParams ?? {},
    deviceOnly: doc.deviceOnly ?? false,
  };
}

/** The operation's tag, summary, description and request body. */
function operationBase(tag: string, doc: RouteDoc) {
  return {
    tags: [tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(doc.rawBody ? { requestBody: doc.rawBody } : {}),
    ...(doc.serviceBody
      ? {
          requestBody: {
            required: !doc.serviceBody.safeParse({}).success,
            content: { "application/json": { schema: resolver(doc.serviceBody, { options: { io: "input" } }) } },
          },
        }
      : {}),
  };
}

/** The success answer and the route's own answers. */
function operationResponses(doc: RouteDoc, success: Record<number, unknown>) {
  const own = Object.entries(doc.answers ?? {}).map(([status, a]) => [
    status,
    {
      description: a.description,
      ...(a.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(a.headers).map(([name, text]) => [
                name,
                { description: text, schema: { type: "string" } },
              ]),
            ),
          }
        : {}),
      ...(a.schema ? { content: json(a.schema) } : {}),
    },
  ]);
  return { ...Object.fromEntries(own), ...success };
}

/**
 * The declarations of one resource family (`tag` groups its routes in the description). Put
 * one in every route's chain, after the scope middleware:
 *
 *     const doc = apiDocs("Vouchers");
 *     routes.get(base, read, doc.list(voucherResponse, { summary: "List vouchers", ordering: VOUCHER_ORDERING }), voucherFilters, handler);
 *     routes.post(base, write, doc.created(voucherResponse, { summary: "Create a voucher", failures: ["busy"] }), jsonBody(voucherInput), handler);
 */
export function apiDocs(tag: string) {
  return {
    /** A list: 200 with the pagination envelope around `item`. */
    list(item: z.ZodType, doc: ListDoc): MiddlewareHandler {
      return declare(routeMeta(tag, 200, doc, true), {
        ...operationBase(tag, doc),
        parameters: doc.ordering ? [...PAGE_PARAMETERS, orderingParameter(doc.ordering)] : PAGE_PARAMETERS,
        responses: operationResponses(doc, {
          200: { description: "A page of the list.", content: json(envelopeSchema(item)) },
        }),
      });
    },
    /** 200 with `schema`. */
    ok(schema: z.ZodType, doc: RouteDoc): MiddlewareHandler {
      return declare(routeMeta(tag, 200, doc), {
        ...operationBase(tag, doc),
        responses: operationResponses(doc, { 200: { description: "OK.", content: json(schema) } }),
      });
    },
    /**
     * 200 with `schema` as JSON, or, when the client asks for `text/event-stream` (`Accept`),
     * a stream of server-sent events whose `data` is `schema` as JSON (`events` describes them).
     */
    okOrEvents(schema: z.ZodType, doc: RouteDoc & { events: string }): MiddlewareHandler {
      return declare(routeMeta(tag, 200, doc), {
        ...operationBase(tag, doc),
        responses: operationResponses(doc, {
          200: {
            description: `OK: the state as JSON, or with \`Accept: text/event-stream\` a stream of server-sent events. ${doc.events}`,
            content: {
              ...json(schema),
              "text/event-stream": { schema: { type: "string", contentMediaType: "text/event-stream" } },
            },
          },
        }),
      });
    },
    /** 201 with `schema` (the created object). */
    created(schema: z.ZodType, doc: RouteDoc): MiddlewareHandler {
      return declare(routeMeta(tag, 201, doc), {
        ...operationBase(tag, doc),
        responses: operationResponses(doc, { 201: { description: "Created.", content: json(schema) } }),
      });
    },
    /** 202 with `schema` (the work is queued). */
    accepted(schema: z.ZodType, doc: RouteDoc): MiddlewareHandler {
      return declare(routeMeta(tag, 202, doc), {
        ...operationBase(tag, doc),
        responses: operationResponses(doc, {
          202: { description: "Accepted; the work is queued.", content: json(schema) },
        }),
      });
    },
    /** 204 without a body. */
    noContent(doc: RouteDoc): MiddlewareHandler {
      return declare(routeMeta(tag, 204, doc), {
        ...operationBase(tag, doc),
        responses: operationResponses(doc, { 204: { description: "Done; no content." } }),
      });
    },
    /**
     * 200 with a file (`Content-Disposition` names it): of `contentType` (`application/pdf`),
     * or of any type when the file's own type is sent (an export).
     */
    file(doc: RouteDoc & { contentType?: string }): MiddlewareHandler {
      const type = doc.contentType ?? "*/*";
      return declare(routeMeta(tag, 200, doc), {
        ...operationBase(tag, doc),
        responses: operationResponses(doc, {
          200: {
            description: `The file, with ${doc.contentType ? `\`Content-Type: ${doc.contentType}\`` : "its `Content-Type`"} and \`Content-Disposition: attachment; filename=...\`.`,
            content: {
              [type]: { schema: { type: "string", contentMediaType: doc.contentType ?? "application/octet-stream" } },
            },
          },
        }),
      });
    },
  };
}

// ---- path parameters ----

const ID: Schema = { type: "integer", minimum: 0, maximum: 999_999_999_999_999 };
const SLUG: Schema = { type: "string" };

/**
 * Every path parameter name of the API, with its type. A numeric id is read with `pathId`
 * (anything else: 404). A route with a parameter not listed here fails the description's
 * test (test/api/openapi.test.ts): add it.
 */
export const PATH_PARAMETERS: Record<string, { schema: Schema; description: string }> = {
  organizer: { schema: SLUG, description: "The organizer's slug." },
  event: { schema: SLUG, description: "The event's slug." },
  id: { schema: ID, description: "The object's id." },
  item: { schema: ID, description: "The item's id." },
  question: { schema: ID, description: "The question's id." },
  team: { schema: ID, description: "The team's id." },
  list: { schema: ID, description: "The check-in list's id." },
  device_id: { schema: ID, description: "The device's `device_id`." },
  local: { schema: ID, description: "The payment's `local_id`." },
  code: { schema: SLUG, description: "The order code." },
  identifier: { schema: SLUG, description: "The customer's identifier." },
  acceptor: { schema: SLUG, description: "The slug of the organizer invited to accept gift cards." },
  issuer: { schema: SLUG, description: "The slug of the organizer whose gift cards are accepted." },
  number: { schema: SLUG, description: "The invoice number (with its prefix, as `number` shows it)." },
  output: { schema: { type: "string", enum: ["pdf"] }, description: "The output provider: `pdf` (another is 404)." },
  call_id: { schema: ID, description: "The call's `id` (the notification's `notification_id`)." },
};

// ---- the route table, as the description reads it ----

/** One method and path of the router, with what its middleware chain declares. */
export type RouteInfo = {
  method: string;
  /** The pattern as registered (`/api/v1/organizers/:organizer/events`). */
  path: string;
  /** The path in the description (`/api/v1/organizers/{organizer}/events/`). */
  docPath: string;
  params: string[];
  meta: RouteMeta | undefined;
  scope: ScopeMarker | undefined;
  hasBody: boolean;
  hasQuery: boolean;
};

type Marked = {
  [ROUTE_DOC]?: RouteMeta;
  [uniqueSymbol]?: { spec?: { requestBody?: unknown; parameters?: unknown[] } };
};

/** `:name` and `:name{regex}` segments → `{name}`; pretix's trailing slash under /organizers/. */
export function openApiPathOf(path: string): string {
  const p = path.replace(/:(\w+)(\{[^/]*\})?/g, "{$1}");
  return /\/organizers(\/|$)/.test(p) && !p.endsWith("/") ? `${p}/` : p;
}

/** The routes under `prefix`, one entry per method and path, in registration order. */
export function routeInfos(app: Hono<AppEnv>, prefix: string): RouteInfo[] {
  const byKey = new Map<string, RouteInfo>();
  for (const r of app.routes) {
    if (r.method === "ALL" || !r.path.startsWith(prefix)) continue;
    const key = `${r.method} ${r.path}`;
    let info = byKey.get(key);
    if (!info) {
      const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      info = {
        method: r.method,
        path: r.path,
        docPath: openApiPathOf(r.path),
        params,
        meta: undefined,
        scope: undefined,
        hasBody: false,
        hasQuery: false,
      };
      byKey.set(key, info);
    }
    const h = findTargetHandler(r.handler) as Marked;
    if (h[ROUTE_DOC]) info.meta = h[ROUTE_DOC];
    const scope = scopeMarkerOf(r.handler);
    if (scope) info.scope = scope;
    const spec = h[uniqueSymbol]?.spec;
    if (spec?.requestBody) info.hasBody = true;
    if (spec?.parameters?.length) info.hasQuery = true;
  }
  return [...byKey.values()];
}

/** What the description cannot say of a route: no declaration, or a path parameter of unknown type. */
export function undescribedRoutes(app: Hono<AppEnv>, prefix: string): string[] {
  const out: string[] = [];
  for (const r of routeInfos(app, prefix)) {
    if (!r.meta)
      out.push(
        `${r.method} ${r.path}: no apiDocs(...) declaration (list/ok/created/noContent) in its middleware chain`,
      );
    if (!r.scope) out.push(`${r.method} ${r.path}: no scope middleware (src/http/tenancy.ts)`);
    for (const p of r.params)
      if (!PATH_PARAMETERS[p] && !r.meta?.pathParams[p])
        out.push(`${r.method} ${r.path}: path parameter "${p}" is not in PATH_PARAMETERS (src/http/openapi.ts)`);
  }
  return out;
}
