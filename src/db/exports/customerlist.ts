/** The reads of the `customerlist` export: the organizer's customer accounts, a page at a time by id. */
import { sql } from "drizzle-orm";
import type { DB } from "../client";
import { readRows, type Row } from "../raw";
import { after, countOf } from "./common";

export function countCustomers(db: DB, organizerId: number): Promise<number> {
  return countOf(db, sql`SELECT count(*) AS n FROM customers WHERE organizer_id = ${organizerId}`);
}

export function customerPage(db: DB, organizerId: number, cursor: unknown, limit: number): Promise<Row[]> {
  return readRows(
    db,
    sql`SELECT id, identifier, external_identifier, email, name_cached, is_active, is_verified, last_login, date_joined, locale, notes
        FROM customers WHERE organizer_id = ${organizerId} AND ${after(cursor, sql`id`)} ORDER BY id LIMIT ${limit}`,
  );
}
