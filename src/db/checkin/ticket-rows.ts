/**
 * A check-in list's ticket as it is read in full: the position with its order's fields, its
 * check-ins on the lists read and what decides its downloads. `./tickets.ts` picks which tickets.
 */
import { type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { DB } from "../client";
import type { KeyedRowsSource } from "../paging";
import { rawRows } from "../raw";
import { orderPositions, orders } from "../schema";
import { ticketSettingsSql } from "../settings";
import { inIntegers } from "../util";
import { checkinsJsonSql } from "./passages";

/** A list's ticket as the reading query returns it (order fields beside the position's). */
export type CheckinPositionRow = {
  id: number;
  eventId: number;
  orderCode: string;
  orderStatus: string;
  orderLocale: string;
  orderRequireApproval: number;
  orderCheckinAttention: number;
  invoiceNameParts: string | null;
  positionid: number;
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  price: number;
  attendeeName: string | null;
  attendeeNameParts: string;
  attendeeEmail: string | null;
  parentAttendeeName: string | null;
  /** The base position's `attendee_name_parts` as JSON (an add-on's), else null. */
  parentAttendeeNameParts: string | null;
  voucherId: number | null;
  taxRate: number;
  taxValue: number;
  taxRuleId: number | null;
  secret: string;
  addonTo: number | null;
  isBundled: number;
  pseudonymizationId: string;
  seat: string | null;
  seatId: number | null;
  seatName: string | null;
  answers: string;
  canceled: number;
  validFrom: number | null;
  validUntil: number | null;
  blocked: string | null;
  itemAttention: number;
  variationAttention: number | null;
  /** What scanners show for the product and the variation (pretix `checkin_text`). */
  itemCheckinText: string | null;
  variationCheckinText: string | null;
  checkins: string;
  /** The event's slug (the ticket's download URL). */
  eventSlug: string;
  /** What decides the ticket's `downloads` (services/tickets/tickets.ts): its item's [admission, generate_tickets] as JSON... */
  ticketItem: string;
  /** ... and the event's stored ticket_download settings as a JSON object. */
  ticketSettings: string;
};

/** The attendee name of an add-on's base position (`p` an add-on). */
export const parentNameSql = sql<
  string | null
>`(SELECT pp.attendee_name FROM order_positions pp WHERE pp.id = p.addon_to)`;

/** The attendee name parts of an add-on's base position (`p` an add-on). */
const parentNamePartsSql = sql<
  string | null
>`(SELECT pp.attendee_name_parts FROM order_positions pp WHERE pp.id = p.addon_to)`;

/** The tables of a list's tickets, aliased as the statements name them (`p`, `o`); `p` also orders a page's ties. */
export const p = alias(orderPositions, "p");
const o = alias(orders, "o");

/** A list's ticket, as the reading query selects it (distinct names: batched results are keyed by name). */
function positionFields(listIds: readonly number[] | null) {
  const f = <T>(expr: SQL, name: string) => sql<T>`${expr}`.as(name);
  return {
    id: f<number>(sql`p.id`, "id"),
    eventId: f<number>(sql`p.event_id`, "eventId"),
    orderCode: f<string>(sql`o.code`, "orderCode"),
    orderStatus: f<string>(sql`o.status`, "orderStatus"),
    orderLocale: f<string>(sql`o.locale`, "orderLocale"),
    orderRequireApproval: f<number>(sql`o.require_approval`, "orderRequireApproval"),
    orderCheckinAttention: f<number>(sql`o.checkin_attention`, "orderCheckinAttention"),
    invoiceNameParts: f<string | null>(sql`json_extract(o.invoice_address, '$.name_parts')`, "invoiceNameParts"),
    positionid: f<number>(sql`p.positionid`, "positionid"),
    itemId: f<number>(sql`p.item_id`, "itemId"),
    variationId: f<number | null>(sql`p.variation_id`, "variationId"),
    subeventId: f<number | null>(sql`p.subevent_id`, "subeventId"),
    price: f<number>(sql`p.price`, "price"),
    attendeeName: f<string | null>(sql`p.attendee_name`, "attendeeName"),
    attendeeNameParts: f<string>(sql`p.attendee_name_parts`, "attendeeNameParts"),
    attendeeEmail: f<string | null>(sql`p.attendee_email`, "attendeeEmail"),
    parentAttendeeName: f<string | null>(parentNameSql, "parentAttendeeName"),
    parentAttendeeNameParts: f<string | null>(parentNamePartsSql, "parentAttendeeNameParts"),
    voucherId: f<number | null>(sql`p.voucher_id`, "voucherId"),
    taxRate: f<number>(sql`p.tax_rate`, "taxRate"),
    taxValue: f<number>(sql`p.tax_value`, "taxValue"),
    taxRuleId: f<number | null>(sql`p.tax_rule_id`, "taxRuleId"),
    secret: f<string>(sql`p.secret`, "secret"),
    addonTo: f<number | null>(sql`p.addon_to`, "addonTo"),
    isBundled: f<number>(sql`p.is_bundled`, "isBundled"),
    pseudonymizationId: f<string>(sql`p.pseudonymization_id`, "pseudonymizationId"),
    seat: f<string | null>(sql`p.seat`, "seat"),
    seatId: f<number | null>(sql`p.seat_id`, "seatId"),
    seatName: f<string | null>(sql`p.seat_name`, "seatName"),
    answers: f<string>(sql`p.answers`, "answers"),
    canceled: f<number>(sql`p.canceled`, "canceled"),
    validFrom: f<number | null>(sql`p.valid_from`, "validFrom"),
    validUntil: f<number | null>(sql`p.valid_until`, "validUntil"),
    blocked: f<string | null>(sql`p.blocked`, "blocked"),
    itemAttention: f<number>(sql`(SELECT i.checkin_attention FROM items i WHERE i.id = p.item_id)`, "itemAttention"),
    variationAttention: f<number | null>(
      sql`(SELECT v.checkin_attention FROM item_variations v WHERE v.id = p.variation_id)`,
      "variationAttention",
    ),
    itemCheckinText: f<string | null>(
      sql`(SELECT i.checkin_text FROM items i WHERE i.id = p.item_id)`,
      "itemCheckinText",
    ),
    variationCheckinText: f<string | null>(
      sql`(SELECT v.checkin_text FROM item_variations v WHERE v.id = p.variation_id)`,
      "variationCheckinText",
    ),
    checkins: f<string>(checkinsJsonSql(sql`p.id`, listIds), "checkins"),
    eventSlug: f<string>(sql`(SELECT e.slug FROM events e WHERE e.id = p.event_id)`, "eventSlug"),
    ticketItem: f<string>(
      sql`(SELECT json_array(i.admission, i.generate_tickets) FROM items i WHERE i.id = p.item_id)`,
      "ticketItem",
    ),
    ticketSettings: f<string>(ticketSettingsSql(sql`p.event_id`), "ticketSettings"),
  };
}

/** A raw SELECT of the fields (for the statements the object batches with its writes). */
export function positionSelect(listIds: readonly number[] | null) {
  return sql.join(
    Object.values(positionFields(listIds)).map((a) => sql`${a.getSQL()} AS ${sql.identifier(a.fieldAlias)}`),
    sql`, `,
  );
}

/** The tickets whose ids a page's key query picked, as lists show them (`listIds` null: the check-ins on every list). */
export function ticketRows(listIds: readonly number[] | null) {
  return ({ ids, qb, total }: KeyedRowsSource) =>
    qb
      .select({ ...positionFields(listIds), __page_total: total })
      .from(p)
      .innerJoin(o, sql`o.id = p.order_id`)
      .where(sql`p.id IN (${ids})`)
      .$dynamic();
}

/** The add-ons of a ticket that are not canceled, read as lists show them (a scan's `expand=addons`). */
export function checkinAddonsOf(db: DB, eventId: number, positionId: number, listId: number) {
  return rawRows<CheckinPositionRow>(
    db,
    sql`SELECT ${positionSelect([listId])} FROM order_positions p JOIN orders o ON o.id = p.order_id
      WHERE p.event_id = ${eventId} AND p.order_id = (SELECT order_id FROM order_positions WHERE id = ${positionId})
        AND p.addon_to = ${positionId} AND p.canceled = 0 ORDER BY p.positionid`,
  );
}

/** Check-in positions by id, read as lists show them (for a redeem's answer when the object had to fall back). */
export function checkinPositionsByIds(db: DB, eventId: number, ids: readonly number[], listId: number) {
  return rawRows<CheckinPositionRow>(
    db,
    sql`SELECT ${positionSelect([listId])} FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE p.event_id = ${eventId} AND ${inIntegers(sql`p.id`, ids)}`,
  );
}
