/**
 * Recognizes constraint failures reported by D1 / SQLite (possibly wrapped by drizzle), so a
 * write that loses a race against a concurrent delete answers a clear 4xx instead of a 500.
 */

function messages(e: unknown): string[] {
  const out: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof Error) {
      out.push(cur.message);
      cur = (cur as { cause?: unknown }).cause;
    } else {
      out.push(String(cur));
      break;
    }
  }
  return out;
}

export function isForeignKeyError(e: unknown): boolean {
  return messages(e).some((m) => /FOREIGN KEY constraint failed/i.test(m));
}

/** A UNIQUE violation; with `column` (e.g. "customers.email"), only one that names that column. */
export function isUniqueError(e: unknown, column?: string): boolean {
  return messages(e).some((m) => /UNIQUE constraint failed/i.test(m) && (column === undefined || m.includes(column)));
}
