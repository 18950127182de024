/**
 * What the on-sale queue's objects say to each other and to the Worker (docs/onsale-queue.md):
 * the queue's settings as the shards need them, a shard's candidates and summary for the
 * coordinator, the coordinator's push, and a visitor's state as a shard answers it.
 */
import type { ArrivalOrder, QueueKey, ShardSummary } from "../../rules/queue-order";

/** A queue's settings (from its row in D1), as the shards and the coordinator use them. */
export type QueueSettings = {
  queueId: number;
  eventId: number;
  subeventId: number | null;
  opensAt: number;
  arrivalOrder: ArrivalOrder;
  admissionsPerMinute: number;
  admissionMinutes: number;
  ordersPerAdmission: number;
};

/** A shard's latest admission frontier: its visitors up to `seq` with keys up to `key` are admitted. */
export type Frontier = QueueKey & { seq: number; at: number };

/** A shard's answer to the coordinator: its smallest waiting keys (sorted) and its summary. */
export type Candidates = { keys: QueueKey[]; maxSeq: number; summary: ShardSummary };

/** What the coordinator pushes to every shard each step. */
export type Push = {
  settings: QueueSettings;
  closed: boolean;
  /** This shard's frontier (null: none of its visitors admitted yet). */
  frontier: Frontier | null;
  /** Every shard's summary, by shard number (a shard skips its own). */
  summaries: ShardSummary[];
  admitted: number;
  at: number;
};

export type VisitorState = "waiting" | "admitted" | "expired" | "closed";

/** A visitor's state as its shard answers it (the Worker serializes it as `QueueStatus`). */
export type VisitorStatus = {
  state: VisitorState;
  opensAt: number;
  position: number | null;
  ahead: number | null;
  estimatedWaitSeconds: number | null;
  pollSeconds: number;
  admission: { token: string; expires: number; ordersAllowed: number } | null;
};

/** The counters of the organizer's resource. */
export type QueueCounters = { joined: number; admitted: number };
