/**
 * Webhooks of an organizer (pretix docs api/resources/webhooks.rst, api/webhooks.rst): the request
 * bodies, pretix's rules for them, and the services that create, change, disable and re-key them. A
 * notification is written with the change it reports in one D1 transaction (db/webhooks.ts), so none
 * is lost; the queue message (`dispatchWebhooks`) only says "look now" (docs/webhooks.md "Delivery").
 */
import { z } from "zod";
import { eventIdsBySlug } from "../../db/teams";
import {
  CHECKIN_ACTION,
  findWebhook,
  findWebhookBySecret,
  insertWebhook,
  ORDER_ACTIONS,
  REFUND_ACTIONS,
  updateWebhook,
  type WebhookRecord,
  type WebhookValues,
} from "../../db/webhooks";
import { readConfig } from "../../lib/env";
import { randomString } from "../../lib/crypto";
import type { ChangeMode, OrganizerContext } from "../context";
import { confirmedWrite, survivingD1Faults } from "../faults";
import { notFound, Problems } from "../../lib/failure";
import { targetUrlProblem } from "../../rules/webhooks-target";

/**
 * The action types a webhook may listen to: pretix's names of what this service emits.
 * `pretix.event.checkin` is written by the event object with each scanned check-in
 * (objects/event/passages.ts `passageStatements`).
 */
export const WEBHOOK_ACTION_TYPES = [
  ORDER_ACTIONS.placed,
  ORDER_ACTIONS.paymentConfirmed,
  ORDER_ACTIONS.paid,
  ORDER_ACTIONS.canceled,
  ORDER_ACTIONS.expired,
  ORDER_ACTIONS.placedRequireApproval,
  ORDER_ACTIONS.approved,
  ORDER_ACTIONS.denied,
  ORDER_ACTIONS.reactivated,
  ORDER_ACTIONS.expiryChanged,
  ORDER_ACTIONS.modified,
  ORDER_ACTIONS.contactChanged,
  ORDER_ACTIONS.deleted,
  ORDER_ACTIONS.changed,
  REFUND_ACTIONS.created,
  REFUND_ACTIONS.createdExternally,
  REFUND_ACTIONS.done,
  REFUND_ACTIONS.canceled,
  REFUND_ACTIONS.failed,
  CHECKIN_ACTION,
] as const;

const fields = z.object({
  enabled: z.boolean(),
  // Django's URLField: at most 200 characters; the URL itself is checked by targetUrlProblem
  target_url: z.string().min(1).max(200),
  all_events: z.boolean(),
  limit_events: z.array(z.string().max(200)).max(1000),
  action_types: z.array(z.string().max(255)).max(100),
  comment: z.string().max(10000).nullable(),
});

/** POST and PUT: `target_url` and `action_types` required; omitted fields take their defaults. */
export const webhookInput = fields.partial().required({ target_url: true, action_types: true });
/** PATCH: only the sent fields change. */
export const webhookPatch = fields.partial();
export type WebhookInput = z.output<typeof webhookInput>;
export type WebhookPatch = z.output<typeof webhookPatch>;

/** A webhook with its signing secret, answered only when the secret is new (creation, rotation). */
export type WebhookWithSecret = { record: WebhookRecord; secret: string };

