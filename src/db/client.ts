import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

/** A drizzle database on a D1 binding, or on one of its sessions (db/sessions.ts): drizzle only prepares statements and runs batches, which a session does too. */
export function createDb(d1: D1Database | D1DatabaseSession) {
  return drizzle(d1 as D1Database, { schema });
}

export type DB = ReturnType<typeof createDb>;
export { schema };
