/**
 * The Worker's door to an event's Durable Object. A call carries the inventory change stamp the Worker
 * has seen (the object reloads its catalog when D1 changed) and uses a fresh stub (a stub is broken
 * after it throws); a failed or overloaded object answers 409 (vouchers: "retry later") or 503, never
 * 500. Each call is the object's own typed method (Workers RPC), given an `ObjectCall` (the organizer's
 * group) and answering an `Answer` whose D1 bookmark the request's session observes (db/sessions.ts).
 */
import type { DB } from "../db/client";
import { inventoryStampQuery } from "../db/inventory";
import { currentRequestSession } from "../db/sessions";
import { currentGroup } from "../lib/data-groups";
import { readConfig, type Env } from "../lib/env";
import { Failure } from "../lib/failure";
import { locationHintFor } from "../rules/location-hint";
import { log } from "../lib/log";
import type { Answer, ObjectCall } from "./event/counting";
import type { EventObject } from "./event/object";

export type { Answer, ObjectCall } from "./event/counting";

/** An event by id, or with its venue's coordinates (the object is then created near the venue). */
export type EventRef = number | { id: number; geoLat?: number | null; geoLon?: number | null };

/**
 * The event's object (named by the event id). With the venue's coordinates, a new object is
 * created in the Durable Object region nearest the venue (`locationHint`, rules/location-hint.ts);
 * the hint only matters the first time, an existing object stays where it is.
 */
export function eventObject(env: Env, event: EventRef): DurableObjectStub<EventObject> {
  const ref = typeof event === "number" ? { id: event } : event;
  const id = env.EVENT_OBJECT.idFromName(String(ref.id));
  const hint = locationHintFor(ref.geoLat, ref.geoLon);
  return hint ? env.EVENT_OBJECT.get(id, { locationHint: hint }) : env.EVENT_OBJECT.get(id);
}

export async function inventoryStamp(db: DB, eventId: number): Promise<number> {
  const [row] = await inventoryStampQuery(db, eventId);
  return row?.modifiedAt ?? 0;
}

class TimedOut extends Error {}

/**
 * Runs `fn` against the event object: `fn` calls one of its methods with `call`; the answer's
 * bookmark goes to the request's session, its value is returned. Failures of the object, or no
 * answer within EVENT_OBJECT_TIMEOUT_MS, become 409 or 503.
 */
export async function withEventObject<T>(
  env: Env,
  event: EventRef,
  fn: (object: DurableObjectStub<EventObject>, call: ObjectCall) => Promise<Answer<T>>,
  busy: 409 | 503 = 503,
): Promise<T> {
  const limit = readConfig(env).eventObjectTimeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut(`no answer within ${limit} ms`)), limit);
    });
    const session = currentRequestSession();
    // env.ROUND_TRIPS: only under the debugging aid (db/debug-aids.ts)
    const counts = env.ROUND_TRIPS;
    const call: ObjectCall = counts ? { group: currentGroup(env), countTrips: true } : { group: currentGroup(env) };
    const answer = await Promise.race([fn(eventObject(env, event), call), timeout]);
    session?.observe(answer.bookmark);
    if (counts && answer.trips) {
      counts.object.n += answer.trips.n;
      counts.object.ms += answer.trips.ms;
      if (answer.trips.start) counts.objectStart = answer.trips.start;
    }
    return answer.value;
  } catch (e) {
    log.error("event object failed", { event_id: typeof event === "number" ? event : event.id, error: e });
    throw busy === 409
      ? new Failure("busy", "The event is busy and could not process the change in time. Retry in a moment.")
      : new Failure("unavailable", "The event could not process the request. Retry in a moment.");
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
