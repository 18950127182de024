import { and, eq, lt, or } from "drizzle-orm";
import type { DB } from "./client";
import { idempotencyKeys } from "./schema";

export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;
/** A `running` record older than this belongs to a request that died; it may be taken over. */
export const IDEMPOTENCY_STALE_MS = 10 * 60 * 1000;

/**
 * Claims a key atomically: inserts a `running` record, or takes over an expired or stale one.
 * Returns true when this request owns the key and must act.
 */
export async function claimIdempotencyKey(db: DB, keyHash: string, now: number): Promise<boolean> {
  const rows = await db
    .insert(idempotencyKeys)
    .values({ keyHash, state: "running", createdAt: now })
    .onConflictDoUpdate({
      target: idempotencyKeys.keyHash,
      set: { state: "running", responseStatus: null, responseHeaders: null, responseBody: null, createdAt: now },
      setWhere: or(
        lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_RETENTION_MS),
        and(eq(idempotencyKeys.state, "running"), lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_STALE_MS)),
      ),
    })
    .returning({ keyHash: idempotencyKeys.keyHash });
  return rows.length > 0;
}

export async function findIdempotencyRecord(db: DB, keyHash: string) {
  return db.select().from(idempotencyKeys).where(eq(idempotencyKeys.keyHash, keyHash)).get();
}

export async function storeIdempotentResponse(
  db: DB,
  keyHash: string,
  response: { status: number; headers: [string, string][]; body: string },
) {
  await db
    .update(idempotencyKeys)
    .set({
      state: "done",
      responseStatus: response.status,
      responseHeaders: response.headers,
      responseBody: response.body,
    })
    .where(eq(idempotencyKeys.keyHash, keyHash));
}

export async function releaseIdempotencyKey(db: DB, keyHash: string) {
  await db.delete(idempotencyKeys).where(eq(idempotencyKeys.keyHash, keyHash));
}

export async function purgeIdempotencyKeys(db: DB, now: number) {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, now - IDEMPOTENCY_RETENTION_MS));
}
