/**
 * The API description (OpenAPI 3.1), generated with hono-openapi from the routes' own declarations
 * (`apiDocs(tag)` of route-docs.ts, re-exported here), their validators, scopes and the failure table:
 * nothing in it is written twice (docs/routes.md "How a route describes itself"). Built on its first
 * request and kept for the isolate's lifetime; a declaration is a pass-through middleware.
 */
import { withBodyExample } from "./openapi-examples";
import type { Context, Hono } from "hono";
import type { AppEnv } from "./context";
import { generateSpecs, resolver } from "hono-openapi";
import type { OpenAPIV3_1 } from "openapi-types";
import { FAILURE_CODES, Failure, type FailureCode } from "../lib/failure";
import { DEVICE_GRANT, GIVEN_BY } from "../rules/permissions";
import { badRequestBody, detailBody, FAILURE_STATUS } from "./errors";
import { PAGE_SIZE } from "./pagination";
import { PATH_PARAMETERS, type RouteInfo, routeInfos } from "./route-docs";
import type { ScopeMarker } from "./tenancy";

export {
  apiDocs,
  type ListDoc,
  type OwnAnswer,
  PATH_PARAMETERS,
  type PathParam,
  type RouteDoc,
  type RouteInfo,
  routeInfos,
  openApiPathOf,
  undescribedRoutes,
} from "./route-docs";

type Schema = OpenAPIV3_1.SchemaObject;
type Operation = OpenAPIV3_1.OperationObject;
type Document = OpenAPIV3_1.Document;

// ---- errors ----

/** The response component of each status the failure table uses. */
const STATUS_NAMES: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthenticated",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  410: "Gone",
  429: "TooManyRequests",
  503: "Unavailable",
};

/** When each failure code is answered (keep in step with FAILURE_CODES: the type makes you). */
const FAILURE_TEXT: Record<FailureCode, string> = {
  invalid: "the input is invalid (field errors, or one message about the request)",
  unauthenticated: "no credentials, or credentials that are unknown, revoked or inactive",
  forbidden:
    "the organizer or event does not exist for the caller, a permission is missing, or a device's security profile does not allow the call",
  in_use: "the object is protected: in use, or already used",
  not_found: "the object (a part of the path) does not exist, or the page is past the end of the list",
  refused:
    "a scan is refused, or questions must be answered first (the check-in routes answer with the scan's answer, described on the route)",
  in_progress: "the same `X-Idempotency-Key` is still being processed",
  busy: "the event could not process the change in time; retry",
  unavailable: "the event's object or the database could not serve the request; retry after `Retry-After` seconds",
  insufficient_credit: "the gift card does not hold enough credit",
  rate_limited: "too many requests of this credential or client",
  changed: "the object changed meanwhile; read it again",
  not_ready: "the file is not yet ready and is being prepared; retry after `Retry-After` seconds",
  gone: "what was asked for failed for good",
  queue_required:
    "the event's sales are behind an active on-sale queue and the request has no valid admission token in `X-Queue-Admission` (the body names the queue: `queue`)",
};

function statusOf(code: FailureCode): number {
  return FAILURE_STATUS[code].status;
}

/** The error responses, one per status of the failure table, with the codes behind each. */
function errorResponses() {
  const out: Record<
    string,
    {
      description: string;
      headers?: Record<string, OpenAPIV3_1.HeaderObject>;
      content: Record<string, { schema: ReturnType<typeof resolver> }>;
    }
  > = {};
  for (const status of [...new Set(FAILURE_CODES.map(statusOf))].sort()) {
    const name = STATUS_NAMES[status];
    if (!name) throw new Error(`openapi: no response name for status ${status} (add it to STATUS_NAMES)`);
    const codes = FAILURE_CODES.filter((c) => statusOf(c) === status);
    const headers: Record<string, OpenAPIV3_1.HeaderObject> = {};
    for (const code of codes) {
      for (const header of Object.keys(FAILURE_STATUS[code].headers?.(new Failure(code, "")) ?? {})) {
        headers[header] = {
          description: header === "Retry-After" ? "Seconds to wait before retrying." : `The \`${header}\` challenge.`,
          schema: { type: "string" },
        };
      }
    }
    out[name] = {
      description: codes.map((c) => `\`${c}\`: ${FAILURE_TEXT[c]}.`).join(" "),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        "application/json": {
          schema: resolver(status === 400 ? badRequestBody : detailBody, { options: { io: "output" } }),
        },
      },
    };
  }
  return out;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
const TENANCY_PARAMS = new Set(["organizer", "event"]);

