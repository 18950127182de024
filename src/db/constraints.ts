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

/** A constraint SQLite refused (unique, foreign key, check, not null): an answer, not a fault. */
export function isConstraintError(e: unknown): boolean {
  return messages(e).some((m) => /constraint failed|SQLITE_CONSTRAINT/i.test(m));
}

/**
 * A statement over one of D1's limits (bound parameters, statement length, function arguments,
 * LIKE pattern, row size): a defect of the statement, which a retry cannot cure.
 */
export function isLimitError(e: unknown): boolean {
  return messages(e).some((m) =>
    /too many SQL variables|SQLITE_TOOBIG|too many arguments on function|pattern too complex|string or blob too big/i.test(
      m,
    ),
  );
}

/**
 * A fault of the database, not a refusal of the statement: D1 unreachable, overloaded, reset,
 * or the connection lost (the statement may or may not have been applied). Constraint
 * failures and errors that do not come from D1 are not faults.
 */
export function isDatabaseFault(e: unknown): boolean {
  if (isConstraintError(e) || isLimitError(e)) return false;
  return messages(e).some((m) =>
    /\bD1\b|D1_|Network connection lost|storage (operation|reset)|object to be reset|overloaded/i.test(m),
  );
}
