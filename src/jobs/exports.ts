/** The exports queue's messages: one step of an export each (domain/exporters.ts). Delivered at least once. */
import type { DB } from "../db/client";
import { runExportStep } from "../domain/exporters";
import type { Env, ExportMessage } from "../env";

/** Acts on the message; a step that another delivery is running comes back later. Throws to retry. */
export async function handleExportMessage(env: Env, db: DB, message: Message<ExportMessage>): Promise<void> {
  const later = await runExportStep(env, db, message.body);
  if (later === null) message.ack();
  else message.retry({ delaySeconds: later });
}
