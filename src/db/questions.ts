/** Questions of an event with their items and options; every query is scoped by event. */
import { and, asc, count, eq, inArray, ne, type SQL, sql } from "drizzle-orm";
import type { I18n } from "../lib/i18n";
import { itemLinkInserts, lastInsertedId, linkedItemIdsJson, qualifiedId, runBatch, type Statement } from "./catalog-common";
import type { DB } from "./client";
import { eventScopeKey, touchStatement } from "./changes";
import { questionItems, questionOptions, questions } from "./schema";
import { chunks, MAX_PARAMS, rowsPerInsert } from "./util";

export type QuestionRow = typeof questions.$inferSelect;
export type QuestionValues = Omit<typeof questions.$inferInsert, "id" | "eventId">;
export type OptionRow = typeof questionOptions.$inferSelect;
export type OptionValues = { identifier: string; answer: I18n; position: number };

/** Questions are listed with their changes stamped under this resource name (options included). */
export const QUESTIONS_RESOURCE = "questions";

const questionRecordFields = {
  question: questions,
  items: linkedItemIdsJson("question_items", "question_id", "questions"),
  options: sql<string>`(SELECT json_group_array(json_object('id', o.id, 'identifier', o.identifier, 'position', o.position, 'answer', json(o.answer))) FROM (SELECT id, identifier, position, answer FROM question_options WHERE question_id = ${qualifiedId("questions")} ORDER BY position, id) o)`,
};

export type QuestionRecord = { question: QuestionRow; items: string; options: string };

export type QuestionFilters = { identifier?: string; askDuringCheckin?: boolean; required?: boolean };

function questionWhere(eventId: number, f: QuestionFilters): SQL | undefined {
  const conds: SQL[] = [eq(questions.eventId, eventId)];
  if (f.identifier !== undefined) conds.push(eq(questions.identifier, f.identifier));
  if (f.askDuringCheckin !== undefined) conds.push(eq(questions.askDuringCheckin, f.askDuringCheckin));
  if (f.required !== undefined) conds.push(eq(questions.required, f.required));
  return and(...conds);
}

export function questionCount(db: DB, eventId: number, f: QuestionFilters) {
  return db.select({ n: count() }).from(questions).where(questionWhere(eventId, f));
}

export function questionPage(db: DB, eventId: number, f: QuestionFilters, order: SQL[], limit: number, offset: number) {
  return db
    .select(questionRecordFields)
    .from(questions)
    .where(questionWhere(eventId, f))
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
}

export async function findQuestion(db: DB, eventId: number, id: number): Promise<QuestionRecord | undefined> {
  return db
    .select(questionRecordFields)
    .from(questions)
    .where(and(eq(questions.eventId, eventId), eq(questions.id, id)))
    .get();
}

export async function questionExists(db: DB, eventId: number, id: number): Promise<boolean> {
  const row = await db.select({ id: questions.id }).from(questions).where(and(eq(questions.eventId, eventId), eq(questions.id, id))).get();
  return row !== undefined;
}

/** Every question of the event as a dependency graph node, plus its identifier. */
export function questionGraph(db: DB, eventId: number) {
  return db
    .select({
      id: questions.id,
      type: questions.type,
      askDuringCheckin: questions.askDuringCheckin,
      dependencyQuestionId: questions.dependencyQuestionId,
      identifier: questions.identifier,
    })
    .from(questions)
    .where(eq(questions.eventId, eventId));
}

/** The option identifiers of a question of the event. */
export async function optionIdentifiersOf(db: DB, eventId: number, questionId: number): Promise<Set<string>> {
  const rows = await db
    .select({ identifier: questionOptions.identifier })
    .from(questionOptions)
    .where(and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, questionId)));
  return new Set(rows.map((r) => r.identifier));
}

/** Which of `identifiers` are used by options of the event (other than `exceptOptionId`). */
export async function takenOptionIdentifiers(db: DB, eventId: number, identifiers: string[], exceptOptionId?: number): Promise<Set<string>> {
  const taken = new Set<string>();
  for (const part of chunks([...new Set(identifiers)], MAX_PARAMS - 5)) {
    const rows = await db
      .select({ identifier: questionOptions.identifier })
      .from(questionOptions)
      .where(
        and(
          eq(questionOptions.eventId, eventId),
          inArray(questionOptions.identifier, part),
          exceptOptionId === undefined ? undefined : ne(questionOptions.id, exceptOptionId),
        ),
      );
    for (const r of rows) taken.add(r.identifier);
  }
  return taken;
}

