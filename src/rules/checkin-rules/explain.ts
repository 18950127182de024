/**
 * The explanation of a refusal by the rules, as pretix's `_logic_explain` builds it: each failed
 * comparison becomes a text, the rule becomes a disjunction of paths to admission, and the path
 * closest to admitting names what is missing. Anything it cannot explain is "Unknown reason".
 */
import { text, textLanguage, weekdayName } from "../checkin-texts";
import { formatNear, minutesToMs, wallLocal, wallToInstant } from "./clock";
import { evaluate, TOP } from "./evaluate";
import { isObj, type Json, literal, type Obj, operatorOf } from "./validate";
import { type Instant, numOf, PyDict, pyFloat, pyRepr, pyStr, truthy, type Val } from "./values";
import { ENTRIES_OPERATIONS, type EntriesOperation, type RuleVars, type Variable, VARIABLE_SET } from "./variables";

class ExplainFailed extends Error {}
function explainFail(): never {
  throw new ExplainFailed();
}

const NUMERIC_WEIGHT: Record<string, number> = {
  minutes_since_first_entry: 80,
  minutes_since_last_entry: 90,
  entries_days: 100,
  entries_days_since: 105,
  entries_days_before: 105,
  entries_since: 110,
  entries_before: 110,
  entries_number: 120,
  entries_today: 140,
  now_isoweekday: 210,
};
const OPERATOR_WEIGHT: Record<string, number> = { "==": 2, "<": 1, "<=": 1, ">": 1, ">=": 1, "!=": 3 };
const LABEL: Record<string, string> = {
  minutes_since_last_entry: "time since last entry",
  minutes_since_first_entry: "time since first entry",
  entries_days: "number of days with an entry",
  entries_number: "number of entries",
  entries_today: "number of entries today",
  entries_since: "number of entries since {datetime}",
  entries_before: "number of entries before {datetime}",
  entries_days_since: "number of days with an entry since {datetime}",
  entries_days_before: "number of days with an entry before {datetime}",
  now_isoweekday: "week day",
};

type Weight = [number, number];
const heavier = (x: Weight, y: Weight) => x[0] > y[0] || (x[0] === y[0] && x[1] > y[1]);
const sameWeight = (x: Weight, y: Weight) => x[0] === y[0] && x[1] === y[1];

/** A raw operand of the rule as a value; logic where pretix reads raw data fails the explanation. */
function rawValue(x: Json): Val {
  try {
    return literal(x);
  } catch {
    return explainFail();
  }
}

/** `_build_time(*raw_args).astimezone(event timezone)` on the raw (unevaluated) operands, as the
 * explanation does: the moment and its wall clock in the event's timezone. */
function rawBuildTime(bt: Json, c: RuleVars): { ms: number; wall: number } {
  if (!isObj(bt) || !Array.isArray(bt.buildTime)) return explainFail();
  let t: Instant;
  try {
    t = c.buildTime(bt.buildTime.map(rawValue));
  } catch {
    return explainFail();
  }
  return { ms: t.ms, wall: t.wall ?? wallLocal(t.ms, c.f.timezone) };
}

function deepEqual(x: Json, y: Json): boolean {
  if (x === y) return true;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => deepEqual(v, y[i]));
  if (isObj(x) && isObj(y)) {
    const kx = Object.keys(x);
    return kx.length === Object.keys(y).length && kx.every((k) => k in y && deepEqual(x[k], y[k]));
  }
  return false;
}

function firstKey(x: Obj): string {
  const k = Object.keys(x)[0];
  return k === undefined ? explainFail() : k;
}

/** pretix's convert_to_dnf: `(a AND b) OR (c AND d)` without further nesting. */
function convertToDnf(rules: Json, budget: { left: number }): Json {
  if (!isObj(rules)) return rules;
  const distribute = (r: Obj): Obj => {
    const op = firstKey(r);
    const values = r[op];
    if (op === "and") {
      if (!Array.isArray(values)) return explainFail();
      const target = values.find((arg) => isObj(arg) && "or" in arg) as Obj | undefined;
      if (target === undefined) return r;
      const others = values.filter((arg) => arg !== target);
      const alternatives = target.or;
      if (!Array.isArray(alternatives)) return explainFail();
      return { or: alternatives.map((alt) => ({ and: [...others, alt] })) };
    }
    if (op === "!" || op === "!!" || op === "?:" || op === "if") return explainFail();
    return r;
  };
  const simplify = (r: Json): Json => {
    if (!isObj(r)) return r;
    const op = firstKey(r);
    if (op !== "and" && op !== "or") return r;
    const flat: Json[] = [];
    for (const v of r[op] as Json[]) {
      if (isObj(v) && op in v && Array.isArray(v[op])) flat.push(...(v[op] as Json[]));
      else if (isObj(v) && op in v) return explainFail();
      else flat.push(v);
    }
    return { [op]: flat };
  };
  let old: Obj = rules;
  let current: Obj = rules;
  for (;;) {
    if (--budget.left < 0) return explainFail();
    current = distribute(current);
    const op = firstKey(current);
    const values = current[op];
    current = {
      [op]: Array.isArray(values) ? values.map((v) => convertToDnf(v, budget)) : convertToDnf(values, budget),
    };
    if (deepEqual(old, current)) break;
    old = current;
  }
  return simplify(current);
}

