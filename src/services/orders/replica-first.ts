/**
 * A sale whose reads start at the nearest copy (docs/api.md "Global read latency"): what it is
 * checked and priced against may trail the primary by the replication lag, unless the client
 * sent its bookmark. A refusal on what was read, and a catalog older than the event object's,
 * are therefore decided again with reads at the primary before they are answered.
 */
import { createDb, type DB } from "../../db/client";
import { primaryIfElsewhere, startedElsewhere } from "../../db/sessions";
import { isFailure } from "../../lib/failure";

/** The event object has seen a newer catalog than the sale read (objects/event/orders.ts). */
export class StaleCatalog extends Error {
  constructor() {
    super("the sale read a catalog older than the event object's");
  }
}

const decided = new WeakSet<object>();

/** A refusal the event object took on its own state (sold out, a voucher used up): final wherever the sale read. */
export function decidedByObject<E extends object>(refusal: E): E {
  decided.add(refusal);
  return refusal;
}

/** `attempt` with the request's reads; again with reads at the primary when that one was refused or stale. */
export async function replicaFirst<C extends { db: DB }, T>(
  ctx: C,
  attempt: (ctx: C, fromReplica: boolean) => Promise<T>,
): Promise<T> {
  if (!startedElsewhere()) return attempt(ctx, false);
  try {
    return await attempt(ctx, true);
  } catch (e) {
    if (!(e instanceof StaleCatalog) && (!isFailure(e, "invalid") || decided.has(e))) throw e;
    return attempt({ ...ctx, db: createDb(primaryIfElsewhere()!) }, false);
  }
}
