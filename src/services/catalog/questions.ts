/**
 * Questions (docs/api.md; pretix docs questions.rst) and their options (pretix docs
 * question_options.rst): the request bodies, pretix's model and serializer checks (validation
 * ranges by type, dependencies), and the services. Options are written inline only on
 * creation; afterwards through the nested endpoints. Question identifiers are unique within
 * the event (case-insensitive), option identifiers too; both are generated when not sent.
 */
import { z } from "zod";
import { isForeignKeyError, isUniqueError } from "../../db/constraints";
import {
  deleteOptionRow,
  deleteQuestionRow,
  findOption,
  findQuestion,
  insertOption,
  insertQuestion,
  type OptionRow,
  type OptionValues,
  optionChangeFacts,
  optionCreateFacts,
  type QuestionNode,
  type QuestionRecord,
  type QuestionRow,
  type QuestionValues,
  questionCheckFacts,
  questionExists,
  updateOptionValues,
  updateQuestionValues,
} from "../../db/questions";
import { QUESTION_IDENTIFIER_INDEX, QUESTION_TYPES, type QuestionType } from "../../db/schema/index";
import { checkEventItems, identifier, idList, position, randomIdentifier } from "./catalog-fields";
import { checkinConfigChanged } from "../checkin/checkin-lists";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { fieldError, invalidPk, notFound, Problems } from "../../lib/failure";
import { date, dateTime, i18n, i18nRequired } from "../../rules/fields";

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
      ctx.addIssue({
        code: "custom",
        message: "Ensure that there are no more than 10 digits before the decimal point.",
      });
      return z.NEVER;
    }
    const negative = m[1] === "-" && (whole !== "0" || frac !== "");
    return `${negative ? "-" : ""}${whole}.${frac.padEnd(6, "0")}`;
  });

const optionFields = z.object({
  answer: i18nRequired(),
  identifier: identifier().nullable(),
  position: position(),
});

/** The body of an option's POST and PUT: `answer` required. */
export const optionInput = optionFields.partial().required({ answer: true });
/** The body of an option's PATCH: any field. */
export const optionPatch = optionFields.partial();
export type OptionInput = z.output<typeof optionInput>;
export type OptionPatch = z.output<typeof optionPatch>;

