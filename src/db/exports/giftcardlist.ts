/**
 * The reads of the `giftcardlist` export: the organizer's gift cards as of a moment (issued by
 * then, with the value they held then), with pretix's `testmode` and `state` filters, a page at
 * a time by keyset in issuance order.
 */
import { type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { readRows, type Row } from "../raw";
import { after, and, countOf } from "./common";

export type GiftCardFilter = {
  organizerId: number;
  /** The moment the list shows the cards as of. */
  at: number;
  /** `yes`, `no`, or all cards. */
  testmode: string | null;
  /** `empty`, `valid_value`, `expired_value`, `expired`, or all cards. */
  state: string | null;
};

function giftCardQuery(f: GiftCardFilter): SQL {
  const at = f.at;
  const conditions: SQL[] = [sql`1`];
  if (f.testmode === "yes") conditions.push(sql`testmode = 1`);
  if (f.testmode === "no") conditions.push(sql`testmode = 0`);
  const state = f.state;
  if (state === "empty") conditions.push(sql`value_at = 0`);
  if (state === "valid_value") conditions.push(sql`value_at <> 0 AND (expires IS NULL OR expires >= ${at})`);
  if (state === "expired_value") conditions.push(sql`value_at <> 0 AND expires < ${at}`);
  if (state === "expired") conditions.push(sql`expires < ${at}`);
  return sql`SELECT * FROM (
      SELECT g.id, g.secret, g.testmode, g.issuance, g.expires, g.conditions, g.currency,
             (SELECT coalesce(sum(t.value), 0) FROM gift_card_transactions t WHERE t.card_id = g.id AND t.datetime <= ${at}) AS value_at,
             (SELECT o.code FROM gift_card_transactions t JOIN orders o ON o.id = t.order_id WHERE t.card_id = g.id ORDER BY t.datetime, t.id LIMIT 1) AS order_code,
             (SELECT e.slug FROM gift_card_transactions t JOIN orders o ON o.id = t.order_id JOIN events e ON e.id = o.event_id WHERE t.card_id = g.id ORDER BY t.datetime, t.id LIMIT 1) AS order_event
      FROM gift_cards g WHERE g.issuer_id = ${f.organizerId} AND g.issuance <= ${at}
    ) WHERE ${and(conditions)}`;
}

export function countGiftCards(db: DB, f: GiftCardFilter): Promise<number> {
  return countOf(db, sql`SELECT count(*) AS n FROM (${giftCardQuery(f)})`);
}

/** A page of gift cards: `value_at` their value then, `order_code` and `order_event` the order that created them. */
export function giftCardPage(db: DB, f: GiftCardFilter, cursor: unknown, limit: number): Promise<Row[]> {
  return readRows(
    db,
    sql`SELECT * FROM (${giftCardQuery(f)}) WHERE ${after(cursor, sql`issuance, id`)} ORDER BY issuance, id LIMIT ${limit}`,
  );
}
