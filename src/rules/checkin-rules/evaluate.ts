/**
 * Evaluation of a rule as pretix's `Logic.apply` runs it with the check-in operations: every
 * operand evaluated first, array operations on their elements' data, pretix's time operations.
 */
import { minutesToMs, plus } from "./clock";
import { checkVariableName, isObj, type Json, literal, operands, operatorOf } from "./validate";
import {
  arith,
  hardEquals,
  iterate,
  less,
  lessOrEqual,
  pyIn,
  pyMod,
  richLess,
  sliceBounds,
  sliceIndex,
  softEquals,
  toNumeric,
} from "./value-ops";
import {
  describe,
  fail,
  Instant,
  NOT_FOUND,
  numOf,
  parsePyInt,
  PyDict,
  PyFloat,
  pyFloatOrFail,
  pyIntOrFail,
  pyStr,
  pyType,
  truthy,
  type Val,
} from "./values";
import type { RuleVars } from "./variables";

export type Scope = { top: true } | { top: false; data: Val };
export const TOP: Scope = { top: true };

/** The data of an element scope: pretix's `data = data or {}`. */
function elementScope(v: Val): Scope {
  return { top: false, data: truthy(v) ? v : new PyDict(new Map()) };
}

function getVar(scope: Scope, name: Val, notFound: Val | typeof NOT_FOUND, c: RuleVars): Val | typeof NOT_FOUND {
  if (name === null || name === "") {
    if (scope.top) return fail('malformed rule: "var" without a name');
    return scope.data;
  }
  const keys = pyStr(name).split(".");
  let data: Val;
  let rest: string[];
  if (scope.top) {
    data = c.variable(checkVariableName(keys[0]!));
    rest = keys.slice(1);
  } else {
    data = scope.data;
    rest = keys;
  }
  for (const key of rest) {
    if (data instanceof PyDict) {
      if (!data.map.has(key)) return notFound;
      data = data.map.get(key)!;
    } else if (Array.isArray(data) || typeof data === "string") {
      const seq: Val[] = typeof data === "string" ? Array.from(data) : data;
      const i = parsePyInt(key);
      if (i === undefined) return notFound;
      const idx = i < 0 ? seq.length + i : i;
      if (idx < 0 || idx >= seq.length) return fail(`"var": index ${key} out of range`);
      data = seq[idx]!;
    } else {
      return notFound;
    }
  }
  return data;
}

function arity(op: string, args: Val[], min: number, max = min): void {
  if (args.length < min || args.length > max) {
    const n = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    const word = max === 1 || (min === 1 && max === Infinity) ? "argument" : "arguments";
    fail(`${JSON.stringify(op)} takes ${n} ${word}, got ${args.length}`);
  }
}

/** The value of a rule (or any part of it) in a scope: the scan's variables at the top. */
export function evaluate(node: Json, scope: Scope, c: RuleVars): Val {
  if (!isObj(node)) return literal(node);
  const op = operatorOf(node);
  const raw = operands(node, op);
  switch (op) {
    case "none":
    case "all":
    case "some":
    case "map":
    case "filter":
    case "reduce":
      return arrayOperation(op, raw, scope, c);
  }
  // pretix evaluates every operand first (no short-circuit), so an operand it cannot evaluate
  // fails the rule even where it would not decide the result.
  const args = raw.map((a) => evaluate(a, scope, c));
  return apply(op, args, scope, c);
}

function arrayOperation(op: string, raw: Json[], scope: Scope, c: RuleVars): Val {
  const need = op === "reduce" ? 3 : 2;
  if (raw.length < need) fail(`${JSON.stringify(op)} takes ${need} arguments, got ${raw.length}`);
  const source = evaluate(raw[0], scope, c);
  const logic = raw[1];
  switch (op) {
    case "none":
      for (const el of iterate(source, op)) if (truthy(evaluate(logic, elementScope(el), c))) return false;
      return true;
    case "some":
      for (const el of iterate(source, op)) if (truthy(evaluate(logic, elementScope(el), c))) return true;
      return false;
    case "all": {
      if (!truthy(source)) return false;
      for (const el of iterate(source, op)) if (!truthy(evaluate(logic, elementScope(el), c))) return false;
      return true;
    }
    case "map":
      return iterate(truthy(source) ? source : [], op).map((el) => evaluate(logic, elementScope(el), c));
    case "filter":
      return iterate(source, op).filter((el) => truthy(evaluate(logic, elementScope(el), c)));
    default: {
      const elements = iterate(truthy(source) ? source : [], op);
      let acc = evaluate(raw[2], scope, c);
      for (const el of elements) {
        const data = new PyDict(
          new Map<string, Val>([
            ["current", el],
            ["accumulator", acc],
          ]),
        );
        acc = evaluate(logic, { top: false, data }, c);
      }
      return acc;
    }
  }
}

