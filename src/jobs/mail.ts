/** Delivery of outbox mails (mail queue consumer and cron sweep), with their attachments. Idempotent per mail. */
import type { DB } from "../db/client";
import { readConfig, type Env } from "../lib/env";
import { log } from "../lib/log";
import { findMail, markMailAttemptFailed, markMailSent } from "../services/sweeps";
import { mailFileBytes, mailFiles } from "../services/mail/mail-attachments";

const MAX_ATTEMPTS = 5;

export async function deliverMail(env: Env, db: DB, mailId: number, now = Date.now()): Promise<void> {
  const mail = await findMail({ db }, mailId);
  if (mail?.state !== "queued") return;
  const { transport, from } = readConfig(env).mail;
  try {
    let messageId: string | null = null;
    const files = await mailFiles(env, db, mail, now);
    if (transport === "cloudflare") {
      if (!env.EMAIL) throw new Error('MAIL_TRANSPORT is "cloudflare" but no EMAIL send_email binding is configured');
      const result = await env.EMAIL.send({
        from: mail.fromName ? { name: mail.fromName, email: from } : from,
        to: mail.toAddress,
        subject: mail.subject,
        text: mail.textBody,
        ...(mail.htmlBody ? { html: mail.htmlBody } : {}),
        ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
        ...(files.length
          ? {
              attachments: await Promise.all(
                files.map(async (f) => ({
                  disposition: "attachment" as const,
                  filename: f.filename,
                  type: f.contentType,
                  content: await mailFileBytes(env, f),
                })),
              ),
            }
          : {}),
      });
      messageId = result.messageId;
    } else {
      // the attachments are checked to exist, as the real transport would read them
      for (const f of files) await mailFileBytes(env, f);
      log.info("mail kept in the outbox (local transport)", {
        mail_id: mail.id,
        mail_kind: mail.kind,
        to: mail.toAddress,
        subject: mail.subject,
        ...(files.length ? { attachments: files.map((f) => f.filename) } : {}),
      });
    }
    await markMailSent({ db }, mail.id, messageId, now);
  } catch (e) {
    const attempts = mail.attempts + 1;
    await markMailAttemptFailed(
      { db },
      mail.id,
      e instanceof Error ? e.message : String(e),
      attempts,
      attempts >= MAX_ATTEMPTS,
    );
    if (attempts < MAX_ATTEMPTS) throw e;
  }
}
