/**
 * The object's alarm: it prunes expired carts, fires due automatic exits (their entries join
 * the outbox), has the writer write what waits (entries whose requests died or could not tell
 * whether D1 took them, and what a failed write left), and lets the scheduler set the next one.
 */
import { releaseExpiredCarts } from "./carts";
import { runExitAll } from "./exits";
import { alarmFired, scheduleAlarm } from "./schedule";
import type { EventState } from "./state";
import { drainOutbox } from "./writer";

export async function runAlarm(s: EventState): Promise<void> {
  alarmFired(s);
  const now = Date.now();
  releaseExpiredCarts(s, now);
  runExitAll(s, now);
  await drainOutbox(s);
  await scheduleAlarm(s, true);
}
