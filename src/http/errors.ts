/**
 * How errors leave the service: the one table from a failure's code (src/lib/failure.ts) to its
 * HTTP status and headers, the error bodies of docs/api.md (`{"detail": "..."}`, field errors
 * `{"field": ["message", ...]}`, or the body a failure carries), and `errorAnswer`, which answers
 * whatever was thrown (a Failure, hono's exception, a D1 fault, anything else) and a 405.
 */
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { isDatabaseFault } from "../db/constraints";
import { Failure, type FailureCode, type FieldErrors, isFailure } from "../lib/failure";
import { log } from "../lib/log";
import { D1_READ_FAILED, D1_UNCONFIRMED } from "../services/faults";

export { type FieldErrors, MESSAGES } from "../lib/failure";

type Mapping = { status: ContentfulStatusCode; headers?: (f: Failure) => Record<string, string> };

const retryAfter = (seconds: number) => (f: Failure) => ({ "Retry-After": String(f.params.retryAfter ?? seconds) });

/** Each code's status (docs/api.md: status codes by condition). */
export const FAILURE_STATUS: Record<FailureCode, Mapping> = {
  invalid: { status: 400 },
  unauthenticated: { status: 401, headers: () => ({ "WWW-Authenticate": 'Token realm="api"' }) },
  forbidden: { status: 403 },
  in_use: { status: 403 },
  not_found: { status: 404 },
  refused: { status: 400 },
  in_progress: { status: 409, headers: retryAfter(5) },
  busy: { status: 409, headers: retryAfter(1) },
  insufficient_credit: { status: 409 },
  changed: { status: 400 },
  not_ready: { status: 409, headers: retryAfter(2) },
  gone: { status: 410 },
  queue_required: { status: 403 },
  rate_limited: { status: 429, headers: retryAfter(1) },
  unavailable: { status: 503, headers: retryAfter(1) },
};

export type ErrorResponse = { status: ContentfulStatusCode; body: unknown; headers: Record<string, string> };

/** The status, body and headers of a failure. */
export function errorResponse(f: Failure): ErrorResponse {
  const mapping = FAILURE_STATUS[f.code];
  const headers = mapping.headers?.(f) ?? {};
  let body: unknown;
  if (f.body !== undefined) body = f.body;
  else if (f.fields !== undefined) body = f.fields;
  else if (f.field !== undefined)
    body = mapping.status === 400 ? { [f.field]: [f.message] } : { detail: f.message, [f.field]: [f.message] };
  else body = { detail: f.message };
  return { status: mapping.status, body, headers };
}

/** A known path asked with a method it does not take. */
export function methodNotAllowed(method: string, allowed: string[]): ErrorResponse {
  return { status: 405, body: { detail: `Method "${method}" not allowed.` }, headers: { Allow: allowed.join(", ") } };
}

/**
 * The answer to whatever a request threw: a Failure from the table; hono's own exception (a
 * body it cannot parse, ...) with its status; a D1 fault where no service answered it itself,
 * 503 to retry (a read changed nothing, a write may or may not have been applied); anything
 * else a 500 naming the request, logged.
 */
export function errorAnswer(err: unknown, request: { method: string; id: string }): ErrorResponse {
  if (isFailure(err)) return errorResponse(err);
  if (err instanceof HTTPException) {
    return { status: err.status as ContentfulStatusCode, body: { detail: err.message || "Bad request." }, headers: {} };
  }
  if (isDatabaseFault(err)) {
    log.error("D1 fault", { error: err });
    const read = request.method === "GET" || request.method === "HEAD";
    return errorResponse(new Failure("unavailable", read ? D1_READ_FAILED : D1_UNCONFIRMED));
  }
  log.error("unhandled error", { error: err });
  return { status: 500, body: { detail: `Internal server error (request ${request.id}).` }, headers: {} };
}

// ---- the bodies' schemas (for the API description, src/http/openapi.ts) ----

/** `{"detail": "..."}`; a message that belongs to one field is repeated under its name (`{"detail": m, "value": [m]}`). */
export const detailBody = z
  .object({ detail: z.string() })
  .catchall(z.array(z.string()))
  .meta({ id: "Detail", description: 'One message: `{"detail": "..."}`.' });

/** A sale refused by an on-sale queue (`queue_required`): the message and the queue's id. */
export const queueRequiredBody = z.object({ detail: z.string(), queue: z.number().int() }).meta({
  id: "QueueRequired",
  description: 'A sale behind an on-sale queue without a valid admission: `{"detail": "...", "queue": 5}`.',
});

/** The 403 of the routes that sell (orders, cart positions) while an on-sale queue applies. */
export const QUEUE_ANSWERS = {
  403: {
    description:
      "The event's sales (or the date's) are behind an active on-sale queue and the request has no valid admission token in `X-Queue-Admission` (missing, forged, of another queue, expired, or it has placed all its orders); `queue` names the queue.",
    schema: queueRequiredBody,
  },
};

/** Field errors in the shape of the request: messages per field, nested objects for nested input, a list for list input. */
export const fieldErrorsBody: z.ZodType<FieldErrors> = z
  .record(
    z.string(),
    z.union([z.array(z.string()), z.lazy(() => fieldErrorsBody), z.array(z.lazy(() => fieldErrorsBody))]),
  )
  .meta({
    id: "FieldErrors",
    description:
      'Field errors: `{"field": ["message", ...]}`, nested for nested input, one object per element for list input, `non_field_errors` for the object as a whole.',
  });

/** The body of a 400: field errors (one object per element for a list input), one message, or pretix's bare list of messages. */
export const badRequestBody = z
  .union([fieldErrorsBody, z.array(fieldErrorsBody), detailBody, z.array(z.string())])
  .meta({
    id: "BadRequestBody",
    description:
      'Field errors (a list of them, one per element, for a list input), or one message; where pretix refuses the request as a whole outside its fields (order creation\'s payment rules, a cart position without quota), a bare list of messages: `["..."]`.',
  });
