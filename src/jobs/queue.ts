/** Queue consumer: outgoing mail, webhooks, exports, invoice and ticket PDFs. Messages are delivered at least once. */
import type { ExportMessage, QueueMessage } from "../lib/queues";
import { createDb } from "../db/client";
import { groupEnv } from "../lib/data-groups";
import type { Env } from "../lib/env";
import { handleDocumentMessage } from "./documents";
import { handleExportMessage } from "./exports";
import { log } from "../lib/log";
import { deliverMail } from "./mail";
import { deliverWebhooks } from "./webhooks";

export async function handleQueueBatch(batch: MessageBatch<QueueMessage>, given: Env): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    // the message's organizer group: its database, and the queues of its follow-up messages
    const env = groupEnv(given, body.group ?? 1);
    const db = createDb(env.DB);
    try {
      switch (body.kind) {
        case "mail":
          await deliverMail(env, db, body.mailId);
          break;
        case "invoice-pdf":
        case "ticket-pdf":
          await handleDocumentMessage(env, db, body, message.attempts);
          break;
        case "webhook":
          await deliverWebhooks(env, db, body);
          break;
        case "export":
          await handleExportMessage(env, db, message as Message<ExportMessage>);
          continue;
        default:
          log.error("queue message of unknown kind dropped", { message_id: message.id, body });
      }
      message.ack();
    } catch (e) {
      log.error("queue message failed; retrying", { message_id: message.id, attempts: message.attempts, error: e });
      message.retry({ delaySeconds: Math.min(300, 10 * 2 ** message.attempts) });
    }
  }
}
