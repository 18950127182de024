/**
 * An on-sale queue's coordinator (one per queue, named by its id; docs/onsale-queue.md), never
 * called by visitors. Each second (an alarm) it reads the queue's row, asks every shard for its
 * smallest waiting keys, admits exactly the visitors the schedule makes due — the smallest keys
 * of all shards — and pushes each shard its frontier with the summaries every shard needs to
 * estimate places. Its count of admitted visitors is the truth; a shard that missed a push gets
 * its frontier again with the next request (applying one is idempotent).
 */
import { DurableObject } from "cloudflare:workers";
import { createDb } from "../../db/client";
import { findOnsaleQueue, type OnsaleQueueRow } from "../../db/onsale-queues";
import { groupDatabase, groupOfId } from "../../lib/data-groups";
import type { Env } from "../../lib/env";
import { log } from "../../lib/log";
import { admissionsDue, nextAnchor, type Schedule, type ShardSummary, takeSmallest } from "../../rules/queue-order";
import { queueShardCount, queueShard } from "./names";
import type { Candidates, Frontier, QueueCounters, QueueSettings } from "./types";

/** At most this many visitors are admitted in one step (the rest in the next ones). */
const MAX_STEP = 5_000;
const STEP_MS = 1_000;
/** Before the opening, summaries (for first come places) are gathered this often. */
const BEFORE_OPENING_STEP_MS = 5_000;
/** After this long without a new visitor and nobody waiting, the coordinator sleeps until a join wakes it. */
const IDLE_MS = 60_000;

type CoordinatorState = {
  queueId: number;
  eventId: number;
  /** The organizer group whose database holds the queue (as the last change said; else its id's range). */
  group?: number;
  shards: number;
  admitted: number;
  joined: number;
  joinedChangedAt: number;
  /** The schedule, and the opening it was started from (a new `opens_at` starts it again). */
  anchor: Schedule | null;
  anchorOpensAt: number | null;
  frontiers: (Frontier | null)[];
  closed: boolean;
};

export function settingsOf(row: OnsaleQueueRow): QueueSettings {
  return {
    queueId: row.id,
    eventId: row.eventId,
    subeventId: row.subeventId,
    opensAt: row.opensAt,
    arrivalOrder: row.arrivalOrder,
    admissionsPerMinute: row.admissionsPerMinute,
    admissionMinutes: row.admissionMinutes,
    ordersPerAdmission: row.ordersPerAdmission,
  };
}

export class QueueCoordinator extends DurableObject<Env> {
  private state: CoordinatorState | null = null;
  private summaries: ShardSummary[] = [];
  /** The step under way (the alarm's or a change's). */
  private stepping: Promise<void> = Promise.resolve();

  private async load(queueId: number, eventId: number): Promise<CoordinatorState> {
    this.state ??= (await this.ctx.storage.get<CoordinatorState>("state")) ?? null;
    if (!this.state) {
      this.state = this.fresh(queueId, eventId);
      await this.ctx.storage.put("state", this.state);
    }
    // more shards configured since: use them too (never fewer: their visitors stay in the queue)
    this.state.shards = Math.max(this.state.shards, queueShardCount(this.env));
    return this.state;
  }

  private fresh(queueId: number, eventId: number): CoordinatorState {
    return {
      queueId,
      eventId,
      shards: queueShardCount(this.env),
      admitted: 0,
      joined: 0,
      joinedChangedAt: Date.now(),
      anchor: null,
      anchorOpensAt: null,
      frontiers: [],
      closed: false,
    };
  }

