/**
 * The outbox: a decision's D1 write, stored in the object's SQLite in the same synchronous
 * transaction as the decision, until D1 has it (durable before acknowledged). The request that
 * made it clears it once D1 answered; an entry whose request died, or could not tell whether D1
 * took it, is replayed by the alarm (alarm.ts). Every entry is safe to write twice.
 */
import type { CheckinInsert } from "../../db/checkin/passages";
import type { OrderWrite } from "../../db/order-writes";
import type { ChangeWrite } from "../../db/order-changes";
import type { Hold } from "../../rules/inventory";
import type { StatusWrite } from "../../db/payments";
import type { Answer } from "../../db/schema";
import type { TicketChange } from "../../db/ticket-secrets";
import type { StoredPassage } from "./checkin-state";
import type { EventState } from "./state";
import type { AutoCheckin, CartRow } from "./types";

/**
 * A check-in as the object writes it to D1 (its `uid` makes the write idempotent). `report`: a
 * scan, reported to webhooks (`pretix.event.checkin`) in the same batch; automatic check-ins
 * and exits have none (pretix does not log them).
 */
export type PassageWrite = StoredPassage & {
  /** Its D1 id, when the object gave it one from its leased block (scan-answers.ts). */
  id?: number | null;
  created: number;
  forced: boolean;
  forceSent?: boolean;
  rawBarcode: string | null;
  rawSourceType: string | null;
  report?: { code: string; first: boolean };
};

export type OutboxEntry =
  | {
      kind: "order";
      write: OrderWrite;
      voucherUses: [number, number][];
      closedQuotaIds: number[];
      autoCheckins?: AutoCheckin[];
      /** Answered at the object (orders-answered.ts): D1 gets it with the ids the answer gave, stamped with the time D1 gets it. */
      answered?: boolean;
    }
  /** An order change (order-changes.ts): its write, and the holds the order had before it. */
  | { kind: "change"; write: ChangeWrite; before: Hold[] }
  | { kind: "carts"; rows: CartRow[] }
  | ({ kind: "status"; tickets?: TicketChange[] } & StatusWrite)
  | { kind: "tickets"; orderId: number; code: string; changes: TicketChange[]; orderSecret: string | null; now: number }
  | { kind: "checkin"; passage: PassageWrite; answers: Answer[] | null }
  /** A scan answered at the object that admitted no one: the refused scan's row, answers given at the door. */
  | { kind: "scan"; ticketId: number; failed: CheckinInsert | null; answers: Answer[] | null }
  | { kind: "annul"; uid: string; positionId: number; explanation: string | null; created: number }
  | { kind: "exit_all"; listId: number; fired: number; next: number; passages: PassageWrite[] };

export type OutboxKind<K extends OutboxEntry["kind"]> = Extract<OutboxEntry, { kind: K }>;

export function createOutboxTable(sql: SqlStorage): void {
  sql.exec(
    `CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created INTEGER NOT NULL)`,
  );
}

/** Stores an entry (callers run it inside the decision's `transactionSync`); its id. */
export function writeOutbox(s: EventState, entry: OutboxEntry, now: number): number {
  return s.sql
    .exec<{ id: number }>(
      "INSERT INTO outbox (payload, created) VALUES (?, ?) RETURNING id",
      JSON.stringify(entry),
      now,
    )
    .one().id;
}

/** D1 has the entry's write (or it was undone): the entry goes. */
export function clearOutbox(s: EventState, id: number): void {
  s.sql.exec("DELETE FROM outbox WHERE id = ?", id);
  s.inflight.delete(id);
}

/** Whether D1 took the write is unknown: the entry is no longer its request's, the alarm of this instance replays it. */
export async function handToAlarm(s: EventState, id: number): Promise<void> {
  s.inflight.delete(id);
  await s.storage.setAlarm(Date.now() + 5_000);
}

/** Whether an entry is the object's to write (no running request holds it). */
export function unheldEntries(s: EventState): { id: number; payload: string }[] {
  return outboxEntries(s).filter((e) => !s.inflight.has(e.id));
}

/** All stored entries, oldest first (each payload an `OutboxEntry` as JSON). */
export function outboxEntries(s: EventState): { id: number; payload: string }[] {
  return [...s.sql.exec<{ id: number; payload: string }>("SELECT id, payload FROM outbox ORDER BY id")];
}

export function outboxSize(s: EventState): number {
  return s.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n;
}
