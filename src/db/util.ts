/**
 * D1 and Durable Object SQLite allow at most 100 bound parameters per statement (local
 * SQLite does not enforce it). Split long IN lists and bulk inserts with these helpers.
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

export const MAX_PARAMS = 100;

/** Rows per insert statement so that rows × columns stays within the parameter limit. */
export function rowsPerInsert(columns: number, reserved = 0): number {
  return Math.max(1, Math.floor((MAX_PARAMS - reserved) / columns));
}

/**
 * Integers written into the statement as literals, not bound: an `IN` list of ids (known to
 * the service, or validated whole numbers a client sent) then takes no share of the 100
 * parameters, and a filter of many values stays one statement. Only the statement's length
 * (100,000 bytes on D1) bounds it. Anything but a safe integer is a defect of the caller.
 */
export function integerLiterals(values: readonly number[]): SQL {
  for (const v of values) if (!Number.isSafeInteger(v)) throw new RangeError(`not an integer: ${v}`);
  return sql.raw(values.length ? values.join(", ") : "NULL");
}

/** `column IN (…)` of integer literals (see `integerLiterals`); false for an empty list. */
export function inIntegers(column: SQL | SQLWrapper, values: readonly number[]): SQL {
  if (values.length === 0) return sql`0`;
  return sql`${column} IN (${integerLiterals([...new Set(values)])})`;
}
