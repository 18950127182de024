/**
 * Reads of what an event's object may have answered moments ago while D1 does not have it yet
 * (an order, a check-in; docs/scaling.md "Orders answered at the event's object"): when the read finds
 * nothing, the objects of the events write what they hold, and the read runs again at the
 * primary, which then has it. Still nothing while an object could not write: 503, not "none".
 */
import type { DB } from "../../db/client";
import { createDb } from "../../db/client";
import { primaryIfElsewhere } from "../../db/sessions";
import type { Env } from "../../lib/env";
import { Failure } from "../../lib/failure";
import { type EventRef, withEventObject } from "../../objects/client";

export async function readSettled<T>(
  scope: { env: Env; db: DB },
  events: readonly EventRef[],
  read: (db: DB) => Promise<T>,
  found: (result: T) => boolean,
): Promise<T> {
  const first = await read(scope.db);
  if (found(first)) return first;
  const settled = await Promise.all(
    events.map((e) => withEventObject<boolean>(scope.env, e, (s, call) => s.settle(call))),
  );
  const primary = primaryIfElsewhere();
  const again = await read(primary ? createDb(primary) : scope.db);
  // not there, and an object could not write all it holds: it may be among that
  if (!found(again) && settled.includes(false))
    throw new Failure("unavailable", "The event could not write its latest changes yet. Retry in a moment.");
  return again;
}
