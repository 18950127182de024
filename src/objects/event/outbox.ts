/**
 * The outbox: a decision's D1 write, stored in the object's SQLite in the same synchronous
 * transaction as the decision, until D1 has it (durable before acknowledged). Everything this
 * instance knows of an entry is here (`Outbox`): its row, whether a write of it is under way,
 * whether it was ever sent, and when the alarm must look at the entries the writer has not
 * written. Its life, as a table: docs/event-object.md "An outbox entry's life".
 */
import type { PassageRow, CheckinInsert } from "../../db/checkin/passages";
import type { OrderWrite } from "../../db/order-writes";
import type { ChangeWrite } from "../../db/order-changes";
import type { Hold } from "../../rules/inventory";
import type { StatusWrite } from "../../db/payments";
import type { Answer } from "../../db/schema";
import type { TicketChange } from "../../db/ticket-secrets";
import type { AutoCheckin, CartRow } from "./types";

/** A check-in as the object writes it to D1 (db/checkin/passages.ts; its `uid` makes the write idempotent). */
export type PassageWrite = PassageRow;

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

/** A stored entry with its id. */
export type Held<E extends OutboxEntry = OutboxEntry> = { id: number; entry: E };

/**
 * The one backpressure rule: with this many entries D1 does not have yet, no decision is
 * answered before D1 has it (orders and scans are then written before their answer, after what
 * the object answered before). What D1 owes stays within what its writer clears in a few
 * seconds, and a rush beyond the writer's pace is slowed to it instead of piling up.
 */
export const AHEAD_LIMIT = 200;

/** The outbox of one object: its table and what this instance knows of each entry. */
export class Outbox {
  /** Entries a D1 write is carrying now (the writer's batch, or the request that waits for its own). */
  private readonly held = new Set<number>();
  /** Entries written by this instance and never sent: D1 cannot have them (no "ask D1" before their first write). */
  private readonly untried = new Set<number>();
  /** The writer's drain under way, if any (`again`: an entry came meanwhile, look again before ending). */
  drain: { again: boolean; done: Promise<boolean> } | null = null;
  /**
   * When the alarm is to look at the entries no write carries: set whenever the writer starts
   * (its deadline) or fails (its retry). 0: at once (entries a previous instance left).
   */
  retryAt = 0;

  constructor(private readonly sql: SqlStorage) {}

  createTable(): void {
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created INTEGER NOT NULL)`,
    );
  }

  /** Written: stores an entry (callers run it inside the decision's `transactionSync`); its id. */
  write(entry: OutboxEntry, now: number): number {
    const id = this.sql
      .exec<{ id: number }>(
        "INSERT INTO outbox (payload, created) VALUES (?, ?) RETURNING id",
        JSON.stringify(entry),
        now,
      )
      .one().id;
    this.untried.add(id);
    return id;
  }

  /** Drained (D1 has it) or dropped (D1 will never have it, the decision undone or logged): the entry goes. */
  remove(id: number): void {
    this.sql.exec("DELETE FROM outbox WHERE id = ?", id);
    this.held.delete(id);
    this.untried.delete(id);
  }

  /** Held: a write of these entries begins. */
  hold(ids: readonly number[]): void {
    for (const id of ids) this.held.add(id);
  }

  /** The write failed: the entries wait for the writer again, as tried ones (D1 may have them). */
  release(ids: readonly number[]): void {
    for (const id of ids) {
      this.held.delete(id);
      this.untried.delete(id);
    }
  }

  /** Whether D1 may have the entry's write (it was sent before, by this instance or one before it). */
  mayBeInD1(id: number): boolean {
    return !this.untried.has(id);
  }

  /** The entries no write carries, oldest first. */
  waiting(): Held[] {
    return [...this.sql.exec<{ id: number; payload: string }>("SELECT id, payload FROM outbox ORDER BY id")]
      .filter((e) => !this.held.has(e.id))
      .map((e) => ({ id: e.id, entry: JSON.parse(e.payload) as OutboxEntry }));
  }

  /** How many entries D1 does not have yet. */
  size(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n;
  }

  /** Whether some entry waits for the writer (none carried by a write). */
  hasWaiting(): boolean {
    return this.size() > this.held.size;
  }

  /** The backpressure rule (`AHEAD_LIMIT`): D1 is too far behind for a decision to be answered before it. */
  behind(): boolean {
    return this.size() >= AHEAD_LIMIT;
  }

  /** The event was deleted (its storage emptied by the caller). */
  forget(): void {
    this.held.clear();
    this.untried.clear();
    this.retryAt = 0;
  }
}
