import { eq, lt } from "drizzle-orm";
import type { DB } from "./client";
import { uploadedFiles } from "./schema";

export const UPLOAD_VALIDITY_MS = 24 * 3600 * 1000;

export async function insertUpload(db: DB, row: typeof uploadedFiles.$inferInsert) {
  await db.insert(uploadedFiles).values(row);
}

export async function findUpload(db: DB, id: string) {
  return db.select().from(uploadedFiles).where(eq(uploadedFiles.id, id)).get();
}

/** Uploads past their validity, for housekeeping. */
export async function expiredUploads(db: DB, now: number, limit = 100) {
  return db
    .select({ id: uploadedFiles.id })
    .from(uploadedFiles)
    .where(lt(uploadedFiles.createdAt, now - UPLOAD_VALIDITY_MS))
    .limit(limit);
}

export async function deleteUploads(db: DB, ids: string[]) {
  for (const id of ids) await db.delete(uploadedFiles).where(eq(uploadedFiles.id, id));
}
