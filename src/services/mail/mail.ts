/**
 * Outgoing mail. `composeMail` builds an outbox row; the caller inserts it together with the
 * change that causes it and then calls `dispatchMail` to hand it to the mail queue. Delivery
 * (jobs/mail.ts) goes through Cloudflare's email sending binding when MAIL_TRANSPORT is
 * "cloudflare"; otherwise ("local", the default) the mail stays readable in the outbox and
 * the log, which is what local development and the tests read.
 */
import type { MailInsert } from "../../db/mail";
import type { MailAttachment } from "../../db/schema/index";

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
  attachments?: MailAttachment[] | null;
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
    attachments: input.attachments?.length ? input.attachments : null,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    state: "queued",
    attempts: 0,
    createdAt: input.now,
  };
}
