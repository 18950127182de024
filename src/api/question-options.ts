/**
 * Options of choice questions (pretix docs question_options.rst): the nested endpoints under
 * a question. Reading needs access to the event; writing needs can_change_items. Option
 * identifiers are unique within the event; without a position a new option goes last.
 */
import { Hono } from "hono";
import { isUniqueError } from "../db/constraints";
import {
  createOption,
  deleteOption,
  findOption,
  type OptionRow,
  type OptionValues,
  optionCount,
  optionPage,
  questionExists,
  takenOptionIdentifiers,
  updateOption,
} from "../db/questions";
import type { AppContext, AppEnv } from "../http/context";
import { fieldError, notFound } from "../domain/failure";
import { envelope, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { randomIdentifier } from "../domain/catalog-fields";
import { type OptionInput, optionFields, serializeOption } from "./questions";

export const questionOptionRoutes = new Hono<AppEnv>();
const read = eventScope(null);
const write = eventScope("can_change_items");

const optionBase = "/organizers/:organizer/events/:event/questions/:question/options";
const optionFull = optionFields.partial().required({ answer: true });
const optionPatch = optionFields.partial();
const OPTION_IDENTIFIER_TAKEN = (ident: string) => `The identifier "${ident}" is already used for a different option.`;

/** The question of the path; 404 when it is not a question of the event. */
async function requireQuestion(c: AppContext): Promise<number> {
  const id = pathId(c, "question");
  if (!(await questionExists(c.var.db, c.var.event.id, id))) throw notFound();
  return id;
}

/** The option of the path (of the path's question: no separate look-up of the question). */
async function loadOption(c: AppContext): Promise<OptionRow> {
  const option = await findOption(c.var.db, c.var.event.id, pathId(c, "question"), pathId(c, "id"));
  if (!option) throw notFound();
  return option;
}

async function checkOptionIdentifier(c: AppContext, ident: string | null | undefined, exceptOptionId?: number) {
  if (!ident) return;
  const taken = await takenOptionIdentifiers(c.var.db, c.var.event.id, [ident], exceptOptionId);
  if (taken.has(ident)) throw fieldError("identifier", OPTION_IDENTIFIER_TAKEN(ident));
}

questionOptionRoutes.get(optionBase, read, async (c) => {
  const questionId = await requireQuestion(c);
  const page = pageRequest(c);
  const db = c.var.db;
  const eventId = c.var.event.id;
  const [[total], rows] = await db.batch([optionCount(db, eventId, questionId), optionPage(db, eventId, questionId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeOption)));
});

questionOptionRoutes.get(`${optionBase}/:id`, read, async (c) => c.json(serializeOption(await loadOption(c))));

questionOptionRoutes.post(optionBase, write, jsonBody(optionFull), async (c) => {
  const questionId = await requireQuestion(c);
  const input = c.req.valid("json");
  await checkOptionIdentifier(c, input.identifier);
  const ident = input.identifier || randomIdentifier();
  try {
    const row = await createOption(c.var.db, c.var.event.id, questionId, { identifier: ident, answer: input.answer, position: input.position }, Date.now());
    return c.json(serializeOption(row), 201);
  } catch (e) {
    if (isUniqueError(e)) throw fieldError("identifier", OPTION_IDENTIFIER_TAKEN(ident));
    throw e;
  }
});

async function changeOption(c: AppContext, input: Partial<OptionInput>, full: boolean) {
  const option = await loadOption(c);
  const values: Partial<OptionValues> = {};
  if (input.answer !== undefined) values.answer = input.answer;
  if (input.identifier) values.identifier = input.identifier;
  if (input.position !== undefined || full) values.position = input.position ?? 0;
  if (values.identifier !== undefined && values.identifier !== option.identifier) await checkOptionIdentifier(c, values.identifier, option.id);
  if (Object.keys(values).length === 0) return c.json(serializeOption(option));
  try {
    const row = await updateOption(c.var.db, c.var.event.id, option.questionId, option.id, values, Date.now());
    if (!row) throw notFound();
    return c.json(serializeOption(row));
  } catch (e) {
    if (isUniqueError(e)) throw fieldError("identifier", OPTION_IDENTIFIER_TAKEN(values.identifier ?? ""));
    throw e;
  }
}

questionOptionRoutes.put(`${optionBase}/:id`, write, jsonBody(optionFull), (c) => changeOption(c, c.req.valid("json"), true));
questionOptionRoutes.patch(`${optionBase}/:id`, write, jsonBody(optionPatch), (c) => changeOption(c, c.req.valid("json"), false));

questionOptionRoutes.delete(`${optionBase}/:id`, write, async (c) => {
  const option = await loadOption(c);
  await deleteOption(c.var.db, c.var.event.id, option.questionId, option.id, Date.now());
  return c.body(null, 204);
});
