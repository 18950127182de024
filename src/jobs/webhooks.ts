/**
 * Webhook delivery jobs: the webhook queue's messages (services/organizers/webhooks-delivery.ts delivers)
 * and the cron sweep, which hands on what a lost message left behind and what waits longer
 * than a queue message can (the last retry interval is a day), and trims the call log.
 */
import type { WebhookMessage } from "../lib/queues";
import { log } from "../lib/log";
import { dueSequences, purgeWebhookCalls } from "../services/sweeps";
import type { DB } from "../db/client";
import { deliverWebhookMessage } from "../services/organizers/webhooks-delivery";
import type { Env } from "../lib/env";

/** Calls are kept this long after they were written (pretix shows its log for 30 days). */
export const CALL_LOG_DAYS = 30;
/** A due call this much overdue has no message on its way (a message is sent when it becomes due). */
const SWEEP_GRACE_MS = 60_000;
const SWEEP_LIMIT = 500;

export async function deliverWebhooks(env: Env, db: DB, message: WebhookMessage): Promise<void> {
  await deliverWebhookMessage(env, db, message);
}

/** Cron: a message for every sequence whose next call is overdue and held by nobody; old calls go. */
export async function sweepWebhooks(env: Env, db: DB, now: number): Promise<void> {
  const due = await dueSequences({ db }, now - SWEEP_GRACE_MS, now, SWEEP_LIMIT);
  for (let i = 0; i < due.length; i += 100) {
    const part = due.slice(i, i + 100);
    try {
      await env.WEBHOOK_QUEUE.sendBatch(
        part.map((k) => ({ body: { kind: "webhook", ...k } satisfies WebhookMessage })),
      );
    } catch (e) {
      log.error("webhook sweep: queue send failed; the next run retries", { error: e });
    }
  }
  await purgeWebhookCalls({ db }, now - CALL_LOG_DAYS * 86_400_000, 1000);
}
