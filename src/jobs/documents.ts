/** The documents queue's consumer: renders invoice and ticket PDFs into R2 (idempotent per file). */
import type { DocumentMessage } from "../lib/queues";
import type { DB } from "../db/client";
import { renderInvoiceFile } from "../services/invoices/invoice-files";
import { renderTicketFile } from "../services/tickets/tickets";
import type { Env } from "../lib/env";

/** The last delivery of a message: the first and wrangler.toml's max_retries (5) retries. */
export const DOCUMENT_ATTEMPTS = 6;

export async function handleDocumentMessage(env: Env, db: DB, body: DocumentMessage, attempts: number): Promise<void> {
  const lastAttempt = attempts >= DOCUMENT_ATTEMPTS;
  switch (body.kind) {
    case "invoice-pdf":
      await renderInvoiceFile(env, db, body.invoiceId, body.version, lastAttempt);
      break;
    case "ticket-pdf":
      await renderTicketFile(env, db, body, lastAttempt);
      break;
  }
}
