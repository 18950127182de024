/**
 * D1 and Durable Object SQLite allow at most 100 bound parameters per statement (local
 * SQLite does not enforce it). Split long IN lists and bulk inserts with these helpers.
 */
export const MAX_PARAMS = 100;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  if (size < 1) throw new RangeError("chunk size must be positive");
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Rows per insert statement so that rows × columns stays within the parameter limit. */
export function rowsPerInsert(columns: number, reserved = 0): number {
  return Math.max(1, Math.floor((MAX_PARAMS - reserved) / columns));
}
