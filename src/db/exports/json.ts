/**
 * The reads of the `json` export: the event's catalog (the document's head) and its orders with
 * their positions and fees not canceled, a page of orders at a time by id.
 */
import { sql } from "drizzle-orm";
import type { DB } from "../client";
import { readBatch, type Row } from "../raw";
import { after, countOf } from "./common";

/** The event's meta data, categories, products, variations, questions, quotas (and their products) and dates. */
export async function eventCatalog(db: DB, eventId: number) {
  const [meta, categories, items, variations, questions, quotas, quotaItems, subevents] = await readBatch(db, [
    sql`SELECT p.name, v.value FROM event_meta_values v JOIN event_meta_properties p ON p.id = v.property_id WHERE v.event_id = ${eventId}`,
    sql`SELECT * FROM item_categories WHERE event_id = ${eventId} ORDER BY position, id`,
    sql`SELECT i.*, t.rate AS tax_rate_value, t.name AS tax_name FROM items i LEFT JOIN tax_rules t ON t.id = i.tax_rule_id WHERE i.event_id = ${eventId} ORDER BY i.position, i.id`,
    sql`SELECT v.* FROM item_variations v JOIN items i ON i.id = v.item_id WHERE i.event_id = ${eventId} ORDER BY v.position, v.id`,
    sql`SELECT * FROM questions WHERE event_id = ${eventId} ORDER BY position, id`,
    sql`SELECT * FROM quotas WHERE event_id = ${eventId} ORDER BY id`,
    sql`SELECT qi.* FROM quota_items qi JOIN quotas q ON q.id = qi.quota_id WHERE q.event_id = ${eventId}`,
    sql`SELECT * FROM subevents WHERE event_id = ${eventId} ORDER BY date_from, id`,
  ]);
  return {
    meta: meta!,
    categories: categories!,
    items: items!,
    variations: variations!,
    questions: questions!,
    quotas: quotas!,
    quotaItems: quotaItems!,
    subevents: subevents!,
  };
}

export function countEventOrders(db: DB, eventId: number): Promise<number> {
  return countOf(db, sql`SELECT count(*) AS n FROM orders WHERE event_id = ${eventId}`);
}

/** A page of the event's orders (`customer`: the customer's identifier) with their positions and fees not canceled. */
export async function orderDocumentPage(
  db: DB,
  eventId: number,
  cursor: unknown,
  limit: number,
): Promise<{ orders: Row[]; positions: Row[]; fees: Row[] }> {
  const where = sql`o.event_id = ${eventId} AND ${after(cursor, sql`o.id`)}`;
  const pageIds = sql`SELECT o.id FROM orders o WHERE ${where} ORDER BY o.id LIMIT ${limit}`;
  const [orders, positions, fees] = await readBatch(db, [
    sql`SELECT o.*, c.identifier AS customer FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE ${where} ORDER BY o.id LIMIT ${limit}`,
    sql`SELECT p.* FROM order_positions p WHERE p.canceled = 0 AND p.order_id IN (${pageIds}) ORDER BY p.order_id, p.positionid`,
    sql`SELECT f.* FROM order_fees f WHERE f.canceled = 0 AND f.order_id IN (${pageIds}) ORDER BY f.order_id, f.id`,
  ]);
  return { orders: orders!, positions: positions!, fees: fees! };
}
