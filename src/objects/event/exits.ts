/**
 * Admission: automatic exits (`exit_all_at`). Everyone inside a list at that time gets an exit,
 * then the list's next one is a day later. Decided and recorded in the object first (so that a
 * second alarm of the same firing finds it done), written to D1 by the outbox's writer
 * (idempotent by `uid`, and the list's `exit_all_at` moves only from the fired value).
 */
import { runBatch, type Statement } from "../../db/batch";
import { passageStatements } from "../../db/checkin/passages";
import { moveExitAllAt } from "../../db/checkin/lists";
import type { DB } from "../../db/client";
import { type ListConfig, nextExitAllAt, nextExitAllWall } from "../../rules/checkin";
import type { OutboxKind, PassageWrite } from "./outbox";
import { trackExit } from "./passages";
import type { EventState } from "./state";

/** Fires the automatic exits due at `now` (the alarm): recorded with their outbox entries, which the writer then writes. */
export function runExitAll(s: EventState, now: number): void {
  for (const list of [...s.config.lists.values()]) {
    const at = list.exitAllAt;
    if (at === null || at > now) continue;
    const fired = s.ci.firedExitAll(list.id);
    if (fired !== null && fired >= at) continue;
    s.storage.transactionSync(() => recordExitAll(s, list, at, now));
  }
}

/** Records a firing (inside transactionSync): everyone inside gets an exit, the list its next time, the outbox the D1 write. */
function recordExitAll(s: EventState, list: ListConfig, at: number, now: number): void {
  const meant = s.ci.meantExitAll(list.id, at);
  const wall = nextExitAllWall(at, s.config.timezone, meant);
  const next = nextExitAllAt(at, s.config.timezone, meant);
  const passages: PassageWrite[] = s.ci.insideAt(list.id, at).map((ticketId) => ({
    uid: crypto.randomUUID(),
    listId: list.id,
    ticketId,
    type: "exit",
    datetime: at,
    nonce: null,
    deviceId: null,
    auto: true,
    created: now,
    forced: false,
    rawBarcode: null,
    rawSourceType: null,
  }));
  for (const p of passages) {
    s.ci.addPassage(p);
    const t = s.ci.ticketById(p.ticketId);
    if (t) trackExit(s, t);
  }
  s.ci.recordExitAll(list.id, at, next, wall);
  list.exitAllAt = next;
  s.outbox.write({ kind: "exit_all", listId: list.id, fired: at, next, passages }, now);
}

function exitAllStatements(s: EventState, db: DB, e: OutboxKind<"exit_all">): Statement[] {
  return [
    ...e.passages.flatMap((p) => passageStatements(db, s.eventId, p, null)),
    moveExitAllAt(db, s.eventId, e.listId, e.fired, e.next),
  ];
}

/** A firing's D1 write (the writer's, entry-kinds.ts). */
export async function replayExitAll(s: EventState, entry: OutboxKind<"exit_all">): Promise<void> {
  const db = s.db();
  await runBatch(db, exitAllStatements(s, db, entry));
}
