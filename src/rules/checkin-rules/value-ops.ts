/**
 * Operations on rule values with Python's (and pretix's JsonLogic port's) semantics: equality,
 * ordering, membership, arithmetic, slicing and iteration.
 */
import {
  describe,
  fail,
  Instant,
  isFloatish,
  numOf,
  parsePyFloat,
  parsePyInt,
  PyDict,
  PyFloat,
  pyFloat,
  pyNum,
  pyStr,
  pyType,
  strRepr,
  truthy,
  type Val,
} from "./values";

/** Python's == between two values. */
function pyEq(a: Val, b: Val): boolean {
  const na = numOf(a);
  const nb = numOf(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  if (a === null || b === null) return a === b;
  if (typeof a === "string" && typeof b === "string") return a === b;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => pyEq(x, b[i]!));
  }
  if (a instanceof Instant && b instanceof Instant) return a.ms === b.ms;
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.map.size !== b.map.size) return false;
    for (const [k, x] of a.map) {
      if (!b.map.has(k) || !pyEq(x, b.map.get(k)!)) return false;
    }
    return true;
  }
  return false;
}

/** JsonLogic `==` as pretix's port implements it (JS-style coercion via text and truthiness). */
export function softEquals(a: Val, b: Val): boolean {
  if (typeof a === "string" || typeof b === "string") return pyStr(a) === pyStr(b);
  if (typeof a === "boolean" || typeof b === "boolean") return truthy(a) === truthy(b);
  return pyEq(a, b);
}

/** JsonLogic `===`: same type and equal. */
export function hardEquals(a: Val, b: Val): boolean {
  return pyType(a) === pyType(b) && pyEq(a, b);
}

function strLess(a: string, b: string): boolean {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return !y.done;
    if (y.done) return false;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx < cy;
  }
}

/** Python's a < b (rich comparison) for the types a rule can produce. */
export function richLess(a: Val, b: Val): boolean {
  const na = numOf(a);
  const nb = numOf(b);
  if (na !== undefined && nb !== undefined) return na < nb;
  if (typeof a === "string" && typeof b === "string") return strLess(a, b);
  if (a instanceof Instant && b instanceof Instant) return a.ms < b.ms;
  return fail(`cannot compare ${pyType(a)} with ${pyType(b)}`);
}

/** JsonLogic `<` (chained for more operands) as pretix's port implements it. */
export function less(a: Val, b: Val, rest: Val[]): boolean {
  let right = b;
  const ta = pyType(a);
  const tb = pyType(b);
  if (ta === "int" || ta === "float" || tb === "int" || tb === "float") {
    const fa = pyFloat(a);
    const fb = pyFloat(b);
    if (fa === undefined || fb === undefined) return false; // the port treats this as NaN
    right = new PyFloat(fb);
    if (!(fa < fb)) return false;
  } else if (ta === "bool" && tb === "bool") {
    if (!(Number(a) < Number(b))) return false;
  } else if ((ta === "str" && tb === "str") || (ta === "datetime" && tb === "datetime")) {
    if (!richLess(a, b)) return false;
  } else {
    fail(`cannot compare ${ta} with ${tb}`);
  }
  return rest.length === 0 || less(right, rest[0]!, rest.slice(1));
}

export function lessOrEqual(a: Val, b: Val, rest: Val[]): boolean {
  return (less(a, b, []) || softEquals(a, b)) && (rest.length === 0 || lessOrEqual(b, rest[0]!, rest.slice(1)));
}

/** Python's `a in b` (`guarded`: JsonLogic's `in`, false where b is no container). */
export function pyIn(a: Val, b: Val, guarded: boolean): boolean {
  if (typeof b === "string") {
    if (typeof a !== "string") fail(`"in" needs text on the left of text, got ${pyType(a)}`);
    return b.includes(a);
  }
  if (Array.isArray(b)) return b.some((x) => pyEq(x, a));
  if (b instanceof PyDict) {
    if (Array.isArray(a) || a instanceof PyDict) fail(`unhashable ${pyType(a)}`);
    return typeof a === "string" && b.map.has(a);
  }
  if (guarded) return false;
  return fail(`"inList" needs a list on the right, got ${pyType(b)}`);
}

export function toNumeric(v: Val): Val {
  if (typeof v !== "string") return v;
  if (v.includes(".")) {
    const f = parsePyFloat(v);
    return f === undefined ? fail(`${strRepr(v)} is not a number`) : new PyFloat(f);
  }
  const i = parsePyInt(v);
  return i === undefined ? fail(`${strRepr(v)} is not an integer`) : i;
}

export function arith(a: Val, b: Val, op: "+" | "-", what: string): Val {
  const na = numOf(a);
  const nb = numOf(b);
  if (na === undefined || nb === undefined) {
    return fail(`${what}: cannot compute ${pyType(a)} ${op} ${pyType(b)}`);
  }
  return pyNum(op === "+" ? na + nb : na - nb, isFloatish(a) || isFloatish(b));
}

export function pyMod(a: Val, b: Val): Val {
  const na = numOf(a);
  const nb = numOf(b);
  if (na === undefined || nb === undefined) return fail(`"%": cannot compute ${pyType(a)} % ${pyType(b)}`);
  if (nb === 0) return fail(`"%": division by zero`);
  const float = isFloatish(a) || isFloatish(b);
  let r = na % nb;
  if (r !== 0 && r < 0 !== nb < 0) r += nb;
  else if (r === 0 && float) r = nb < 0 ? -0 : 0;
  return pyNum(r, float);
}

/** Python slice bounds [start:stop] over a sequence of length n. */
export function sliceBounds(n: number, start: number | null, stop: number | null): [number, number] {
  const norm = (i: number | null, dflt: number) => {
    if (i === null) return dflt;
    if (i < 0) return Math.max(n + i, 0);
    return Math.min(i, n);
  };
  return [norm(start, 0), norm(stop, n)];
}

export function sliceIndex(v: Val): number | null {
  if (v === null) return null;
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return fail(`"substr": ${describe(v)} is not an integer`);
}

export function iterate(v: Val, what: string): Val[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return Array.from(v);
  if (v instanceof PyDict) return [...v.map.keys()];
  return fail(`${what}: ${pyType(v)} is not a list`);
}
