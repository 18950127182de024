/**
 * Delivery of webhook calls (pretix docs api/webhooks.rst "Responding to a webhook"): a signed POST
 * of the JSON body to the target, retried with pretix's back-off, in order per order and at least once
 * (docs/webhooks.md "Delivery"). Only a sequence's first pending call is
 * attempted, and a claim on it (db/webhooks.ts `claimSequenceHead`) lets one delivery hold it.
 */
import type { WebhookMessage } from "../../lib/queues";
import { log } from "../../lib/log";
import type { DB } from "../../db/client";
import {
  type AttemptOutcome,
  type AttemptRecord,
  cancelCallsOfDisabled,
  claimSequenceHead,
  disableGoneWebhook,
  recordAttempt,
  type SequenceKey,
  sequencePending,
  webhooksPendingFor,
  type WebhookCallRow,
} from "../../db/webhooks";
import { readConfig, type Env } from "../../lib/env";
import { randomString } from "../../lib/crypto";
import { requestTarget, targetUrlProblem } from "../../rules/webhooks-target";

/** pretix's retry intervals in seconds after the 1st, 2nd, ... failed attempt (they add up to about three days). */
export const RETRY_INTERVALS = [5, 30, 60, 300, 1200, 3600, 14400, 21600, 43200, 43200, 86400] as const;
/** No attempt is scheduled later than this after the notification was written (pretix: "up to three days"). */
export const RETRY_WINDOW_MS = 3 * 86_400_000;
/** How long a receiver has to answer (pretix: 30 seconds). */
export const ATTEMPT_TIMEOUT_MS = 30_000;
/** How long a claim holds: longer than an attempt can take. */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 60_000;
/** At most this many calls of one sequence per run; the rest continue in a new message. */
const RUN_LIMIT = 25;
/**
 * No new attempt starts once a run has taken this long (a receiver that answers slowly), so
 * one message takes at most this plus one attempt and a batch of messages stays well inside
 * the consumer's time limit; the rest continue in a new message.
 */
export const RUN_BUDGET_MS = 30_000;
/** How much of an answer's body is kept. */
const RESPONSE_LIMIT = 1000;
/** The longest a queue message can wait (Cloudflare Queues: 12 hours); later retries are found by the cron sweep. */
const MAX_QUEUE_DELAY_S = 43_200;

export const SIGNATURE_HEADER = "X-Webhook-Signature";

/** Options of a delivery run (tests set the clock, the timeout and the HTTP client). */
export type DeliveryOptions = { now?: () => number; timeoutMs?: number; budgetMs?: number; fetch?: typeof fetch };

// ---- the signature ----

function hex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `X-Webhook-Signature: t=<unix seconds>,v1=<hex>`: HMAC-SHA256 with the webhook's secret (its
 * UTF-8 bytes as the key) over `<t>.<body>`, the exact bytes of the body. The timestamp lets a
 * receiver refuse old (replayed) requests; every attempt is signed anew.
 */
export async function signatureHeader(secret: string, body: string, unixSeconds: number): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = await crypto.subtle.sign("HMAC", key, enc.encode(`${unixSeconds}.${body}`));
  return `t=${unixSeconds},v1=${hex(mac)}`;
}

/** The exact body of a call: pretix's payload, `notification_id` first. */
export function callBody(call: Pick<WebhookCallRow, "id" | "payload">): string {
  return JSON.stringify({ notification_id: call.id, ...(JSON.parse(call.payload) as Record<string, unknown>) });
}

// ---- one attempt ----

async function readStart(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_LIMIT * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return new TextDecoder().decode(all).slice(0, RESPONSE_LIMIT);
}

/** POSTs a call to the webhook's target: what came back, or why nothing did. */
async function attempt(
  env: Env,
  target: string,
  secret: string,
  body: string,
  opts: Required<DeliveryOptions>,
): Promise<AttemptRecord> {
  const refused = targetUrlProblem(target, readConfig(env).webhooks);
  if (refused)
    return { targetUrl: target, statusCode: null, response: null, error: `Not sent: ${refused}`, durationMs: 0 };
  const { url, authorization } = requestTarget(target);
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "User-Agent": "edge-ticketing-webhooks/1",
    [SIGNATURE_HEADER]: await signatureHeader(secret, body, Math.floor(opts.now() / 1000)),
  };
  if (authorization) headers.Authorization = authorization;
  const started = Date.now();
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let res: Response;
  try {
    res = await opts.fetch(url, { method: "POST", headers, body, redirect: "manual", signal });
  } catch (e) {
    const timedOut = signal.aborted;
    return {
      targetUrl: target,
      statusCode: null,
      response: null,
      error: timedOut
        ? `No answer within ${opts.timeoutMs / 1000} seconds.`
        : `Connection failed: ${e instanceof Error ? e.message : String(e)}`.slice(0, RESPONSE_LIMIT),
      durationMs: Date.now() - started,
    };
  }
  let response: string | null = null;
  let error: string | null = null;
  try {
    response = await readStart(res);
  } catch (e) {
    error = signal.aborted
      ? `The answer's body did not arrive within ${opts.timeoutMs / 1000} seconds.`
      : `The answer's body could not be read: ${e instanceof Error ? e.message : String(e)}`;
  }
  return { targetUrl: target, statusCode: res.status, response, error, durationMs: Date.now() - started };
}

