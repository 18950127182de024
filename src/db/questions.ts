/** Questions of an event with their items and options; every query is scoped by event. */
import { and, asc, eq, inArray, ne, type SQL, sql } from "drizzle-orm";
import type { I18n } from "../lib/i18n";
import { itemLinkInserts, lastInsertedId, linkedItemIdsJson, qualifiedId } from "./catalog-common";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { questionItems, questionOptions, questions } from "./schema";
import { chunks } from "../lib/chunks";
import { inIntegers, MAX_PARAMS, rowsPerInsert } from "./util";

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

export type QuestionFilters = {
  identifier?: string | undefined;
  askDuringCheckin?: boolean | undefined;
  required?: boolean | undefined;
};

function selectQuestions(db: DB) {
  return db.select(questionRecordFields).from(questions);
}

function questionWhere(eventId: number, id: number | SQL) {
  return and(eq(questions.eventId, eventId), eq(questions.id, id));
}

/** `ordering` of the list: `id` or `position` (default). */
export const QUESTION_ORDERING: OrderingTable = {
  fields: { id: questions.id, position: questions.position },
  default: "position",
  tiebreaker: questions.id,
};

/** A page of the event's questions and the list's last change, in one batch. */
export async function listQuestions(db: DB, eventId: number, f: QuestionFilters, req: ListRequest) {
  const conds: SQL[] = [eq(questions.eventId, eventId)];
  if (f.identifier !== undefined) conds.push(eq(questions.identifier, f.identifier));
  if (f.askDuringCheckin !== undefined) conds.push(eq(questions.askDuringCheckin, f.askDuringCheckin));
  if (f.required !== undefined) conds.push(eq(questions.required, f.required));
  const where = and(...conds);
  const page = await fetchPage(
    db,
    {
      rows: selectQuestions(db).where(where).$dynamic(),
      count: { from: questions, where },
      ordering: QUESTION_ORDERING,
    },
    req,
    lastChangeQuery(db, eventScopeKey(eventId), QUESTIONS_RESOURCE),
  );
  const [stamp] = page.extra;
  return { count: page.count, rows: page.rows, lastModified: stamp[0]?.modifiedAt ?? null };
}

export async function findQuestion(db: DB, eventId: number, id: number): Promise<QuestionRecord | undefined> {
  return selectQuestions(db).where(questionWhere(eventId, id)).get();
}

/** Questions of the event by id, with their items and options (as their family serializes them). */
export async function questionRecordsByIds(db: DB, eventId: number, ids: readonly number[]): Promise<QuestionRecord[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return selectQuestions(db)
    .where(and(eq(questions.eventId, eventId), inIntegers(questions.id, unique)))
    .orderBy(asc(questions.position), asc(questions.id));
}

/** Which of `ids` are file questions asked during check-in in one of `eventIds`, with their event. */
export async function doorFileQuestions(
  db: DB,
  eventIds: readonly number[],
  ids: readonly number[],
): Promise<{ id: number; eventId: number }[]> {
  if (ids.length === 0 || eventIds.length === 0) return [];
  return db
    .select({ id: questions.id, eventId: questions.eventId })
    .from(questions)
    .where(
      and(
        inIntegers(questions.eventId, [...new Set(eventIds)]),
        inIntegers(questions.id, [...new Set(ids)]),
        eq(questions.type, "F"),
        eq(questions.askDuringCheckin, true),
      ),
    );
}

function questionExistsQuery(db: DB, eventId: number, id: number) {
  return db.select({ id: questions.id }).from(questions).where(questionWhere(eventId, id));
}

export async function questionExists(db: DB, eventId: number, id: number): Promise<boolean> {
  return (await questionExistsQuery(db, eventId, id).get()) !== undefined;
}

export type QuestionNode = {
  id: number;
  type: QuestionRow["type"];
  askDuringCheckin: boolean;
  dependencyQuestionId: number | null;
  identifier: string;
};

/** Option identifiers of the event among `identifiers` (other than `exceptOptionId`), as statements for a batch. */
function takenOptionIdentifierQueries(
  db: DB,
  eventId: number,
  identifiers: readonly string[],
  exceptOptionId?: number,
) {
  return chunks([...new Set(identifiers)], MAX_PARAMS - 5).map((part) =>
    db
      .select({ identifier: questionOptions.identifier })
      .from(questionOptions)
      .where(
        and(
          eq(questionOptions.eventId, eventId),
          inArray(questionOptions.identifier, part),
          exceptOptionId === undefined ? undefined : ne(questionOptions.id, exceptOptionId),
        ),
      ),
  );
}

/**
 * What checking a question's new state needs from the event, in one batch: every question as
 * a dependency graph node with its identifier, the option identifiers of the question depended
 * on (`dependencyId`), and which of `optionIdentifiers` options of the event already use.
 */
export async function questionCheckFacts(
  db: DB,
  eventId: number,
  dependencyId: number | null,
  optionIdentifiers: readonly string[],
) {
  const graph = db
    .select({
      id: questions.id,
      type: questions.type,
      askDuringCheckin: questions.askDuringCheckin,
      dependencyQuestionId: questions.dependencyQuestionId,
      identifier: questions.identifier,
    })
    .from(questions)
    .where(eq(questions.eventId, eventId));
  const depOptions = db
    .select({ identifier: questionOptions.identifier })
    .from(questionOptions)
    .where(and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, dependencyId ?? 0)));
  const [nodes, deps, ...taken] = await db.batch([
    graph,
    depOptions,
    ...takenOptionIdentifierQueries(db, eventId, optionIdentifiers),
  ]);
  return {
    graph: nodes as QuestionNode[],
    dependencyOptionIdentifiers: new Set(dependencyId === null ? [] : deps.map((r) => r.identifier)),
    takenOptionIdentifiers: new Set((taken as { identifier: string }[][]).flat().map((r) => r.identifier)),
  };
}

