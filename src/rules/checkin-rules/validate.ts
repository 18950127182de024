/**
 * The structure of a rule (operators, operands, literals) and its validation before evaluation:
 * every operator and scan variable known, no logic inside literal lists, bounded size.
 */
import { fail, PyFloat, pyStr, type Val } from "./values";
import { ENTRIES_OPERATIONS, type Variable, VARIABLE_SET } from "./variables";

const STANDARD_OPERATIONS = [
  "==",
  "===",
  "!=",
  "!==",
  ">",
  ">=",
  "<",
  "<=",
  "!",
  "!!",
  "%",
  "and",
  "or",
  "?:",
  "if",
  "log",
  "in",
  "cat",
  "+",
  "*",
  "-",
  "/",
  "min",
  "max",
  "merge",
  "count",
  "substr",
  "var",
  "missing",
  "missing_some",
];
const ARRAY_OPERATIONS = ["none", "all", "some", "reduce", "map", "filter"];
const PRETIX_OPERATIONS = ["objectList", "lookup", "inList", "buildTime", "isBefore", "isAfter", ...ENTRIES_OPERATIONS];
const OPERATIONS: ReadonlySet<string> = new Set([...STANDARD_OPERATIONS, ...ARRAY_OPERATIONS, ...PRETIX_OPERATIONS]);

const MAX_DEPTH = 200;
const MAX_NODES = 100_000;

export type Json = unknown;
export type Obj = Record<string, Json>;

export function isObj(x: unknown): x is Obj {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** The operator of a logic object: its one key not starting with "__" (pretix skips those). */
export function operatorOf(node: Obj): string {
  const keys = Object.keys(node).filter((k) => !k.startsWith("__"));
  if (keys.length !== 1) {
    fail(
      keys.length === 0
        ? "malformed rule: an object without an operator"
        : `malformed rule: an object with several operators (${keys.map((k) => JSON.stringify(k)).join(", ")})`,
    );
  }
  return keys[0]!;
}

export function operands(node: Obj, op: string): Json[] {
  const raw = node[op];
  return Array.isArray(raw) ? raw : [raw];
}

/** A literal: JSON data, never logic. */
export function literal(x: Json): Val {
  if (x === null || typeof x === "boolean" || typeof x === "string") return x;
  if (typeof x === "number") {
    if (!Number.isFinite(x)) fail("malformed rule: a number that is not finite");
    return Number.isInteger(x) ? x : new PyFloat(x);
  }
  if (Array.isArray(x)) return x.map(literal);
  if (isObj(x)) {
    // pretix's evaluator returns a literal list as it is, without evaluating logic inside it
    // (JsonLogic elsewhere evaluates it): the two disagree, so the service does not guess.
    return fail("malformed rule: a literal list containing an operation (use objectList)");
  }
  return fail(`malformed rule: ${typeof x} is not JSON`);
}

/** Checks the whole rule before evaluating: every operator known, variables read from the scan's
 * data known, no logic inside literal lists, bounded size. */
export function validate(rules: Obj): void {
  let nodes = 0;
  const walk = (node: Json, topScope: boolean, depth: number): void => {
    if (++nodes > MAX_NODES) fail("rule too large");
    if (depth > MAX_DEPTH) fail("rule nested too deeply");
    if (Array.isArray(node)) {
      for (const x of node) {
        if (isObj(x)) literal(node);
        walk(x, topScope, depth + 1);
      }
      return;
    }
    if (!isObj(node)) {
      literal(node);
      return;
    }
    const op = operatorOf(node);
    if (!OPERATIONS.has(op)) fail(`unknown operator ${JSON.stringify(op)}`);
    const args = operands(node, op);
    if (op === "var" && topScope) {
      const name = args[0];
      if (typeof name === "string" || typeof name === "number" || typeof name === "boolean") {
        checkVariableName(pyStr(literal(name)));
      } else if (name === undefined || name === null) {
        fail('malformed rule: "var" without a name');
      }
    }
    args.forEach((a, i) => {
      // the second operand of an array operation runs on each element, not on the scan's data
      const elementLogic = ARRAY_OPERATIONS.includes(op) && i === 1;
      walk(a, topScope && !elementLogic, depth + 1);
    });
  };
  walk(rules, true, 0);
}

export function checkVariableName(name: string): Variable {
  const first = name.split(".")[0]!;
  if (first === "") fail('malformed rule: "var" without a name');
  if ((ENTRIES_OPERATIONS as readonly string[]).includes(first)) {
    fail(`${JSON.stringify(first)} is an operation, not a variable`);
  }
  if (!VARIABLE_SET.has(first)) fail(`unknown variable ${JSON.stringify(first)}`);
  return first as Variable;
}
