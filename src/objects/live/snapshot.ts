/**
 * The live availability of an event as its object computes it and the hub sends it: per date,
 * each product the event page shows, in pretix's availability states; and the server-sent
 * event a subscriber receives of it.
 */

/** One product (or variation) on one date. `available_number`: units left, null unless the product shows it (`show_quota_left`) or unlimited. */
export type LiveProduct = {
  item: number;
  variation: number | null;
  availability_state: number;
  available_number: number | null;
};

/** One date (`subevent` null: the event itself); `best_availability_state` as `with_availability_for=web` counts it. */
export type LiveDate = { subevent: number | null; best_availability_state: number | null; products: LiveProduct[] };

/** A state of the whole event; `version` grows with every state the object computes. */
export type LiveSnapshot = { version: number; dates: LiveDate[] };

/** What a subscriber of `subevent` (null: every date) is sent of a state. */
export function liveView(snapshot: LiveSnapshot, subevent: number | null): { dates: LiveDate[] } {
  return { dates: subevent === null ? snapshot.dates : snapshot.dates.filter((d) => d.subevent === subevent) };
}

/** How long a client waits before it reconnects (the stream's `retry` field), in ms. */
export const RECONNECT_MS = 3000;

const encoder = new TextEncoder();

/** The server-sent event of a state (`first`: with the reconnection delay ahead). */
export function liveEvent(snapshot: LiveSnapshot, subevent: number | null, first: boolean): Uint8Array {
  const data = JSON.stringify(liveView(snapshot, subevent));
  return encoder.encode(
    `${first ? `retry: ${RECONNECT_MS}\n` : ""}id: ${snapshot.version}\nevent: availability\ndata: ${data}\n\n`,
  );
}

/** A comment line: keeps the connection open through proxies and finds subscribers that left. */
export const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