const questionFields = z.object({
  question: i18nRequired(),
  help_text: i18n().nullable(),
  type: z.enum(QUESTION_TYPES),
  required: z.boolean(),
  position: position(),
  items: idList(),
  identifier: identifier().nullable(),
  ask_during_checkin: z.boolean(),
  show_during_checkin: z.boolean(),
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

/** The body of POST: options may be sent inline (each with `answer`; `identifier` and `position` optional). */
export const questionInput = questionFields
  .partial()
  .required({ question: true, type: true })
  .extend({ options: z.array(optionInput).max(500).optional() });
/** The body of PUT; `options` is accepted only to be refused with a clear message. */
export const questionPut = questionFields
  .partial()
  .required({ question: true, type: true })
  .extend({ options: z.unknown().optional() });
/** The body of PATCH; `options` as in PUT. */
export const questionPatch = questionFields.partial().extend({ options: z.unknown().optional() });
export type QuestionInput = z.output<typeof questionInput>;
export type QuestionChange = z.output<typeof questionPatch>;

type QuestionFields = z.output<typeof questionFields>;

/** Column values; omitted fields take their defaults unless the mode is `patch` (the identifier is kept). */
function questionValues(input: Partial<QuestionFields>, mode: WriteMode): Partial<QuestionValues> {
  const v: Partial<QuestionValues> = {};
  const set = <K extends keyof QuestionValues>(
    key: K,
    value: QuestionValues[K] | undefined,
    fallback: QuestionValues[K],
  ) => {
    if (value !== undefined) v[key] = value;
    else if (mode !== "patch") v[key] = fallback;
  };
  if (input.question !== undefined) v.question = input.question;
  if (input.type !== undefined) v.type = input.type;
  if (input.identifier) v.identifier = input.identifier;
  set("helpText", input.help_text, null);
  set("required", input.required, false);
  set("position", input.position, 0);
  set("askDuringCheckin", input.ask_during_checkin, false);
  set("showDuringCheckin", input.show_during_checkin, false);
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

// ---- rules ----

const BOOLEAN_DEPENDENCY_VALUES = ["True", "False"];

/** Compares decimal strings with six places ("-1.500000"). */
function compareDecimal(a: string, b: string): number {
  const scaled = (s: string) => BigInt(s.replace(".", ""));
  const x = scaled(a),
    y = scaled(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Validation ranges belong to their question type (number N, date D, date and time W, file
 * F) and a minimum must not exceed its maximum.
 */
function validateRanges(q: QuestionValues, errors: Problems) {
  const range = <T>(
    minField: string,
    maxField: string,
    min: T | null,
    max: T | null,
    type: QuestionType,
    label: string,
    cmp: (a: T, b: T) => number,
  ) => {
    if (q.type !== type) {
      if (min !== null) errors.add(minField, `Only ${label} questions (type ${type}) can have this limit.`);
      if (max !== null) errors.add(maxField, `Only ${label} questions (type ${type}) can have this limit.`);
    } else if (min !== null && max !== null && cmp(min, max) > 0) {
      errors.add(maxField, "The maximum must not be lower than the minimum.");
    }
  };
  range(
    "valid_number_min",
    "valid_number_max",
    q.validNumberMin ?? null,
    q.validNumberMax ?? null,
    "N",
    "number",
    compareDecimal,
  );
  range("valid_date_min", "valid_date_max", q.validDateMin ?? null, q.validDateMax ?? null, "D", "date", (a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  range(
    "valid_datetime_min",
    "valid_datetime_max",
    q.validDatetimeMin ?? null,
    q.validDatetimeMax ?? null,
    "W",
    "date and time",
    (a, b) => a - b,
  );
  if ((q.validFilePortrait ?? false) && q.type !== "F") {
    errors.add("valid_file_portrait", "Only file upload questions (type F) can require a portrait photo.");
  }
}

/**
 * Dependencies (pretix QuestionSerializer): the question depended on is a boolean or choice
 * question of the same event, not this question, not asked during check-in, no cycle, and
 * neither question is asked during check-in. `checkValues` also checks `dependency_values`
 * against the other question's answers ("True"/"False" or option identifiers).
 */
function validateDependency(
  q: QuestionValues,
  selfId: number | null,
  graph: ReadonlyMap<number, QuestionNode>,
  dependencyOptionIdentifiers: ReadonlySet<string>,
  checkValues: boolean,
  errors: Problems,
) {
  const depId = q.dependencyQuestionId ?? null;
  if (depId === null) return;
  const dep = graph.get(depId);
  if (!dep) {
    errors.add("dependency_question", invalidPk(depId));
    return;
  }
  if (dep.id === selfId) {
    errors.add("dependency_question", "A question cannot depend on itself.");
    return;
  }
  if (dep.type !== "B" && dep.type !== "C" && dep.type !== "M") {
    errors.add("dependency_question", "Question dependencies can only be set to boolean or choice questions.");
    return;
  }
  if (q.askDuringCheckin ?? false) {
    errors.add("dependency_question", "Dependencies are not supported during check-in.");
  }
  if (dep.askDuringCheckin) {
    errors.add("dependency_question", "Question cannot depend on a question asked during check-in.");
  }
  const seen = new Set<number>(selfId === null ? [] : [selfId]);
  for (
    let node: QuestionNode | undefined = dep;
    node;
    node = node.dependencyQuestionId === null ? undefined : graph.get(node.dependencyQuestionId)
  ) {
    if (seen.has(node.id)) {
      errors.add("dependency_question", "Circular dependency between questions detected.");
      break;
    }
    seen.add(node.id);
  }
  if (checkValues) {
    const allowed = dep.type === "B" ? new Set(BOOLEAN_DEPENDENCY_VALUES) : dependencyOptionIdentifiers;
    for (const v of q.dependencyValues ?? []) {
      if (!allowed.has(v)) {
        errors.add(
          "dependency_values",
          dep.type === "B"
            ? `"${v}" is not a valid value for a boolean question. Use "True" or "False".`
            : `"${v}" is not the identifier of an option of question ${dep.id}.`,
        );
      }
    }
  }
}

const IDENTIFIER_TAKEN = "This identifier is already used for a different question.";
const DEPENDENCY_GONE = "The question this question depends on has just been deleted.";
const OPTION_IDENTIFIER_TAKEN = (ident: string) => `The identifier "${ident}" is already used for a different option.`;

type Checked = { identifiers: Set<string>; takenOptionIdentifiers: Set<string> };

/**
 * Checks a question's new state against the event: identifier, items, validation ranges,
 * dependency. Writes canonical "True"/"False" dependency values for boolean questions into
 * `values`. `optionIdentifiers`: identifiers of inline options, looked up in the same batch.
 */
async function checkQuestion(
  ctx: EventContext,
  values: Partial<QuestionValues>,
  itemIds: number[] | undefined,
  current: QuestionRow | null,
  checkDependencyValues: boolean,
  optionIdentifiers: string[],
  errors: Problems,
): Promise<Checked> {
  const merged = { ...current, ...values } as QuestionValues;
  const depId = merged.dependencyQuestionId ?? null;
  const facts = await questionCheckFacts(ctx.db, ctx.event.id, depId, optionIdentifiers);
  const graph = new Map<number, QuestionNode>(facts.graph.map((r) => [r.id, r]));
  if (values.identifier !== undefined) {
    const lower = values.identifier.toLowerCase();
    if (facts.graph.some((r) => r.id !== current?.id && r.identifier.toLowerCase() === lower))
      errors.add("identifier", IDENTIFIER_TAKEN);
  }
  await checkEventItems(ctx.db, ctx.event.id, errors, "items", itemIds);
  const dep = depId === null ? undefined : graph.get(depId);
  if (dep?.type === "B" && values.dependencyValues) {
    const canonical = values.dependencyValues.map(
      (x) => BOOLEAN_DEPENDENCY_VALUES.find((b) => b.toLowerCase() === x.toLowerCase()) ?? x,
    );
    merged.dependencyValues = canonical;
    values.dependencyValues = [...new Set(canonical)];
  }
  const depOptions =
    dep && (dep.type === "C" || dep.type === "M") ? facts.dependencyOptionIdentifiers : new Set<string>();
  validateRanges(merged, errors);
  validateDependency(merged, current?.id ?? null, graph, depOptions, checkDependencyValues, errors);
  return {
    identifiers: new Set(facts.graph.map((r) => r.identifier.toLowerCase())),
    takenOptionIdentifiers: facts.takenOptionIdentifiers,
  };
}

/** Inline options of a new question: identifiers unique (within the request and the event) or generated. */
function inlineOptions(options: OptionInput[], taken: ReadonlySet<string>, errors: Problems): OptionValues[] {
  const given = options.map((o) => o.identifier).filter((x): x is string => !!x);
  const seen = new Set<string>();
  return options.map((o, i) => {
    let ident = o.identifier ?? null;
    if (ident) {
      if (taken.has(ident) || seen.has(ident)) errors.add("options", OPTION_IDENTIFIER_TAKEN(ident));
    } else {
      do ident = randomIdentifier();
      while (seen.has(ident) || given.includes(ident));
    }
    seen.add(ident);
    return { identifier: ident, answer: o.answer, position: o.position ?? i + 1 };
  });
}

/**
 * The family's constraint failures, raced past the checks, as the checks' own failures: an
 * identifier taken meanwhile, or a question (depended on, or the one written) deleted meanwhile.
 */
async function writeFailure(
  ctx: EventContext,
  e: unknown,
  write: { question: number | null } | { option: string },
): Promise<unknown> {
  if (isUniqueError(e, "question_options.identifier")) {
    return "option" in write
      ? fieldError("identifier", OPTION_IDENTIFIER_TAKEN(write.option))
      : fieldError("options", "An identifier is already used by another question or option.");
  }
  // the index compares identifiers in any case (migration 0015), as the check above does
  if (isUniqueError(e, QUESTION_IDENTIFIER_INDEX)) return fieldError("identifier", IDENTIFIER_TAKEN);
  if (isForeignKeyError(e)) {
    if ("option" in write) return notFound();
    if (write.question !== null && !(await questionExists(ctx.db, ctx.event.id, write.question))) return notFound();
    return fieldError("dependency_question", DEPENDENCY_GONE);
  }
  return e;
}

// ---- services: questions ----

/** A question of the event; not found otherwise. */
export async function loadQuestion(ctx: EventContext, id: number): Promise<QuestionRecord> {
  const record = await findQuestion(ctx.db, ctx.event.id, id);
  if (!record) throw notFound();
  return record;
}

export async function createQuestion(ctx: EventContext, input: QuestionInput): Promise<QuestionRecord> {
  const values = questionValues(input, "create");
  const itemIds = input.items ?? [];
  const options = input.options ?? [];
  const errors = new Problems();
  const given = options.map((o) => o.identifier).filter((x): x is string => !!x);
  const checked = await checkQuestion(ctx, values, itemIds, null, true, given, errors);
  const optionValues = inlineOptions(options, checked.takenOptionIdentifiers, errors);
  errors.throwIfAny();
  if (!values.identifier) {
    let ident: string;
    do ident = randomIdentifier();
    while (checked.identifiers.has(ident.toLowerCase()));
    values.identifier = ident;
  }
  let record: QuestionRecord;
  try {
    record = await insertQuestion(ctx.db, ctx.event.id, values as QuestionValues, itemIds, optionValues, ctx.now);
  } catch (e) {
    throw await writeFailure(ctx, e, { question: null });
  }
  if (record.question.askDuringCheckin) await checkinConfigChanged(ctx);
  return record;
}

/** PUT (`put`) or PATCH (`patch`), checked on the merged state; options are refused (pretix). */
export async function updateQuestion(
  ctx: EventContext,
  id: number,
  input: QuestionChange,
  mode: ChangeMode,
): Promise<QuestionRecord> {
  const { question: current } = await loadQuestion(ctx, id);
  if (input.options !== undefined) {
    throw fieldError(
      "options",
      "Updating options via PATCH/PUT is not supported. Please use the dedicated nested endpoint.",
    );
  }
  const values = questionValues(input, mode);
  const itemIds = mode === "put" ? (input.items ?? []) : input.items;
  const errors = new Problems();
  const dependencyTouched =
    input.dependency_question !== undefined ||
    input.dependency_values !== undefined ||
    input.dependency_value !== undefined;
  await checkQuestion(ctx, values, itemIds, current, dependencyTouched, [], errors);
  errors.throwIfAny();
  let record: QuestionRecord | undefined;
  try {
    record = await updateQuestionValues(ctx.db, ctx.event.id, current.id, values, itemIds, ctx.now);
  } catch (e) {
    throw await writeFailure(ctx, e, { question: current.id });
  }
  if (!record) throw notFound();
  if (current.askDuringCheckin || record.question.askDuringCheckin) await checkinConfigChanged(ctx);
  return record;
}

/** Deletes a question with its options; questions depending on it lose the dependency (as in pretix). */
export async function deleteQuestion(ctx: EventContext, id: number): Promise<void> {
  const { question } = await loadQuestion(ctx, id);
  await deleteQuestionRow(ctx.db, ctx.event.id, question.id, ctx.now);
  if (question.askDuringCheckin) await checkinConfigChanged(ctx);
}

// ---- services: options ----

/** An option of the question (of the event); not found otherwise. */
export async function loadOption(ctx: EventContext, questionId: number, id: number): Promise<OptionRow> {
  const option = await findOption(ctx.db, ctx.event.id, questionId, id);
  if (!option) throw notFound();
  return option;
}

/** A new option of the question; without an identifier one is generated, without a position it goes last. */
export async function createOption(ctx: EventContext, questionId: number, input: OptionInput): Promise<OptionRow> {
  const facts = await optionCreateFacts(ctx.db, ctx.event.id, questionId, input.identifier ?? null);
  if (!facts.questionExists) throw notFound();
  if (input.identifier && facts.identifierTaken)
    throw fieldError("identifier", OPTION_IDENTIFIER_TAKEN(input.identifier));
  const ident = input.identifier || randomIdentifier();
  try {
    return await insertOption(
      ctx.db,
      ctx.event.id,
      questionId,
      { identifier: ident, answer: input.answer, position: input.position },
      ctx.now,
    );
  } catch (e) {
    throw await writeFailure(ctx, e, { option: ident });
  }
}

/** PUT (`put`: the position defaults to 0) or PATCH (`patch`); the identifier is kept when not sent. */
export async function updateOption(
  ctx: EventContext,
  questionId: number,
  id: number,
  input: OptionPatch,
  mode: ChangeMode,
): Promise<OptionRow> {
  const facts = await optionChangeFacts(ctx.db, ctx.event.id, questionId, id, input.identifier ?? null);
  const option = facts.option;
  if (!option) throw notFound();
  const values: Partial<OptionValues> = {};
  if (input.answer !== undefined) values.answer = input.answer;
  if (input.identifier) values.identifier = input.identifier;
  if (input.position !== undefined || mode === "put") values.position = input.position ?? 0;
  if (values.identifier !== undefined && values.identifier !== option.identifier && facts.identifierTaken) {
    throw fieldError("identifier", OPTION_IDENTIFIER_TAKEN(values.identifier));
  }
  if (Object.keys(values).length === 0) return option;
  let row: OptionRow | undefined;
  try {
    row = await updateOptionValues(ctx.db, ctx.event.id, option.questionId, option.id, values, ctx.now);
  } catch (e) {
    throw await writeFailure(ctx, e, { option: values.identifier ?? "" });
  }
  if (!row) throw notFound();
  return row;
}

export async function deleteOption(ctx: EventContext, questionId: number, id: number): Promise<void> {
  const option = await loadOption(ctx, questionId, id);
  await deleteOptionRow(ctx.db, ctx.event.id, option.questionId, option.id, ctx.now);
}