function optionInserts(db: DB, eventId: number, questionId: number | SQL, options: OptionValues[]): Statement[] {
  return chunks(options, rowsPerInsert(4)).map((part) =>
    db.insert(questionOptions).values(part.map((o) => ({ ...o, questionId, eventId }))),
  );
}

/** Creates a question with its items and options in one transaction; returns its id. */
export async function createQuestion(
  db: DB,
  eventId: number,
  values: QuestionValues,
  itemIds: number[],
  options: OptionValues[],
  now: number,
): Promise<number> {
  const self = lastInsertedId("questions");
  const [inserted] = (await runBatch(db, [
    db.insert(questions).values({ ...values, eventId }).returning({ id: questions.id }),
    ...itemLinkInserts(db, "question_items", self, eventId, itemIds),
    ...optionInserts(db, eventId, self, options),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ])) as [{ id: number }[]];
  return inserted[0]!.id;
}

/** Updates a question; `itemIds` replaces its items when given. */
export async function updateQuestion(db: DB, eventId: number, id: number, values: Partial<QuestionValues>, itemIds: number[] | undefined, now: number) {
  const statements: Statement[] = [];
  if (Object.keys(values).length) {
    statements.push(db.update(questions).set(values).where(and(eq(questions.eventId, eventId), eq(questions.id, id))));
  }
  if (itemIds) {
    statements.push(db.delete(questionItems).where(eq(questionItems.questionId, id)));
    statements.push(...itemLinkInserts(db, "question_items", id, eventId, itemIds));
  }
  if (statements.length === 0) return;
  statements.push(touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now));
  await runBatch(db, statements);
}

/** Deletes a question; questions depending on it lose the dependency (as in pretix). */
export async function deleteQuestion(db: DB, eventId: number, id: number, now: number) {
  await runBatch(db, [
    db
      .update(questions)
      .set({ dependencyQuestionId: null })
      .where(and(eq(questions.eventId, eventId), eq(questions.dependencyQuestionId, id))),
    db.delete(questions).where(and(eq(questions.eventId, eventId), eq(questions.id, id))),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ]);
}

// ---- options ----

export function optionCount(db: DB, eventId: number, questionId: number) {
  return db
    .select({ n: count() })
    .from(questionOptions)
    .where(and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, questionId)));
}

export function optionPage(db: DB, eventId: number, questionId: number, limit: number, offset: number) {
  return db
    .select()
    .from(questionOptions)
    .where(and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, questionId)))
    .orderBy(asc(questionOptions.position), asc(questionOptions.id))
    .limit(limit)
    .offset(offset);
}

export async function findOption(db: DB, eventId: number, questionId: number, id: number): Promise<OptionRow | undefined> {
  return db
    .select()
    .from(questionOptions)
    .where(and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, questionId), eq(questionOptions.id, id)))
    .get();
}

/** Creates an option; without a position it goes after the question's last option. */
export async function createOption(
  db: DB,
  eventId: number,
  questionId: number,
  values: { identifier: string; answer: I18n; position?: number },
  now: number,
): Promise<OptionRow> {
  const position =
    values.position ??
    sql<number>`(SELECT coalesce(max(position), 0) + 1 FROM question_options WHERE question_id = ${questionId})`;
  const [rows] = await db.batch([
    db
      .insert(questionOptions)
      .values({ questionId, eventId, identifier: values.identifier, answer: values.answer, position })
      .returning(),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ]);
  return rows[0]!;
}

export async function updateOption(db: DB, eventId: number, questionId: number, id: number, values: Partial<OptionValues>, now: number) {
  const [rows] = await db.batch([
    db
      .update(questionOptions)
      .set(values)
      .where(and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, questionId), eq(questionOptions.id, id)))
      .returning(),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ]);
  return rows[0];
}

export async function deleteOption(db: DB, eventId: number, questionId: number, id: number, now: number) {
  await db.batch([
    db
      .delete(questionOptions)
      .where(and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, questionId), eq(questionOptions.id, id))),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ]);
}
