/**
 * What the cron and the queue consumers (src/jobs/) read and remove themselves: expired
 * idempotency keys, uploads and carts; queued mails whose message was lost, one mail of the
 * outbox and what its delivery did; webhook sequences that are due, and old webhook calls.
 * Each takes the group's database (`{ db }`).
 */
import * as carts from "../db/carts";
import * as files from "../db/files";
import * as idempotency from "../db/idempotency";
import * as mail from "../db/mail";
import * as webhooks from "../db/webhooks";
import { withDb } from "./scoped-reads";

export const purgeIdempotencyKeys = withDb(idempotency.purgeIdempotencyKeys);
export const expiredUploads = withDb(files.expiredUploads);
export const deleteUploads = withDb(files.deleteUploads);
export const deleteExpiredCarts = withDb(carts.deleteExpiredCarts);
export const staleQueuedMails = withDb(mail.staleQueuedMails);
export const findMail = withDb(mail.findMail);
export const markMailSent = withDb(mail.markMailSent);
export const markMailAttemptFailed = withDb(mail.markMailAttemptFailed);
export const dueSequences = withDb(webhooks.dueSequences);
export const purgeWebhookCalls = withDb(webhooks.purgeWebhookCalls);
