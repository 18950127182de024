/**
 * Questions (spec "Question"; pretix docs questions.rst) and their options (pretix docs
 * question_options.rst). Reading needs access to the event; writing needs can_change_items.
 * Options are written inline only on creation; afterwards through the nested endpoints
 * (api/question-options.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { eventScopeKey, lastChangeQuery } from "../db/changes";
import { isForeignKeyError, isUniqueError } from "../db/constraints";
import {
  createQuestion,
  deleteQuestion,
  findQuestion,
  type OptionRow,
  type OptionValues,
  optionIdentifiersOf,
  QUESTIONS_RESOURCE,
  type QuestionRecord,
  type QuestionRow,
  type QuestionValues,
  questionCount,
  questionGraph,
  questionPage,
  takenOptionIdentifiers,
  updateQuestion,
} from "../db/questions";
import { QUESTION_TYPES, questions } from "../db/schema";
import { BOOLEAN_DEPENDENCY_VALUES, type QuestionNode, type QuestionState, validateQuestion } from "../domain/catalog";
import { notModified } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, fieldError, notFound } from "../domain/failure";
import { date, dateTime, i18n, i18nRequired } from "../domain/fields";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryString } from "../http/validation";
import { toIso } from "../lib/datetime";
import { checkEventItems, identifier, idList, position, randomIdentifier } from "../domain/catalog-fields";

// ---- serializers ----

export function serializeOption(o: Pick<OptionRow, "id" | "identifier" | "position" | "answer">) {
  return { id: o.id, identifier: o.identifier, position: o.position, answer: o.answer };
}

export function serializeQuestion({ question: q, items, options }: QuestionRecord) {
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

// ---- input ----

/** Limits of number questions: decimal numbers with up to 10 + 6 digits, kept with 6 places. */
const numberLimit = () =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const text = typeof v === "number" ? (Number.isFinite(v) && !/e/i.test(String(v)) ? String(v) : "") : v.trim();
    const m = /^([+-])?(\d+)(?:\.(\d*))?$/.exec(text);
    if (!m) {
      ctx.addIssue({ code: "custom", message: "A valid number is required." });
      return z.NEVER;
    }
    const whole = m[2]!.replace(/^0+(?=\d)/, "");
    const frac = (m[3] ?? "").replace(/0+$/, "");
    if (frac.length > 6) {
      ctx.addIssue({ code: "custom", message: "Ensure that there are no more than 6 decimal places." });
      return z.NEVER;
    }
    if (whole.length > 10) {
      ctx.addIssue({ code: "custom", message: "Ensure that there are no more than 10 digits before the decimal point." });
      return z.NEVER;
    }
    const negative = m[1] === "-" && (whole !== "0" || frac !== "");
    return `${negative ? "-" : ""}${whole}.${frac.padEnd(6, "0")}`;
  });

export const optionFields = z.object({
  answer: i18nRequired(),
  identifier: identifier().nullable(),
  position: position(),
});
export type OptionInput = z.output<typeof optionFields>;

const questionFields = z.object({
  question: i18nRequired(),
  help_text: i18n().nullable(),
  type: z.enum(QUESTION_TYPES),
  required: z.boolean(),
  position: position(),
  items: idList(),
  identifier: identifier().nullable(),
  ask_during_checkin: z.boolean(),
  hidden: z.boolean(),
  print_on_invoice: z.boolean(),
  valid_number_min: numberLimit().nullable(),
  valid_number_max: numberLimit().nullable(),
  valid_date_min: date().nullable(),
  valid_date_max: date().nullable(),
  valid_datetime_min: dateTime().nullable(),
  valid_datetime_max: dateTime().nullable(),
  valid_file_portrait: z.boolean(),
  dependency_question: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable(),
  dependency_values: z.array(z.string().max(190)).max(500),
  /** The old single-value form of dependency_values. */
  dependency_value: z.string().max(190).nullable(),
});
type QuestionInput = z.output<typeof questionFields>;

/** POST: options may be sent inline (each with `answer`; `identifier` and `position` optional). */
const questionCreate = questionFields
  .partial()
  .required({ question: true, type: true })
  .extend({ options: z.array(optionFields.partial().required({ answer: true })).max(500).optional() });
/** PUT and PATCH: `options` is accepted only to be refused with a clear message. */
const questionPut = questionFields.partial().required({ question: true, type: true }).extend({ options: z.unknown().optional() });
const questionPatch = questionFields.partial().extend({ options: z.unknown().optional() });

