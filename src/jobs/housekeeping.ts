/**
 * Cron: expired idempotency keys, uploads and carts; overdue orders; waiting lists; mails whose queue message
 * was lost; the mails of email rules that are due; expired exports and exports whose queue
 * message was lost; invoices a failed hook missed and invoice PDFs whose queue message was lost;
 * webhook calls whose queue message was lost, and old ones.
 */
import { dispatchMail } from "../lib/queues";
import { log } from "../lib/log";
import {
  deleteExpiredCarts,
  deleteUploads,
  expiredUploads,
  purgeIdempotencyKeys,
  staleQueuedMails,
} from "../services/sweeps";
import { createDb } from "../db/client";
import { dataGroups, groupEnv } from "../lib/data-groups";
import { readConfig, type Env } from "../lib/env";
import { sweepExports } from "../services/exports/jobs";
import { sweepInvoices } from "../services/invoices/invoices";
import { sendDueRuleMails } from "../services/mail/sendmail-sending";
import { expireOverdueOrders } from "../services/orders/order-status";
import { offerToWaitingLists } from "../services/waitinglist/waitinglist-assign";
import { sweepWebhooks } from "./webhooks";

/** One run: each organizer group in turn, each on its own database (a failed group does not stop the others). */
export async function runHousekeeping(env: Env, now: number): Promise<void> {
  const failed: unknown[] = [];
  for (const group of dataGroups(env)) {
    await housekeepGroup(groupEnv(env, group), now).catch((e: unknown) => {
      log.error("housekeeping: a group's run failed; the next run retries", { group, error: e });
      failed.push(e);
    });
  }
  if (failed.length) throw failed[0];
}

async function housekeepGroup(env: Env, now: number): Promise<void> {
  const db = createDb(env.DB);
  await purgeIdempotencyKeys({ db }, now);
  for (;;) {
    const batch = await expiredUploads({ db }, now);
    if (batch.length === 0) break;
    const ids = batch.map((u) => u.id);
    await env.FILES.delete(ids.map((id) => `uploads/${id}`));
    await deleteUploads({ db }, ids);
    if (batch.length < 100) break;
  }
  const stale = await staleQueuedMails({ db }, now - 5 * 60 * 1000);
  await dispatchMail(
    env,
    stale.map((m) => m.id),
  );
  // Expired carts stopped counting already; their rows only take space.
  await deleteExpiredCarts({ db }, now);
  await expireOverdueOrders(env, db, now);
  // waiting-list vouchers that expired unused pass their unit on (pretix's periodic assignment)
  await offerToWaitingLists(env, db).catch((e) =>
    log.error("waiting lists: run failed; the next run retries", { error: e }),
  );
  // Email rules need absolute links: PUBLIC_BASE_URL (there is no request to take an origin from).
  await sendDueRuleMails(env, db, now, readConfig(env).publicBaseUrl ?? "").catch((e) =>
    log.error("email rules: run failed; the next run continues", { error: e }),
  );
  await sweepExports(env, db, now).catch((e) => log.error("exports: sweep failed; the next run retries", { error: e }));
  // invoices a failed hook missed, PDFs whose queue message was lost
  await sweepInvoices(env, db, now).catch((e) =>
    log.error("invoices: sweep failed; the next run retries", { error: e }),
  );
  await sweepWebhooks(env, db, now).catch((e) =>
    log.error("webhooks: sweep failed; the next run retries", { error: e }),
  );
}
