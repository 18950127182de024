/**
 * Rules of the catalog resources that span fields or objects (pretix's model and serializer
 * checks): questions and their dependencies.
 * Each takes the complete state after the change and reports field errors.
 */
import type { Problems } from "./failure";
import type { QuestionType } from "../db/schema";

// ---- questions ----

export type QuestionNode = { id: number; type: QuestionType; askDuringCheckin: boolean; dependencyQuestionId: number | null };

export type QuestionState = {
  id: number | null;
  type: QuestionType;
  askDuringCheckin: boolean;
  validNumberMin: string | null;
  validNumberMax: string | null;
  validDateMin: string | null;
  validDateMax: string | null;
  validDatetimeMin: number | null;
  validDatetimeMax: number | null;
  validFilePortrait: boolean;
  dependencyQuestionId: number | null;
  dependencyValues: string[];
};

export const BOOLEAN_DEPENDENCY_VALUES = ["True", "False"];

/** Compares decimal strings with six places ("-1.500000"). */
function compareDecimal(a: string, b: string): number {
  const scaled = (s: string) => BigInt(s.replace(".", ""));
  const x = scaled(a), y = scaled(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Validation ranges belong to their question type (number N, date D, date and time W, file
 * F) and a minimum must not exceed its maximum.
 */
function validateRanges(q: QuestionState, errors: Problems) {
  const range = <T>(minField: string, maxField: string, min: T | null, max: T | null, type: QuestionType, label: string, cmp: (a: T, b: T) => number) => {
    if (q.type !== type) {
      if (min !== null) errors.add(minField, `Only ${label} questions (type ${type}) can have this limit.`);
      if (max !== null) errors.add(maxField, `Only ${label} questions (type ${type}) can have this limit.`);
    } else if (min !== null && max !== null && cmp(min, max) > 0) {
      errors.add(maxField, "The maximum must not be lower than the minimum.");
    }
  };
  range("valid_number_min", "valid_number_max", q.validNumberMin, q.validNumberMax, "N", "number", compareDecimal);
  range("valid_date_min", "valid_date_max", q.validDateMin, q.validDateMax, "D", "date", (a, b) => (a < b ? -1 : a > b ? 1 : 0));
  range("valid_datetime_min", "valid_datetime_max", q.validDatetimeMin, q.validDatetimeMax, "W", "date and time", (a, b) => a - b);
  if (q.validFilePortrait && q.type !== "F") {
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
  q: QuestionState,
  graph: ReadonlyMap<number, QuestionNode>,
  dependencyOptionIdentifiers: ReadonlySet<string>,
  checkValues: boolean,
  errors: Problems,
) {
  const depId = q.dependencyQuestionId;
  if (depId === null) return;
  const dep = graph.get(depId);
  if (!dep) {
    errors.add("dependency_question", `Invalid pk "${depId}" - object does not exist.`);
    return;
  }
  if (dep.id === q.id) {
    errors.add("dependency_question", "A question cannot depend on itself.");
    return;
  }
  if (dep.type !== "B" && dep.type !== "C" && dep.type !== "M") {
    errors.add("dependency_question", "Question dependencies can only be set to boolean or choice questions.");
    return;
  }
  if (q.askDuringCheckin) {
    errors.add("dependency_question", "Dependencies are not supported during check-in.");
  }
  if (dep.askDuringCheckin) {
    errors.add("dependency_question", "Question cannot depend on a question asked during check-in.");
  }
  const seen = new Set<number>(q.id === null ? [] : [q.id]);
  for (let node: QuestionNode | undefined = dep; node; node = node.dependencyQuestionId === null ? undefined : graph.get(node.dependencyQuestionId)) {
    if (seen.has(node.id)) {
      errors.add("dependency_question", "Circular dependency between questions detected.");
      break;
    }
    seen.add(node.id);
  }
  if (checkValues) {
    const allowed = dep.type === "B" ? new Set(BOOLEAN_DEPENDENCY_VALUES) : dependencyOptionIdentifiers;
    for (const v of q.dependencyValues) {
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

export function validateQuestion(
  q: QuestionState,
  graph: ReadonlyMap<number, QuestionNode>,
  dependencyOptionIdentifiers: ReadonlySet<string>,
  checkDependencyValues: boolean,
  errors: Problems,
) {
  validateRanges(q, errors);
  validateDependency(q, graph, dependencyOptionIdentifiers, checkDependencyValues, errors);
}
