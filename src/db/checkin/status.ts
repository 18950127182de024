/**
 * A check-in list's status (pretix docs checkinlists.rst `.../checkinlists/{id}/status/`): its
 * tickets and check-ins in total, by product and variation, and its scans by how they came in.
 */
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { rawRows } from "../raw";
import { checkinListItems, events, itemCategories, items, itemVariations, subevents } from "../schema";
import { type CheckinListRow, checkinListTicketsSql } from "./lists";

/** Scans on a list by how they reached the service (successful ones, and refused ones). */
export type ScanCounts = {
  online: number;
  uploaded: number;
  automatic: number;
  failedOnline: number;
  failedUploaded: number;
};

/** The numbers of the list's status (pretix: `.../checkinlists/{id}/status/`), one round trip. */
export async function checkinListStatus(db: DB, list: CheckinListRow) {
  const onList = checkinListTicketsSql(list);
  const entered = sql`EXISTS (SELECT 1 FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 AND c.type = 'entry')`;
  const inside = sql`(SELECT c.type FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 ORDER BY c.datetime DESC, c.id DESC LIMIT 1) = 'entry'`;
  const byKey = (key: SQL) =>
    rawRows<{ k: number | null; positions: number; checkins: number }>(
      db,
      sql`SELECT ${key} AS k, count(*) AS positions, sum(CASE WHEN ${entered} THEN 1 ELSE 0 END) AS checkins
      FROM order_positions p WHERE p.event_id = ${list.eventId} AND ${onList} GROUP BY ${key}`,
    );
  const listItems = list.allProducts
    ? db
        .select({ id: items.id, name: items.name, admission: items.admission })
        .from(items)
        .leftJoin(itemCategories, eq(itemCategories.id, items.categoryId))
        .where(eq(items.eventId, list.eventId))
        .orderBy(asc(itemCategories.position), asc(items.position), asc(items.id))
    : db
        .select({ id: items.id, name: items.name, admission: items.admission })
        .from(items)
        .innerJoin(checkinListItems, and(eq(checkinListItems.itemId, items.id), eq(checkinListItems.listId, list.id)))
        .leftJoin(itemCategories, eq(itemCategories.id, items.categoryId))
        .where(eq(items.eventId, list.eventId))
        .orderBy(asc(itemCategories.position), asc(items.position), asc(items.id));
  const ok = (cond: SQL) => sql`coalesce(sum(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`;
  const [totals, itemCounts, variationCounts, itemRowsRead, variationRows, eventRow, subeventRow, scanRows] =
    await db.batch([
      rawRows<{ positions: number; checkins: number; inside: number }>(
        db,
        sql`SELECT count(*) AS positions, coalesce(sum(CASE WHEN ${entered} THEN 1 ELSE 0 END), 0) AS checkins,
      coalesce(sum(CASE WHEN ${inside} THEN 1 ELSE 0 END), 0) AS inside
      FROM order_positions p WHERE p.event_id = ${list.eventId} AND ${onList}`,
      ),
      byKey(sql`p.item_id`),
      byKey(sql`p.variation_id`),
      listItems,
      db
        .select({ id: itemVariations.id, itemId: itemVariations.itemId, value: itemVariations.value })
        .from(itemVariations)
        .innerJoin(items, eq(items.id, itemVariations.itemId))
        .where(eq(items.eventId, list.eventId))
        .orderBy(asc(itemVariations.position), asc(itemVariations.id)),
      db.select({ name: events.name }).from(events).where(eq(events.id, list.eventId)),
      db
        .select({ name: subevents.name })
        .from(subevents)
        .where(eq(subevents.id, list.subeventId ?? -1)),
      // scans on the list: decided at once, or made offline and uploaded later (the client sent force)
      rawRows<ScanCounts>(
        db,
        sql`SELECT ${ok(sql`successful = 1 AND auto_checked_in = 0 AND force_sent = 0`)} AS online,
      ${ok(sql`successful = 1 AND force_sent = 1`)} AS uploaded, ${ok(sql`successful = 1 AND auto_checked_in = 1`)} AS automatic,
      ${ok(sql`successful = 0 AND force_sent = 0`)} AS failedOnline, ${ok(sql`successful = 0 AND force_sent = 1`)} AS failedUploaded
      FROM checkins WHERE list_id = ${list.id}`,
      ),
    ]);
  return {
    totals: totals[0] ?? { positions: 0, checkins: 0, inside: 0 },
    itemCounts,
    variationCounts,
    items: itemRowsRead,
    variations: variationRows,
    eventName: (subeventRow[0] ?? eventRow[0])?.name ?? {},
    scans: scanRows[0] ?? { online: 0, uploaded: 0, automatic: 0, failedOnline: 0, failedUploaded: 0 },
  };
}
