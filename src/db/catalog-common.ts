/** Pieces shared by the catalog query modules: batches, item links. */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { discountItems, items, questionItems, sendmailRuleItems } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type Statement = BatchItem<"sqlite">;

/** Runs statements as one transaction (D1 batch); no-op for an empty list. */
export async function runBatch(db: DB, statements: Statement[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  return db.batch(statements as [Statement, ...Statement[]]);
}

/** The subset of `ids` that are items of the event. */
export async function existingItemIds(db: DB, eventId: number, ids: readonly number[]): Promise<Set<number>> {
  const found = new Set<number>();
  for (const part of chunks([...new Set(ids)], MAX_PARAMS - 5)) {
    const rows = await db
      .select({ id: items.id })
      .from(items)
      .where(and(eq(items.eventId, eventId), inArray(items.id, part)));
    for (const r of rows) found.add(r.id);
  }
  return found;
}

const LINK_TABLES = {
  question_items: questionItems,
  discount_items: discountItems,
  sendmail_rule_items: sendmailRuleItems,
} as const;

/**
 * Inserts (parent, item) links for the items of the event among `itemIds`. `parent` is the
 * parent's id, or an SQL expression (e.g. the row inserted earlier in the same batch).
 * The event condition keeps another event's items out even if a check was raced.
 * (Insert builders with an SQL select: drizzle cannot batch raw statements with
 * parameters on D1.)
 */
export function itemLinkInserts(
  db: DB,
  table: keyof typeof LINK_TABLES,
  parent: number | SQL,
  eventId: number,
  itemIds: readonly number[],
): Statement[] {
  const parentSql = typeof parent === "number" ? sql`${parent}` : parent;
  return chunks([...new Set(itemIds)], MAX_PARAMS - 5).map((part) =>
    db
      .insert(LINK_TABLES[table])
      .select(
        sql`SELECT ${parentSql}, id FROM items WHERE event_id = ${eventId} AND id IN (${sql.join(
          part.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      )
      .onConflictDoNothing(),
  );
}

/** The id of the row of `table` inserted last (within the same batch transaction). */
export function lastInsertedId(table: string): SQL {
  return sql`(SELECT max(id) FROM ${sql.identifier(table)})`;
}

/**
 * `"table"."id"` spelled out: inside a correlated subquery drizzle may render a column of
 * the outer table without its table name, which the subquery would read as its own column.
 */
export function qualifiedId(table: string): SQL {
  return sql`${sql.identifier(table)}.${sql.identifier("id")}`;
}

/** A JSON array of a parent's linked item ids, ordered (for serializers). */
export function linkedItemIdsJson(table: string, parentColumn: string, parentTable: string): SQL<string> {
  return sql<string>`(SELECT json_group_array(l.item_id) FROM (SELECT item_id FROM ${sql.identifier(table)} WHERE ${sql.identifier(parentColumn)} = ${qualifiedId(parentTable)} ORDER BY item_id) l)`;
}