/** What the rules make of an attempt: delivered (2xx), given up, or retried later. */
export function outcomeOf(
  call: Pick<WebhookCallRow, "attempts" | "createdAt">,
  statusCode: number | null,
  now: number,
): AttemptOutcome {
  if (statusCode !== null && statusCode >= 200 && statusCode <= 299) return { state: "delivered" };
  if (statusCode === 410) return { state: "failed" };
  const interval = RETRY_INTERVALS[call.attempts - 1];
  if (interval === undefined) return { state: "failed" };
  const next = now + interval * 1000;
  if (next > call.createdAt + RETRY_WINDOW_MS) return { state: "failed" };
  return { state: "pending", nextAttemptAt: next };
}

// ---- a sequence, and an order's sequences ----

function options(opts: DeliveryOptions): Required<DeliveryOptions> {
  return {
    now: opts.now ?? (() => Date.now()),
    timeoutMs: opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    budgetMs: opts.budgetMs ?? RUN_BUDGET_MS,
    fetch: opts.fetch ?? ((input, init) => fetch(input, init)),
  };
}

async function send(env: Env, message: WebhookMessage, delaySeconds: number): Promise<void> {
  try {
    await env.WEBHOOK_QUEUE.send(message, delaySeconds > 0 ? { delaySeconds } : undefined);
  } catch (e) {
    log.error("webhook queue send failed; the cron sweep will deliver", { error: e });
  }
}

/** What a run of a sequence did. */
export type SequenceRun = { delivered: number; attempted: number };

/**
 * Delivers the due calls of one sequence, in order, while the receiver accepts them (at most
 * RUN_LIMIT, and none started after RUN_BUDGET_MS; the rest continue in a new message). A
 * failed attempt schedules the next by the rules and stops the run: the later calls wait. Nothing due, or held by another delivery: nothing happens.
 */
export async function deliverSequence(
  env: Env,
  db: DB,
  k: SequenceKey,
  opts: DeliveryOptions = {},
): Promise<SequenceRun> {
  const o = options(opts);
  const run: SequenceRun = { delivered: 0, attempted: 0 };
  const started = Date.now();
  for (let i = 0; i < RUN_LIMIT && Date.now() - started < o.budgetMs; i++) {
    const token = randomString(24);
    const claimed = await claimSequenceHead(db, k, o.now(), token, LEASE_MS);
    if (!claimed) return run;
    const { call, webhook } = claimed;
    if (!webhook.enabled) {
      await cancelCallsOfDisabled(db, webhook.id);
      return run;
    }
    run.attempted++;
    const result = await attempt(env, webhook.targetUrl, webhook.secret, callBody(call), o);
    const now = o.now();
    const outcome = outcomeOf(call, result.statusCode, now);
    await recordAttempt(db, call.id, token, now, result, outcome);
    if (result.statusCode === 410) {
      await disableGoneWebhook(db, webhook.id);
      return run;
    }
    if (outcome.state === "pending") {
      await send(
        env,
        { kind: "webhook", ...k },
        Math.min(MAX_QUEUE_DELAY_S, Math.ceil((outcome.nextAttemptAt - now) / 1000)),
      );
      return run;
    }
    if (outcome.state === "delivered") run.delivered++;
  }
  if (await sequencePending(db, k)) await send(env, { kind: "webhook", ...k }, 0);
  return run;
}

/** A queue message: the order's sequences (one webhook's, or every webhook's with pending calls), side by side. */
export async function deliverWebhookMessage(
  env: Env,
  db: DB,
  m: WebhookMessage,
  opts: DeliveryOptions = {},
): Promise<SequenceRun> {
  const webhookIds = m.webhookId !== undefined ? [m.webhookId] : await webhooksPendingFor(db, m.eventId, m.code);
  const runs = await Promise.all(
    webhookIds.map((webhookId) => deliverSequence(env, db, { webhookId, eventId: m.eventId, code: m.code }, opts)),
  );
  return runs.reduce((a, r) => ({ delivered: a.delivered + r.delivered, attempted: a.attempted + r.attempted }), {
    delivered: 0,
    attempted: 0,
  });
}
