/**
 * Outgoing mail. `composeMail` builds an outbox row; the caller inserts it together with the
 * change that causes it and then calls `dispatchMail` to hand it to the mail queue. Delivery
 * (jobs/mail.ts) goes through Cloudflare's email sending binding when MAIL_TRANSPORT is
 * "cloudflare"; otherwise ("local", the default) the mail stays readable in the outbox and
 * the log, which is what local development and the tests read.
 */
import type { MailInsert } from "../db/mail";
import type { Env } from "../env";
import { log } from "../lib/log";

export type MailMessage = { kind: "mail"; mailId: number };

export function composeMail(input: {
  kind: string;
  organizerId: number | null;
  eventId?: number | null;
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  fromName?: string | null;
  replyTo?: string | null;
  now: number;
}): MailInsert {
  return {
    kind: input.kind,
    organizerId: input.organizerId,
    eventId: input.eventId ?? null,
    toAddress: input.to,
    subject: input.subject,
    textBody: input.text,
    htmlBody: input.html ?? null,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    state: "queued",
    attempts: 0,
    createdAt: input.now,
  };
}

/** Hands stored mails to the mail queue. A lost message is retried by the cron sweep. */
export async function dispatchMail(env: Env, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  try {
    await env.MAIL_QUEUE.sendBatch(ids.map((mailId) => ({ body: { kind: "mail", mailId } satisfies MailMessage })));
  } catch (e) {
    log.error("mail queue send failed; the cron sweep will retry", { mail_ids: ids, error: e });
  }
}
