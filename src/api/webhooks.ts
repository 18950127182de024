/**
 * Webhooks (pretix docs api/resources/webhooks.rst): list, detail, create, PUT, PATCH, DELETE
 * (which disables, as pretix does), all with can_change_organizer_settings as in pretix. Beyond
 * pretix: the signing secret, shown on creation and by `rotate_secret/`, and the delivery log
 * `calls/` (pretix shows its log only in its web interface). The routes parse, scope, call the
 * services (domain/webhooks.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { WEBHOOK_CALL_STATES, type WebhookCallState } from "../db/schema";
import { findWebhook, findWebhookCall, listWebhookCalls, listWebhooks, type WebhookCallRow, type WebhookRecord } from "../db/webhooks";
import { fieldError, notFound } from "../domain/failure";
import { changeWebhook, createWebhook, disableWebhook, rotateWebhookSecret, webhookInput, webhookPatch, type WebhookWithSecret } from "../domain/webhooks";
import { callBody } from "../domain/webhooks-delivery";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, id, object, url } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId, queryString } from "../http/validation";
import { toIso } from "../lib/datetime";

/** A webhook (pretix docs webhooks.rst "Resource description"). */
export const webhookResponse = z.object({
  id: id(),
  enabled: z.boolean(),
  target_url: url(),
  all_events: z.boolean(),
  limit_events: z.array(z.string()),
  action_types: z.array(z.string()),
  comment: z.string().nullable(),
});
export type WebhookResponse = z.infer<typeof webhookResponse>;

/** A webhook with its signing secret: the answer of creation and of `rotate_secret/`, the only times the secret is shown. */
export const webhookWithSecretResponse = webhookResponse.extend({ secret: z.string() });
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
export const webhookCallResponse = z.object({
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
});
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

webhookRoutes.get(base, scope, async (c) => {
  const req = listRequest(c);
  return respondPage(c, req, await listWebhooks(c.var.db, c.var.organizer.id, req), serializeWebhook);
});

webhookRoutes.post(base, scope, jsonBody(webhookInput), async (c) =>
  c.json(serializeWithSecret(await createWebhook(organizerContext(c), c.req.valid("json"))), 201),
);

webhookRoutes.get(`${base}/:id`, scope, async (c) => {
  const r = await findWebhook(c.var.db, c.var.organizer.id, pathId(c, "id"));
  if (!r) throw notFound();
  return c.json(serializeWebhook(r));
});

webhookRoutes.put(`${base}/:id`, scope, jsonBody(webhookInput), async (c) =>
  c.json(serializeWebhook(await changeWebhook(organizerContext(c), pathId(c, "id"), c.req.valid("json"), { full: true }))),
);

webhookRoutes.patch(`${base}/:id`, scope, jsonBody(webhookPatch), async (c) =>
  c.json(serializeWebhook(await changeWebhook(organizerContext(c), pathId(c, "id"), c.req.valid("json"), { full: false }))),
);

webhookRoutes.delete(`${base}/:id`, scope, async (c) => {
  await disableWebhook(organizerContext(c), pathId(c, "id"));
  return c.body(null, 204);
});

webhookRoutes.post(`${base}/:id/rotate_secret`, scope, async (c) =>
  c.json(serializeWithSecret(await rotateWebhookSecret(organizerContext(c), pathId(c, "id")))),
);

webhookRoutes.get(`${base}/:id/calls`, scope, async (c) => {
  const req = listRequest(c);
  const state = queryString(c, "state");
  if (state !== undefined && !(WEBHOOK_CALL_STATES as readonly string[]).includes(state)) {
    throw fieldError("state", `Select a valid choice. ${state} is not one of the available choices.`);
  }
  const filters = { state: state as WebhookCallState | undefined, code: queryString(c, "code"), actionType: queryString(c, "action_type") };
  const page = await listWebhookCalls(c.var.db, c.var.organizer.id, pathId(c, "id"), filters, req);
  if (!page) throw notFound();
  return respondPage(c, req, page, serializeWebhookCall);
});

webhookRoutes.get(`${base}/:id/calls/:call_id`, scope, async (c) => {
  const call = await findWebhookCall(c.var.db, c.var.organizer.id, pathId(c, "id"), pathId(c, "call_id"));
  if (!call) throw notFound();
  return c.json(serializeWebhookCall(call));
});
