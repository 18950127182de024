/**
 * The calls the Worker makes inside a request (objects/client.ts): each says the organizer group
 * whose database holds the event, and each answers its value with the D1 bookmark of its writes
 * (null: it wrote nothing to D1, src/db/sessions.ts). Only when the request counts its D1 round
 * trips (the debugging aid DEBUG_D1_ROUND_TRIPS, src/db/debug-aids.ts) does a call count its own,
 * the object's start counting with its first call.
 */
import { type ContextRoundTrips, newRoundTrips, roundTripsEnabled, withRoundTripCounting } from "../../db/round-trips";
import type { Env } from "../../lib/env";
import type { ObjectStart } from "./types";

/** What the Worker tells the object with a call. */
export type ObjectCall = {
  /** The organizer group whose database holds the event (lib/data-groups.ts). */
  group: number;
  /** The request counts its D1 round trips (debugging aid): the answer carries the call's. */
  countTrips?: boolean;
};

/** A call's D1 round trips and their time; `start` with the first call after the object started. */
export type ObjectTrips = { n: number; ms: number; start?: ObjectStart };

/** A call's answer: the method's value and the bookmark of its D1 writes; `trips` when counted. */
export type Answer<T> = { value: T; bookmark: string | null; trips?: ObjectTrips };

/** The round-trip counting of the debugging aid, in the object. */
export class CallCounting {
  /** The start's round trips, until the first counted call reports them. */
  private startTrips: ContextRoundTrips | null = null;

  /** Runs the start's D1 load, counting its round trips when the debugging aid is on. */
  countStart<T>(env: Env, load: () => Promise<T>): Promise<T> {
    if (roundTripsEnabled(env)) this.startTrips = newRoundTrips();
    return this.startTrips ? withRoundTripCounting(this.startTrips, load) : load();
  }

  /** Runs `run`, counting its round trips; `started`: what the start read, reported with the start's round trips. */
  async call<T>(run: () => Promise<{ value: T; bookmark: string | null }>, started: ObjectStart): Promise<Answer<T>> {
    const counts = newRoundTrips();
    let start: ObjectStart | undefined;
    if (this.startTrips) {
      counts.own.n += this.startTrips.own.n;
      counts.own.ms += this.startTrips.own.ms;
      this.startTrips = null;
      start = started;
    }
    const answer = await withRoundTripCounting(counts, run);
    const trips: ObjectTrips = { n: counts.own.n, ms: counts.own.ms };
    return { ...answer, trips: start ? { ...trips, start } : trips };
  }
}
