/**
 * The on-sale queue's pure decisions (docs/onsale-queue.md): each visitor's ordering key, the
 * order of keys across shards, how many visitors are due for admission at a moment, the merge
 * of the shards' candidates, and the estimates a visitor is shown (place, number ahead, wait).
 */

export type ArrivalOrder = "shuffle" | "first_come";

/** A visitor's place in the queue: smaller first; `nonce` breaks ties (nonces are unique). */
export type QueueKey = { key: number; nonce: string };

/**
 * The ordering key of a visitor who joined at `joinedAt`. First come: the time. Shuffle: a
 * visitor before the opening gets `random − 1` (`random` uniform in [0, 1)), so all of them come
 * in a uniformly random order before every later visitor, whose key is the time (always > 0).
 */
export function orderingKey(order: ArrivalOrder, joinedAt: number, opensAt: number, random: number): number {
  if (order === "shuffle" && joinedAt < opensAt) return random - 1;
  return joinedAt;
}

export function compareKeys(a: QueueKey, b: QueueKey): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0;
}

/**
 * The admission schedule: from `anchor.at` on, `rate` visitors a minute on top of `anchor.count`.
 * The anchor starts at the opening with 0; when the queue ran dry the anchor moves to that
 * moment, so time nobody waited is not saved up into a burst later.
 */
export type Schedule = { at: number; count: number };

/** How many more visitors are due at `now` (never negative). */
export function admissionsDue(rate: number, anchor: Schedule, admitted: number, now: number): number {
  if (now < anchor.at) return 0;
  const target = anchor.count + Math.floor((rate * (now - anchor.at)) / 60_000);
  return Math.max(0, target - admitted);
}

/**
 * The anchor after a step that admitted `admitted` in total at `now`, `due` of them due and
 * `taken` actually admitted: a step that found fewer waiting than due restarts the schedule.
 */
export function nextAnchor(anchor: Schedule, due: number, taken: number, admitted: number, now: number): Schedule {
  return taken < due ? { at: now, count: admitted } : anchor;
}

/**
 * The `k` smallest of the shards' candidates (each list sorted, as a shard answers): the
 * visitors to admit now, in order. Returns how many to take from each shard.
 */
export function takeSmallest(lists: QueueKey[][], k: number): number[] {
  const taken = lists.map(() => 0);
  for (let n = 0; n < k; n++) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const c = lists[i]![taken[i]!];
      if (c && (best < 0 || compareKeys(c, lists[best]![taken[best]!]!) < 0)) best = i;
    }
    if (best < 0) break;
    taken[best]!++;
  }
  return taken;
}

/**
 * Up to `points` keys spread evenly over a sorted list (its first and last included): what a
 * shard reports so that the others can estimate how many of its visitors come before a key.
 */
export function quantiles(sortedKeys: number[], points: number): number[] {
  const n = sortedKeys.length;
  if (n <= points) return [...sortedKeys];
  const out: number[] = [];
  for (let i = 0; i < points; i++) out.push(sortedKeys[Math.round((i * (n - 1)) / (points - 1))]!);
  return out;
}

/** A shard's summary: how many visitors it has and its keys' quantiles. */
export type ShardSummary = { count: number; quantiles: number[] };

/** The estimated number of a shard's visitors whose key is below `key` (linear between quantiles). */
export function estimateBelow(s: ShardSummary, key: number): number {
  const q = s.quantiles;
  if (s.count === 0 || q.length === 0 || key <= q[0]!) return 0;
  if (key > q[q.length - 1]!) return s.count;
  if (q.length === s.count) return q.filter((x) => x < key).length;
  let lo = 0;
  while (lo + 1 < q.length && q[lo + 1]! < key) lo++;
  const a = q[lo]!;
  const b = q[lo + 1]!;
  const frac = b > a ? (key - a) / (b - a) : 0.5;
  const step = (s.count - 1) / (q.length - 1);
  return Math.min(s.count, Math.round((lo + frac) * step) + 1);
}

export type Place = { position: number | null; ahead: number | null; estimatedWaitSeconds: number | null };

/**
 * What a waiting visitor is shown. `before` is how many visitors (all shards) have a smaller key,
 * `admitted` how many the queue has admitted. A shuffled queue has no places before it opens.
 */
export function placeOf(input: {
  order: ArrivalOrder;
  opensAt: number;
  rate: number;
  now: number;
  before: number;
  admitted: number;
}): Place {
  if (input.order === "shuffle" && input.now < input.opensAt) {
    return { position: null, ahead: null, estimatedWaitSeconds: null };
  }
  const position = input.before + 1;
  const ahead = Math.max(0, input.before - input.admitted);
  const untilOpening = Math.max(0, input.opensAt - input.now) / 1000;
  const estimatedWaitSeconds = Math.ceil(untilOpening + ((ahead + 1) * 60) / input.rate);
  return { position, ahead, estimatedWaitSeconds };
}

/** When a visitor should ask again: sooner when its turn is near, never more often than each second. */
export function pollSeconds(estimatedWaitSeconds: number | null): number {
  if (estimatedWaitSeconds === null) return 10;
  return Math.min(30, Math.max(1, Math.floor(estimatedWaitSeconds / 4)));
}