function isBefore(t1: Val, t2: Val, tolerance: Val, c: RuleVars): boolean {
  if (truthy(tolerance)) {
    const minutes = pyFloatOrFail(tolerance, "tolerance");
    if (!Number.isFinite(minutes)) fail(`tolerance ${describe(tolerance)} is not a number of minutes`);
    if (!(t2 instanceof Instant)) return fail(`cannot add a tolerance to ${pyType(t2)}`);
    return richLess(t1, plus(t2, minutesToMs(minutes), c.f.timezone));
  }
  return richLess(t1, t2);
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-scans (issue 36)
function apply(op: string, args: Val[], scope: Scope, c: RuleVars): Val {
  const a = args[0] ?? null;
  const b = args[1] ?? null;
  switch (op) {
    case "var": {
      arity(op, args, 0, 2);
      const found = getVar(scope, args.length === 0 ? null : a, NOT_FOUND, c);
      return found === NOT_FOUND ? b : found;
    }
    case "missing": {
      const names = args.length > 0 && Array.isArray(a) ? a : args;
      return names.filter((n) => getVar(scope, n, NOT_FOUND, c) === NOT_FOUND);
    }
    case "missing_some": {
      arity(op, args, 2);
      if (less(a, 1, [])) return [];
      const required = numOf(a) ?? fail(`"missing_some": ${describe(a)} is not a number`);
      let found = 0;
      const missing: Val[] = [];
      for (const n of iterate(b, op)) {
        if (getVar(scope, n, NOT_FOUND, c) === NOT_FOUND) missing.push(n);
        else if (++found >= required) return [];
      }
      return missing;
    }
    case "==":
      arity(op, args, 2);
      return softEquals(a, b);
    case "===":
      arity(op, args, 2);
      return hardEquals(a, b);
    case "!=":
      arity(op, args, 2);
      return !softEquals(a, b);
    case "!==":
      arity(op, args, 2);
      return !hardEquals(a, b);
    case ">":
      arity(op, args, 2);
      return less(b, a, []);
    case ">=":
      arity(op, args, 2);
      return less(b, a, []) || softEquals(a, b);
    case "<":
      arity(op, args, 2, Infinity);
      return less(a, b, args.slice(2));
    case "<=":
      arity(op, args, 2, Infinity);
      return lessOrEqual(a, b, args.slice(2));
    case "!":
      arity(op, args, 1);
      return !truthy(a);
    case "!!":
      arity(op, args, 0, 1);
      return args.length === 0 ? false : truthy(a);
    case "%":
      arity(op, args, 2);
      if (typeof a === "string") fail(`"%": text formatting is not supported`);
      return pyMod(a, b);
    case "and": {
      let result: Val = true;
      for (const x of args) {
        result = x;
        if (!truthy(x)) break;
      }
      return result;
    }
    case "or": {
      let result: Val = false;
      for (const x of args) {
        result = x;
        if (truthy(x)) break;
      }
      return result;
    }
    case "?:":
      arity(op, args, 3);
      return truthy(a) ? b : args[2]!;
    case "if": {
      for (let i = 0; i + 1 < args.length; i += 2) if (truthy(args[i]!)) return args[i + 1]!;
      return args.length % 2 === 1 ? args[args.length - 1]! : null;
    }
    case "log":
      arity(op, args, 1);
      return a;
    case "in":
      arity(op, args, 2);
      return pyIn(a, b, true);
    case "cat":
      return args.map(pyStr).join("");
    case "+": {
      let sum: Val = 0;
      for (const x of args) sum = arith(sum, toNumeric(x), "+", '"+"');
      return sum;
    }
    case "-":
      arity(op, args, 1, Infinity);
      if (args.length === 1) return arith(0, toNumeric(a), "-", '"-"');
      return arith(toNumeric(a), toNumeric(b), "-", '"-"');
    case "*": {
      let product: Val = 1;
      for (const x of args) product = new PyFloat(numOf(product)! * pyFloatOrFail(x, '"*"'));
      return product;
    }
    case "/": {
      arity(op, args, 1, 2);
      if (args.length === 1 || b === null) return a;
      const divisor = pyFloatOrFail(b, '"/"');
      if (divisor === 0) fail(`"/": division by zero`);
      return new PyFloat(pyFloatOrFail(a, '"/"') / divisor);
    }
    case "min":
    case "max": {
      arity(op, args, 1, Infinity);
      let best: Val = args[0]!;
      for (const x of args.slice(1)) if (op === "min" ? richLess(x, best) : richLess(best, x)) best = x;
      return best;
    }
    case "merge":
      return args.flatMap((x) => (Array.isArray(x) ? x : [x]));
    case "count":
      return args.filter(truthy).length;
    case "substr": {
      arity(op, args, 2, 3);
      if (typeof a !== "string" && !Array.isArray(a)) return fail(`"substr": ${pyType(a)} cannot be sliced`);
      const seq: Val[] = typeof a === "string" ? Array.from(a) : a;
      const [s, e] = sliceBounds(seq.length, sliceIndex(b), null);
      let part = seq.slice(s, e);
      if (args.length === 3 && args[2] !== null) {
        const [s2, e2] = sliceBounds(part.length, null, sliceIndex(args[2]!));
        part = part.slice(s2, e2);
      }
      return typeof a === "string" ? part.join("") : part;
    }
    // pretix's operations
    case "objectList":
      return args;
    case "lookup":
      arity(op, args, 3);
      return pyIntOrFail(b, '"lookup"');
    case "inList":
      arity(op, args, 2);
      return pyIn(a, b, false);
    case "buildTime":
      return c.buildTime(args);
    case "isBefore":
      arity(op, args, 2, 3);
      return isBefore(a, b, args[2] ?? null, c);
    case "isAfter":
      arity(op, args, 2, 3);
      return isBefore(b, a, args[2] ?? null, c);
    case "entries_since":
    case "entries_before":
    case "entries_days_since":
    case "entries_days_before":
      arity(op, args, 1);
      if (!(a instanceof Instant)) return fail(`${JSON.stringify(op)} needs a datetime, got ${pyType(a)}`);
      return c.entriesOperation(op, a.ms);
    default:
      return fail(`unknown operator ${JSON.stringify(op)}`);
  }
}
