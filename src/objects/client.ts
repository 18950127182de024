/**
 * The Worker's door to an event's Durable Object. A call carries the inventory change stamp the Worker
 * has seen (the object reloads its catalog when D1 changed) and uses a fresh stub (a stub is broken
 * after it throws); a failed or overloaded object answers 409 (vouchers: "retry later") or 503, never
 * 500. Calls go through `countedCall`, which tells the object its organizer's group and whose answer
 * brings the object's D1 bookmark and, with DEBUG_D1_ROUND_TRIPS, its round trips
 * (src/db/sessions.ts, src/db/round-trips.ts).
 */
import type { DB } from "../db/client";
import { inventoryStampQuery } from "../db/inventory";
import { type ContextRoundTrips, currentRoundTrips } from "../db/round-trips";
import { currentRequestSession, type RequestSession } from "../db/sessions";
import { currentGroup } from "../lib/data-groups";
import { readConfig, type Env } from "../lib/env";
import { Failure } from "../lib/failure";
import { locationHintFor } from "../rules/location-hint";
import { log } from "../lib/log";
import type { EventObject } from "./event/object";

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
 * The stub, with every method called through `countedCall` with the organizer's group: the
 * bookmark of the object's D1 writes goes to the request's session, its round trips (when
 * counting) to `counts`.
 */
function countingStub(
  stub: DurableObjectStub<EventObject>,
  group: number,
  counts: ContextRoundTrips | undefined,
  session: RequestSession | undefined,
): DurableObjectStub<EventObject> {
  return new Proxy(stub, {
    get(target, name) {
      if (typeof name !== "string" || name === "then") return Reflect.get(target, name);
      return async (...args: unknown[]) => {
        const counted = target as unknown as Pick<EventObject, "countedCall">;
        const r = await counted.countedCall(name as Parameters<EventObject["countedCall"]>[0], args, group);
        if (counts) {
          counts.object.n += r.trips;
          counts.object.ms += r.ms;
          if (r.start) counts.objectStart = r.start;
        }
        session?.observe(r.bookmark);
        return r.value;
      };
    },
  });
}

/**
 * Runs `fn` against the event object; failures of the object, or no answer within
 * EVENT_OBJECT_TIMEOUT_MS, become 409 or 503.
 */
export async function withEventObject<T>(
  env: Env,
  event: EventRef,
  fn: (stub: DurableObjectStub<EventObject>) => PromiseLike<unknown>,
  busy: 409 | 503 = 503,
): Promise<T> {
  const limit = readConfig(env).eventObjectTimeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut(`no answer within ${limit} ms`)), limit);
    });
    const counts = currentRoundTrips();
    const session = currentRequestSession();
    const stub = countingStub(eventObject(env, event), currentGroup(env), counts, session);
    // RPC results come back as plain structured clones of the declared result type
    return (await Promise.race([fn(stub), timeout])) as T;
  } catch (e) {
    log.error("event object failed", { event_id: typeof event === "number" ? event : event.id, error: e });
    throw busy === 409
      ? new Failure("busy", "The event is busy and could not process the change in time. Retry in a moment.")
      : new Failure("unavailable", "The event could not process the request. Retry in a moment.");
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
