/**
 * Pieces shared by the catalog query modules: the catalog's change stamps, pages of ids,
 * grouping of child rows, item links and membership-type links (batches: batch.ts).
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Statement } from "./batch";
import { eventScopeKey, touchStatement } from "./changes";
import type { DB } from "./client";
import { type ListRequest, orderBy, type OrderingTable } from "./paging";
import {
  discountItems,
  itemMembershipTypes,
  items,
  type itemVariations,
  membershipTypes,
  questionItems,
  sendmailRuleItems,
  variationMembershipTypes,
} from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

/** Change-stamp resources the catalog modules touch (list-level conditional fetching). */
export const STAMP = { items: "items", categories: "categories", quotas: "quotas", questions: "questions" } as const;

export function touch(db: DB, eventId: number, resource: string, now: number) {
  return touchStatement(db, eventScopeKey(eventId), resource, now);
}

/** Rows grouped by a key (child rows by their parent). */
export function group<T>(rows: T[], key: (r: T) => number): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return map;
}

/** The ids of a page's rows, as a subquery for the statements reading their children. */
export function pageIdsOf(
  db: DB,
  table: typeof items | typeof itemVariations,
  where: SQL | undefined,
  ordering: OrderingTable,
  req: ListRequest,
) {
  return db
    .select({ id: table.id })
    .from(table)
    .where(where)
    .orderBy(...orderBy(ordering, req.ordering))
    .limit(req.pageSize)
    .offset((req.page - 1) * req.pageSize);
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

/**
 * Links the item / variation given as SQL to membership types of the organizer (ids of other
 * organizers are skipped). Query-builder statements: raw `db.run` with parameters cannot be
 * batched by drizzle's D1 driver.
 */
export function membershipLinkStatements(
  db: DB,
  table: "item" | "variation",
  owner: SQL,
  organizerId: number,
  typeIds: number[],
) {
  return chunks([...new Set(typeIds)], MAX_PARAMS - 5).map((part) => {
    const where = and(eq(membershipTypes.organizerId, organizerId), inArray(membershipTypes.id, part));
    return table === "item"
      ? db
          .insert(itemMembershipTypes)
          .select(
            db
              .select({ itemId: sql<number>`${owner}`.as("item_id"), membershipTypeId: membershipTypes.id })
              .from(membershipTypes)
              .where(where),
          )
          .onConflictDoNothing()
      : db
          .insert(variationMembershipTypes)
          .select(
            db
              .select({ variationId: sql<number>`${owner}`.as("variation_id"), membershipTypeId: membershipTypes.id })
              .from(membershipTypes)
              .where(where),
          )
          .onConflictDoNothing();
  });
}
