/**
 * The one list helper: a page of a query, the total count and the client's ordering, in one
 * D1 batch (one round trip; statements of the caller's own may ride along). Every list of the
 * API goes through `fetchPage`; `src/http/pagination.ts` reads the request and builds the
 * envelope around the result.
 */
import { asc, count, desc, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { AnySQLiteColumn, SQLiteSelect, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { DB } from "./client";

/** What a client asked of a list: the page (1-based), its size, and the ordering it wants (raw). */
export type ListRequest = { page: number; pageSize: number; ordering?: string | undefined };

/**
 * The orderings a list offers (`ordering` query parameter, comma-separated, `-` reverses):
 * the allowed field names, the default when none of the requested ones is allowed, and a
 * unique column that keeps pages stable.
 */
export type OrderingTable = { fields: Record<string, AnySQLiteColumn | SQL>; default: string; tiebreaker: AnySQLiteColumn };

export type Page<T> = { count: number; rows: T[] };

/** The ORDER BY terms of `requested` under `table` (unknown fields ignored; none left → the default). */
export function orderBy(table: OrderingTable, requested: string | undefined): SQL[] {
  const parse = (text: string) =>
    text
      .split(",")
      .map((f) => f.trim())
      .filter((f) => f !== "" && Object.hasOwn(table.fields, f.startsWith("-") ? f.slice(1) : f));
  let fields = parse(requested ?? "");
  if (fields.length === 0) fields = parse(table.default);
  const out = fields.map((f) => (f.startsWith("-") ? desc(table.fields[f.slice(1)]!) : asc(table.fields[f]!)));
  out.push(asc(table.tiebreaker));
  return out;
}

/** How the total is counted: the rows of a table matching a condition, or a query of the caller's (`{ n }`). */
export type CountOf = { from: SQLiteTable; where: SQL | undefined } | BatchItem<"sqlite">;

export type Listing<Q extends SQLiteSelect> = {
  /** The rows' query with its conditions (from `.$dynamic()`); ordered and sliced here. */
  rows: Q;
  count: CountOf;
  /** Without one, the rows keep the query's own order. */
  ordering?: OrderingTable;
};

type Results<E extends readonly BatchItem<"sqlite">[]> = { -readonly [K in keyof E]: Awaited<E[K]> };

/**
 * One page of `listing` and the total, in one batch. `extra` statements run in the same batch
 * (for example the list's Last-Modified stamp, or the children of the page's rows) and their
 * results come back in order.
 */
export async function fetchPage<Q extends SQLiteSelect, E extends readonly BatchItem<"sqlite">[] = []>(
  db: DB,
  listing: Listing<Q>,
  req: ListRequest,
  ...extra: E
): Promise<Page<Awaited<Q>[number]> & { extra: Results<E> }> {
  const counted = "from" in listing.count ? db.select({ n: count() }).from(listing.count.from).where(listing.count.where) : listing.count;
  let rows = listing.rows;
  if (listing.ordering) rows = rows.orderBy(...orderBy(listing.ordering, req.ordering)) as Q;
  const page = rows.limit(req.pageSize).offset((req.page - 1) * req.pageSize);
  const [total, found, ...rest] = (await db.batch([counted, page, ...extra] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return {
    count: (total as { n: number }[])[0]?.n ?? 0,
    rows: found as Awaited<Q>[number][],
    extra: rest as Results<E>,
  };
}
