/**
 * The reads of the `checkinlist` export (pretix's `CSVCheckinList`): the tickets of one check-in
 * list (its products, its date, paid orders and with `include_pending` also pending ones) with
 * the list's successful scans (last entry, last exit, whether one was automatic), filtered and
 * sorted by the export's inputs, a page at a time by keyset.
 */
import { type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { checkinListTicketsSql } from "../checkin/lists";
import { readRows, type Row } from "../raw";
import { after, and, countOf } from "./common";

/** The check-in list of the export, as it was when the export started. */
export type CheckinExportList = {
  id: number;
  allProducts: boolean;
  subeventId: number | null;
  includePending: boolean;
};

export type CheckinQuery = {
  eventId: number;
  list: CheckinExportList;
  attentionOnly: boolean;
  /** pretix's `status` input: '' all, '1' checked in, '2' present, '3' checked in but left, '0' not checked in. */
  status: string | null;
  /** The date of the series the ticket is for: from, and before (exclusive). */
  from: number | null;
  to: number | null;
  /** `name`, `code`, or `name:<part>` of the name scheme. */
  sort: string;
  /** The event is a series: its tickets are sorted by their date first. */
  hasSubevents: boolean;
};

/** The list of an export, if it still exists in the event. */
export async function checkinListOfExport(db: DB, listId: number, eventId: number): Promise<Row | undefined> {
  const rows = await readRows(
    db,
    sql`SELECT id, name, all_products, subevent_id, include_pending FROM checkin_lists WHERE id = ${listId} AND event_id = ${eventId}`,
  );
  return rows[0];
}

function sortKey(sort: string): SQL {
  if (sort === "code") return sql`o.code`;
  if (sort.startsWith("name:")) {
    const path = `$.${sort.slice(5)}`;
    return sql`coalesce(nullif(json_extract(p.attendee_name_parts, ${path}), ''), nullif(json_extract(parent.attendee_name_parts, ${path}), ''), nullif(json_extract(o.invoice_address, ${`$.name_parts.${sort.slice(5)}`}), ''), '')`;
  }
  return sql`coalesce(nullif(p.attendee_name, ''), nullif(parent.attendee_name, ''), nullif(json_extract(o.invoice_address, '$.name_parts.full_name'), ''),
                     nullif(trim(coalesce(json_extract(o.invoice_address, '$.name_parts.given_name'), '') || ' ' || coalesce(json_extract(o.invoice_address, '$.name_parts.family_name'), '')), ''),
                     o.code)`;
}

/** The last successful scan of a type on the list (pretix: `Max('datetime')` of `Checkin.objects`, which are the successful ones). */
function lastScan(list: CheckinExportList, type: "entry" | "exit"): SQL {
  return sql`(SELECT max(c.datetime) FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 AND c.type = ${type})`;
}

function statusCondition(list: CheckinExportList, status: string | null): SQL | null {
  const lastIn = lastScan(list, "entry");
  const lastOut = lastScan(list, "exit");
  switch (status) {
    case "1":
      return sql`${lastIn} IS NOT NULL`;
    case "2":
      // pretix's `positions_inside`: an entry, and no exit since
      return sql`${lastIn} IS NOT NULL AND (${lastOut} IS NULL OR ${lastOut} < ${lastIn})`;
    case "3":
      return sql`${lastIn} IS NOT NULL AND ${lastOut} IS NOT NULL AND ${lastOut} >= ${lastIn}`;
    case "0":
      return sql`${lastIn} IS NULL`;
    default:
      return null;
  }
}

function checkinConditions(q: CheckinQuery): SQL[] {
  const out: SQL[] = [sql`p.event_id = ${q.eventId}`, checkinListTicketsSql(q.list)];
  if (q.attentionOnly) out.push(sql`(i.checkin_attention = 1 OR o.checkin_attention = 1)`);
  const status = statusCondition(q.list, q.status);
  if (status) out.push(status);
  if (q.from !== null) out.push(sql`se.date_from >= ${q.from}`);
  if (q.to !== null) out.push(sql`se.date_from < ${q.to}`);
  return out;
}

const CHECKIN_FROM = sql`order_positions p JOIN orders o ON o.id = p.order_id JOIN items i ON i.id = p.item_id
  LEFT JOIN order_positions parent ON parent.id = p.addon_to
  LEFT JOIN subevents se ON se.id = p.subevent_id`;

export function countCheckinTickets(db: DB, q: CheckinQuery): Promise<number> {
  return countOf(db, sql`SELECT count(*) AS n FROM ${CHECKIN_FROM} WHERE ${and(checkinConditions(q))}`);
}

/**
 * A page of the list's tickets with their add-on parent's name, email and answers, their order,
 * product, date and seat, and the list's scans of them (`last_checked_in`, `last_checked_out`,
 * `auto_checked_in`); `sort_date` and `sort_key` are the page's keyset.
 */
export function checkinTicketPage(db: DB, q: CheckinQuery, cursor: unknown, limit: number): Promise<Row[]> {
  const list = q.list;
  return readRows(
    db,
    sql`SELECT * FROM (
          SELECT p.id, ${q.hasSubevents ? sql`coalesce(se.date_from, 0)` : sql`0`} AS sort_date, ${sortKey(q.sort)} AS sort_key, p.price, p.attendee_name, p.attendee_name_parts, p.attendee_email, p.secret, p.answers, p.seat, p.seat_name,
                 parent.attendee_name AS parent_name, parent.attendee_name_parts AS parent_name_parts, parent.attendee_email AS parent_email, parent.answers AS parent_answers,
                 o.code, o.status, o.email, o.datetime, o.comment, o.invoice_address, o.checkin_attention AS order_attention,
                 i.name AS item_name, i.checkin_attention AS item_attention, v.value AS variation_name, vo.code AS voucher_code,
                 se.name AS subevent_name, se.date_from AS subevent_from, se.date_to AS subevent_to,
                 s.zone_name, s.row_name, s.seat_number,
                 ${lastScan(list, "entry")} AS last_checked_in, ${lastScan(list, "exit")} AS last_checked_out,
                 EXISTS (SELECT 1 FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 AND c.auto_checked_in = 1) AS auto_checked_in
          FROM ${CHECKIN_FROM}
          LEFT JOIN item_variations v ON v.id = p.variation_id
          LEFT JOIN vouchers vo ON vo.id = p.voucher_id
          LEFT JOIN seating_plan_seats s ON s.id = p.seat_id
          WHERE ${and(checkinConditions(q))}
        ) WHERE ${after(cursor, sql`sort_date, sort_key, id`)} ORDER BY sort_date, sort_key, id LIMIT ${limit}`,
  );
}
