/** The exports queue's messages: one step of an export each (services/exports/jobs.ts). Delivered at least once. */
import type { ExportMessage } from "../lib/queues";
import type { DB } from "../db/client";
import { runExportStep } from "../services/exports/jobs";
import type { Env } from "../lib/env";

/** Acts on the message; a step that another delivery is running comes back later. Throws to retry. */
export async function handleExportMessage(env: Env, db: DB, message: Message<ExportMessage>): Promise<void> {
  const later = await runExportStep(env, db, message.body);
  if (later === null) message.ack();
  else message.retry({ delaySeconds: later });
}
