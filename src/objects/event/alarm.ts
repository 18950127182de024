/**
 * The object's alarm: it replays the outbox entries no running request holds (their requests
 * died, or could not tell whether D1 took the write), prunes expired carts, fires due automatic
 * exits, and sets the next alarm: soon while an entry is left, else at the next cart expiry or
 * automatic exit.
 */
import { releaseExpiredCarts } from "./carts";
import { runExitAll } from "./exits";
import { drainOutbox, RETRY_MS } from "./outbox-drain";
import { outboxSize } from "./outbox";
import type { EventState } from "./state";

export async function runAlarm(s: EventState): Promise<void> {
  const now = Date.now();
  let failed = !(await drainOutbox(s));
  releaseExpiredCarts(s, now);
  await runExitAll(s, now);
  if (outboxSize(s) > s.inflight.size) failed = true;
  if (failed) await s.storage.setAlarm(Date.now() + RETRY_MS);
  else await s.scheduleAlarm();
}
