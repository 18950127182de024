/**
 * The service's queues: the message each carries, and the hand-over of messages to them. A
 * message only says "look now": what it points at is stored first (the outbox mail, the
 * webhook call, the invoice, the export job), so a lost send is made up by the cron sweep or the
 * next request. Consumers: src/jobs/queue.ts.
 */
import { waitUntil } from "cloudflare:workers";
import { chunks } from "./chunks";
import { log } from "./log";

/** Every message says its organizer group (lib/data-groups.ts `groupEnv` adds it; absent: group 1). */
type Grouped = { group?: number };

/** Deliver the outbox mail `mailId` (jobs/mail.ts). */
export type MailMessage = Grouped & { kind: "mail"; mailId: number };

/** Deliver what is due of an order's webhook calls (of one webhook, or all; jobs/webhooks.ts). */
export type WebhookMessage = Grouped & { kind: "webhook"; eventId: number; code: string; webhookId?: number };

/** Render an invoice's or a ticket's PDF into R2 (jobs/documents.ts). */
export type DocumentMessage = Grouped &
  (
    | { kind: "invoice-pdf"; invoiceId: number; version: number }
    | { kind: "ticket-pdf"; eventId: number; code: string; positionId: number | null }
  );

/** Do step `step` of an export job (each step one message; jobs/exports.ts). */
export type ExportMessage = Grouped & { kind: "export"; exportId: string; step: number };

export type QueueMessage = MailMessage | ExportMessage | DocumentMessage | WebhookMessage;

/** A queue batch holds at most 100 messages. */
const BATCH_MESSAGES = 100;

/** Hands stored mails to the mail queue. A lost message is retried by the cron sweep. */
export async function dispatchMail(env: { MAIL_QUEUE: Queue<MailMessage> }, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  try {
    for (const part of chunks(ids, BATCH_MESSAGES)) {
      await env.MAIL_QUEUE.sendBatch(part.map((mailId) => ({ body: { kind: "mail", mailId } })));
    }
  } catch (e) {
    log.error("mail queue send failed; the cron sweep will retry", { mail_ids: ids, error: e });
  }
}

/**
 * Tells the webhook queue that orders have new notifications (after their change committed).
 * The send runs after the response (it adds nothing to the request's time); a send that fails
 * or never happens is made up by the cron sweep (jobs/webhooks.ts), since the calls are stored.
 */
export function dispatchWebhooks(
  env: { WEBHOOK_QUEUE: Queue<WebhookMessage> },
  orders: { eventId: number; code: string }[],
): void {
  if (orders.length === 0) return;
  const sends = chunks(orders, BATCH_MESSAGES).map((part) =>
    env.WEBHOOK_QUEUE.sendBatch(part.map((o) => ({ body: { kind: "webhook", eventId: o.eventId, code: o.code } }))),
  );
  const send = Promise.all(sends).catch((e: unknown) => {
    log.error("webhook queue send failed; the cron sweep will deliver", { error: e });
  });
  try {
    waitUntil(send);
  } catch {
    // outside a request, queue batch or cron run: the send simply runs on
  }
}

/** Hands render jobs to the documents queue; a lost message is retried by the next download or the cron sweep. */
export async function dispatchDocuments(
  env: { DOCUMENTS_QUEUE: Queue<DocumentMessage> },
  messages: DocumentMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  try {
    for (const part of chunks(messages, BATCH_MESSAGES))
      await env.DOCUMENTS_QUEUE.sendBatch(part.map((body) => ({ body })));
  } catch (e) {
    log.error("documents queue send failed; a later download or the cron sweep retries", { error: e });
  }
}
