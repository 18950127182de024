/**
 * Where an on-sale queue's objects are: its coordinator (named by the queue id) and its shards
 * (`<queueId>:<k>`, k < QUEUE_SHARDS; docs/onsale-queue.md).
 */
import type { Env } from "../../lib/env";

const DEFAULT_SHARDS = 16;
const MAX_SHARDS = 256;

/** QUEUE_SHARDS: how many shards a queue's joins and status requests spread over. */
export function queueShardCount(env: Env): number {
  const n = Number((env.QUEUE_SHARDS ?? "").trim() || DEFAULT_SHARDS);
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_SHARDS) : DEFAULT_SHARDS;
}

export function queueShard(env: Env, queueId: number, shard: number) {
  return env.QUEUE_SHARD.getByName(`${queueId}:${shard}`);
}

export function queueCoordinator(env: Env, queueId: number) {
  return env.QUEUE_COORDINATOR.getByName(String(queueId));
}