/** pretix's `reason_explanation` of a refusal by `rules`; "Unknown reason" where pretix's explanation fails. */
export function explain(rules: Obj, c: RuleVars): string {
  try {
    return explainOrFail(rules, c);
  } catch {
    return text(textLanguage(c.f.locale), "Unknown reason");
  }
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split pending by h-functions (issue 36)
function explainOrFail(rules: Obj, c: RuleVars): string {
  const { now, timezone } = c.f;
  const language = textLanguage(c.f.locale);
  const values = new Map<string, boolean>([
    ["False", false],
    ["True", true],
  ]);
  const explanations = new Map<string, { operator: string; variable: Json; rhs: Json[] }>();

  // Step 1: every operation that is not "and"/"or" becomes a variable holding its result.
  const inner = (r: Json): Json => {
    if (r === true) return { var: "True" };
    if (r === false) return { var: "False" };
    if (!isObj(r)) return r;
    const op = operatorOf(r);
    const operandsRaw = r[op];
    if (op === "and" || op === "or") {
      if (!Array.isArray(operandsRaw)) return explainFail();
      return { [op]: operandsRaw.map(inner) };
    }
    const result = truthy(evaluate(r, TOP, c));
    const name = `v${values.size}`;
    values.set(name, result);
    if (!result) {
      // pretix explains a failed comparison by the variable on its left-hand side
      if (!Array.isArray(operandsRaw) || !isObj(operandsRaw[0])) return explainFail();
      const left = operandsRaw[0];
      if ("var" in left) {
        let variable = left.var;
        if (Array.isArray(variable)) {
          if (variable.length === 0) return explainFail();
          variable = variable[0];
        }
        explanations.set(name, { operator: op, variable, rhs: operandsRaw.slice(1) });
      } else if (ENTRIES_OPERATIONS.some((t) => t in left)) {
        explanations.set(name, { operator: op, variable: left, rhs: operandsRaw.slice(1) });
      } else {
        return explainFail();
      }
    }
    return { var: name };
  };
  // Step 2: disjunctive normal form.
  const dnf = convertToDnf(inner(rules), { left: 10_000 });

  // Step 3: the paths to admission.
  const varOf = (v: Json): string => {
    if (!isObj(v) || typeof v.var !== "string" || !values.has(v.var)) return explainFail();
    return v.var;
  };
  const list = (x: Json): Json[] => (Array.isArray(x) ? x : explainFail());
  const paths: string[][] = [];
  if (isObj(dnf) && "and" in dnf) {
    paths.push(list(dnf.and).map(varOf));
  } else if (isObj(dnf) && "or" in dnf) {
    for (const r of list(dnf.or)) {
      if (isObj(r) && "and" in r) paths.push(list(r.and).map(varOf));
      else paths.push([varOf(r)]);
    }
  } else {
    paths.push([varOf(dnf)]);
  }
  if (paths.length === 0) return explainFail();

  // Step 4: weight (rigidness, size of the miss) and text of every false variable.
  const weights = new Map<string, Weight>([
    ["False", [100000, 0]],
    ["True", [100000, 0]],
  ]);
  const texts = new Map<string, string>([
    ["False", "Always false"],
    ["True", "Always true"],
  ]);
  for (const [name, { operator, variable, rhs }] of explanations) {
    if (variable === "now") {
      if (rhs.length === 0) return explainFail();
      // pretix converts the time into the event's zone first, so a tolerance moves it on the wall
      // clock there and the text shows that wall time (on the day of a DST change it can differ
      // from the moment the rule compares with by an hour)
      let { wall, ms: compareTo } = rawBuildTime(rhs[0], c);
      const tolerance = rhs.length > 1 ? rawValue(rhs[1]) : null;
      if (truthy(tolerance)) {
        const minutes = pyFloat(tolerance);
        if (minutes === undefined || !Number.isFinite(minutes)) return explainFail();
        const ms = minutesToMs(minutes);
        wall += operator === "isBefore" ? ms : -ms;
        compareTo = wallToInstant(timezone, wall, 0);
      }
      weights.set(name, [200, Math.abs(now - compareTo) / 1000]);
      const datetime = formatNear(wall, compareTo, now, language);
      if (operator === "isBefore") texts.set(name, text(language, "Only allowed before {datetime}", { datetime }));
      else if (operator === "isAfter") texts.set(name, text(language, "Only allowed after {datetime}", { datetime }));
    } else if (variable === "entry_status") {
      weights.set(name, [20, 0]);
      const right = operator === "==" ? (rhs.length > 0 ? rhs[0] : explainFail()) : undefined;
      if (operator === "==" && right === "present") texts.set(name, text(language, "Attendee is checked out"));
      else if (operator === "==" && right === "absent")
        texts.set(name, text(language, "Attendee is already checked in"));
      else texts.set(name, `entry_status not ${operator} ${pyRepr(rhs.map(rawRepresentable))}`);
    } else if (variable === "product" || variable === "variation") {
      weights.set(name, [1000, 0]);
      texts.set(name, text(language, "Ticket type not allowed"));
    } else if (variable === "gate") {
      weights.set(name, [500, 0]);
      texts.set(name, text(language, "Wrong entrance gate"));
    } else {
      let key: string;
      let label: string;
      let result: number;
      if (isObj(variable) && ENTRIES_OPERATIONS.some((t) => t in variable)) {
        key = firstKey(variable);
        if (!(ENTRIES_OPERATIONS as readonly string[]).includes(key)) return explainFail();
        const arg = variable[key];
        if (!Array.isArray(arg) || arg.length === 0) return explainFail();
        const cutoff = rawBuildTime(arg[0], c);
        label = text(language, LABEL[key]!, { datetime: formatNear(cutoff.wall, cutoff.ms, now, language) });
        result = c.entriesOperation(key as EntriesOperation, cutoff.ms);
      } else if (typeof variable === "string" && variable in NUMERIC_WEIGHT && VARIABLE_SET.has(variable)) {
        key = variable;
        label = text(language, LABEL[key]!);
        result = numOf(c.variable(variable as Variable)) ?? explainFail();
      } else {
        return explainFail(); // pretix: "Unknown variable"
      }
      if (rhs.length === 0) return explainFail();
      const compareRaw = rawValue(rhs[0]);
      const compareTo = numOf(compareRaw);
      if (compareTo === undefined) return explainFail();
      let penalty = 0;
      if (key === "minutes_since_last_entry" || key === "minutes_since_first_entry") {
        const technical =
          (operator === "<" && compareTo <= 0) ||
          (operator === "<=" && compareTo < 0) ||
          (operator === ">=" && compareTo < 0) ||
          (operator === ">" && compareTo <= 0) ||
          (operator === "==" && compareTo === -1) ||
          (operator === "!=" && compareTo === -1);
        // comparisons with -1 ("no entry yet") are technical and explained last
        if (technical) penalty = 1000;
      }
      weights.set(name, [
        NUMERIC_WEIGHT[key]! + (OPERATOR_WEIGHT[operator] ?? 0) + penalty,
        Math.abs(compareTo - result),
      ]);
      const value =
        key === "now_isoweekday" && Number.isInteger(compareTo) && compareTo >= 1 && compareTo <= 7
          ? weekdayName(compareTo, language)
          : pyStr(compareRaw);
      const parts = { variable: label, value };
      if (operator === "==") texts.set(name, text(language, "{variable} is not {value}", parts));
      else if (operator === "<" || operator === "<=")
        texts.set(name, text(language, "Maximum {variable} exceeded", parts));
      else if (operator === ">" || operator === ">=")
        texts.set(name, text(language, "Minimum {variable} exceeded", parts));
      else if (operator === "!=") texts.set(name, text(language, "{variable} is {value}", parts));
    }
  }

  // Steps 5-7: the path whose heaviest false variable is lightest; all equal, the shortest.
  const falseIn = (path: string[]) => path.filter((v) => !values.get(v));
  const pathWeights = paths.map((path) => {
    let max: Weight = [0, 0];
    let any = false;
    for (const v of falseIn(path)) {
      const w = weights.get(v) ?? explainFail();
      if (!any || heavier(w, max)) max = w;
      any = true;
    }
    return max;
  });
  let min = pathWeights[0]!;
  for (const w of pathWeights) if (heavier(min, w)) min = w;
  const candidates = paths.filter((_, i) => sameWeight(pathWeights[i]!, min));
  candidates.sort((x, y) => falseIn(x).length - falseIn(y).length);
  return falseIn(candidates[0]!)
    .map((v) => texts.get(v) ?? explainFail())
    .join(", ");
}

/** A raw operand for Python's repr, with logic objects shown as dicts. */
function rawRepresentable(x: Json): Val {
  if (isObj(x)) {
    return new PyDict(new Map(Object.entries(x).map(([k, v]) => [k, rawRepresentable(v)])));
  }
  if (Array.isArray(x)) return x.map(rawRepresentable);
  return rawValue(x);
}
