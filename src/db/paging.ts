/**
 * The one list helper: a page of a query, the total count and the client's ordering in one D1 batch
 * (`fetchPage`; statements of the caller's own may ride along); src/http/pagination.ts builds the
 * envelope. Lists that grow with an event's sales page by key (`KeyedListing`), so that a deep page
 * walks an index and none steps over more than half of the list (docs/routes.md, docs/scaling.md;
 * test/api/large-event-plans.test.ts checks the query plans).
 */
import { asc, count, desc, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type AnySQLiteColumn, type SQLiteSelect, SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { DB } from "./client";
import { rawRows } from "./raw";
import { MAX_PARAMS } from "./util";

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
export type OrderingTable = {
  fields: Record<string, AnySQLiteColumn | SQL>;
  default: string;
  tiebreaker: AnySQLiteColumn;
  tiesFollow?: boolean;
};

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
  return orderTerms(table, fields, !!table.tiesFollow && !!fields.at(-1)?.startsWith("-"));
}

function orderTerms(table: OrderingTable, fields: string[], tiesDescending: boolean): SQL[] {
  const out = fields.map((f) => (f.startsWith("-") ? desc(table.fields[f.slice(1)]!) : asc(table.fields[f]!)));
  out.push(tiesDescending ? desc(table.tiebreaker) : asc(table.tiebreaker));
  return out;
}

/** The exact reverse of `orderBy(table, requested)` (every term turned, NULLs included), with its fields. */
export function reversedOrder(table: OrderingTable, requested: string | undefined): { order: SQL[]; fields: string[] } {
  const forward = orderingFields(table, requested);
  const fields = forward.map((f) => (f.startsWith("-") ? f.slice(1) : `-${f}`));
  return { order: orderTerms(table, fields, !(table.tiesFollow && forward.at(-1)?.startsWith("-"))), fields };
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

/** Where a keyed page's rows are read from: `qb` carries the total (a CTE), `total` is the column to select it as. */
export type KeyedRowsSource = { ids: SQL; qb: Pick<DB, "select">; total: SQL.Aliased<number> };

/**
 * A list paged by key: `keys` builds the SELECT of the page's ids (one column `id`, ordered,
 * with LIMIT and OFFSET, which may be SQL expressions) from the ORDER BY terms and the
 * requested fields; `rows` reads, with `qb`, the rows whose id is among `ids` (a subquery) and
 * selects `total` among their fields; they are then ordered by the same terms. `count` is a
 * SELECT of the total as its one column `n`.
 */
export type KeyedListing<Q extends SQLiteSelect> = {
  keys: (page: { order: SQL[]; fields: string[]; limit: number | SQL; offset: number | SQL }) => SQL;
  rows: (from: KeyedRowsSource) => Q;
  count: SQL;
  ordering: OrderingTable;
};

const TOTAL = "page_total";
const dialect = new SQLiteSyncDialect();

/**
 * The statement of a keyed page: the total as a CTE, the page's ids from the nearer end (the
 * forward walk gets LIMIT 0 past the middle, the backward one before it; SQLite runs neither
 * walk with LIMIT 0), the rows of those ids. Null when the statement would bind more
 * parameters than D1 allows (its conditions are in it three times).
 */
function keyedStatement<Q extends SQLiteSelect>(
  db: DB,
  listing: KeyedListing<Q>,
  req: ListRequest,
  offset: number,
): SQLiteSelect | null {
  const n = sql`(SELECT n FROM ${sql.raw(TOTAL)})`;
  const order = orderBy(listing.ordering, req.ordering);
  const fields = orderingFields(listing.ordering, req.ordering);
  let ids: SQL;
  if (offset === 0) {
    ids = listing.keys({ order, fields, limit: req.pageSize, offset: 0 });
  } else {
    const front = sql`(${offset} * 2 < ${n})`;
    const forward = listing.keys({
      order,
      fields,
      limit: sql`CASE WHEN ${front} THEN ${req.pageSize} ELSE 0 END`,
      offset,
    });
    const back = reversedOrder(listing.ordering, req.ordering);
    const backward = listing.keys({
      ...back,
      limit: sql`CASE WHEN ${front} THEN 0 ELSE max(0, min(${req.pageSize}, ${n} - ${offset})) END`,
      offset: sql`max(0, ${n} - ${offset} - ${req.pageSize})`,
    });
    ids = sql`SELECT id FROM (${forward}) UNION ALL SELECT id FROM (${backward})`;
  }
  const qb = db.with(db.$with(TOTAL, { n: sql<number>`n` }).as(listing.count));
  const page = listing
    .rows({ ids, qb, total: sql<number>`${n}`.as("__page_total") })
    .orderBy(...order)
    .limit(req.pageSize);
  return dialect.sqlToQuery(page.getSQL()).params.length > MAX_PARAMS ? null : page;
}

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
  const offset = (req.page - 1) * req.pageSize;
  let counted: BatchItem<"sqlite">;
  let page: SQLiteSelect;
  if ("keys" in listing) {
    const single = keyedStatement(db, listing, req, offset);
    if (single) {
      // one statement: the total rides on every row (an empty page past the first is out of range whatever the total)
      const [found, ...rest] = (await db.batch([single, ...extra] as unknown as [
        BatchItem<"sqlite">,
        ...BatchItem<"sqlite">[],
      ])) as unknown[];
      const rows = found as (Awaited<Q>[number] & { __page_total?: number })[];
      return {
        count: rows[0]?.__page_total ?? 0,
        rows: rows.map(({ __page_total: _, ...row }) => row as Awaited<Q>[number]),
        extra: rest as Results<E>,
      };
    }
    // too many parameters for one statement: the total on its own, the page walked forward
    const order = orderBy(listing.ordering, req.ordering);
    const ids = listing.keys({
      order,
      fields: orderingFields(listing.ordering, req.ordering),
      limit: req.pageSize,
      offset,
    });
    counted = rawRows<{ n: number }>(db, listing.count);
    page = listing
      .rows({ ids, qb: db, total: sql<number>`NULL`.as("__page_total") })
      .orderBy(...order)
      .limit(req.pageSize);
  } else {
    counted =
      "from" in listing.count
        ? db.select({ n: count() }).from(listing.count.from).where(listing.count.where)
        : listing.count;
    let rows = listing.rows;
    if (listing.ordering) rows = rows.orderBy(...orderBy(listing.ordering, req.ordering)) as Q;
    page = rows.limit(req.pageSize).offset(offset);
  }
  const [total, found, ...rest] = (await db.batch([counted, page, ...extra] as unknown as [
    BatchItem<"sqlite">,
    ...BatchItem<"sqlite">[],
  ])) as unknown[];
  const rows =
    "keys" in listing ? (found as { __page_total?: unknown }[]).map(({ __page_total: _, ...row }) => row) : found;
  return {
    count: (total as { n: number }[])[0]?.n ?? 0,
    rows: rows as Awaited<Q>[number][],
    extra: rest as Results<E>,
  };
}
