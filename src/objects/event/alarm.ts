/**
 * The object's alarm: it replays the outbox entries no running request holds (their requests
 * died, or could not tell whether D1 took the write), prunes expired carts, fires due automatic
 * exits, and sets the next alarm: soon while an entry is left, else at the next cart expiry or
 * automatic exit.
 */
import { log } from "../../lib/log";
import { replayCheckin } from "./admission";
import { replayAnnul } from "./annul";
import { releaseExpiredCarts, writeCartRows } from "./carts";
import { replayExitAll, runExitAll } from "./exits";
import { replayOrder, replayStatus } from "./orders";
import { clearOutbox, type OutboxEntry, outboxEntries, outboxSize } from "./outbox";
import type { EventState } from "./state";
import { replayTickets } from "./tickets";

export async function runAlarm(s: EventState): Promise<void> {
  const now = Date.now();
  const entries = outboxEntries(s).filter((e) => !s.inflight.has(e.id));
  let failed = false;
  for (const e of entries) {
    try {
      await replay(s, JSON.parse(e.payload) as OutboxEntry, now);
      clearOutbox(s, e.id);
    } catch (err) {
      log.error("outbox replay failed; retrying", { event_id: s.eventId, outbox_entry: e.id, error: err });
      failed = true;
    }
  }
  releaseExpiredCarts(s, now);
  await runExitAll(s, now);
  if (outboxSize(s) > s.inflight.size) failed = true;
  if (failed) await s.storage.setAlarm(now + 10_000);
  else await s.scheduleAlarm();
}

/** Makes D1 hold an entry's write (each replay is idempotent). */
function replay(s: EventState, entry: OutboxEntry, now: number): Promise<void> {
  switch (entry.kind) {
    case "order":
      return replayOrder(s, entry, now);
    case "checkin":
      return replayCheckin(s, entry);
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
  }
}
