/**
 * Admission: an annulment (pretix checkin.rst `checkinrpc/annul`): a successful check-in its
 * scanner takes back (a turnstile that did not turn). Decided like a scan: the passage leaves
 * the ticket index (who is inside, the quota a ticket that left frees) with its outbox entry,
 * without yielding, so an annulment and a scan of the same ticket happen one after the other;
 * D1 follows, turning the check-in into a failed one (`annulled`) only while it is successful.
 * Who may annul which check-in, and when, the Worker checks first (services/checkin/checkin-annul.ts).
 */
import { runBatch } from "../../db/batch";
import { ticketOrderQuery, type TicketOrderRow } from "../../db/checkin/object-reads";
import { annulCheckinStatements, checkinSuccessful } from "../../db/checkin/passages";
import type { StoredPassage } from "./checkin-state";
import type { OutboxKind } from "./outbox";
import { indexFallback, trackExit } from "./passages";
import type { EventState } from "./state";
import type { AnnulOutcome, AnnulRequest } from "./types";
import { writeOwn } from "./write-own";

export async function annul(s: EventState, req: AnnulRequest): Promise<AnnulOutcome> {
  if (s.configLoading) await s.configLoading;
  if (!s.ci.ticketById(req.ticketId)) {
    // a ticket the index has never seen: its order and check-ins from D1, once
    const db = s.db();
    const [rows] = (await runBatch(db, [ticketOrderQuery(db, s.eventId, req.secret, req.ticketId)])) as [
      TicketOrderRow[],
    ];
    indexFallback(s, rows, []);
  }
  const now = Date.now();
  let passage: StoredPassage | undefined;
  let entry: OutboxKind<"annul"> | null = null;
  let outboxId = 0;
  s.storage.transactionSync(() => {
    passage = s.ci.passage(req.uid);
    if (!passage) return;
    s.ci.removePassage(req.uid);
    untrack(s, passage.ticketId);
    entry = { kind: "annul", uid: req.uid, positionId: passage.ticketId, explanation: req.explanation, created: now };
    outboxId = s.outbox.write(entry, now);
  });
  if (!passage || !entry) return "not_successful";
  const taken: StoredPassage = passage;
  // Did D1 take it? Still successful → undo; unknown → the alarm finishes the write.
  const outcome = await writeOwn(
    s,
    outboxId,
    () => writeAnnul(s, entry!),
    () => checkinSuccessful(s.db(), req.uid).get(),
  );
  if ("written" in outcome) return "annulled";
  if (outcome.asked?.successful) {
    s.storage.transactionSync(() => {
      s.ci.addPassage(taken);
      untrack(s, taken.ticketId);
      s.outbox.remove(outboxId);
    });
    throw outcome.error;
  }
  s.outbox.remove(outboxId);
  return "annulled";
}

/** The ledger follows the ticket's last passage (an annulled exit holds its quota again). */
function untrack(s: EventState, ticketId: number): void {
  const t = s.ci.ticketById(ticketId);
  if (t) trackExit(s, t);
}

function writeAnnul(s: EventState, e: OutboxKind<"annul">): Promise<unknown> {
  const db = s.db();
  return runBatch(db, [...annulCheckinStatements(db, e.uid, e.positionId, e.explanation, e.created)]);
}

/** The writer's replay of an annulment (it changes a successful check-in only). */
export async function replayAnnul(s: EventState, entry: OutboxKind<"annul">): Promise<void> {
  await writeAnnul(s, entry);
}
