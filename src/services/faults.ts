/**
 * D1 faults on the Worker's own write paths (those without the event object: gift cards, customers,
 * payments, and the reads around the object's calls). D1 can fail before a write commits, or commit
 * and lose the answer; neither may reach the client as a 500, and a retry must never apply a change
 * twice. The three wrappers and what each answers: docs/limits.md "Faults". Constraint failures and
 * programming errors are not faults and pass through unchanged.
 */
import { isDatabaseFault } from "../db/constraints";
import { log } from "../lib/log";
import { Failure } from "../lib/failure";

export const D1_UNAVAILABLE = "The database could not be reached; nothing was changed. Retry in a moment.";
export const D1_UNCONFIRMED =
  "The database did not confirm the change. Read the resource to see whether it was made before you retry.";
export const D1_READ_FAILED = "The database could not be reached. Retry in a moment.";
export const D1_DONE_UNREAD =
  "The change was made, but the database did not return its result. Read the resource before you retry.";

function unavailable(message: string, cause: unknown): Failure {
  log.error("D1 fault", { answer: message, error: cause });
  return new Failure("unavailable", message);
}

/** `service` with D1 faults answered as 503 (the service must be safe to retry as a whole). */
export function survivingD1Faults<A extends unknown[], R>(
  service: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    try {
      return await service(...args);
    } catch (e) {
      if (isDatabaseFault(e)) throw unavailable(D1_UNAVAILABLE, e);
      throw e;
    }
  };
}

/**
 * Runs a write a retry would repeat; after a D1 fault, `check` tells whether it was applied
 * (its result, or null when it was not).
 */
export async function confirmedWrite<T>(
  write: () => Promise<T>,
  check: () => Promise<T | null | undefined>,
): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (!isDatabaseFault(e)) throw e;
    let found: T | null | undefined;
    try {
      found = await check();
    } catch (again) {
      log.error("the outcome of a write could not be read", { error: again });
      throw unavailable(D1_UNCONFIRMED, e);
    }
    if (found === null || found === undefined) throw unavailable(D1_UNAVAILABLE, e);
    log.warn("the answer of a write was lost; D1 has it", { error: e });
    return found;
  }
}

/** Reads the result of a write that took effect; a D1 fault here is a 503 that says the change was made. */
export async function readAfterWrite<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (isDatabaseFault(e)) throw unavailable(D1_DONE_UNREAD, e);
    throw e;
  }
}
