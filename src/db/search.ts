/**
 * Matching a client's text, in one place: nothing else builds a LIKE or GLOB from client input. The
 * helpers use `instr()`, not LIKE: D1 refuses LIKE and GLOB patterns over 50 bytes, and LIKE gives `%`,
 * `_` and `\` meanings; `instr()` matches literally, case folded by `lower()` (ASCII, as LIKE). The
 * searches of orders and tickets first narrow their rows with FTS5 trigram indexes (`orderIdsMatching`,
 * migrations/0012_text_search.sql): the same rows as `instr()` alone, found from an index (docs/limits.md).
 */
import { Column, getTableName, is, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";

type Text = AnySQLiteColumn | SQL;

/** A column with its table's name (inside subqueries, where bare names could mean the subquery's own columns). */
function expr(t: Text): SQL {
  if (!is(t, Column)) return t as SQL;
  return sql`${sql.identifier(getTableName(t.table))}.${sql.identifier(t.name)}`;
}

/**
 * `text` contains `term` (case-insensitive for ASCII letters), matched literally whatever its length and
 * characters (emoji and NUL included). An empty term matches everything: callers treat an empty filter as absent.
 */
export function containsText(text: Text, term: string | SQL): SQL {
  return sql`instr(lower(${expr(text)}), lower(${term})) > 0`;
}

/** `text` starts with `term` (case-insensitive for ASCII letters). */
export function startsWithText(text: Text, term: string | SQL): SQL {
  return sql`instr(lower(${expr(text)}), lower(${term})) = 1`;
}

/**
 * A text value of the JSON object (or list) `column` contains `term`: any language of a
 * multi-lingual field, any part of a name (keys starting with `_`, such as a name's
 * `_scheme`, are not searched). `path` selects a nested object (`$.name_parts`).
 */
export function jsonValuesContain(column: Text, term: string, path?: string): SQL {
  const source = path === undefined ? sql`json_each(${expr(column)})` : sql`json_each(${expr(column)}, ${path})`;
  return sql`EXISTS (SELECT 1 FROM ${source} WHERE json_each.type = 'text' AND substr(json_each.key, 1, 1) <> '_' AND instr(lower(json_each.value), lower(${term})) > 0)`;
}

/** Any language of a multi-lingual JSON column contains `term`. */
export function i18nContains(column: Text, term: string): SQL {
  return jsonValuesContain(column, term);
}

// ---- text search through the trigram indexes ----

/**
 * Whether the trigram indexes can find `term`: 3 or more characters (the tokenizer's shortest
 * token; shorter terms match nothing there) and no NUL (which ends the text FTS5 reads). Terms
 * they cannot find are matched by `instr()` alone.
 */
export function indexedTerm(term: string): boolean {
  return [...term].length >= 3 && !term.includes("\0");
}

/** `term` as an FTS5 phrase: every character literal (a `"` is doubled inside the quotes), matched as a substring. */
export function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * The ids of the orders (of any event: callers add theirs) whose code, e-mail, comment, invoice
 * company or invoice name, or one of whose positions' attendee name, attendee e-mail or secret
 * contains `term` (case-insensitive), and those whose code contains `codeTerm`: a superset of
 * the orders any `instr()` match over those columns finds (the trigram tokenizer folds case
 * at least as far as `lower()` does), read from the indexes. Both terms must be `indexedTerm`s.
 * Callers keep their exact `instr()` condition beside `id IN (…)`.
 */
export function orderIdsMatching(term: string, codeTerm?: string): SQL {
  const phrase = ftsPhrase(term);
  const code =
    codeTerm === undefined
      ? sql``
      : sql` UNION SELECT rowid FROM orders_search WHERE orders_search MATCH ${`code : ${ftsPhrase(codeTerm)}`}`;
  return sql`SELECT rowid FROM orders_search WHERE orders_search MATCH ${phrase}
    UNION SELECT sp.order_id FROM order_positions sp WHERE sp.id IN (SELECT rowid FROM order_positions_search WHERE order_positions_search MATCH ${phrase})${code}`;
}