/** The statuses a route can fail with (see the file comment). */
export function failureStatuses(r: RouteInfo): number[] {
  const codes = new Set<FailureCode>(["rate_limited", ...(r.meta?.failures ?? [])]);
  // a route with credentials reads the database (the credential at least): a D1 fault is a 503
  if (r.scope?.scope !== "public") codes.add("unauthenticated").add("forbidden").add("unavailable");
  if (WITH_BODY.has(r.method) || r.hasBody || r.hasQuery) codes.add("invalid");
  if (r.meta?.list || r.params.some((p) => !TENANCY_PARAMS.has(p))) codes.add("not_found");
  if (WRITES.has(r.method)) codes.add("in_progress");
  return [...new Set([...codes].map(statusOf))].sort();
}

// ---- security ----

export const SECURITY_SCHEMES: Record<string, OpenAPIV3_1.SecuritySchemeObject> = {
  Token: {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description:
      "A team API token: send `Authorization: Token <token>` (the word `Token`, one space, the token). " +
      "Tokens come from the operator command (`npm run admin -- create-organizer`) or from `POST /api/v1/organizers/{organizer}/teams/{team}/tokens/`; " +
      "the team's permissions and events apply.",
  },
  Device: {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description:
      "A device's API token: send `Authorization: Device <api_token>` (the word `Device`, one space, the token from " +
      "`POST /api/v1/device/initialize`). Devices have a fixed grant (event metadata and products, orders, gift cards), " +
      "are held to their events and to their security profile (403 outside it).",
  },
};

function securityOf(scope: ScopeMarker | undefined, deviceOnly = false): OpenAPIV3_1.SecurityRequirementObject[] {
  if (!scope || scope.scope === "public") return [];
  if (scope.scope === "device" || deviceOnly) return [{ Device: [] }];
  if (scope.scope === "global" || scope.permission === null || DEVICE_GRANT.has(scope.permission))
    return [{ Token: [] }, { Device: [] }];
  return [{ Token: [] }];
}

function accessText(scope: ScopeMarker | undefined, deviceOnly = false): string {
  if (!scope || scope.scope === "public") return "No credentials needed.";
  if (scope.scope === "device" || deviceOnly) return "Device keys only (a team token is answered 401).";
  const given = scope.permission === null ? undefined : GIVEN_BY[scope.permission];
  const perm =
    scope.permission === null
      ? `access to the organizer${scope.scope === "event" ? " and the event" : ""}`
      : given
        ? `\`${scope.permission}\` (${given.map((f) => `\`${f}\``).join(" or ")})`
        : `\`${scope.permission}\``;
  const who = securityOf(scope).length === 2 ? "Team tokens and devices" : "Team tokens only";
  if (scope.scope === "global") return "Any valid credential.";
  if (scope.perObject)
    return `Any credential of the organizer; each list needs ${perm} for its event (the others are refused as unknown). ${who}.`;
  return `Needs ${perm}. ${who}.`;
}

/** A route's own answer on a status that the failure table answers too: either body. */
function withFailure(own: OpenAPIV3_1.ResponseObject, status: number): OpenAPIV3_1.ResponseObject {
  const failure = { $ref: `#/components/schemas/${status === 400 ? "BadRequestBody" : "Detail"}` };
  const schema = own.content?.["application/json"]?.schema;
  return {
    ...own,
    description: `${own.description} Otherwise the failure answer (\`${STATUS_NAMES[status]}\`).`,
    content: { "application/json": { schema: (schema ? { anyOf: [schema, failure] } : failure) as Schema } },
  };
}

// ---- the document ----

const INFO_DESCRIPTION = `A multi-tenant event ticketing API, a subset of pretix's REST API (pretix clients feel at home).

- **Authentication**: \`Authorization: Token <token>\` (team API tokens) or \`Authorization: Device <api_token>\` (initialized devices); see the security schemes.
- **Lists**: \`{"count", "next", "previous", "results"}\`, ${PAGE_SIZE} per page, \`page_size\` may lower it; \`ordering\` where documented (\`-\` reverses); boolean filters take \`true\` / \`false\`.
- **Errors**: \`{"detail": "..."}\`, or field errors \`{"field": ["message"]}\` (nested for nested input, \`non_field_errors\` for the object as a whole).
- **Money** is a decimal string, **datetimes** are ISO 8601 (returned in UTC), **multi-lingual strings** are objects of language code to text.
- **Idempotency**: \`X-Idempotency-Key\` on POST, PUT, PATCH and DELETE replays the stored answer to a repeat (409 while the first still runs).`;

const IDEMPOTENCY_KEY: OpenAPIV3_1.ParameterObject = {
  name: "X-Idempotency-Key",
  in: "header",
  description:
    "A repeat with the same key and credential gets the stored answer instead of acting again (kept 24 hours).",
  schema: { type: "string" },
};

