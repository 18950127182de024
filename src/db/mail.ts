import { and, eq, lt } from "drizzle-orm";
import type { DB } from "./client";
import { type MailAttachment, mailOutbox } from "./schema";

export type MailInsert = typeof mailOutbox.$inferInsert;

/** The insert of one outbox row (to be batched with the change that causes the mail). */
export function mailInsertStatement(db: DB, row: MailInsert) {
  return db.insert(mailOutbox).values(row).returning({ id: mailOutbox.id });
}

export async function findMail(db: DB, id: number) {
  return db.select().from(mailOutbox).where(eq(mailOutbox.id, id)).get();
}

/** Replaces a queued mail's attachment references (by the files they were resolved to). */
export async function setMailAttachments(db: DB, id: number, attachments: MailAttachment[]) {
  await db
    .update(mailOutbox)
    .set({ attachments })
    .where(and(eq(mailOutbox.id, id), eq(mailOutbox.state, "queued")));
}

export async function markMailSent(db: DB, id: number, messageId: string | null, now: number) {
  await db
    .update(mailOutbox)
    .set({ state: "sent", sentAt: now, messageId })
    .where(and(eq(mailOutbox.id, id), eq(mailOutbox.state, "queued")));
}

export async function markMailAttemptFailed(db: DB, id: number, error: string, attempts: number, final: boolean) {
  await db
    .update(mailOutbox)
    .set({ attempts, lastError: error.slice(0, 1000), state: final ? "failed" : "queued" })
    .where(eq(mailOutbox.id, id));
}

/** Queued mails older than `olderThan` (their queue message may have been lost). */
export async function staleQueuedMails(db: DB, olderThan: number, limit = 50) {
  return db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(and(eq(mailOutbox.state, "queued"), lt(mailOutbox.createdAt, olderThan)))
    .limit(limit);
}
