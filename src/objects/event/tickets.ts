/**
 * Admission: changes of what a scan is decided on besides the configuration, a ticket's secret
 * and its block. They reach the ticket index first, without yielding, with an outbox entry; D1
 * follows, conditionally on the old secret; a change D1 did not take is undone in the index.
 */
import { positionSecretsQuery, type TicketChange, ticketChangeStatements } from "../../db/ticket-secrets";
import { runBatch } from "../../db/batch";
import type { SecretUndo } from "./checkin-state";
import type { OutboxKind } from "./outbox";
import { forgetRow } from "./scan-answers";
import type { EventState } from "./state";
import type { TicketsChange } from "./types";
import { writeOwn } from "./write-own";

/** What applying a ticket change did in the index (its secret; its block state before, when it changed). */
type TicketUndo = { secret: SecretUndo; blocked: boolean | null };

/** Puts ticket changes into the index (caller: inside transactionSync). Returns what it takes to undo them. */
export function applyTicketChanges(s: EventState, changes: readonly TicketChange[]): TicketUndo[] {
  return changes.map((c) => {
    forgetRow(s, c.positionId);
    const wasBlocked = s.ci.ticketById(c.positionId)?.blocked;
    const secret = s.ci.changeSecret(c.positionId, c.secret, c.newSecret, c.revoke);
    if (c.blocked !== undefined) s.ci.setBlocked(c.positionId, c.blockedAfter);
    return { secret, blocked: c.blocked !== undefined && wasBlocked !== undefined ? wasBlocked : null };
  });
}

function undoTicketChanges(s: EventState, changes: readonly TicketChange[], undo: readonly TicketUndo[]): void {
  changes.forEach((c, i) => {
    const u = undo[i]!;
    s.ci.undoSecret(u.secret);
    if (u.blocked !== null) s.ci.setBlocked(c.positionId, u.blocked);
  });
}

/**
 * Changes tickets of one order: new secrets (the old ones revoked, with a generator that keeps
 * a revocation list), blocks, and the order's own secret (`regenerate_secrets`,
 * `add_block`/`remove_block`; pretix orders.rst). Like a scan's decision, the change is
 * recorded in the index first, without yielding — from then on no gate admits the old secret or
 * the blocked ticket — together with an outbox entry; then D1 is written (conditionally on the
 * old secrets, so a replay writes nothing twice). Should D1 not take it, the index is restored.
 * `ok` false: a ticket's secret is not the one the caller saw (changed meanwhile); nothing changed.
 */
export async function changeTickets(s: EventState, req: TicketsChange): Promise<{ ok: boolean }> {
  const now = Date.now();
  const entry: OutboxKind<"tickets"> = {
    kind: "tickets",
    orderId: req.orderId,
    code: req.code,
    changes: req.changes,
    orderSecret: req.orderSecret,
    now,
  };
  let stale = false;
  let outboxId = 0;
  let before: TicketUndo[] = [];
  s.storage.transactionSync(() => {
    stale = req.changes.some((c) => {
      const t = s.ci.ticketById(c.positionId);
      return t !== undefined && t.secret !== c.secret;
    });
    if (stale) return;
    before = applyTicketChanges(s, req.changes);
    outboxId = s.outbox.write(entry, now);
  });
  if (stale) return { ok: false };
  const ids = req.changes.map((c) => c.positionId);
  const took = (held: { id: number; secret: string }[]) =>
    req.changes.every((c) => held.find((h) => h.id === c.positionId)?.secret === c.newSecret);
  // D1 held another secret than the caller saw (the index did not know the ticket): nothing was written
  const settle = (ok: boolean) =>
    s.storage.transactionSync(() => {
      if (!ok) undoTicketChanges(s, req.changes, before);
      s.outbox.remove(outboxId);
    });
  // Did the batch commit? D1 tells; unknown → the alarm finishes the write.
  const outcome = await writeOwn(
    s,
    outboxId,
    async () => {
      const db = s.db();
      const results = await runBatch(db, [
        ...ticketChangeStatements(db, s.eventId, req.orderId, req.changes, now, { orderSecret: req.orderSecret }),
        positionSecretsQuery(db, s.eventId, ids),
      ]);
      const ok = took(results[results.length - 1] as { id: number; secret: string }[]);
      if (!ok) s.storage.transactionSync(() => undoTicketChanges(s, req.changes, before));
      return ok;
    },
    () => positionSecretsQuery(s.db(), s.eventId, ids),
  );
  if ("written" in outcome) return { ok: outcome.written };
  const ok = took(outcome.asked);
  settle(ok);
  if (!ok) throw outcome.error;
  return { ok };
}

/** The writer's replay: the index has the change already; D1 gets it (idempotent). */
export async function replayTickets(s: EventState, entry: OutboxKind<"tickets">): Promise<void> {
  const db = s.db();
  await runBatch(
    db,
    ticketChangeStatements(db, s.eventId, entry.orderId, entry.changes, entry.now, {
      orderSecret: entry.orderSecret,
    }),
  );
}
