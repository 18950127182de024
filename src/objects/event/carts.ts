/**
 * Sales: cart reservations. A group's holds are decided and recorded (the ledger's memory, rows
 * in the object's storage so that a restarted object rebuilds them, an outbox entry) without
 * yielding, then D1 gets the cart rows. A deletion writes D1 first, then releases the holds, so
 * an in-flight write never frees capacity twice. Expired carts stop counting by themselves; the
 * alarm prunes them.
 */
import { runBatch } from "../../db/batch";
import { cartDeletes, cartRowInserts, cartsByHoldKeys } from "../../db/carts";
import type { Demand } from "../../rules/inventory";
import { scheduleAlarm } from "./schedule";
import type { EventState } from "./state";
import type { CartGroup, CartRow, Decision } from "./types";
import { writeOwn } from "./write-own";

/** Holds a cart position (callers run it inside `transactionSync`). */
export function holdCart(s: EventState, holdKey: string, cartId: string, d: Demand, expires: number): void {
  s.ledger.addCart(holdKey, cartId, d, expires);
  const h = s.ledger.cart(holdKey)!;
  s.sql.exec(
    "INSERT OR REPLACE INTO holds (kind, ref, idx, grp, key, seat, voucher_id, expires, paid) VALUES ('cart', ?, 0, ?, ?, ?, ?, ?, 0)",
    holdKey,
    cartId,
    h.key,
    h.seat,
    h.voucherId,
    expires,
  );
}

/** Releases a cart position's hold (callers run it inside `transactionSync`). */
export function releaseCartHold(s: EventState, holdKey: string): void {
  s.ledger.removeCart(holdKey);
  s.sql.exec("DELETE FROM holds WHERE kind = 'cart' AND ref = ?", holdKey);
}

/**
 * Reserves cart positions. Each group (a position with its add-ons / bundled positions)
 * is decided on its own: bulk creation is not atomic across groups.
 */
export async function reserveCarts(s: EventState, stamp: number, groups: CartGroup[]): Promise<Decision[]> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  const decisions: Decision[] = [];
  const accepted: CartGroup[] = [];
  let outboxId = 0;
  s.storage.transactionSync(() => {
    for (const g of groups) {
      const refusals = s.ledger.check(g.demands, now);
      if (refusals.length) {
        decisions.push({ ok: false, refusals });
        continue;
      }
      g.demands.forEach((d, i) => holdCart(s, g.holdKeys[i]!, g.cartId, d, g.expires));
      accepted.push(g);
      decisions.push({ ok: true });
    }
    if (accepted.length) outboxId = s.outbox.write({ kind: "carts", rows: accepted.flatMap((g) => g.rows) }, now);
  });
  if (!accepted.length) return decisions;
  // As for orders: the batch is one transaction, but a failed call does not always say
  // whether it committed. D1 is asked (one of its rows tells): written → a success after all;
  // not written → the capacity goes back; unknown → the holds stay for the alarm, which
  // writes the rows (idempotently), or they expire.
  const outcome = await writeOwn(
    s,
    outboxId,
    () =>
      writeCartRows(
        s,
        accepted.flatMap((g) => g.rows),
      ),
    () => cartsByHoldKeys(s.db(), s.eventId, [accepted[0]!.holdKeys[0]!]).then((rows) => rows.length > 0),
  );
  if (!("written" in outcome) && !outcome.asked) {
    s.storage.transactionSync(() => {
      for (const g of accepted) for (const hk of g.holdKeys) releaseCartHold(s, hk);
      s.outbox.remove(outboxId);
    });
    throw outcome.error;
  }
  if (!("written" in outcome)) s.outbox.remove(outboxId);
  await scheduleAlarm(s);
  return decisions;
}

/** Writes cart rows to D1 (once each, by hold key): a reservation's, or the writer's replay of it. */
export async function writeCartRows(s: EventState, rows: CartRow[]): Promise<void> {
  const db = s.db();
  await runBatch(db, cartRowInserts(db, rows));
}

/** Deletes cart positions (D1 first, then their holds). Returns the hold keys deleted. */
export async function deleteCarts(s: EventState, holdKeys: string[]): Promise<string[]> {
  if (holdKeys.length === 0) return [];
  const db = s.db();
  let deleted: { holdKey: string }[][];
  try {
    deleted = (await runBatch(db, cartDeletes(db, s.eventId, holdKeys))) as { holdKey: string }[][];
  } catch (e) {
    // the answer may be lost: rows gone from D1 were deleted, and their holds go too
    const left = await cartsByHoldKeys(db, s.eventId, holdKeys).catch(() => null);
    if (left === null || left.length > 0) throw e;
    deleted = [holdKeys.map((holdKey) => ({ holdKey }))];
  }
  s.storage.transactionSync(() => {
    for (const hk of holdKeys) releaseCartHold(s, hk);
  });
  return deleted.flat().map((d) => d.holdKey);
}

/** Re-reads cart rows from D1 after a failed consumption and holds them again. */
export async function restoreCartHolds(s: EventState, holdKeys: string[]): Promise<void> {
  if (holdKeys.length === 0) return;
  const rows = await cartsByHoldKeys(s.db(), s.eventId, holdKeys);
  s.storage.transactionSync(() => {
    for (const r of rows) {
      holdCart(
        s,
        r.holdKey,
        r.cartId,
        {
          itemId: r.itemId,
          variationId: r.variationId,
          subeventId: r.subeventId,
          seat: r.seat,
          voucherId: r.voucherId,
        },
        r.expires,
      );
    }
  });
}

/** Releases the holds of carts that expired (the alarm). */
export function releaseExpiredCarts(s: EventState, now: number): void {
  s.storage.transactionSync(() => {
    for (const hk of s.ledger.expiredCarts(now)) releaseCartHold(s, hk);
  });
}