function optionInserts(db: DB, eventId: number, questionId: number | SQL, options: OptionValues[]): Statement[] {
  return chunks(options, rowsPerInsert(4)).map((part) =>
    db.insert(questionOptions).values(part.map((o) => ({ ...o, questionId, eventId }))),
  );
}

/** Creates a question with its items and options in one transaction and reads it back. */
export async function insertQuestion(
  db: DB,
  eventId: number,
  values: QuestionValues,
  itemIds: number[],
  options: OptionValues[],
  now: number,
): Promise<QuestionRecord> {
  const self = lastInsertedId("questions");
  const results = await runBatch(db, [
    db.insert(questions).values({ ...values, eventId }),
    ...itemLinkInserts(db, "question_items", self, eventId, itemIds),
    ...optionInserts(db, eventId, self, options),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
    selectQuestions(db).where(questionWhere(eventId, self)),
  ]);
  return (results.at(-1) as QuestionRecord[])[0]!;
}

/**
 * Updates a question (`itemIds` replaces its items when given) and reads it back in the same
 * transaction; undefined when it is gone.
 */
export async function updateQuestionValues(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<QuestionValues>,
  itemIds: number[] | undefined,
  now: number,
): Promise<QuestionRecord | undefined> {
  const statements: Statement[] = [];
  if (Object.keys(values).length) statements.push(db.update(questions).set(values).where(questionWhere(eventId, id)));
  if (itemIds) {
    statements.push(db.delete(questionItems).where(eq(questionItems.questionId, id)));
    statements.push(...itemLinkInserts(db, "question_items", id, eventId, itemIds));
  }
  if (statements.length) statements.push(touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now));
  statements.push(selectQuestions(db).where(questionWhere(eventId, id)));
  const results = await runBatch(db, statements);
  return (results.at(-1) as QuestionRecord[])[0];
}

/** Deletes a question; questions depending on it lose the dependency (as in pretix). */
export async function deleteQuestionRow(db: DB, eventId: number, id: number, now: number) {
  await runBatch(db, [
    db
      .update(questions)
      .set({ dependencyQuestionId: null })
      .where(and(eq(questions.eventId, eventId), eq(questions.dependencyQuestionId, id))),
    db.delete(questions).where(questionWhere(eventId, id)),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ]);
}

// ---- options ----

function optionWhere(eventId: number, questionId: number, id: number) {
  return and(
    eq(questionOptions.eventId, eventId),
    eq(questionOptions.questionId, questionId),
    eq(questionOptions.id, id),
  );
}

/** A page of a question's options (by position) and whether the question is one of the event, in one batch. */
export async function listOptions(db: DB, eventId: number, questionId: number, req: ListRequest) {
  const where = and(eq(questionOptions.eventId, eventId), eq(questionOptions.questionId, questionId));
  const rows = db
    .select()
    .from(questionOptions)
    .where(where)
    .orderBy(asc(questionOptions.position), asc(questionOptions.id))
    .$dynamic();
  const page = await fetchPage(
    db,
    { rows, count: { from: questionOptions, where } },
    req,
    questionExistsQuery(db, eventId, questionId),
  );
  const [question] = page.extra;
  return { count: page.count, rows: page.rows, questionExists: question.length > 0 };
}

export async function findOption(
  db: DB,
  eventId: number,
  questionId: number,
  id: number,
): Promise<OptionRow | undefined> {
  return db
    .select()
    .from(questionOptions)
    .where(optionWhere(eventId, questionId, id))
    .get();
}

/** Whether the question is one of the event, and whether options of the event use `identifier`, in one batch. */
export async function optionCreateFacts(db: DB, eventId: number, questionId: number, identifier: string | null) {
  const [question, ...taken] = await db.batch([
    questionExistsQuery(db, eventId, questionId),
    ...takenOptionIdentifierQueries(db, eventId, identifier ? [identifier] : []),
  ]);
  return {
    questionExists: question.length > 0,
    identifierTaken: (taken as unknown[][]).some((rows) => rows.length > 0),
  };
}

/** The option, and whether other options of the event use `identifier`, in one batch. */
export async function optionChangeFacts(
  db: DB,
  eventId: number,
  questionId: number,
  id: number,
  identifier: string | null,
) {
  const [option, ...taken] = await db.batch([
    db
      .select()
      .from(questionOptions)
      .where(optionWhere(eventId, questionId, id)),
    ...takenOptionIdentifierQueries(db, eventId, identifier ? [identifier] : [], id),
  ]);
  return {
    option: option[0] as OptionRow | undefined,
    identifierTaken: (taken as unknown[][]).some((rows) => rows.length > 0),
  };
}

/** Creates an option; without a position it goes after the question's last option. */
export async function insertOption(
  db: DB,
  eventId: number,
  questionId: number,
  values: { identifier: string; answer: I18n; position?: number | undefined },
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

/** Writes the changed columns; undefined when the option is gone. */
export async function updateOptionValues(
  db: DB,
  eventId: number,
  questionId: number,
  id: number,
  values: Partial<OptionValues>,
  now: number,
) {
  const [rows] = await db.batch([
    db
      .update(questionOptions)
      .set(values)
      .where(optionWhere(eventId, questionId, id))
      .returning(),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ]);
  return rows[0];
}

export async function deleteOptionRow(db: DB, eventId: number, questionId: number, id: number, now: number) {
  await db.batch([
    db.delete(questionOptions).where(optionWhere(eventId, questionId, id)),
    touchStatement(db, eventScopeKey(eventId), QUESTIONS_RESOURCE, now),
  ]);
}
