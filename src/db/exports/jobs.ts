/**
 * Export jobs (the `export_jobs` table): starting one under the caller's limit, taking and
 * committing its steps under a lease, failing it, and the cron's stale and expired jobs. The
 * reads of the exporters themselves are in the sibling files, one per exporter.
 */
import { and, eq, inArray, lt, or, sql } from "drizzle-orm";
import type { DB } from "../client";
import { type ExportState, exportJobs } from "../schema";

export type ExportJobRow = typeof exportJobs.$inferSelect;
export type ExportJobInsert = typeof exportJobs.$inferInsert;

const ACTIVE: ExportState[] = ["waiting", "running"];

/**
 * Inserts the job unless its owner has `limit` unfinished, unexpired jobs already. One
 * statement, so simultaneous requests cannot both pass the check. False when refused.
 */
export async function insertExportJobUnderLimit(
  db: DB,
  job: ExportJobInsert & { params: Record<string, unknown> },
  limit: number,
): Promise<boolean> {
  const rows = await db.all<{ id: string }>(sql`
    INSERT INTO export_jobs (id, organizer_id, event_id, owner, identifier, params, state, step, attempts, created_at, updated_at, expires_at)
    SELECT ${job.id}, ${job.organizerId}, ${job.eventId ?? null}, ${job.owner}, ${job.identifier}, ${JSON.stringify(job.params)}, 'waiting', 0, 0,
           ${job.createdAt}, ${job.updatedAt}, ${job.expiresAt}
    WHERE (SELECT count(*) FROM export_jobs WHERE owner = ${job.owner} AND state IN ('waiting', 'running') AND expires_at > ${job.createdAt}) < ${limit}
    RETURNING id`);
  return rows.length === 1;
}

/** A job of the organizer (and event: null for organizer-level jobs) by id. */
export async function findExportJob(
  db: DB,
  organizerId: number,
  eventId: number | null,
  id: string,
): Promise<ExportJobRow | undefined> {
  return db
    .select()
    .from(exportJobs)
    .where(
      and(
        eq(exportJobs.id, id),
        eq(exportJobs.organizerId, organizerId),
        eventId === null ? sql`${exportJobs.eventId} IS NULL` : eq(exportJobs.eventId, eventId),
      ),
    )
    .get();
}

export async function findExportJobById(db: DB, id: string): Promise<ExportJobRow | undefined> {
  return db.select().from(exportJobs).where(eq(exportJobs.id, id)).get();
}

/**
 * Takes step `step` of a job for `leaseMs`: only while the job is at that step, unfinished,
 * and not held by another delivery. Undefined when it cannot be taken.
 */
export async function claimExportStep(
  db: DB,
  id: string,
  step: number,
  now: number,
  leaseMs: number,
): Promise<ExportJobRow | undefined> {
  const rows = await db
    .update(exportJobs)
    .set({
      leaseUntil: now + leaseMs,
      state: "running",
      percentage: sql`coalesce(${exportJobs.percentage}, 0)`,
      updatedAt: now,
    })
    .where(
      and(
        eq(exportJobs.id, id),
        eq(exportJobs.step, step),
        inArray(exportJobs.state, ACTIVE),
        or(sql`${exportJobs.leaseUntil} IS NULL`, lt(exportJobs.leaseUntil, now)),
      ),
    )
    .returning();
  return rows[0];
}

/** Records a finished step (only the holder of step `step` can): the next step's cursor and progress. */
export async function commitExportStep(
  db: DB,
  id: string,
  step: number,
  values: {
    cursor: Record<string, unknown> | null;
    percentage: number;
    now: number;
    done?: { filename: string; contentType: string; storageKey: string; size: number };
  },
): Promise<boolean> {
  const rows = await db
    .update(exportJobs)
    .set({
      step: step + 1,
      cursor: values.cursor,
      percentage: values.done ? 100 : values.percentage,
      leaseUntil: null,
      attempts: 0,
      updatedAt: values.now,
      ...(values.done ? { state: "done" as const, ...values.done } : {}),
    })
    .where(and(eq(exportJobs.id, id), eq(exportJobs.step, step), inArray(exportJobs.state, ACTIVE)))
    .returning({ id: exportJobs.id });
  return rows.length === 1;
}

/** A failed attempt of step `step`: counted, the lease released; `fail` ends the job with `message`. */
export async function recordExportAttemptFailed(
  db: DB,
  id: string,
  step: number,
  now: number,
  fail: string | null,
): Promise<number | undefined> {
  const rows = await db
    .update(exportJobs)
    .set({
      attempts: sql`${exportJobs.attempts} + 1`,
      leaseUntil: null,
      updatedAt: now,
      ...(fail !== null ? { state: "failed" as const, message: fail, percentage: null } : {}),
    })
    .where(and(eq(exportJobs.id, id), eq(exportJobs.step, step), inArray(exportJobs.state, ACTIVE)))
    .returning({ attempts: exportJobs.attempts });
  return rows[0]?.attempts;
}

/** Ends a job as failed whatever step it is at. */
export async function failExportJob(db: DB, id: string, message: string, now: number): Promise<void> {
  await db
    .update(exportJobs)
    .set({ state: "failed", message, percentage: null, leaseUntil: null, updatedAt: now })
    .where(and(eq(exportJobs.id, id), inArray(exportJobs.state, ACTIVE)));
}

/** Unfinished jobs that have not moved since `before` (their queue message may have been lost). */
export async function staleExportJobs(db: DB, before: number, now: number, limit = 50) {
  return db
    .select({ id: exportJobs.id, step: exportJobs.step })
    .from(exportJobs)
    .where(
      and(inArray(exportJobs.state, ACTIVE), lt(exportJobs.updatedAt, before), sql`${exportJobs.expiresAt} > ${now}`),
    )
    .limit(limit);
}

export async function expiredExportJobs(db: DB, now: number, limit = 50) {
  return db
    .select({ id: exportJobs.id, storageKey: exportJobs.storageKey, cursor: exportJobs.cursor })
    .from(exportJobs)
    .where(lt(exportJobs.expiresAt, now))
    .limit(limit);
}

export async function deleteExportJobs(db: DB, ids: string[]): Promise<void> {
  if (ids.length) await db.delete(exportJobs).where(inArray(exportJobs.id, ids));
}
