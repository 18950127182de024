/** D1 batches: a statement as a batch takes it, and the runner that sends statements as one transaction. */
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";

export type Statement = BatchItem<"sqlite">;

/** Runs statements as one transaction (D1 batch); no-op for an empty list. */
export async function runBatch(db: DB, statements: Statement[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  return db.batch(statements as [Statement, ...Statement[]]);
}
