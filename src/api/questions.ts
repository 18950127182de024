/**
 * Questions (docs/api.md; pretix docs questions.rst). Reading needs access to the event;
 * writing needs can_change_items. The rules and services are in services/catalog/questions.ts; options
 * are written inline only on creation, afterwards through the nested endpoints
 * (api/question-options.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  listQuestions,
  type OptionRow,
  QUESTION_ORDERING,
  type QuestionRecord,
} from "../services/catalog/catalog-reads";
import { QUESTION_TYPES } from "../services/stored-values";
import {
  createQuestion,
  deleteQuestion,
  loadQuestion,
  questionInput,
  questionPatch,
  questionPut,
  updateQuestion,
} from "../services/catalog/questions";
import { notModified } from "../http/conditional";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { date, dateTime, decimalString, i18n, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";

export const optionResponse = z
  .object({
    id: id(),
    identifier: z.string(),
    position: z.number().int(),
    answer: i18n(),
  })
  .meta({ id: "QuestionOption" });
export type OptionResponse = z.infer<typeof optionResponse>;

export const questionResponse = z
  .object({
    id: id(),
    question: i18n(),
    help_text: i18n().nullable(),
    type: z.enum(QUESTION_TYPES),
    required: z.boolean(),
    items: z.array(id()),
    position: z.number().int(),
    identifier: z.string(),
    ask_during_checkin: z.boolean(),
    show_during_checkin: z.boolean(),
    hidden: z.boolean(),
    print_on_invoice: z.boolean(),
    options: z.array(optionResponse),
    valid_number_min: decimalString().nullable(),
    valid_number_max: decimalString().nullable(),
    valid_date_min: date().nullable(),
    valid_date_max: date().nullable(),
    valid_datetime_min: dateTime().nullable(),
    valid_datetime_max: dateTime().nullable(),
    valid_file_portrait: z.boolean(),
    dependency_question: id().nullable(),
    dependency_values: z.array(z.string()),
    dependency_value: z.string().nullable(),
  })
  .meta({ id: "Question" });
export type QuestionResponse = z.infer<typeof questionResponse>;

export function serializeOption(o: Pick<OptionRow, "id" | "identifier" | "position" | "answer">): OptionResponse {
  return { id: o.id, identifier: o.identifier, position: o.position, answer: o.answer };
}

export function serializeQuestion({ question: q, items, options }: QuestionRecord): QuestionResponse {
  return {
    id: q.id,
    question: q.question,
    help_text: q.helpText ?? null,
    type: q.type,
    required: q.required,
    items: JSON.parse(items) as number[],
    position: q.position,
    identifier: q.identifier,
    ask_during_checkin: q.askDuringCheckin,
    show_during_checkin: q.showDuringCheckin,
    hidden: q.hidden,
    print_on_invoice: q.printOnInvoice,
    options: (JSON.parse(options) as OptionRow[]).map(serializeOption),
    valid_number_min: q.validNumberMin,
    valid_number_max: q.validNumberMax,
    valid_date_min: q.validDateMin,
    valid_date_max: q.validDateMax,
    valid_datetime_min: toIso(q.validDatetimeMin),
    valid_datetime_max: toIso(q.validDatetimeMax),
    valid_file_portrait: q.validFilePortrait,
    dependency_question: q.dependencyQuestionId,
    dependency_values: q.dependencyValues,
    dependency_value: q.dependencyValues[0] ?? null,
  };
}

export const questionRoutes = new Hono<AppEnv>();
const doc = apiDocs("Questions");
const questionFilters = queryParams({ identifier: q.string(), ask_during_checkin: q.bool(), required: q.bool() });
const read = eventScope(null);
const write = eventScope("can_change_items");
const base = "/organizers/:organizer/events/:event/questions";

questionRoutes.get(
  base,
  read,
  doc.list(questionResponse, { summary: "List questions", ordering: QUESTION_ORDERING, conditional: true }),
  questionFilters,
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const filters = { identifier: f.identifier, askDuringCheckin: f.ask_during_checkin, required: f.required };
    const page = await listQuestions(eventContext(c), filters, req);
    const unchanged = notModified(c, page.lastModified);
    if (unchanged) return unchanged;
    return respondPage(c, req, page, serializeQuestion);
  },
);

questionRoutes.get(`${base}/:id`, read, doc.ok(questionResponse, { summary: "Question detail" }), async (c) =>
  c.json(serializeQuestion(await loadQuestion(eventContext(c), pathId(c, "id")))),
);

questionRoutes.post(
  base,
  write,
  doc.created(questionResponse, {
    summary: "Create a question",
    description: "Options are written inline only here; afterwards through the question's options endpoints.",
  }),
  jsonBody(questionInput),
  async (c) => {
    return c.json(serializeQuestion(await createQuestion(eventContext(c), c.req.valid("json"))), 201);
  },
);

questionRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(questionResponse, { summary: "Replace a question" }),
  jsonBody(questionPut),
  async (c) => {
    return c.json(
      serializeQuestion(await updateQuestion(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
    );
  },
);

questionRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(questionResponse, { summary: "Change a question" }),
  jsonBody(questionPatch),
  async (c) => {
    return c.json(
      serializeQuestion(await updateQuestion(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
    );
  },
);

questionRoutes.delete(`${base}/:id`, write, doc.noContent({ summary: "Delete a question" }), async (c) => {
  await deleteQuestion(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
});
