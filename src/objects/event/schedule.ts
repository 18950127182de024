/**
 * The one scheduler of the object's alarm: the next alarm is the earliest of what needs one —
 * the outbox's entries no write carries (`Outbox.retryAt`: the writer's deadline or retry), the
 * next cart expiry, the next automatic exit. Nothing else sets the alarm, so the time it set is
 * kept in memory (`EventState.alarmAt`) and storage is asked once per instance, not per request.
 */
import type { EventState } from "./state";

/** How long after a failed write the object tries again (the alarm), and how long a running writer has before the alarm takes over. */
export const RETRY_MS = 5_000;

/** The earliest automatic exit of a list that has not happened yet. */
function nextExitAll(s: EventState): number | null {
  let min: number | null = null;
  for (const l of s.config.lists.values()) {
    if (l.exitAllAt === null) continue;
    const fired = s.ci.firedExitAll(l.id);
    if (fired !== null && fired >= l.exitAllAt) continue;
    if (min === null || l.exitAllAt < min) min = l.exitAllAt;
  }
  return min;
}

/** When the alarm is next needed, or null. */
export function nextAlarm(s: EventState, now: number): number | null {
  const carts = s.ledger.nextCartExpiry();
  const candidates = [
    s.outbox.hasWaiting() ? Math.max(now, s.outbox.retryAt) : null,
    carts === null ? null : carts + 1000,
    nextExitAll(s),
  ].filter((x): x is number => x !== null);
  return candidates.length ? Math.min(...candidates) : null;
}

/**
 * Sets the alarm to `nextAlarm`, unless it is due earlier already. `firing`: called by the
 * alarm itself, whose time is spent: the next one replaces it.
 */
export async function scheduleAlarm(s: EventState, firing = false): Promise<void> {
  if (firing) s.alarmAt = null;
  const want = nextAlarm(s, Date.now());
  if (want === null) return;
  if (s.alarmAt === undefined) s.alarmAt = await s.storage.getAlarm();
  if (s.alarmAt !== null && s.alarmAt <= want) return;
  s.alarmAt = want;
  await s.storage.setAlarm(want);
}

/** The alarm fired: the time it was set for is spent, whatever the requests during it schedule. */
export function alarmFired(s: EventState): void {
  s.alarmAt = null;
}

/** The writer starts or failed: the alarm looks at what it leaves no later than `RETRY_MS` from now. */
export function retrySoon(s: EventState): Promise<void> {
  s.outbox.retryAt = Date.now() + RETRY_MS;
  return scheduleAlarm(s);
}
