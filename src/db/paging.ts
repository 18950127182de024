/**
 * The one list helper: a page of a query, the total count and the client's ordering, in one
 * D1 batch (one round trip; statements of the caller's own may ride along). Every list of the
 * API goes through `fetchPage`; `src/http/pagination.ts` reads the request and builds the
 * envelope around the result.
 *
 * Lists that grow with an event's sales (orders, a check-in list's tickets) page by key
 * (`KeyedListing`): a narrow query over indexed columns picks the page's ids in order, and only
 * those rows are read with what they carry (positions, check-ins as JSON). A deep page then
 * walks an index instead of building every row it skips, and no ordering sorts the event's
 * rows (docs/scaling.md; test/api/large-event-plans.test.ts checks the query plans).
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
 * unique column that keeps pages stable. Ties are broken by the tiebreaker ascending, or with
 * `tiesFollow` in the direction of the last term (so that an index on the field, which keeps
 * equal values in id order, serves `-field` backwards without sorting; pretix leaves the order
 * of ties open).
 */
export type OrderingTable = { fields: Record<string, AnySQLiteColumn | SQL>; default: string; tiebreaker: AnySQLiteColumn; tiesFollow?: boolean };

export type Page<T> = { count: number; rows: T[] };

/** The ordering fields of `requested` under `table` (`-` kept; unknown fields ignored; none left → the default's). */
export function orderingFields(table: OrderingTable, requested: string | undefined): string[] {
  const parse = (text: string) =>
    text
      .split(",")
      .map((f) => f.trim())
      .filter((f) => f !== "" && Object.hasOwn(table.fields, f.startsWith("-") ? f.slice(1) : f));
  const fields = parse(requested ?? "");
  return fields.length ? fields : parse(table.default);
}

/** The ORDER BY terms of `requested` under `table` (unknown fields ignored; none left → the default). */
export function orderBy(table: OrderingTable, requested: string | undefined): SQL[] {
  const fields = orderingFields(table, requested);
  const out = fields.map((f) => (f.startsWith("-") ? desc(table.fields[f.slice(1)]!) : asc(table.fields[f]!)));
  out.push(table.tiesFollow && fields.at(-1)?.startsWith("-") ? desc(table.tiebreaker) : asc(table.tiebreaker));
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

/**
 * A list paged by key: `keys` builds the SELECT of the page's ids (one column, ordered, with
 * LIMIT and OFFSET) from the ORDER BY terms and the requested fields; `rows` reads the rows
 * whose id is among them (a subquery), which are then ordered by the same terms.
 */
export type KeyedListing<Q extends SQLiteSelect> = {
  keys: (page: { order: SQL[]; fields: string[]; limit: number; offset: number }) => SQL;
  rows: (ids: SQL) => Q;
  count: CountOf;
  ordering: OrderingTable;
};

type Results<E extends readonly BatchItem<"sqlite">[]> = { -readonly [K in keyof E]: Awaited<E[K]> };

/**
 * One page of `listing` and the total, in one batch. `extra` statements run in the same batch
 * (for example the list's Last-Modified stamp, or the children of the page's rows) and their
 * results come back in order.
 */
export async function fetchPage<Q extends SQLiteSelect, E extends readonly BatchItem<"sqlite">[] = []>(
  db: DB,
  listing: Listing<Q> | KeyedListing<Q>,
  req: ListRequest,
  ...extra: E
): Promise<Page<Awaited<Q>[number]> & { extra: Results<E> }> {
  const counted = "from" in listing.count ? db.select({ n: count() }).from(listing.count.from).where(listing.count.where) : listing.count;
  const offset = (req.page - 1) * req.pageSize;
  let page: SQLiteSelect;
  if ("keys" in listing) {
    const order = orderBy(listing.ordering, req.ordering);
    const ids = listing.keys({ order, fields: orderingFields(listing.ordering, req.ordering), limit: req.pageSize, offset });
    page = listing.rows(ids).orderBy(...order).limit(req.pageSize);
  } else {
    let rows = listing.rows;
    if (listing.ordering) rows = rows.orderBy(...orderBy(listing.ordering, req.ordering)) as Q;
    page = rows.limit(req.pageSize).offset(offset);
  }
  const [total, found, ...rest] = (await db.batch([counted, page, ...extra] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  return {
    count: (total as { n: number }[])[0]?.n ?? 0,
    rows: found as Awaited<Q>[number][],
    extra: rest as Results<E>,
  };
}
