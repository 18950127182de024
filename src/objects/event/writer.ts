/**
 * The outbox's writer: it writes the entries no write carries, oldest first, one drain at a
 * time per object, so D1 gets an event's decisions in the order they were taken; several to a
 * batch where their kind allows (entry-kinds.ts). Orders and scans answered at the object are
 * its everyday work; the other entries are those whose requests died or could not tell whether
 * D1 took them. A write that D1 does not answer within `WRITE_TIMEOUT_MS` counts as failed; when
 * a write fails, the rest waits for the alarm, `RETRY_MS` later (schedule.ts).
 */
import { isDatabaseFault } from "../../db/constraints";
import { log } from "../../lib/log";
import { nextBatch, onRefusal, writeBatch } from "./entry-kinds";
import type { Held } from "./outbox";
import { retrySoon } from "./schedule";
import type { EventState } from "./state";

/** A write D1 has not answered after this long counts as failed (it may still have committed: every write is idempotent). */
export const WRITE_TIMEOUT_MS = 5_000;

class WriteTimedOut extends Error {
  constructor() {
    super("D1_ERROR: the outbox write did not answer in time");
  }
}

/** `write`, or a failure after WRITE_TIMEOUT_MS without an answer. */
function inTime(write: Promise<unknown>): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WriteTimedOut()), WRITE_TIMEOUT_MS);
  });
  return Promise.race([write, late]).finally(() => clearTimeout(timer));
}

/**
 * Writes what the outbox holds. Called while a drain runs, it makes that drain look again
 * before it ends. Resolves true when everything it found was written.
 */
export function drainOutbox(s: EventState): Promise<boolean> {
  const current = s.outbox.drain;
  if (current) {
    current.again = true;
    return current.done;
  }
  const state = { again: false, done: Promise.resolve(true) };
  state.done = (async () => {
    try {
      let ok = true;
      do {
        state.again = false;
        ok = await drainOnce(s);
      } while (ok && state.again);
      if (!ok) await retrySoon(s);
      return ok;
    } finally {
      s.outbox.drain = null;
    }
  })();
  s.outbox.drain = state;
  return state.done;
}

/**
 * Starts the writer for what waits (the orders and scans answered from storage) without
 * waiting for it; the alarm, due no later than `RETRY_MS` from now, takes over should the write
 * fail or this instance end first.
 */
export async function writeBehind(s: EventState): Promise<void> {
  if (!s.outbox.hasWaiting()) return;
  void drainOutbox(s);
  await retrySoon(s);
}

/**
 * One pass over the entries found now; false when a write failed. A D1 fault stops the pass
 * (what follows waits, in order). A write D1 refuses for good (a constraint: the list or the
 * ticket was deleted meanwhile) does not hold up the others: its kind says whether it is
 * dropped (a scan's: logged) or stays for the alarm.
 */
async function drainOnce(s: EventState): Promise<boolean> {
  const entries = s.outbox.waiting();
  let ok = true;
  for (let i = 0; i < entries.length; ) {
    const batch = nextBatch(entries, i);
    i += batch.length;
    const outcome = await writeHeld(s, batch);
    if (outcome === "fault") return false;
    if (outcome !== "refused") continue;
    // one of them is refused for good: each alone, so that the others are not held up
    for (const one of batch) {
      const alone = batch.length === 1 ? outcome : await writeHeld(s, [one]);
      if (alone === "fault") return false;
      if (alone !== "refused") continue;
      if (onRefusal(one.entry) === "drop") drop(s, one);
      else ok = false;
    }
  }
  return ok;
}

/** Holds entries, writes them in one batch (within the time limit) and drains them; how it went. */
async function writeHeld(s: EventState, batch: Held[]): Promise<"written" | "fault" | "refused"> {
  const ids = batch.map((e) => e.id);
  s.outbox.hold(ids);
  try {
    await inTime(writeBatch(s, batch, Date.now()));
    s.storage.transactionSync(() => {
      for (const id of ids) s.outbox.remove(id);
    });
    return "written";
  } catch (err) {
    s.outbox.release(ids);
    log.error("outbox write failed; retrying", { event_id: s.eventId, outbox_entry: ids[0], error: err });
    return isDatabaseFault(err) ? "fault" : "refused";
  }
}

/** An entry D1 refuses for good, whose kind drops it: logged with what it was, and dropped. */
function drop(s: EventState, e: Held): void {
  log.error("an outbox entry's D1 write was refused for good; dropped", { event_id: s.eventId, entry: e.entry });
  s.outbox.remove(e.id);
}
