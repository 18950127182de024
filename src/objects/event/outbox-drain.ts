/**
 * The outbox's writer: it writes the entries no running request holds, oldest first, one
 * writer at a time per object, so D1 gets an event's decisions in the order they were taken.
 * Scans and orders answered at the object are its everyday work (scan-writes.ts,
 * orders-answered.ts, several to a batch); the other entries are those whose requests died or
 * could not tell whether D1 took them. When a
 * write fails, the rest waits for the alarm, `RETRY_MS` later.
 */
import { isDatabaseFault } from "../../db/constraints";
import { log } from "../../lib/log";
import { replayAnnul } from "./annul";
import { writeCartRows } from "./carts";
import { replayExitAll } from "./exits";
import { replayChange } from "./order-changes";
import { replayOrder, replayStatus } from "./orders";
import { type AnsweredEntry, answeredBatchLength, isAnswered, writeAnsweredOrders } from "./orders-answered";
import { clearOutbox, type OutboxEntry, unheldEntries } from "./outbox";
import { SCAN_BATCH, type ScanEntry, writeScans } from "./scan-writes";
import type { EventState } from "./state";
import { replayTickets } from "./tickets";

/** How long after a failed write the object tries again (the alarm). */
export const RETRY_MS = 5_000;
/** A write D1 has not answered after this long counts as failed (it may still have committed: every write is idempotent). */
export const WRITE_TIMEOUT_MS = 5_000;

class WriteTimedOut extends Error {
  constructor() {
    super("D1_ERROR: the outbox write did not answer in time");
  }
}

/** `write`, or a failure after WRITE_TIMEOUT_MS without an answer. */
function inTime(write: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WriteTimedOut()), WRITE_TIMEOUT_MS);
  });
  return Promise.race([write, late]).finally(() => clearTimeout(timer));
}

const running = new WeakMap<EventState, { again: boolean; done: Promise<boolean> }>();

/**
 * Writes what the outbox holds. Called while a drain runs, it makes that drain look again
 * before it ends. Resolves true when everything it found was written.
 */
export function drainOutbox(s: EventState): Promise<boolean> {
  const current = running.get(s);
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
      if (!ok) await s.storage.setAlarm(Date.now() + RETRY_MS);
      return ok;
    } finally {
      running.delete(s);
    }
  })();
  running.set(s, state);
  return state.done;
}

/**
 * One pass over the entries found now; false when a write failed. A D1 fault stops the pass
 * (what follows waits, in order). A write D1 refuses for good (a constraint: the list or the
 * ticket was deleted meanwhile) does not hold up the others: a scan's is logged and dropped
 * (the decision cannot be stored any more), any other entry stays for the alarm.
 */
async function drainOnce(s: EventState): Promise<boolean> {
  const entries = unheldEntries(s).map((e) => ({ id: e.id, entry: JSON.parse(e.payload) as OutboxEntry }));
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
      if (isScan(one.entry)) dropScan(s, one as Held<ScanEntry>);
      else ok = false;
    }
  }
  return ok;
}

/** The entries from `i` that go into one D1 batch: consecutive scans, or consecutive orders answered at the object, or one other entry. */
function nextBatch(entries: readonly Held[], i: number): Held[] {
  const first = entries[i]!;
  if (isScan(first.entry)) {
    let j = i;
    while (j < entries.length && j - i < SCAN_BATCH && isScan(entries[j]!.entry)) j++;
    return entries.slice(i, j);
  }
  if (isAnswered(first.entry)) {
    let j = i;
    while (j < entries.length && isAnswered(entries[j]!.entry)) j++;
    const run = entries.slice(i, j);
    return run.slice(0, answeredBatchLength(run.map((e) => e.entry as AnsweredEntry)));
  }
  return [first];
}

type Held<E extends OutboxEntry = OutboxEntry> = { id: number; entry: E };

/** Writes entries (scans: in one batch) and clears them; how it went. */
async function writeHeld(s: EventState, batch: Held[]): Promise<"written" | "fault" | "refused"> {
  for (const e of batch) s.inflight.add(e.id);
  const now = Date.now();
  try {
    const first = batch[0]!.entry;
    await inTime(
      isScan(first)
        ? writeScans(
            s,
            batch.map((e) => e.entry as ScanEntry),
            now,
          )
        : isAnswered(first)
          ? writeAnsweredOrders(s, batch as Held<AnsweredEntry>[], now)
          : replay(s, first, now),
    );
    s.storage.transactionSync(() => {
      for (const e of batch) clearOutbox(s, e.id);
    });
    return "written";
  } catch (err) {
    for (const e of batch) s.inflight.delete(e.id);
    log.error("outbox write failed; retrying", { event_id: s.eventId, outbox_entry: batch[0]!.id, error: err });
    return isDatabaseFault(err) ? "fault" : "refused";
  }
}

/** A scan D1 refuses for good: logged with what it was, and dropped. */
function dropScan(s: EventState, e: Held<ScanEntry>): void {
  log.error("a scan's D1 write was refused for good; dropped", { event_id: s.eventId, entry: e.entry });
  clearOutbox(s, e.id);
}

const isScan = (e: OutboxEntry): e is ScanEntry => e.kind === "checkin" || e.kind === "scan";

/** Makes D1 hold an entry's write (each replay is idempotent). */
function replay(s: EventState, entry: OutboxEntry, now: number): Promise<void> {
  switch (entry.kind) {
    case "order":
      return replayOrder(s, entry, now);
    case "checkin":
    case "scan":
      return writeScans(s, [entry], now);
    case "annul":
      return replayAnnul(s, entry);
    case "exit_all":
      return replayExitAll(s, entry);
    case "carts":
      return writeCartRows(s, entry.rows);
    case "tickets":
      return replayTickets(s, entry);
    case "status":
      return replayStatus(s, entry);
    case "change":
      return replayChange(s, entry);
  }
}
