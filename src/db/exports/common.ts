/**
 * What the exporters' reads share: the export's events as one parameter, keyset paging (each
 * page continues after the last row of the previous one, so a job step reads only its own
 * rows), an order's payment providers, and the events' questions. Every read of an export is
 * scoped by its organizer or its events.
 */
import { type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { readBatch, readRows, type Row } from "../raw";

/** The export's events as one SQL parameter (any number of them). */
export function eventIn(column: SQL, eventIds: readonly number[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(eventIds)}))`;
}

/** The `n` of a `SELECT count(*) AS n`. */
export async function countOf(db: DB, query: SQL): Promise<number> {
  const [r] = await readRows<{ n: number }>(db, query);
  return Number(r?.n ?? 0);
}

export const and = (conditions: SQL[]) => sql.join(conditions, sql` AND `);

/**
 * The rows after the previous page's last one: `values` is its sort key (as the page returned
 * it), compared with `columns` as a row value; no key yet (the first page): every row.
 */
export function after(values: unknown, columns: SQL): SQL {
  if (!Array.isArray(values)) return sql`1`;
  return sql`(${columns}) > (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

/** The providers of the payments of order `o` that were attempted or made, comma-separated. */
export const PROVIDERS = sql`(SELECT group_concat(DISTINCT pay.provider) FROM order_payments pay WHERE pay.order_id = o.id AND pay.state IN ('confirmed', 'refunded', 'pending', 'created'))`;

/** The events' questions (in the events' order) and their options. */
export async function readQuestions(
  db: DB,
  eventIds: readonly number[],
): Promise<{ questions: Row[]; options: Row[] }> {
  const [questions, options] = await readBatch(db, [
    sql`SELECT id, question, type FROM questions WHERE ${eventIn(sql`event_id`, eventIds)} ORDER BY event_id, position, id`,
    sql`SELECT o.id, o.question_id, o.answer FROM question_options o JOIN questions q ON q.id = o.question_id
        WHERE ${eventIn(sql`q.event_id`, eventIds)} ORDER BY o.position, o.id`,
  ]);
  return { questions: questions!, options: options! };
}
