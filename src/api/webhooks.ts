/**
 * Webhooks (pretix docs api/resources/webhooks.rst): list, detail, create, PUT, PATCH, DELETE
 * (which disables, as pretix does), all with can_change_organizer_settings as in pretix. Beyond
 * pretix: the signing secret, shown on creation and by `rotate_secret/`, and the delivery log
 * `calls/` (pretix shows its log only in its web interface). The routes parse, scope, call the
 * services (services/organizers/webhooks.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { WEBHOOK_CALL_STATES } from "../services/stored-values";
import {
  findWebhook,
  findWebhookCall,
  listWebhookCalls,
  listWebhooks,
  WEBHOOK_CALL_ORDERING,
  type WebhookCallRow,
  type WebhookRecord,
} from "../services/organizers/organizer-reads";
import { notFound } from "../lib/failure";
import {
  changeWebhook,
  createWebhook,
  disableWebhook,
  rotateWebhookSecret,
  webhookInput,
  webhookPatch,
  type WebhookWithSecret,
} from "../services/organizers/webhooks";
import { callBody } from "../services/organizers/webhooks-delivery";
import { type AppEnv, organizerContext } from "../http/context";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, id, object, url } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";

/** A webhook (pretix docs webhooks.rst "Resource description"). */
export const webhookResponse = z
  .object({
    id: id(),
    enabled: z.boolean(),
    target_url: url(),
    all_events: z.boolean(),
    limit_events: z.array(z.string()),
    action_types: z.array(z.string()),
    comment: z.string().nullable(),
  })
  .meta({ id: "Webhook" });
export type WebhookResponse = z.infer<typeof webhookResponse>;

/** A webhook with its signing secret: the answer of creation and of `rotate_secret/`, the only times the secret is shown. */
export const webhookWithSecretResponse = webhookResponse
  .extend({ secret: z.string() })
  .meta({ id: "WebhookWithSecret" });
export type WebhookWithSecretResponse = z.infer<typeof webhookWithSecretResponse>;

export function serializeWebhook(r: WebhookRecord): WebhookResponse {
  const w = r.webhook;
  return {
    id: w.id,
    enabled: w.enabled,
    target_url: w.targetUrl,
    all_events: w.allEvents,
    limit_events: JSON.parse(r.limitEvents) as string[],
    action_types: w.actionTypes,
    comment: w.comment,
  };
}

function serializeWithSecret(r: WebhookWithSecret): WebhookWithSecretResponse {
  return { ...serializeWebhook(r.record), secret: r.secret };
}

/** One notification to a webhook and what became of it (the service's own resource). */
export const webhookCallResponse = z
  .object({
    /** The payload's `notification_id`. */
    id: id(),
    action_type: z.string(),
    event: z.string(),
    code: z.string(),
    state: z.enum(WEBHOOK_CALL_STATES),
    attempts: z.number().int(),
    created: dateTime(),
    last_attempt: dateTime().nullable(),
    next_attempt: dateTime().nullable(),
    delivered: dateTime().nullable(),
    target_url: url().nullable(),
    last_status_code: z.number().int().nullable(),
    last_response: z.string().nullable(),
    last_error: z.string().nullable(),
    /** Seconds the last attempt took. */
    last_execution_time: z.number().nullable(),
    /** The exact body sent (every attempt sends the same). */
    payload: object(),
  })
  .meta({ id: "WebhookCall" });
export type WebhookCallResponse = z.infer<typeof webhookCallResponse>;

export function serializeWebhookCall(c: WebhookCallRow): WebhookCallResponse {
  const payload = JSON.parse(callBody(c)) as Record<string, unknown>;
  return {
    id: c.id,
    action_type: c.actionType,
    event: String(payload.event ?? ""),
    code: c.code,
    state: c.state,
    attempts: c.attempts,
    created: toIso(c.createdAt),
    last_attempt: toIso(c.lastAttemptAt),
    next_attempt: toIso(c.nextAttemptAt),
    delivered: toIso(c.deliveredAt),
    target_url: c.targetUrl,
    last_status_code: c.lastStatusCode,
    last_response: c.lastResponse,
    last_error: c.lastError,
    last_execution_time: c.lastDurationMs === null ? null : c.lastDurationMs / 1000,
    payload,
  };
}

