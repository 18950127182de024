/**
 * Attachments of outbox mails. A row holds references only (`MailAttachment`, the files live in
 * R2): when the mail is delivered, an `order_invoice` reference is resolved to the invoice's PDF
 * (see `invoiceForMail`) and the row keeps the files it was resolved to, so a retried delivery
 * sends the same files. The transport then reads the files' bytes.
 */
import type { DB } from "../../db/client";
import { setMailAttachments } from "../../db/mail";
import type { MailAttachment } from "../../db/schema/index";
import type { Env } from "../../lib/env";
import { invoiceForMail } from "../invoices/invoice-files";

export type MailFile = Extract<MailAttachment, { kind: "file" }>;

/** The files of a mail's attachments, references resolved (and recorded on the row when any was). */
export async function mailFiles(
  env: Env,
  db: DB,
  mail: { id: number; eventId: number | null; attachments: MailAttachment[] | null },
  now: number,
): Promise<MailFile[]> {
  const refs = mail.attachments ?? [];
  if (refs.every((a) => a.kind === "file")) return refs as MailFile[];
  const files: MailFile[] = [];
  for (const a of refs) {
    if (a.kind === "file") {
      files.push(a);
    } else if (mail.eventId !== null) {
      const invoice = await invoiceForMail(env, db, mail.eventId, a.order, now);
      if (invoice)
        files.push({ kind: "file", key: invoice.key, filename: invoice.filename, contentType: "application/pdf" });
    }
  }
  await setMailAttachments(db, mail.id, files);
  return files;
}

/** A file's bytes for the transport; throws when it is gone (the mail is retried, then fails). */
export async function mailFileBytes(env: Env, file: MailFile): Promise<ArrayBuffer> {
  const object = await env.FILES.get(file.key);
  if (!object) throw new Error(`attachment ${file.filename} is missing from the file storage`);
  return object.arrayBuffer();
}