/** Column values; with `full` (POST, PUT) omitted fields take their defaults. */
function questionValues(input: Partial<QuestionInput>, full: boolean): Partial<QuestionValues> {
  const v: Partial<QuestionValues> = {};
  const set = <K extends keyof QuestionValues>(key: K, value: QuestionValues[K] | undefined, fallback: QuestionValues[K]) => {
    if (value !== undefined) v[key] = value;
    else if (full) v[key] = fallback;
  };
  if (input.question !== undefined) v.question = input.question;
  if (input.type !== undefined) v.type = input.type;
  if (input.identifier) v.identifier = input.identifier;
  set("helpText", input.help_text, null);
  set("required", input.required, false);
  set("position", input.position, 0);
  set("askDuringCheckin", input.ask_during_checkin, false);
  set("hidden", input.hidden, false);
  set("printOnInvoice", input.print_on_invoice, false);
  set("validNumberMin", input.valid_number_min, null);
  set("validNumberMax", input.valid_number_max, null);
  set("validDateMin", input.valid_date_min, null);
  set("validDateMax", input.valid_date_max, null);
  set("validDatetimeMin", input.valid_datetime_min, null);
  set("validDatetimeMax", input.valid_datetime_max, null);
  set("validFilePortrait", input.valid_file_portrait, false);
  set("dependencyQuestionId", input.dependency_question, null);
  // dependency_values wins over the old single-value form when both are sent
  const values =
    input.dependency_values !== undefined
      ? input.dependency_values
      : input.dependency_value !== undefined
        ? input.dependency_value
          ? [input.dependency_value]
          : []
        : undefined;
  set("dependencyValues", values === undefined ? undefined : [...new Set(values)], []);
  return v;
}

const IDENTIFIER_TAKEN = "This identifier is already used for a different question.";
const DEPENDENCY_GONE = "The question this question depends on has just been deleted.";

/**
 * Checks a question's new state against the event: items, identifier, dependency. Also
 * writes canonical "True"/"False" dependency values for boolean questions.
 */
async function checkQuestion(c: AppContext, values: Partial<QuestionValues>, itemIds: number[] | undefined, current: QuestionRow | null, checkDependencyValues: boolean, errors: Problems) {
  const graphRows = await questionGraph(c.var.db, c.var.event.id);
  const graph = new Map<number, QuestionNode>(graphRows.map((r) => [r.id, r]));
  const merged = { ...(current ?? {}), ...values } as QuestionValues & { id?: number };
  if (values.identifier !== undefined) {
    const lower = values.identifier.toLowerCase();
    if (graphRows.some((r) => r.id !== current?.id && r.identifier.toLowerCase() === lower)) errors.add("identifier", IDENTIFIER_TAKEN);
  }
  await checkEventItems(c.var.db, c.var.event.id, errors, "items", itemIds);
  const depId = merged.dependencyQuestionId ?? null;
  const dep = depId === null ? undefined : graph.get(depId);
  let dependencyValues = merged.dependencyValues ?? [];
  if (dep?.type === "B" && values.dependencyValues) {
    dependencyValues = values.dependencyValues.map((x) => BOOLEAN_DEPENDENCY_VALUES.find((b) => b.toLowerCase() === x.toLowerCase()) ?? x);
    values.dependencyValues = [...new Set(dependencyValues)];
  }
  const depOptions = dep && (dep.type === "C" || dep.type === "M") ? await optionIdentifiersOf(c.var.db, c.var.event.id, dep.id) : new Set<string>();
  const state: QuestionState = {
    id: current?.id ?? null,
    type: merged.type,
    askDuringCheckin: merged.askDuringCheckin ?? false,
    validNumberMin: merged.validNumberMin ?? null,
    validNumberMax: merged.validNumberMax ?? null,
    validDateMin: merged.validDateMin ?? null,
    validDateMax: merged.validDateMax ?? null,
    validDatetimeMin: merged.validDatetimeMin ?? null,
    validDatetimeMax: merged.validDatetimeMax ?? null,
    validFilePortrait: merged.validFilePortrait ?? false,
    dependencyQuestionId: depId,
    dependencyValues,
  };
  validateQuestion(state, graph, depOptions, checkDependencyValues, errors);
  return new Set(graphRows.map((r) => r.identifier.toLowerCase()));
}

