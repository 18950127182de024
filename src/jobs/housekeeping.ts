/** Cron: expired idempotency keys, uploads and carts; overdue orders; mails and webhook calls whose queue message was lost. */
import { deleteExpiredCarts } from "../db/carts";
import { createDb } from "../db/client";
import { deleteUploads, expiredUploads } from "../db/files";
import { purgeIdempotencyKeys } from "../db/idempotency";
import { staleQueuedMails } from "../db/mail";
import { dispatchMail } from "../domain/mail";
import type { Env } from "../env";
import { expireOverdueOrders } from "../domain/order-status";
import { sweepWebhooks } from "./webhooks";

export async function runHousekeeping(env: Env, now: number): Promise<void> {
  const db = createDb(env.DB);
  await purgeIdempotencyKeys(db, now);
  for (;;) {
    const batch = await expiredUploads(db, now);
    if (batch.length === 0) break;
    const ids = batch.map((u) => u.id);
    await env.FILES.delete(ids.map((id) => `uploads/${id}`));
    await deleteUploads(db, ids);
    if (batch.length < 100) break;
  }
  const stale = await staleQueuedMails(db, now - 5 * 60 * 1000);
  await dispatchMail(env, stale.map((m) => m.id));
  // Expired carts stopped counting already; their rows only take space.
  await deleteExpiredCarts(db, now);
  await expireOverdueOrders(env, db, now);
  await sweepWebhooks(env, db, now);
}
