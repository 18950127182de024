/**
 * The values of a rule as pretix's server sees them: it evaluates in Python, and Python's types
 * decide equality, text and arithmetic. JS number = Python int (integral), PyFloat = float,
 * Instant = aware datetime, PyDict = dict (only as the data of reduce and of falsy elements).
 * Also the failure of an evaluation (`fail`: the rule cannot be evaluated, the scan is refused).
 */

/** An aware datetime. `wall` is set where its tzinfo is the event's zone (a `customtime`): Python
 * keeps such a datetime's wall clock as built (even a time that does not exist that day) and adds
 * a timedelta to it on the wall clock; other datetimes are UTC or a fixed offset. */
export class Instant {
  constructor(
    readonly ms: number,
    readonly wall: number | null = null,
  ) {}
}
export class PyFloat {
  constructor(readonly v: number) {}
}
export class PyDict {
  constructor(readonly map: Map<string, Val>) {}
}
export type Val = null | boolean | number | string | PyFloat | Instant | PyDict | Val[];

/** The rule cannot be evaluated as pretix's server would: the scan is refused, never admitted. */
export class Unsupported extends Error {}
export function fail(detail: string): never {
  throw new Unsupported(detail);
}

/** A variable's path that leads nowhere (`var` then answers its default). */
export const NOT_FOUND = Symbol("not found");

export type PyType = "NoneType" | "bool" | "int" | "float" | "str" | "list" | "datetime" | "dict";

export function pyType(v: Val): PyType {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "int";
  if (typeof v === "string") return "str";
  if (Array.isArray(v)) return "list";
  if (v instanceof PyFloat) return "float";
  if (v instanceof Instant) return "datetime";
  return "dict";
}

/** The number of an int, float or bool (Python's bool is an int), else undefined. */
export function numOf(v: Val): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) return v.v;
  return undefined;
}

export function isFloatish(v: Val): boolean {
  return v instanceof PyFloat;
}

/** A Python number from a JS number: int when `float` is false. */
export function pyNum(n: number, float: boolean): Val {
  return float ? new PyFloat(n) : n;
}

export function truthy(v: Val): boolean {
  if (v === null) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string") return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyFloat) return v.v !== 0; // NaN is truthy in Python, and NaN !== 0
  if (v instanceof PyDict) return v.map.size > 0;
  return true; // datetime
}

const DIGITS = String.raw`\d(?:_?\d)*`;
const PY_FLOAT_RE = new RegExp(
  String.raw`^[+-]?(?:(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`,
  "i",
);
const PY_INT_RE = new RegExp(`^[+-]?${DIGITS}$`);

/** Python's float() of a string, or undefined where it raises ValueError. */
export function parsePyFloat(s: string): number | undefined {
  const t = s.trim();
  if (!PY_FLOAT_RE.test(t)) return undefined;
  const lower = t.toLowerCase().replace(/_/g, "");
  if (lower.endsWith("nan")) return Number.NaN;
  if (lower.endsWith("inf") || lower.endsWith("infinity")) {
    return lower.startsWith("-") ? -Infinity : Infinity;
  }
  return Number(lower);
}

/** Python's int() of a string, or undefined where it raises ValueError. */
export function parsePyInt(s: string): number | undefined {
  const t = s.trim();
  return PY_INT_RE.test(t) ? Number(t.replace(/_/g, "")) : undefined;
}

/** Python's float(v), or undefined where it raises (TypeError or ValueError). */
export function pyFloat(v: Val): number | undefined {
  const n = numOf(v);
  if (n !== undefined) return n;
  if (typeof v === "string") return parsePyFloat(v);
  return undefined;
}

export function pyFloatOrFail(v: Val, what: string): number {
  const n = pyFloat(v);
  if (n === undefined) fail(`${what}: ${describe(v)} is not a number`);
  return n;
}

/** Python's int(v). */
export function pyIntOrFail(v: Val, what: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) {
    if (!Number.isFinite(v.v)) fail(`${what}: ${describe(v)} is not an integer`);
    return Math.trunc(v.v);
  }
  if (typeof v === "string") {
    const n = parsePyInt(v);
    if (n !== undefined) return n;
  }
  return fail(`${what}: ${describe(v)} is not an integer`);
}

export function describe(v: Val): string {
  try {
    return pyRepr(v);
  } catch {
    return pyType(v);
  }
}

function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const ax = Math.abs(x);
  if (ax >= 1e16 || ax < 1e-4) {
    const [mantissa, exponent] = x.toExponential().split("e") as [string, string];
    const e = Number(exponent);
    return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  const s = String(x);
  return s.includes(".") ? s : `${s}.0`;
}

function intRepr(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's str(v). */
export function pyStr(v: Val): string {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return intRepr(v);
  if (typeof v === "string") return v;
  if (v instanceof PyFloat) return floatRepr(v.v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (v instanceof PyDict) {
    return `{${[...v.map].map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  }
  return fail("a datetime cannot be used as text");
}

/** Python's repr(v). */
export function pyRepr(v: Val): string {
  return typeof v === "string" ? strRepr(v) : pyStr(v);
}
