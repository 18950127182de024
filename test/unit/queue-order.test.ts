/** The on-sale queue's pure rules: ordering keys, the admission schedule, the merge, the places. */
import { describe, expect, it } from "vitest";
import {
  admissionsDue,
  compareKeys,
  estimateBelow,
  nextAnchor,
  orderingKey,
  placeOf,
  pollSeconds,
  type QueueKey,
  quantiles,
  takeSmallest,
} from "../../src/rules/queue-order";

const OPENS = Date.UTC(2030, 0, 1, 10);

describe("orderingKey", () => {
  it("first come: the time, before and after the opening", () => {
    expect(orderingKey("first_come", OPENS - 5000, OPENS, 0.7)).toBe(OPENS - 5000);
    expect(orderingKey("first_come", OPENS + 5000, OPENS, 0.7)).toBe(OPENS + 5000);
  });

  it("shuffle: a random key before every later visitor's time, only before the opening", () => {
    const early = orderingKey("shuffle", OPENS - 1, OPENS, 0.999999);
    const earliest = orderingKey("shuffle", OPENS - 3_600_000, OPENS, 0);
    expect(early).toBeLessThan(0);
    expect(earliest).toBe(-1);
    expect(orderingKey("shuffle", OPENS, OPENS, 0.3)).toBe(OPENS);
    expect(early).toBeLessThan(orderingKey("shuffle", OPENS, OPENS, 0));
  });
});

describe("compareKeys", () => {
  it("orders by key, then by nonce", () => {
    const keys: QueueKey[] = [
      { key: 5, nonce: "b" },
      { key: -0.5, nonce: "z" },
      { key: 5, nonce: "a" },
    ];
    expect([...keys].sort(compareKeys).map((k) => k.nonce)).toEqual(["z", "a", "b"]);
  });
});

describe("admissionsDue", () => {
  const anchor = { at: OPENS, count: 0 };

  it("nobody before the opening, then exactly rate × elapsed minutes, floored", () => {
    expect(admissionsDue(600, anchor, 0, OPENS - 1)).toBe(0);
    expect(admissionsDue(600, anchor, 0, OPENS)).toBe(0);
    expect(admissionsDue(600, anchor, 0, OPENS + 999)).toBe(9);
    expect(admissionsDue(600, anchor, 0, OPENS + 60_000)).toBe(600);
    expect(admissionsDue(7, anchor, 0, OPENS + 8_599)).toBe(1);
    expect(admissionsDue(7, anchor, 0, OPENS + 8_572)).toBe(1);
    expect(admissionsDue(7, anchor, 0, OPENS + 8_571)).toBe(0);
  });

  it("only what is due beyond those already admitted, never negative", () => {
    expect(admissionsDue(600, anchor, 590, OPENS + 60_000)).toBe(10);
    expect(admissionsDue(600, anchor, 700, OPENS + 60_000)).toBe(0);
  });

  it("steps of any length add up to the rate (no rounding lost)", () => {
    let admitted = 0;
    for (let t = OPENS; t <= OPENS + 600_000; t += 997) admitted += admissionsDue(1234, anchor, admitted, t);
    expect(admitted).toBe(Math.floor((1234 * (600_000 - (600_000 % 997))) / 60_000));
  });

  it("a queue that ran dry restarts the schedule: no burst of saved-up time", () => {
    const after = nextAnchor(anchor, 10, 3, 3, OPENS + 1000);
    expect(after).toEqual({ at: OPENS + 1000, count: 3 });
    expect(admissionsDue(600, after, 3, OPENS + 601_000)).toBe(6000);
    expect(nextAnchor(anchor, 10, 10, 10, OPENS + 1000)).toBe(anchor);
    expect(nextAnchor(anchor, 0, 0, 0, OPENS + 1000)).toBe(anchor);
  });
});

describe("takeSmallest", () => {
  const k = (key: number, nonce = "n"): QueueKey => ({ key, nonce });

  it("takes the k smallest of all shards, counted per shard", () => {
    const lists = [[k(1), k(4), k(9)], [k(2), k(3)], [], [k(5)]];
    expect(takeSmallest(lists, 4)).toEqual([2, 2, 0, 0]);
    expect(takeSmallest(lists, 5)).toEqual([2, 2, 0, 1]);
    expect(takeSmallest(lists, 100)).toEqual([3, 2, 0, 1]);
    expect(takeSmallest(lists, 0)).toEqual([0, 0, 0, 0]);
  });

  it("equal keys: the smaller nonce first", () => {
    expect(takeSmallest([[k(1, "b")], [k(1, "a")]], 1)).toEqual([0, 1]);
  });
});

describe("quantiles and estimateBelow", () => {
  const keys = Array.from({ length: 1000 }, (_, i) => i * 10);
  const summary = { count: 1000, quantiles: quantiles(keys, 64) };

  it("a short list is its own summary, a long one keeps its ends", () => {
    expect(quantiles([1, 2, 3], 64)).toEqual([1, 2, 3]);
    expect(summary.quantiles).toHaveLength(64);
    expect(summary.quantiles[0]).toBe(0);
    expect(summary.quantiles[63]).toBe(9990);
  });

  it("estimates how many keys are below, exact at the ends, close in between", () => {
    expect(estimateBelow(summary, -5)).toBe(0);
    expect(estimateBelow(summary, 0)).toBe(0);
    expect(estimateBelow(summary, 10_000)).toBe(1000);
    for (const key of [55, 1234, 5000, 7777, 9985]) {
      const exact = keys.filter((x) => x < key).length;
      expect(Math.abs(estimateBelow(summary, key) - exact)).toBeLessThanOrEqual(10);
    }
    expect(estimateBelow({ count: 3, quantiles: [1, 5, 9] }, 6)).toBe(2);
    expect(estimateBelow({ count: 0, quantiles: [] }, 6)).toBe(0);
  });
});

describe("placeOf", () => {
  it("a shuffled queue has no places before it opens", () => {
    expect(placeOf({ order: "shuffle", opensAt: OPENS, rate: 60, now: OPENS - 1, before: 5, admitted: 0 })).toEqual({
      position: null,
      ahead: null,
      estimatedWaitSeconds: null,
    });
  });

  it("place, number ahead not yet admitted, and the wait at the rate", () => {
    expect(placeOf({ order: "shuffle", opensAt: OPENS, rate: 60, now: OPENS, before: 10, admitted: 4 })).toEqual({
      position: 11,
      ahead: 6,
      estimatedWaitSeconds: 7,
    });
    expect(
      placeOf({ order: "first_come", opensAt: OPENS, rate: 120, now: OPENS - 30_000, before: 0, admitted: 0 }),
    ).toEqual({ position: 1, ahead: 0, estimatedWaitSeconds: 31 });
  });

  it("poll_seconds: between 1 and 30, sooner when the turn is near", () => {
    expect(pollSeconds(null)).toBe(10);
    expect(pollSeconds(0)).toBe(1);
    expect(pollSeconds(20)).toBe(5);
    expect(pollSeconds(100_000)).toBe(30);
  });
});
