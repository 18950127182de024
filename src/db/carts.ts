/** Cart positions; every query is scoped by event. Writes go through the event object. */
import { and, count, eq, inArray, like, lt, sql } from "drizzle-orm";
import type { DB } from "./client";
import { cartPositions } from "./schema";
import { chunks, MAX_PARAMS } from "./util";

export type CartRowRecord = typeof cartPositions.$inferSelect;

const apiCarts = (eventId: number) => and(eq(cartPositions.eventId, eventId), like(cartPositions.cartId, "%@api"))!;

export const cartCount = (db: DB, eventId: number) => db.select({ n: count() }).from(cartPositions).where(apiCarts(eventId));
export const cartPage = (db: DB, eventId: number, limit: number, offset: number) =>
  db.select().from(cartPositions).where(apiCarts(eventId)).orderBy(cartPositions.id).limit(limit).offset(offset);

/** The position `id` (as a list of at most one row, for batches). */
export const cartById = (db: DB, eventId: number, id: number) => db.select().from(cartPositions).where(and(apiCarts(eventId), eq(cartPositions.id, id)));

export async function cartsByHoldKeys(db: DB, eventId: number, holdKeys: string[]) {
  const out: CartRowRecord[] = [];
  for (const part of chunks(holdKeys, MAX_PARAMS - 5)) {
    out.push(...(await db.select().from(cartPositions).where(and(eq(cartPositions.eventId, eventId), inArray(cartPositions.holdKey, part)))));
  }
  return out;
}

/** A position and its add-ons / bundled positions (children by addon_to), for deletion. */
export const cartWithChildren = (db: DB, eventId: number, id: number) =>
  db
    .select({ holdKey: cartPositions.holdKey })
    .from(cartPositions)
    .where(and(eq(cartPositions.eventId, eventId), sql`(${cartPositions.id} = ${id} OR ${cartPositions.addonTo} = ${id})`));

/** Children (add-ons and bundled positions) of the position `id`. */
export const cartChildren = (db: DB, eventId: number, id: number) =>
  db.select().from(cartPositions).where(and(eq(cartPositions.eventId, eventId), eq(cartPositions.addonTo, id)));

/** Children of the positions on a page of cartPage (same batch: the page as a subquery). */
export const cartPageChildren = (db: DB, eventId: number, limit: number, offset: number) =>
  db
    .select()
    .from(cartPositions)
    .where(
      and(
        eq(cartPositions.eventId, eventId),
        inArray(cartPositions.addonTo, db.select({ id: cartPositions.id }).from(cartPositions).where(apiCarts(eventId)).orderBy(cartPositions.id).limit(limit).offset(offset)),
      ),
    );

/** Expired cart rows (their holds stopped counting already); housekeeping deletes them. */
export async function deleteExpiredCarts(db: DB, now: number) {
  await db.delete(cartPositions).where(lt(cartPositions.expires, now - 60_000));
}
