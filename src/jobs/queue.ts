/** Queue consumer: outgoing mail, webhooks and exports. Messages are delivered at least once. */
import { createDb } from "../db/client";
import type { MailMessage } from "../domain/mail";
import type { WebhookMessage } from "../domain/webhooks";
import type { Env, ExportMessage } from "../env";
import { handleExportMessage } from "./exports";
import { deliverMail } from "./mail";
import { deliverWebhooks } from "./webhooks";

export type QueueMessage = MailMessage | ExportMessage | WebhookMessage;

export async function handleQueueBatch(batch: MessageBatch<QueueMessage>, env: Env): Promise<void> {
  const db = createDb(env.DB);
  for (const message of batch.messages) {
    const body = message.body;
    try {
      switch (body.kind) {
        case "mail":
          await deliverMail(env, db, body.mailId);
          break;
        case "webhook":
          await deliverWebhooks(env, db, body);
          break;
        case "export":
          await handleExportMessage(env, db, message as Message<ExportMessage>);
          continue;
        default:
          console.error(`queue ${batch.queue}: message of unknown kind dropped`, JSON.stringify(body));
      }
      message.ack();
    } catch (e) {
      console.error(`queue ${batch.queue}: message ${message.id} failed, retrying`, e);
      message.retry({ delaySeconds: Math.min(300, 10 * 2 ** message.attempts) });
    }
  }
}