/** A new signing secret: 48 random letters and digits (~280 bits). */
function newSecret(): string {
  return randomString(48, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
}

/**
 * Checks the webhook as it will be (the stored one with the input applied) by pretix's rules:
 * a target the deployment accepts, known action types, events of the organizer, not both
 * `all_events` and `limit_events`. Returns the values to store and the event ids.
 */
async function resolve(
  ctx: OrganizerContext,
  next: WebhookValues & { limitEvents: string[] },
  input: WebhookPatch,
): Promise<{ values: WebhookValues; eventIds: number[] | undefined }> {
  const errors = new Problems();
  if (input.target_url !== undefined) {
    const problem = targetUrlProblem(input.target_url, readConfig(ctx.env).webhooks);
    if (problem) errors.add("target_url", problem);
  }
  for (const t of new Set(input.action_types ?? [])) {
    if (!(WEBHOOK_ACTION_TYPES as readonly string[]).includes(t))
      errors.add("action_types", `Invalid action type "${t}".`);
  }
  let eventIds: number[] | undefined;
  if (input.limit_events !== undefined) {
    const slugs = [...new Set(input.limit_events)];
    const ids = await eventIdsBySlug(ctx.db, ctx.organizer.id, slugs);
    const missing = slugs.find((s) => !ids.has(s));
    if (missing !== undefined) errors.add("limit_events", `Object with slug=${missing} does not exist.`);
    eventIds = slugs.map((s) => ids.get(s)!);
  }
  if (!errors.has() && next.allEvents && next.limitEvents.length)
    errors.add("non_field_errors", "You can set either limit_events or all_events.");
  errors.throwIfAny();
  return { values: { ...next, actionTypes: [...new Set(next.actionTypes)].sort() }, eventIds };
}

/** The values of a full input (POST, PUT): omitted fields take their defaults; `all_events` defaults to true unless `limit_events` are given. */
function fullValues(input: WebhookInput): WebhookValues & { limitEvents: string[] } {
  const limitEvents = input.limit_events ?? [];
  return {
    enabled: input.enabled ?? true,
    targetUrl: input.target_url,
    allEvents: input.all_events ?? limitEvents.length === 0,
    actionTypes: input.action_types,
    comment: input.comment ?? null,
    limitEvents,
  };
}

/**
 * Creates a webhook. A D1 fault: if the write is there (found by its new secret, which only
 * this write can have stored), the answer was lost and this is the success; else a 503 (nothing
 * written, retry): a retry never creates a second webhook for one that was made.
 */
export const createWebhook = survivingD1Faults(async function createWebhook(
  ctx: OrganizerContext,
  input: WebhookInput,
): Promise<WebhookWithSecret> {
  const { values, eventIds } = await resolve(ctx, fullValues(input), {
    ...input,
    limit_events: input.limit_events ?? [],
  });
  const secret = newSecret();
  const record = await confirmedWrite(
    () => insertWebhook(ctx.db, ctx.organizer.id, { ...values, secret, createdAt: ctx.now }, eventIds ?? []),
    () => findWebhookBySecret(ctx.db, ctx.organizer.id, secret),
  );
  return { record, secret };
});

async function loadWebhook(ctx: OrganizerContext, id: number): Promise<WebhookRecord> {
  const r = await findWebhook(ctx.db, ctx.organizer.id, id);
  if (!r) throw notFound();
  return r;
}

/**
 * PUT (`put`: omitted fields reset to their defaults) or PATCH (the sent fields change) of a
 * webhook. Disabling it cancels its pending notifications; a new `target_url` applies to them.
 */
export const changeWebhook = survivingD1Faults(async function changeWebhook(
  ctx: OrganizerContext,
  id: number,
  input: WebhookPatch,
  mode: ChangeMode,
): Promise<WebhookRecord> {
  const current = await loadWebhook(ctx, id);
  let next: WebhookValues & { limitEvents: string[] };
  let given: WebhookPatch = input;
  if (mode === "put") {
    const full = input as WebhookInput;
    next = fullValues(full);
    given = { ...full, limit_events: full.limit_events ?? [] };
  } else {
    const w = current.webhook;
    next = {
      enabled: input.enabled ?? w.enabled,
      targetUrl: input.target_url ?? w.targetUrl,
      allEvents: input.all_events ?? w.allEvents,
      actionTypes: input.action_types ?? w.actionTypes,
      comment: input.comment === undefined ? w.comment : input.comment,
      limitEvents: input.limit_events ?? (JSON.parse(current.limitEvents) as string[]),
    };
  }
  const { values, eventIds } = await resolve(ctx, next, given);
  const after = await updateWebhook(ctx.db, ctx.organizer.id, id, values, eventIds);
  if (!after) throw notFound();
  return after;
});

/** DELETE, as pretix does it: the webhook is disabled (not deleted); its pending notifications are canceled. */
export const disableWebhook = survivingD1Faults(async function disableWebhook(
  ctx: OrganizerContext,
  id: number,
): Promise<void> {
  const after = await updateWebhook(ctx.db, ctx.organizer.id, id, { enabled: false }, undefined);
  if (!after) throw notFound();
});

/** A new signing secret; the old one no longer signs anything from now on (pending notifications included). */
export const rotateWebhookSecret = survivingD1Faults(async function rotateWebhookSecret(
  ctx: OrganizerContext,
  id: number,
): Promise<WebhookWithSecret> {
  const secret = newSecret();
  const record = await confirmedWrite(
    () => updateWebhook(ctx.db, ctx.organizer.id, id, { secret }, undefined),
    // after a fault: the webhook signs with the new secret only if this write was applied
    async () => {
      const found = await findWebhookBySecret(ctx.db, ctx.organizer.id, secret);
      return found?.webhook.id === id ? found : null;
    },
  );
  if (!record) throw notFound();
  return { record, secret };
});
