/**
 * The outbox's entry kinds, in one place: for each, how the writer batches it, the write that
 * makes D1 hold it (its statements, from src/db/, and what follows the write: the index, the
 * scan rows, mails and webhook calls handed on), and what a write D1 refuses for good does to
 * it. Every write is safe to repeat (the alarm's replay).
 */
import { replayAnnul } from "./annul";
import { writeCartRows } from "./carts";
import { replayExitAll } from "./exits";
import { replayChange } from "./order-changes";
import { replayStatus } from "./orders";
import { writeOrders } from "./orders-answered";
import type { Held, OutboxEntry, OutboxKind } from "./outbox";
import { SCAN_BATCH, writeScans } from "./scan-writes";
import type { EventState } from "./state";
import { replayTickets } from "./tickets";

type Kind<K extends OutboxEntry["kind"]> = {
  /**
   * Which entries share a D1 batch: consecutive entries of the same `group` (at most `most`,
   * or as many as `take` says), one alone when it has none.
   */
  batch?: { group: string; most?: number; take?: (entries: readonly OutboxKind<K>[]) => number };
  /** Makes D1 hold the entries (one batch) and does what follows; idempotent. */
  write(s: EventState, held: readonly Held<OutboxKind<K>>[], now: number): Promise<unknown>;
  /** A write D1 refuses for good: "drop" logs and drops the entry (its decision cannot be stored any more), "keep" leaves it for the alarm. */
  refused: "drop" | "keep";
};

const alone =
  <K extends OutboxEntry["kind"]>(write: (s: EventState, e: OutboxKind<K>, now: number) => Promise<unknown>) =>
  (s: EventState, held: readonly Held<OutboxKind<K>>[], now: number) =>
    write(s, held[0]!.entry, now);

const scans = (s: EventState, held: readonly Held<OutboxKind<"checkin" | "scan">>[], now: number) =>
  writeScans(
    s,
    held.map((h) => h.entry),
    now,
  );

export const KINDS: { [K in OutboxEntry["kind"]]: Kind<K> } = {
  // orders (answered at the object or not): several to a batch, D1 asked first about those it may have
  order: { batch: { group: "orders", take: ordersFit }, write: writeOrders, refused: "keep" },
  checkin: { batch: { group: "scans", most: SCAN_BATCH }, write: scans, refused: "drop" },
  scan: { batch: { group: "scans", most: SCAN_BATCH }, write: scans, refused: "drop" },
  status: { write: alone(replayStatus), refused: "keep" },
  change: { write: alone(replayChange), refused: "keep" },
  carts: { write: alone((s, e) => writeCartRows(s, e.rows)), refused: "keep" },
  tickets: { write: alone(replayTickets), refused: "keep" },
  annul: { write: alone(replayAnnul), refused: "keep" },
  exit_all: { write: alone(replayExitAll), refused: "keep" },
};

/** At most this many statements go into one batch of orders (a batch holds at least one order). */
const ORDER_BATCH_STATEMENTS = 200;

/** How many of `entries`, from the first, go into one batch. */
function ordersFit(entries: readonly OutboxKind<"order">[]): number {
  let statements = 0;
  let n = 0;
  for (const e of entries) {
    statements += 12 + e.write.positions.length + e.write.fees.length + e.write.mails.length;
    if (n > 0 && statements > ORDER_BATCH_STATEMENTS) break;
    n++;
  }
  return n;
}

/** The entries from `i` that go into one D1 batch. */
export function nextBatch(entries: readonly Held[], i: number): Held[] {
  const kind = KINDS[entries[i]!.entry.kind] as Kind<OutboxEntry["kind"]>;
  if (!kind.batch) return [entries[i]!];
  const { group, most, take } = kind.batch;
  let j = i;
  while (j < entries.length && (most === undefined || j - i < most)) {
    const k = KINDS[entries[j]!.entry.kind] as Kind<OutboxEntry["kind"]>;
    if (k.batch?.group !== group) break;
    j++;
  }
  const run = entries.slice(i, j);
  return take ? run.slice(0, take(run.map((e) => e.entry))) : run;
}

/** Writes a batch `nextBatch` chose (its entries are of one kind, or of one group). */
export function writeBatch(s: EventState, batch: readonly Held[], now: number): Promise<unknown> {
  const kind = KINDS[batch[0]!.entry.kind] as Kind<OutboxEntry["kind"]>;
  return kind.write(s, batch, now);
}

/** What a refusal for good does to the entry's kind. */
export const onRefusal = (e: OutboxEntry): "drop" | "keep" => KINDS[e.kind].refused;
