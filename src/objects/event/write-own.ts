/**
 * A request that waits for its own entry (a decision D1 must have before its answer: an order
 * the object cannot answer alone, a status or content change, carts, ticket changes, an
 * annulment, a scan answered after D1) has it written at once, held, so that the writer leaves
 * it alone. Its batch carries what the answer reads back. Should the write fail, D1 is asked
 * whether it took it: taken or not, the request settles it (then the entry goes: drained or
 * dropped); when D1 cannot tell, the entry is released to the writer and the alarm replays it.
 */
import { retrySoon } from "./schedule";
import type { EventState } from "./state";

/** What a failed write leaves to its request: the error, and what D1 said when asked about it. */
export type Lost<A> = { error: unknown; asked: A };

/**
 * Writes entry `id` with `write` (its statements and what follows them); on success the entry
 * goes. On failure `ask` asks D1 about it (no time limit of the writer's: D1 is asked only once
 * the write is over, so a "not written" is final); a failed ask releases the entry to the
 * writer and throws the write's error. Otherwise the entry stays held for the request, which
 * drains (`s.outbox.remove`) or drops it.
 */
export async function writeOwn<T, A>(
  s: EventState,
  id: number,
  write: () => Promise<T>,
  ask: () => Promise<A>,
): Promise<{ written: T } | Lost<A>> {
  s.outbox.hold([id]);
  let value: T;
  try {
    value = await write();
  } catch (error) {
    let asked: A;
    try {
      asked = await ask();
    } catch {
      await handToAlarm(s, id);
      throw error;
    }
    return { error, asked };
  }
  s.outbox.remove(id);
  return { written: value };
}

/** Whether D1 took the write is unknown: the entry is the writer's again, and the alarm replays it. */
export async function handToAlarm(s: EventState, id: number): Promise<void> {
  s.outbox.release([id]);
  await retrySoon(s);
}