/** Inline options of a new question: identifiers unique (within the request and the event) or generated. */
async function inlineOptions(c: AppContext, options: Partial<OptionInput>[], errors: Problems): Promise<OptionValues[]> {
  const given = options.map((o) => o.identifier).filter((x): x is string => !!x);
  const taken = await takenOptionIdentifiers(c.var.db, c.var.event.id, given);
  const seen = new Set<string>();
  const out: OptionValues[] = [];
  options.forEach((o, i) => {
    let ident = o.identifier ?? null;
    if (ident) {
      if (taken.has(ident) || seen.has(ident)) errors.add("options", `The identifier "${ident}" is already used for a different option.`);
    } else {
      do ident = randomIdentifier();
      while (seen.has(ident) || given.includes(ident));
    }
    seen.add(ident);
    out.push({ identifier: ident, answer: o.answer!, position: o.position ?? i + 1 });
  });
  return out;
}

async function loadQuestion(c: AppContext): Promise<QuestionRecord> {
  const record = await findQuestion(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!record) throw notFound();
  return record;
}

async function reload(c: AppContext, id: number) {
  const record = await findQuestion(c.var.db, c.var.event.id, id);
  if (!record) throw notFound();
  return serializeQuestion(record);
}

export const questionRoutes = new Hono<AppEnv>();
const read = eventScope(null);
const write = eventScope("can_change_items");
const base = "/organizers/:organizer/events/:event/questions";

questionRoutes.get(base, read, async (c) => {
  const page = pageRequest(c);
  const filters = {
    identifier: queryString(c, "identifier"),
    askDuringCheckin: queryBool(c, "ask_during_checkin"),
    required: queryBool(c, "required"),
  };
  const order = ordering(c, { id: questions.id, position: questions.position }, "position", questions.id);
  const db = c.var.db;
  const eventId = c.var.event.id;
  const [stamp, [total], rows] = await db.batch([
    lastChangeQuery(db, eventScopeKey(eventId), QUESTIONS_RESOURCE),
    questionCount(db, eventId, filters),
    questionPage(db, eventId, filters, order, page.limit, page.offset),
  ]);
  const unchanged = notModified(c, stamp[0]?.modifiedAt);
  if (unchanged) return unchanged;
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeQuestion)));
});

questionRoutes.get(`${base}/:id`, read, async (c) => c.json(serializeQuestion(await loadQuestion(c))));

questionRoutes.post(base, write, jsonBody(questionCreate), async (c) => {
  const input = c.req.valid("json");
  const values = questionValues(input, true);
  const errors = new Problems();
  const itemIds = input.items ?? [];
  const identifiers = await checkQuestion(c, values, itemIds, null, true, errors);
  const options = await inlineOptions(c, input.options ?? [], errors);
  errors.throwIfAny();
  if (!values.identifier) {
    let ident: string;
    do ident = randomIdentifier();
    while (identifiers.has(ident.toLowerCase()));
    values.identifier = ident;
  }
  let id: number;
  try {
    id = await createQuestion(c.var.db, c.var.event.id, values as QuestionValues, itemIds, options, Date.now());
  } catch (e) {
    if (isUniqueError(e)) throw fieldError(input.options?.length ? "options" : "identifier", "An identifier is already used by another question or option.");
    if (isForeignKeyError(e)) throw fieldError("dependency_question", DEPENDENCY_GONE);
    throw e;
  }
  return c.json(await reload(c, id), 201);
});

async function changeQuestion(c: AppContext, input: Partial<QuestionInput> & { options?: unknown }, full: boolean) {
  const { question: current } = await loadQuestion(c);
  if (input.options !== undefined) {
    throw fieldError("options", "Updating options via PATCH/PUT is not supported. Please use the dedicated nested endpoint.");
  }
  const values = questionValues(input, full);
  const itemIds = full ? (input.items ?? []) : input.items;
  const errors = new Problems();
  const dependencyTouched = input.dependency_question !== undefined || input.dependency_values !== undefined || input.dependency_value !== undefined;
  await checkQuestion(c, values, itemIds, current, dependencyTouched, errors);
  errors.throwIfAny();
  try {
    await updateQuestion(c.var.db, c.var.event.id, current.id, values, itemIds, Date.now());
  } catch (e) {
    if (isUniqueError(e)) throw fieldError("identifier", IDENTIFIER_TAKEN);
    if (isForeignKeyError(e)) throw fieldError("dependency_question", DEPENDENCY_GONE);
    throw e;
  }
  return c.json(await reload(c, current.id));
}

questionRoutes.put(`${base}/:id`, write, jsonBody(questionPut), (c) => changeQuestion(c, c.req.valid("json"), true));
questionRoutes.patch(`${base}/:id`, write, jsonBody(questionPatch), (c) => changeQuestion(c, c.req.valid("json"), false));

questionRoutes.delete(`${base}/:id`, write, async (c) => {
  const { question } = await loadQuestion(c);
  await deleteQuestion(c.var.db, c.var.event.id, question.id, Date.now());
  return c.body(null, 204);
});
