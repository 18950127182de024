/**
 * What the event object reads from D1 to decide scans: the check-in configuration with its change
 * stamps, the condition that it is unchanged, and a ticket's order when the object has not seen it.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { eventScopeKey } from "../changes";
import type { DB } from "../client";
import { rawRows } from "../raw";
import { changeStamps, checkinListItems, checkinLists, events, subevents } from "../schema";
import { CHECKIN_LISTS_RESOURCE } from "./lists";

/**
 * The condition "the check-in configuration did not change since `stamps` were read" (items,
 * questions, lists): the event object's writes of a decision carry it, so that a decision
 * taken on an outdated configuration writes nothing and is taken again.
 */
export function configUnchangedSql(eventId: number, stamps: Record<string, number>): SQL {
  const resources = ["items", "questions", CHECKIN_LISTS_RESOURCE];
  const newer = sql.join(
    resources.map((r) => sql`(resource = ${r} AND modified_at > ${stamps[r] ?? 0})`),
    sql` OR `,
  );
  return sql`NOT EXISTS (SELECT 1 FROM change_stamps WHERE scope = ${eventScopeKey(eventId)} AND (${newer}))`;
}

/**
 * The orders (with all their positions and the positions' check-ins) of the ticket with a
 * secret (or, for the legacy per-list redeem, an id): the object's fallback on a miss.
 */
export function ticketOrderQuery(db: DB, eventId: number, secret: string, id: number | null) {
  const match = ticketMatchSql(eventId, secret, id);
  return rawRows<TicketOrderRow>(
    db,
    sql`SELECT o.code AS code, o.status AS status, o.require_approval AS requireApproval, o.checkin_attention AS checkinAttention,
      o.sales_channel AS salesChannel, o.locale AS locale, o.datetime AS datetime,
      (SELECT json_group_array(json_object('id', p.id, 'secret', p.secret, 'addonTo', p.addon_to, 'itemId', p.item_id,
          'variationId', p.variation_id, 'subeventId', p.subevent_id, 'canceled', p.canceled, 'validFrom', p.valid_from,
          'validUntil', p.valid_until, 'answers', json(p.answers),
          'blocked', CASE WHEN p.blocked IS NULL OR p.blocked = '[]' THEN 0 ELSE 1 END))
        FROM order_positions p WHERE p.order_id = o.id) AS positions,
      (SELECT json_group_array(json_object('id', c.id, 'uid', c.uid, 'listId', c.list_id, 'positionId', c.position_id, 'type', c.type,
          'datetime', c.datetime, 'nonce', c.nonce, 'deviceId', c.device_id, 'auto', c.auto_checked_in))
        FROM checkins c JOIN order_positions p2 ON p2.id = c.position_id WHERE p2.order_id = o.id AND c.successful = 1) AS passages
    FROM orders o WHERE o.event_id = ${eventId} AND o.id IN (SELECT order_id FROM order_positions WHERE event_id = ${eventId} AND ${match})`,
  );
}

/** The ticket of the secret, of a revoked secret of it, or of the id (a condition on `order_positions`). */
export function ticketMatchSql(eventId: number, secret: string, id: number | null): SQL {
  const revoked = sql`id IN (SELECT position_id FROM revoked_secrets WHERE event_id = ${eventId} AND secret = ${secret})`;
  return id === null ? sql`(secret = ${secret} OR ${revoked})` : sql`(secret = ${secret} OR ${revoked} OR id = ${id})`;
}

export type TicketOrderRow = {
  code: string;
  status: string;
  requireApproval: number;
  checkinAttention: number;
  salesChannel: string;
  locale: string;
  datetime: number;
  positions: string;
  passages: string;
};

/** The check-in configuration of an event as the object decides with it (one batch of statements). */
export function checkinCatalogStatements(db: DB, eventId: number) {
  return [
    db.select().from(checkinLists).where(eq(checkinLists.eventId, eventId)),
    db
      .select({ listId: checkinListItems.listId, itemId: checkinListItems.itemId })
      .from(checkinListItems)
      .innerJoin(checkinLists, eq(checkinLists.id, checkinListItems.listId))
      .where(eq(checkinLists.eventId, eventId)),
    rawRows<{ id: number; identifier: string; type: string; required: number; items: string; options: string }>(
      db,
      sql`SELECT q.id AS id, q.identifier AS identifier, q.type AS type, q.required AS required,
        (SELECT json_group_array(item_id) FROM question_items WHERE question_id = q.id) AS items,
        (SELECT json_group_array(json_object('id', o.id, 'identifier', o.identifier, 'answer', json(o.answer))) FROM question_options o WHERE o.question_id = q.id) AS options
      FROM questions q WHERE q.event_id = ${eventId} AND q.ask_during_checkin = 1 ORDER BY q.position, q.id`,
    ),
    db
      .select({
        timezone: events.timezone,
        locale: sql<
          string | null
        >`(SELECT json_extract(value, '$') FROM event_settings WHERE event_id = ${eventId} AND key = 'locale')`,
        dateFrom: events.dateFrom,
        dateTo: events.dateTo,
        dateAdmission: events.dateAdmission,
      })
      .from(events)
      .where(eq(events.id, eventId)),
    db
      .select({
        id: subevents.id,
        dateFrom: subevents.dateFrom,
        dateTo: subevents.dateTo,
        dateAdmission: subevents.dateAdmission,
      })
      .from(subevents)
      .where(eq(subevents.eventId, eventId)),
    checkinStampsQuery(db, eventId),
  ] as const;
}

/** The change stamps the object watches for catalog edits that reach it only through D1. */
export function checkinStampsQuery(db: DB, eventId: number) {
  return db
    .select({ resource: changeStamps.resource, modifiedAt: changeStamps.modifiedAt })
    .from(changeStamps)
    .where(
      and(
        eq(changeStamps.scope, eventScopeKey(eventId)),
        inArray(changeStamps.resource, ["items", "questions", CHECKIN_LISTS_RESOURCE]),
      ),
    );
}