const IF_MODIFIED_SINCE: OpenAPIV3_1.ParameterObject = {
  name: "If-Modified-Since",
  in: "header",
  description: "The `Last-Modified` of an earlier answer: 304 without a body when nothing changed since.",
  schema: { type: "string" },
};

/** `getOrganizersByOrganizerEvents`: the method and the path's words (without the prefix). */
function operationId(r: RouteInfo, prefix: string): string {
  const words = r.path
    .slice(prefix.length)
    .split("/")
    .filter(Boolean)
    .map((s) => (s.startsWith(":") ? `By_${s.slice(1).replace(/\{.*$/, "")}` : s))
    .flatMap((s) => s.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return r.method.toLowerCase() + words.join("");
}

/** Builds the description of the routes of `app` under `prefix`. */
export async function buildOpenApiDocument(app: Hono<AppEnv>, prefix: string): Promise<Document> {
  const generated = await generateSpecs(app, {
    documentation: { components: { responses: errorResponses() } },
    defaultValidationErrorResponse: false,
    excludeStaticFile: false,
  });
  const paths: Record<string, Record<string, Operation>> = {};
  const tags = new Set<string>();
  for (const r of routeInfos(app, prefix)) {
    if (!r.meta) continue; // an undeclared route is left out: the route-table test names it
    const generatedPath = r.path.replace(/:(\w+)(\{[^/]*\})?/g, "{$1}");
    const op = {
      ...(generated.paths[generatedPath] as Record<string, Operation> | undefined)?.[r.method.toLowerCase()],
    } as Operation;
    tags.add(r.meta.tag);
    const query = (op.parameters ?? []).filter((p) => !("$ref" in p) && p.in === "query");
    const headers: OpenAPIV3_1.ParameterObject[] = [];
    if (WRITES.has(r.method)) headers.push(IDEMPOTENCY_KEY);
    if (r.meta.conditional) headers.push(IF_MODIFIED_SINCE);
    const responses: Record<string, OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject> = { ...op.responses };
    if (r.meta.conditional) responses["304"] = { description: "Not modified since `If-Modified-Since`; no body." };
    for (const status of failureStatuses(r)) {
      const ref = { $ref: `#/components/responses/${STATUS_NAMES[status]}` };
      const own = responses[String(status)] as OpenAPIV3_1.ResponseObject | undefined;
      responses[String(status)] = own ? withFailure(own, status) : ref;
    }
    const permission = r.scope && r.scope.scope !== "public" && r.scope.scope !== "device" ? r.scope.permission : null;
    const operation: Operation & Record<`x-${string}`, unknown> = {
      operationId: operationId(r, prefix),
      tags: [r.meta.tag],
      summary: op.summary,
      description: [op.description, accessText(r.scope, r.meta.deviceOnly)].filter(Boolean).join("\n\n"),
      security: securityOf(r.scope, r.meta.deviceOnly),
      ...(permission ? { "x-permission": permission } : {}),
      parameters: [
        ...r.params.map(
          (name): OpenAPIV3_1.ParameterObject => ({
            name,
            in: "path",
            required: true,
            description: (r.meta!.pathParams[name] ?? PATH_PARAMETERS[name])?.description,
            schema: ((r.meta!.pathParams[name] ?? PATH_PARAMETERS[name])?.schema ?? {
              type: "string",
            }) as OpenAPIV3_1.ParameterObject["schema"],
          }),
        ),
        ...query,
        ...headers,
      ],
      ...(op.requestBody ? { requestBody: withBodyExample(op.requestBody, generated.components?.schemas ?? {}) } : {}),
      responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
    };
    (paths[r.docPath] ??= {})[r.method.toLowerCase()] = operation;
  }
  return {
    openapi: "3.1.0",
    info: { title: "Edge ticketing API", version: "1", description: INFO_DESCRIPTION },
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: { ...generated.components, securitySchemes: SECURITY_SCHEMES },
  } as Document;
}

const documents = new WeakMap<Hono<AppEnv>, Promise<string>>();

/**
 * GET handler of the description: built on the first request, then served from the isolate's
 * copy (the same text every time).
 */
export function openApiHandler(app: Hono<AppEnv>, prefix: string) {
  return async (c: Context) => {
    let text = documents.get(app);
    if (!text) {
      text = buildOpenApiDocument(app, prefix).then((d) => JSON.stringify(d));
      documents.set(app, text);
      text.catch(() => documents.delete(app));
    }
    return c.body(await text, 200, {
      "Content-Type": "application/json; charset=UTF-8",
      "Cache-Control": "public, max-age=300",
    });
  };
}
