/**
 * A live subscriber's slot (src/objects/live/slot.ts): while one message is being written, newer
 * ones replace each other, so a slow reader is sent the latest; a keep-alive never displaces a
 * state; a subscriber whose write fails is closed once.
 */
import { describe, expect, it } from "vitest";
import { LatestSlot } from "../../src/objects/live/slot";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** A reader that takes each chunk only when `release` is called. */
function slowReader() {
  const written: string[] = [];
  const waiting: (() => void)[] = [];
  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve) => {
      written.push(text(chunk));
      waiting.push(resolve);
    });
  const release = async () => {
    waiting.shift()?.();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { written, write, release };
}

describe("LatestSlot", () => {
  it("writes the first message at once and, of those offered meanwhile, only the latest", async () => {
    const r = slowReader();
    const slot = new LatestSlot(r.write, () => {});
    slot.offer(bytes("state 1"));
    for (let i = 2; i <= 9; i++) slot.offer(bytes(`state ${i}`));
    expect(r.written).toEqual(["state 1"]);
    await r.release();
    expect(r.written).toEqual(["state 1", "state 9"]);
    await r.release();
    expect(r.written).toEqual(["state 1", "state 9"]);
    slot.offer(bytes("state 10"));
    expect(r.written).toEqual(["state 1", "state 9", "state 10"]);
  });

  it("sends a keep-alive only when nothing is written or waiting", async () => {
    const r = slowReader();
    const slot = new LatestSlot(r.write, () => {});
    slot.offer(bytes("state 1"));
    slot.offer(bytes("state 2"));
    slot.offerIfIdle(bytes(": keep-alive"));
    await r.release();
    await r.release();
    expect(r.written).toEqual(["state 1", "state 2"]);
    slot.offerIfIdle(bytes(": keep-alive"));
    expect(r.written).toEqual(["state 1", "state 2", ": keep-alive"]);
  });

  it("closes once when a write fails, and takes nothing afterwards", async () => {
    let closed = 0;
    let writes = 0;
    const slot = new LatestSlot(
      async () => {
        writes++;
        throw new Error("the subscriber left");
      },
      () => closed++,
    );
    slot.offer(bytes("state 1"));
    await new Promise((r) => setTimeout(r, 0));
    expect(slot.isOpen).toBe(false);
    slot.offer(bytes("state 2"));
    slot.close();
    expect({ closed, writes }).toEqual({ closed: 1, writes: 1 });
  });
});
