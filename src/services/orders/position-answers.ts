/**
 * The answers of a position (carts, orders, an order change) checked as pretix's answer
 * serializer checks them, and normalized as pretix stores them: booleans as "True"/"False",
 * choices as their options' texts, dates and times in their canonical form.
 */
import type { OptionRow, QuestionRow } from "../../db/sales-catalog";
import type { Answer } from "../../db/schema/index";
import { isCountryCode } from "../../lib/countries";
import { formatDate, parseDate, parseDateTime } from "../../lib/datetime";
import { type FieldErrors, invalidPk, type Problems } from "../../lib/failure";
import { i18nText } from "../../lib/i18n";
import { parseDecimal } from "../../lib/money";
import type { SalesCatalog } from "./sales-catalog";

/** An answer to a question as sent (carts and orders). */
export type AnswerInput = { question: number; answer?: string; options?: number[] };

/** What pretix's answer serializer says about a value of the wrong form. */
const ANSWER_FORMATS = {
  date: "Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
  datetime:
    "Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
  time: "Time has wrong format. Use one of these formats instead: hh:mm[:ss[.uuuuuu]].",
};
const TRUE_ANSWERS = new Set(["true", "True", "1", "TRUE"]);
const FALSE_ANSWERS = new Set(["false", "False", "0", "FALSE"]);
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?$/;

/** A datetime answer as pretix stores it: Python's text of the moment in UTC ("2018-05-14 13:00:00+00:00"). */
function storedDateTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  const micro = ms % 1000 === 0 ? "" : `.${String(ms % 1000).padStart(3, "0")}000`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${micro}+00:00`;
}

/** A time answer as pretix stores it ("13:00" → "13:00:00"); null when it is none. */
function storedTime(text: string): string | null {
  const m = TIME.exec(text);
  if (!m) return null;
  const [, h, mi, sec, frac] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec ?? 0) > 59) return null;
  const fraction = frac && Number(frac) !== 0 ? `.${frac.padEnd(6, "0")}` : "";
  return `${h!.padStart(2, "0")}:${mi}:${sec ?? "00"}${fraction}`;
}

type Question = { question: QuestionRow; itemIds: Set<number>; options: Map<number, OptionRow> };

/** One answer's verdict: the value stored (with its options), or a refusal of one field. */
type Verdict = { value: string; options?: number[]; identifiers?: string[] } | { refused: string; field?: string };

const refuse = (refused: string, field?: string): Verdict => (field ? { refused, field } : { refused });

/**
 * Checks the answers of one position, one error object per answer (`{"question": [...]}` or
 * `{"non_field_errors": [...]}`, nested under "answers" in `errors`), and returns them as stored.
 */
export function validateAnswers(
  answers: AnswerInput[],
  itemId: number,
  catalog: SalesCatalog,
  errors: Problems,
): Answer[] {
  const out: Answer[] = [];
  const seen = new Set<number>();
  const perAnswer = answers.map((a): FieldErrors => {
    const q = catalog.questions.get(a.question);
    const v = q ? answerVerdict(a, q, itemId, seen) : unknownQuestion(a.question, catalog);
    if ("refused" in v) return { [v.field ?? "non_field_errors"]: [v.refused] };
    out.push({
      question: a.question,
      answer: v.value,
      options: v.options ?? [],
      question_identifier: q!.question.identifier,
      option_identifiers: v.identifiers ?? [],
    });
    return {};
  });
  errors.nest("answers", perAnswer);
  return out;
}

function unknownQuestion(id: number, catalog: SalesCatalog): Verdict {
  const foreign = catalog.foreign.questions.has(id);
  return refuse(foreign ? "The specified question does not belong to this event." : invalidPk(id), "question");
}

/** One answer to a question of the event: asked for the product, once, and of the question's form. */
function answerVerdict(a: AnswerInput, q: Question, itemId: number, seen: Set<number>): Verdict {
  if (!q.itemIds.has(itemId)) return refuse("The specified question is not asked for this product.", "question");
  if (seen.has(a.question)) return refuse("The specified question was answered more than once.", "question");
  seen.add(a.question);
  const t = q.question.type;
  const opts = a.options ?? [];
  if (t === "C" || t === "M") return choiceVerdict(q, t, opts);
  if (opts.length) return refuse("You should not specify options if the question is not of a choice type.");
  return typedVerdict(q.question, (a.answer ?? "").trim());
}

/** A choice (one option, "C") or a multiple choice ("M"): options of the question, stored as their texts. */
function choiceVerdict(q: Question, t: "C" | "M", opts: number[]): Verdict {
  if (opts.length === 0) return refuse("You need to specify options if the question is of a choice type.");
  if (t === "C" && opts.length > 1) return refuse("You can specify at most one option for this question.");
  const chosen = opts.map((id) => q.options.get(id));
  if (chosen.some((o) => !o)) return refuse("The specified option does not belong to this question.");
  return {
    value: chosen.map((o) => i18nText(o!.answer)).join(", "),
    options: opts,
    identifiers: chosen.map((o) => o!.identifier),
  };
}

/** A text answer of the question's type, in its stored form. */
function typedVerdict(q: QuestionRow, text: string): Verdict {
  switch (q.type) {
    case "F":
      return refuse("File upload questions cannot be answered through this endpoint.");
    case "N":
      return numberVerdict(q, text);
    case "B":
      if (TRUE_ANSWERS.has(text)) return { value: "True" };
      if (FALSE_ANSWERS.has(text)) return { value: "False" };
      return refuse('Please specify "true" or "false" for boolean questions.');
    case "D":
      return dateVerdict(q, text);
    case "H": {
      const time = storedTime(text);
      return time === null ? refuse(ANSWER_FORMATS.time) : { value: time };
    }
    case "W":
      return dateTimeVerdict(q, text);
    case "CC":
      return isCountryCode(text.toUpperCase()) ? { value: text.toUpperCase() } : refuse("Enter a valid country code.");
    default:
      return text === "" && q.required ? refuse("This field may not be blank.") : { value: text };
  }
}

function numberVerdict(q: QuestionRow, text: string): Verdict {
  const n = parseDecimal(text, 6);
  if (n === null) return refuse("A valid number is required.");
  const min = q.validNumberMin !== null ? parseDecimal(q.validNumberMin, 6) : null;
  const max = q.validNumberMax !== null ? parseDecimal(q.validNumberMax, 6) : null;
  if ((min !== null && n < min) || (max !== null && n > max)) return refuse("The number is out of the allowed range.");
  return { value: text };
}

function dateVerdict(q: QuestionRow, text: string): Verdict {
  const d = parseDate(text);
  if (!d) return refuse(ANSWER_FORMATS.date);
  const iso = formatDate(d);
  if ((q.validDateMin && iso < q.validDateMin) || (q.validDateMax && iso > q.validDateMax))
    return refuse("The date is out of the allowed range.");
  return { value: iso };
}

function dateTimeVerdict(q: QuestionRow, text: string): Verdict {
  const ms = parseDateTime(text);
  if (ms === null) return refuse(ANSWER_FORMATS.datetime);
  if (
    (q.validDatetimeMin !== null && ms < q.validDatetimeMin) ||
    (q.validDatetimeMax !== null && ms > q.validDatetimeMax)
  )
    return refuse("The datetime is out of the allowed range.");
  return { value: storedDateTime(ms) };
}