  /** A shard saw a visitor while the coordinator was quiet: step soon. */
  async wake(queueId: number, eventId: number): Promise<void> {
    await this.load(queueId, eventId);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * The queue was changed, deactivated or deleted: one step now, done before this returns (a
   * closed queue has told its shards). Should it fail, the alarm set first steps again.
   */
  async changed(queueId: number, eventId: number, group: number): Promise<void> {
    const s = await this.load(queueId, eventId);
    if (s.group !== group) {
      s.group = group;
      await this.ctx.storage.put("state", s);
    }
    await this.ctx.storage.setAlarm(Date.now() + STEP_MS);
    await this.stepInTurn();
  }

  /** The organizer resource's counters (as of the last step). */
  async counters(): Promise<QueueCounters> {
    const s = this.state ?? (await this.ctx.storage.get<CoordinatorState>("state"));
    return { joined: s?.joined ?? 0, admitted: s?.admitted ?? 0 };
  }

  override alarm(): Promise<void> {
    return this.stepInTurn();
  }

  /** Runs a step after the one under way, if any: steps never interleave at their awaits. */
  private stepInTurn(): Promise<void> {
    const run = this.stepping.then(() => this.stepAndSave());
    this.stepping = run.catch(() => undefined);
    return run;
  }

  private async stepAndSave(): Promise<void> {
    const s = this.state ?? (await this.ctx.storage.get<CoordinatorState>("state"));
    if (!s) return;
    this.state = s;
    const next = await this.step(s, Date.now());
    await this.ctx.storage.put("state", s);
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }

  /** One step; returns when the next is due (null: none until woken). */
  private async step(s: CoordinatorState, now: number): Promise<number | null> {
    const d1 = groupDatabase(this.env, s.group ?? groupOfId(s.queueId));
    const row = await findOnsaleQueue(createDb(d1), s.eventId, s.queueId);
    if (!row?.active) {
      s.closed = true;
      if (row) await this.push(s, settingsOf(row), now);
      else await this.closeShards(s, now);
      return null;
    }
    s.closed = false;
    const settings = settingsOf(row);
    const open = now >= settings.opensAt;
    if (!open || s.anchorOpensAt !== settings.opensAt) s.anchor = null;
    if (open && !s.anchor) s.anchor = { at: settings.opensAt, count: 0 };
    s.anchorOpensAt = open ? settings.opensAt : null;
    const due = s.anchor ? admissionsDue(settings.admissionsPerMinute, s.anchor, s.admitted, now) : 0;
    const k = Math.min(due, MAX_STEP);
    const answers = await this.candidates(s, k);
    if (!answers) return now + STEP_MS;
    const taken = takeSmallest(
      answers.map((a) => a.keys),
      k,
    );
    const total = taken.reduce((n, t) => n + t, 0);
    taken.forEach((t, i) => {
      if (t > 0) s.frontiers[i] = { ...answers[i]!.keys[t - 1]!, seq: answers[i]!.maxSeq, at: now };
    });
    s.admitted += total;
    if (s.anchor) s.anchor = nextAnchor(s.anchor, k, total, s.admitted, now);
    this.summaries = answers.map((a) => a.summary);
    const joined = this.summaries.reduce((n, x) => n + x.count, 0);
    if (joined !== s.joined) s.joinedChangedAt = now;
    s.joined = joined;
    // the decision is stored before any shard hears of it
    await this.ctx.storage.put("state", s);
    await this.push(s, settings, now);
    if (!open) return Math.min(now + BEFORE_OPENING_STEP_MS, settings.opensAt);
    const waiting = joined - s.admitted;
    return waiting > 0 || now - s.joinedChangedAt < IDLE_MS ? now + STEP_MS : null;
  }

  /** Every shard's candidates, or null when one did not answer (this step admits nobody). */
  private async candidates(s: CoordinatorState, k: number): Promise<Candidates[] | null> {
    try {
      return await Promise.all(
        Array.from({ length: s.shards }, (_, i) =>
          queueShard(this.env, s.queueId, i).candidates(k, s.frontiers[i] ?? null),
        ),
      );
    } catch (e) {
      log.warn("queue shard did not answer; the step admits nobody", { queue_id: s.queueId, error: e });
      return null;
    }
  }

  private async push(s: CoordinatorState, settings: QueueSettings, now: number): Promise<void> {
    const summaries = this.summaries;
    const results = await Promise.allSettled(
      Array.from({ length: s.shards }, (_, i) =>
        queueShard(this.env, s.queueId, i).advance(
          { settings, closed: s.closed, frontier: s.frontiers[i] ?? null, summaries, admitted: s.admitted, at: now },
          i,
        ),
      ),
    );
    const failed = results.filter((r) => r.status === "rejected").length;
    if (failed) log.warn("queue push missed shards; they get it with the next step", { queue_id: s.queueId, failed });
  }

  /** The queue's row is gone: every shard closes (its visitors see "closed"). */
  private async closeShards(s: CoordinatorState, now: number): Promise<void> {
    await Promise.allSettled(Array.from({ length: s.shards }, (_, i) => queueShard(this.env, s.queueId, i).close(now)));
  }
}
