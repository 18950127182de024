/**
 * Fixed statements: the SQL text is built once per isolate, and each use binds only its values.
 * Drizzle builds a query's text on every run; on the hot path (an order's catalog, a request's
 * credential, the event object's writes) that was a fifth of the isolate's CPU
 * (docs/benchmark.md, "Where an order's time goes"). Lists are one JSON value (`inList`).
 */
import { type Column, fillPlaceholders, is, SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { RunnableQuery } from "drizzle-orm/runnable-query";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { DB } from "./client";

/** What a built statement keeps: its text, its parameters (values and placeholders) and how its rows are read. */
type Template = { sql: string; params: unknown[]; mapResult(response: unknown, isFromBatch?: boolean): unknown };

/** A query builder's `prepare()`, as drizzle gives it for selects, inserts, updates and deletes. */
type Preparable = {
  prepare(): { getQuery(): { sql: string; params: unknown[] }; mapResult(r: unknown, b?: boolean): unknown };
};

/** The rows a builder's query answers (a select: its rows; a write: D1's result). */
type RowsOf<Q> = Q extends PromiseLike<infer R> ? R : never;

/** The values of a statement's placeholders, by name (a missing one fails the use, loudly). */
export type Values = Record<string, unknown>;

/**
 * A fixed statement with its values bound: an item of a batch (`db.batch`, db/batch.ts
 * `runBatch`) or, awaited, run alone in one round trip, as drizzle's own builders are.
 */
export type Bound<R> = RunnableQuery<R, "sqlite"> & PromiseLike<R>;

export type Fixed<R> = { bind(db: DB, values: Values): Bound<R> };

/**
 * A statement built by `build` the first time it is used, with `sql.placeholder(name)` where
 * `values` go. `build` must not depend on anything but its placeholders.
 */
export function fixed<Q extends Preparable>(build: (db: DB) => Q): Fixed<RowsOf<Q>> {
  let template: Template | null = null;
  const templateOf = (db: DB): Template => {
    if (template === null) {
      const prepared = build(db).prepare();
      const query = prepared.getQuery();
      template = { sql: query.sql, params: query.params, mapResult: prepared.mapResult.bind(prepared) };
    }
    return template;
  };
  const bind = (db: DB, values: Values): Bound<RowsOf<Q>> => {
    const t = templateOf(db);
    const params = fillPlaceholders(t.params, values);
    // drizzle's batch asks each item for `_prepare()` and reads these three of its answer
    const prepared = {
      getQuery: () => ({ sql: t.sql, params }),
      stmt: db.$client.prepare(t.sql),
      mapResult: t.mapResult,
    };
    const bound = {
      _prepare: () => prepared,
      // biome-ignore lint/suspicious/noThenProperty: awaitable like drizzle's own query builders
      then<A = RowsOf<Q>, B = never>(
        onFulfilled?: ((rows: RowsOf<Q>) => A | PromiseLike<A>) | null,
        onRejected?: ((e: unknown) => B | PromiseLike<B>) | null,
      ): PromiseLike<A | B> {
        const one = db.batch([bound as unknown as Bound<RowsOf<Q>>]).then(([rows]) => rows as RowsOf<Q>);
        return one.then(onFulfilled, onRejected);
      },
    };
    return bound as unknown as Bound<RowsOf<Q>>;
  };
  return { bind };
}

/** Where a value goes in a fixed statement. */
export const p = sql.placeholder;

/** `column IN (the list)`, the list bound as one JSON array under `name`: the text is the same for any length. */
export function inList(column: Column | SQL | SQLWrapper, name: string): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${sql.placeholder(name)}))`;
}

/** A list as `inList` binds it. */
export function listValue(values: readonly (number | string)[]): string {
  return JSON.stringify([...new Set(values)]);
}

/** How many shapes of row an insert keeps built; past it, rows are built as drizzle builds them. */
const MAX_SHAPES = 64;

/**
 * An insert of one row into `table`, its text built once per shape of row: which columns are
 * given (undefined: left out, as drizzle leaves it), and which of them are null (written as NULL,
 * not bound through the column's encoder). `computed`: columns whose value is SQL of placeholders,
 * their values passed with the row. The text is the one drizzle builds for the row.
 */
export function rowInsert<T extends SQLiteTable>(table: T, computed: Record<string, SQL> = {}) {
  const shapes = new Map<string, Fixed<unknown>>();
  return (db: DB, row: Partial<T["$inferInsert"]>, computedValues: Values = {}): Bound<unknown> => {
    const given = Object.entries(row as Values).filter(([, v]) => v !== undefined);
    const shape = given.map(([k, v]) => (v === null ? `${k}=` : k)).join(",");
    const values: Values = { ...computedValues };
    for (const [k, v] of given) {
      if (is(v, SQL)) throw new TypeError(`rowInsert: ${k} is SQL; pass it as a computed column`);
      if (v !== null) values[k] = v;
    }
    let statement = shapes.get(shape);
    if (statement === undefined) {
      const template = Object.fromEntries(given.map(([k, v]) => [k, v === null ? null : p(k)]));
      const built = fixed((d) => d.insert(table).values({ ...template, ...computed } as T["$inferInsert"]));
      if (shapes.size < MAX_SHAPES) shapes.set(shape, built);
      statement = built;
    }
    return statement.bind(db, values);
  };
}
