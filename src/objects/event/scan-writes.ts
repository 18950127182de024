/**
 * D1 follows the scans the object answered: the outbox's scan entries are written in the order
 * they were decided, several to one batch, which also reads back what the next answers need
 * (tickets, check-in ids, the configuration's stamps) and leases check-in ids when few are left.
 * A check-in is stamped with the time D1 gets it (`created`, the order's `last_modified`): an
 * incremental sync that read before the write still finds it afterwards. Every statement is
 * idempotent (a check-in once per uid), so a batch may be written again after a failure.
 */
import { runBatch, type Statement } from "../../db/batch";
import { passageStatements } from "../../db/checkin/passages";
import { checkinStampsQuery } from "../../db/checkin/object-reads";
import { insertCheckinIf, setPositionAnswers } from "../../db/checkin/passages";
import { checkinIdsOfTickets, scanRowsOfTickets } from "../../db/checkin/scan-rows";
import type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
import { dispatchWebhooks } from "../../lib/queues";
import type { OutboxKind } from "./outbox";
import { leaseRefill } from "./id-leases";
import { rememberCheckinIds, rememberRows } from "./scan-answers";
import type { EventState } from "./state";

export type ScanEntry = OutboxKind<"checkin"> | OutboxKind<"scan">;

/** How many scan entries go into one D1 batch at most. */
export const SCAN_BATCH = 25;

/** Writes scan entries to D1 in one batch (their order kept), then keeps what it read back. */
export async function writeScans(s: EventState, entries: readonly ScanEntry[], now: number): Promise<void> {
  const db = s.db();
  const stmts: Statement[] = [];
  const tickets = new Set<number>();
  const reported: { eventId: number; code: string }[] = [];
  for (const e of entries) {
    if (e.kind === "checkin") {
      // the time D1 has it: what incremental syncs and `created` filters see
      stmts.push(...passageStatements(db, s.eventId, { ...e.passage, created: now }, e.answers));
      tickets.add(e.passage.ticketId);
      if (e.passage.report) reported.push({ eventId: s.eventId, code: e.passage.report.code });
    } else {
      if (e.failed) stmts.push(insertCheckinIf(db, { ...e.failed, created: now }));
      if (e.answers) stmts.push(setPositionAnswers(db, e.ticketId, e.answers));
      tickets.add(e.ticketId);
    }
  }
  const ids = [...tickets];
  const reads = stmts.length;
  stmts.push(
    checkinStampsQuery(db, s.eventId),
    scanRowsOfTickets(db, s.eventId, ids),
    checkinIdsOfTickets(db, s.eventId, ids),
  );
  const lease = leaseRefill(s, db, ["checkins"]);
  stmts.push(...lease.statements);
  const results = await runBatch(db, stmts);
  const stamps = results[reads] as { resource: string; modifiedAt: number }[];
  s.storage.transactionSync(() => {
    rememberRows(s, results[reads + 1] as CheckinPositionRow[]);
    rememberCheckinIds(s, results[reads + 2] as { uid: string; id: number }[]);
    lease.keep(results);
  });
  if (reported.length) dispatchWebhooks(s.env, reported);
  // items, questions or lists changed in D1 without the object being told: later scans decide on the new ones
  if (stamps.some((st) => st.modifiedAt > (s.config.stamps[st.resource] ?? 0))) await s.reloadCheckinConfig();
}
