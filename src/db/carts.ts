/** Cart positions; every query is scoped by event. Writes go through the event object. */
import { and, eq, inArray, like, lt, sql } from "drizzle-orm";
import type { Statement } from "./batch";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type Page } from "./paging";
import { cartPositions } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type CartRowRecord = typeof cartPositions.$inferSelect;

const apiCarts = (eventId: number) => and(eq(cartPositions.eventId, eventId), like(cartPositions.cartId, "%@api"))!;

/** Children (add-ons and bundled positions) of the positions on a page of the list (the page as a subquery). */
function pageChildren(db: DB, eventId: number, req: ListRequest) {
  const page = db
    .select({ id: cartPositions.id })
    .from(cartPositions)
    .where(apiCarts(eventId))
    .orderBy(cartPositions.id)
    .limit(req.pageSize)
    .offset((req.page - 1) * req.pageSize);
  return db
    .select()
    .from(cartPositions)
    .where(and(eq(cartPositions.eventId, eventId), inArray(cartPositions.addonTo, page)));
}

/** A page of the API-created positions of the event (by id), with the children of the page's positions: one batch. */
export async function listCartPositions(
  db: DB,
  eventId: number,
  req: ListRequest,
): Promise<Page<CartRowRecord> & { children: CartRowRecord[] }> {
  const where = apiCarts(eventId);
  const rows = db.select().from(cartPositions).where(where).orderBy(cartPositions.id).$dynamic();
  const page = await fetchPage(
    db,
    { rows, count: { from: cartPositions, where } },
    req,
    pageChildren(db, eventId, req),
  );
  return { count: page.count, rows: page.rows, children: page.extra[0] };
}

/** The position `id` with its children (add-ons and bundled positions): one batch. */
export async function findCartPosition(
  db: DB,
  eventId: number,
  id: number,
): Promise<{ position: CartRowRecord; children: CartRowRecord[] } | undefined> {
  const [[position], children] = await db.batch([
    db
      .select()
      .from(cartPositions)
      .where(and(apiCarts(eventId), eq(cartPositions.id, id))),
    db
      .select()
      .from(cartPositions)
      .where(and(eq(cartPositions.eventId, eventId), eq(cartPositions.addonTo, id))),
  ]);
  return position ? { position, children } : undefined;
}

export async function cartsByHoldKeys(db: DB, eventId: number, holdKeys: string[]) {
  const out: CartRowRecord[] = [];
  for (const part of chunks(holdKeys, MAX_PARAMS - 5)) {
    out.push(
      ...(await db
        .select()
        .from(cartPositions)
        .where(and(eq(cartPositions.eventId, eventId), inArray(cartPositions.holdKey, part)))),
    );
  }
  return out;
}

/**
 * What releasing the position `id` needs, in one batch: the hold keys of the position and its
 * children (by addon_to), and the position itself when it is an API-created one of the event.
 */
export async function cartForDeletion(db: DB, eventId: number, id: number) {
  const [keys, [own]] = await db.batch([
    db
      .select({ holdKey: cartPositions.holdKey })
      .from(cartPositions)
      .where(
        and(eq(cartPositions.eventId, eventId), sql`(${cartPositions.id} = ${id} OR ${cartPositions.addonTo} = ${id})`),
      ),
    db
      .select({ holdKey: cartPositions.holdKey })
      .from(cartPositions)
      .where(and(apiCarts(eventId), eq(cartPositions.id, id))),
  ]);
  return { holdKeys: keys.map((k) => k.holdKey), own };
}

/** The rows of one cart (a shop's cart id), by id: base positions before their children. */
export async function cartRowsOf(db: DB, eventId: number, cartId: string): Promise<CartRowRecord[]> {
  return db
    .select()
    .from(cartPositions)
    .where(and(eq(cartPositions.eventId, eventId), eq(cartPositions.cartId, cartId)))
    .orderBy(cartPositions.id);
}

/** Expired cart rows (their holds stopped counting already); housekeeping deletes them. */
export async function deleteExpiredCarts(db: DB, now: number) {
  await db.delete(cartPositions).where(lt(cartPositions.expires, now - 60_000));
}

/** A cart position as the event object writes it; `addonToHoldKey`: its base position's hold key. */
export type CartRowInsert = Omit<typeof cartPositions.$inferInsert, "addonTo"> & { addonToHoldKey: string | null };

/** The inserts of cart rows (once each, by hold key); bases before their add-ons, which find the base's id by its hold key. */
export function cartRowInserts(db: DB, rows: readonly CartRowInsert[]): Statement[] {
  return rows.map(({ addonToHoldKey, ...r }) =>
    db
      .insert(cartPositions)
      .values({
        ...r,
        addonTo:
          addonToHoldKey === null
            ? null
            : sql<number>`(SELECT c2.id FROM cart_positions c2 WHERE c2.hold_key = ${addonToHoldKey})`,
      })
      .onConflictDoNothing({ target: cartPositions.holdKey }),
  );
}

/** The deletes of cart positions by hold key, returning the hold keys deleted (chunked: a position with its add-ons can exceed D1's parameter limit). */
export function cartDeletes(db: DB, eventId: number, holdKeys: readonly string[]): Statement[] {
  return chunks([...holdKeys], MAX_PARAMS - 5).map((part) =>
    db
      .delete(cartPositions)
      .where(and(eq(cartPositions.eventId, eventId), inArray(cartPositions.holdKey, part)))
      .returning({ holdKey: cartPositions.holdKey }),
  );
}
