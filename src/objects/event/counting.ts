/**
 * The calls the Worker makes inside a request (objects/client.ts calls every method through the
 * object's `countedCall`): each answers its value with the D1 bookmark of its writes (null: it
 * wrote nothing to D1, src/db/sessions.ts) and, with the debugging aid DEBUG_D1_ROUND_TRIPS on,
 * its D1 round trips (src/db/round-trips.ts); the object's start counts with its first call.
 */
import { type ContextRoundTrips, newRoundTrips, roundTripsEnabled, withRoundTripCounting } from "../../db/round-trips";
import { withBookmarks } from "../../db/sessions";
import type { Env } from "../../lib/env";
import type { ObjectStart } from "./types";

/** The methods the Worker may call through `countedCall`. */
export const COUNTED_METHODS = [
  "quotaAvailability",
  "availabilityStates",
  "reserveCarts",
  "deleteCarts",
  "placeOrder",
  "changeOrderStatus",
  "changeOrder",
  "createVouchers",
  "updateVoucher",
  "deleteVoucher",
  "assignWaitingList",
  "productRooms",
  "catalogChanged",
  "eventDeleted",
  "redeem",
  "annul",
  "checkinListChanged",
  "checkinConfigChanged",
  "checkinCounts",
  "changeTickets",
  "settle",
] as const;
export type CountedMethod = (typeof COUNTED_METHODS)[number];

/** A counted call's answer: the method's value, its round trips and their time, its bookmark; `start` with the first call. */
export type CountedAnswer = { value: unknown; trips: number; ms: number; bookmark: string | null; start?: ObjectStart };

export class CallCounting {
  /** The start's round trips, until the first counted call reports them. */
  private startTrips: ContextRoundTrips | null = null;

  /** Runs the start's D1 load, counting its round trips when the debugging aid is on. */
  countStart<T>(env: Env, load: () => Promise<T>): Promise<T> {
    if (roundTripsEnabled(env)) this.startTrips = newRoundTrips();
    return this.startTrips ? withRoundTripCounting(this.startTrips, load) : load();
  }

  /** Runs `method` (by `run`), counting; `started`: what the start read, reported with the start's round trips. */
  async call(method: CountedMethod, run: () => Promise<unknown>, started: ObjectStart): Promise<CountedAnswer> {
    if (!COUNTED_METHODS.includes(method)) throw new Error(`not a method of the event object: ${method}`);
    const counts = newRoundTrips();
    let start: ObjectStart | undefined;
    if (this.startTrips) {
      counts.own.n += this.startTrips.own.n;
      counts.own.ms += this.startTrips.own.ms;
      this.startTrips = null;
      start = started;
    }
    const { value, bookmark } = await withRoundTripCounting(counts, () => withBookmarks(run));
    const out = { value, trips: counts.own.n, ms: counts.own.ms, bookmark };
    return start ? { ...out, start } : out;
  }
}