export const webhookRoutes = new Hono<AppEnv>();
const scope = organizerScope("can_change_organizer_settings");
const base = "/organizers/:organizer/webhooks";
const doc = apiDocs("Webhooks");

webhookRoutes.get(base, scope, doc.list(webhookResponse, { summary: "List webhooks" }), async (c) => {
  const req = listRequest(c);
  return respondPage(c, req, await listWebhooks(organizerContext(c), req), serializeWebhook);
});

webhookRoutes.post(
  base,
  scope,
  doc.created(webhookWithSecretResponse, {
    summary: "Create a webhook",
    description: "The answer holds the signing secret (`secret`); it is shown only here and by `rotate_secret`.",
  }),
  jsonBody(webhookInput),
  async (c) => c.json(serializeWithSecret(await createWebhook(organizerContext(c), c.req.valid("json"))), 201),
);

webhookRoutes.get(`${base}/:id`, scope, doc.ok(webhookResponse, { summary: "Webhook detail" }), async (c) => {
  const r = await findWebhook(organizerContext(c), pathId(c, "id"));
  if (!r) throw notFound();
  return c.json(serializeWebhook(r));
});

webhookRoutes.put(
  `${base}/:id`,
  scope,
  doc.ok(webhookResponse, { summary: "Replace a webhook" }),
  jsonBody(webhookInput),
  async (c) =>
    c.json(serializeWebhook(await changeWebhook(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "put"))),
);

webhookRoutes.patch(
  `${base}/:id`,
  scope,
  doc.ok(webhookResponse, { summary: "Change a webhook" }),
  jsonBody(webhookPatch),
  async (c) =>
    c.json(serializeWebhook(await changeWebhook(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "patch"))),
);

webhookRoutes.delete(
  `${base}/:id`,
  scope,
  doc.noContent({
    summary: "Disable a webhook",
    description: "As in pretix, the webhook is disabled (`enabled` false), not removed.",
  }),
  async (c) => {
    await disableWebhook(organizerContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);

webhookRoutes.post(
  `${base}/:id/rotate_secret`,
  scope,
  doc.ok(webhookWithSecretResponse, {
    summary: "Rotate a webhook's signing secret",
    description: "A new secret, answered once; notifications from now on are signed with it.",
  }),
  async (c) => c.json(serializeWithSecret(await rotateWebhookSecret(organizerContext(c), pathId(c, "id")))),
);

webhookRoutes.get(
  `${base}/:id/calls`,
  scope,
  doc.list(webhookCallResponse, {
    summary: "List a webhook's calls",
    description: "The notifications to the webhook and what became of each (the delivery log).",
    ordering: WEBHOOK_CALL_ORDERING,
  }),
  queryParams({
    state: q.choice(WEBHOOK_CALL_STATES, "the call's state"),
    code: q.string("the order code"),
    action_type: q.string("the action type"),
  }),
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const page = await listWebhookCalls(
      organizerContext(c),
      pathId(c, "id"),
      { state: f.state, code: f.code, actionType: f.action_type },
      req,
    );
    if (!page) throw notFound();
    return respondPage(c, req, page, serializeWebhookCall);
  },
);

webhookRoutes.get(
  `${base}/:id/calls/:call_id`,
  scope,
  doc.ok(webhookCallResponse, { summary: "A call of a webhook" }),
  async (c) => {
    const call = await findWebhookCall(organizerContext(c), pathId(c, "id"), pathId(c, "call_id"));
    if (!call) throw notFound();
    return c.json(serializeWebhookCall(call));
  },
);
