/**
 * Check-in rules: pretix's rule language for check-in lists (the list's `rules` field), evaluated
 * as pretix's server evaluates it when a ticket is redeemed, and explained as pretix explains a
 * refusal (`reason_explanation`). Pure and synchronous; docs/checkin-rules.md lists what is and
 * what is not evaluated.
 *
 * The language is JsonLogic as pretix's server runs it (its Python port of json-logic-js, which
 * passes the shared JsonLogic test suite) plus pretix's own operations (`objectList`, `lookup`,
 * `inList`, `buildTime`, `isBefore`, `isAfter`, `entries_since`, `entries_before`,
 * `entries_days_since`, `entries_days_before`) and variables (`now`, `now_isoweekday`, `product`,
 * `variation`, `gate`, `entries_number`, `entries_today`, `entries_days`, `entry_status`,
 * `minutes_since_last_entry`, `minutes_since_first_entry`). Where the server's evaluation would
 * fail (a Python exception: pretix then refuses the scan with "Evaluation of custom rules has
 * failed."), and wherever a rule uses something this module does not know, the outcome is
 * `unsupported`: the caller refuses the scan. Nothing unknown is ever admitted.
 */
import { isValidTimezone, parseDateTime, tzOffsetMs, zonedParts } from "../lib/datetime";

/**
 * Everything a rule can refer to, computed by the caller for one scan. Call `evaluateRules` for
 * entry scans only and not for forced scans (pretix evaluates rules on entries that are not
 * forced); the scan being judged is not part of `entries`/`exits`.
 */
export type RuleFacts = {
  /** The scan's datetime (the redeem's `datetime`, else the time of the request), ms since epoch. */
  now: number;
  /** The event's timezone (IANA name): midnight, week days, days with an entry, `customtime`. */
  timezone: string;
  /** Item id of the position (`product`). */
  product: number;
  /** Variation id of the position or null (`variation`). */
  variation: number | null;
  /** Id of the gate of the scanning device, null without a device or gate (`gate`). */
  gate: number | null;
  /** Dates of the position's sub-event, else of the event: `buildTime`'s base points. */
  event: { dateFrom: number; dateTo: number | null; dateAdmission: number | null };
  /** Datetimes (ms) of this position's earlier ENTRY check-ins on this list, any order. */
  entries: number[];
  /** Datetimes (ms) of this position's earlier EXIT check-ins on this list, any order
   * (`entry_status`: present when the latest check-in on the list is an entry). */
  exits: number[];
};

export type RuleOutcome =
  | { ok: true }
  /** Refused by the rules; `explanation` is pretix's `reason_explanation` text. */
  | { ok: false; reason: "rules"; explanation: string }
  /** The rule cannot be evaluated here (unknown operator or variable, malformed, or a value the
   * server's evaluation fails on): the caller refuses the scan. */
  | { ok: false; reason: "unsupported"; detail: string };

// ---------------------------------------------------------------------------------------------
// Values. The server evaluates in Python; its value types matter for equality, text and
// arithmetic, so they are modelled: JS number = Python int (integral), PyFloat = Python float,
// Instant = aware datetime, PyDict = dict (only as the data of reduce and of falsy elements).

/** An aware datetime. `wall` is set where its tzinfo is the event's zone (a `customtime`): Python
 * keeps such a datetime's wall clock as built (even a time that does not exist that day) and adds
 * a timedelta to it on the wall clock; other datetimes are UTC or a fixed offset. */
class Instant {
  constructor(
    readonly ms: number,
    readonly wall: number | null = null,
  ) {}
}
class PyFloat {
  constructor(readonly v: number) {}
}
class PyDict {
  constructor(readonly map: Map<string, Val>) {}
}
type Val = null | boolean | number | string | PyFloat | Instant | PyDict | Val[];

class Unsupported extends Error {}
function fail(detail: string): never {
  throw new Unsupported(detail);
}

const NOT_FOUND = Symbol("not found");

type PyType = "NoneType" | "bool" | "int" | "float" | "str" | "list" | "datetime" | "dict";

function pyType(v: Val): PyType {
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
function numOf(v: Val): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) return v.v;
  return undefined;
}

function isFloatish(v: Val): boolean {
  return v instanceof PyFloat;
}

/** A Python number from a JS number: int when `float` is false. */
function pyNum(n: number, float: boolean): Val {
  return float ? new PyFloat(n) : n;
}

function truthy(v: Val): boolean {
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
function parsePyFloat(s: string): number | undefined {
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
function parsePyInt(s: string): number | undefined {
  const t = s.trim();
  return PY_INT_RE.test(t) ? Number(t.replace(/_/g, "")) : undefined;
}

/** Python's float(v), or undefined where it raises (TypeError or ValueError). */
function pyFloat(v: Val): number | undefined {
  const n = numOf(v);
  if (n !== undefined) return n;
  if (typeof v === "string") return parsePyFloat(v);
  return undefined;
}

function pyFloatOrFail(v: Val, what: string): number {
  const n = pyFloat(v);
  if (n === undefined) fail(`${what}: ${describe(v)} is not a number`);
  return n;
}

/** Python's int(v). */
function pyIntOrFail(v: Val, what: string): number {
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

function describe(v: Val): string {
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

function strRepr(s: string): string {
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
function pyStr(v: Val): string {
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
function pyRepr(v: Val): string {
  return typeof v === "string" ? strRepr(v) : pyStr(v);
}

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
function softEquals(a: Val, b: Val): boolean {
  if (typeof a === "string" || typeof b === "string") return pyStr(a) === pyStr(b);
  if (typeof a === "boolean" || typeof b === "boolean") return truthy(a) === truthy(b);
  return pyEq(a, b);
}

/** JsonLogic `===`: same type and equal. */
function hardEquals(a: Val, b: Val): boolean {
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
function richLess(a: Val, b: Val): boolean {
  const na = numOf(a);
  const nb = numOf(b);
  if (na !== undefined && nb !== undefined) return na < nb;
  if (typeof a === "string" && typeof b === "string") return strLess(a, b);
  if (a instanceof Instant && b instanceof Instant) return a.ms < b.ms;
  return fail(`cannot compare ${pyType(a)} with ${pyType(b)}`);
}

/** JsonLogic `<` (chained for more operands) as pretix's port implements it. */
function less(a: Val, b: Val, rest: Val[]): boolean {
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

function lessOrEqual(a: Val, b: Val, rest: Val[]): boolean {
  return (less(a, b, []) || softEquals(a, b)) && (rest.length === 0 || lessOrEqual(b, rest[0]!, rest.slice(1)));
}

/** Python's `a in b` (`guarded`: JsonLogic's `in`, false where b is no container). */
function pyIn(a: Val, b: Val, guarded: boolean): boolean {
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

function toNumeric(v: Val): Val {
  if (typeof v !== "string") return v;
  if (v.includes(".")) {
    const f = parsePyFloat(v);
    return f === undefined ? fail(`${strRepr(v)} is not a number`) : new PyFloat(f);
  }
  const i = parsePyInt(v);
  return i === undefined ? fail(`${strRepr(v)} is not an integer`) : i;
}

function arith(a: Val, b: Val, op: "+" | "-", what: string): Val {
  const na = numOf(a);
  const nb = numOf(b);
  if (na === undefined || nb === undefined) {
    return fail(`${what}: cannot compute ${pyType(a)} ${op} ${pyType(b)}`);
  }
  return pyNum(op === "+" ? na + nb : na - nb, isFloatish(a) || isFloatish(b));
}

function pyMod(a: Val, b: Val): Val {
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
function sliceBounds(n: number, start: number | null, stop: number | null): [number, number] {
  const norm = (i: number | null, dflt: number) => {
    if (i === null) return dflt;
    if (i < 0) return Math.max(n + i, 0);
    return Math.min(i, n);
  };
  return [norm(start, 0), norm(stop, n)];
}

function sliceIndex(v: Val): number | null {
  if (v === null) return null;
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return fail(`"substr": ${describe(v)} is not an integer`);
}

function iterate(v: Val, what: string): Val[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return Array.from(v);
  if (v instanceof PyDict) return [...v.map.keys()];
  return fail(`${what}: ${pyType(v)} is not a list`);
}

// ---------------------------------------------------------------------------------------------
// Time in the event's timezone.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The instants at which the wall clock in `tz` shows the given local time (0, 1 or 2 of them). */
function wallInstants(tz: string, local: number): { instants: number[]; offsetBefore: number; offsetAfter: number } {
  const offsetBefore = tzOffsetMs(tz, local - DAY);
  const offsetAfter = tzOffsetMs(tz, local + DAY);
  const instants: number[] = [];
  for (const o of new Set([offsetBefore, offsetAfter])) {
    const u = local - o;
    if (tzOffsetMs(tz, u) === o) instants.push(u);
  }
  instants.sort((x, y) => x - y);
  return { instants, offsetBefore, offsetAfter };
}

/** A local wall time as an instant, resolved as Python's zoneinfo does for `fold`: an ambiguous
 * time is its first (fold 0) or second (fold 1) occurrence; a time in a gap uses the offset before
 * (fold 0) or after (fold 1) the transition. */
function wallToInstant(tz: string, local: number, fold: 0 | 1): number {
  const { instants, offsetBefore, offsetAfter } = wallInstants(tz, local);
  if (instants.length > 0) return fold === 0 ? instants[0]! : instants[instants.length - 1]!;
  return local - (fold === 0 ? offsetBefore : offsetAfter);
}

type Wall = { year: number; month: number; day: number; hour: number; minute: number; second: number; ms: number };

/** The wall clock of an instant in `tz`, with Python's `fold` (1 in the repeated hour's second pass). */
function wallOf(ms: number, tz: string): { wall: Wall; fold: 0 | 1 } {
  const p = zonedParts(ms, tz);
  const frac = ((ms % 1000) + 1000) % 1000;
  const wall = { ...p, ms: frac };
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second, frac);
  const { instants } = wallInstants(tz, local);
  const fold: 0 | 1 = instants.length === 2 && ms === instants[1] ? 1 : 0;
  return { wall, fold };
}

/** The wall clock of an instant in `tz`, as ms of a UTC date with the same fields. */
function wallLocal(ms: number, tz: string): number {
  const { wall } = wallOf(ms, tz);
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.ms);
}

/** Python's `dt.astimezone(tz).replace(hour=h, minute=m, second=s, microsecond=...)`. */
function atWallTime(ms: number, tz: string, h: number, mi: number, s: number, frac: number): Instant {
  const { wall, fold } = wallOf(ms, tz);
  const local = Date.UTC(wall.year, wall.month - 1, wall.day, h, mi, s, frac);
  return new Instant(wallToInstant(tz, local, fold), local);
}

function localDate(ms: number, tz: string): string {
  const p = zonedParts(ms, tz);
  return `${p.year}-${p.month}-${p.day}`;
}

function isoWeekday(ms: number, tz: string): number {
  const p = zonedParts(ms, tz);
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
  return d === 0 ? 7 : d;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** pretix's TIME_FORMAT ('H:i') of a wall clock time (`wallLocal`). */
function formatWallTime(wall: number): string {
  const d = new Date(wall);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

/** pretix's SHORT_DATETIME_FORMAT ('Y-m-d H:i') of a wall clock time (`wallLocal`). */
function formatWallDateTime(wall: number): string {
  const d = new Date(wall);
  return `${String(d.getUTCFullYear()).padStart(4, "0")}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${formatWallTime(wall)}`;
}

/** A time of the explanation (`wall`: its wall clock in the event's timezone, `ms`: the moment):
 * the time alone within 12 hours of the scan, else date and time. */
function formatNear(wall: number, ms: number, now: number): string {
  return Math.abs(now - ms) < 12 * HOUR ? formatWallTime(wall) : formatWallDateTime(wall);
}

const OFFSET_RE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/;

// ---------------------------------------------------------------------------------------------
// The rule data of one scan (pretix's LazyRuleVars).

const VARIABLES = [
  "now",
  "now_isoweekday",
  "product",
  "variation",
  "gate",
  "entries_number",
  "entries_today",
  "entries_days",
  "entry_status",
  "minutes_since_last_entry",
  "minutes_since_first_entry",
] as const;
type Variable = (typeof VARIABLES)[number];
const VARIABLE_SET: ReadonlySet<string> = new Set(VARIABLES);

const latest = (xs: number[]) => xs.reduce((m, x) => Math.max(x, m), -Infinity);
const earliest = (xs: number[]) => xs.reduce((m, x) => Math.min(x, m), Infinity);

const ENTRIES_OPERATIONS = ["entries_since", "entries_before", "entries_days_since", "entries_days_before"] as const;
type EntriesOperation = (typeof ENTRIES_OPERATIONS)[number];

class Ctx {
  private readonly cache = new Map<Variable, Val>();
  constructor(readonly f: RuleFacts) {}

  variable(name: Variable): Val {
    let v = this.cache.get(name);
    if (v === undefined) {
      v = this.compute(name);
      this.cache.set(name, v);
    }
    return v;
  }

  private compute(name: Variable): Val {
    const { f } = this;
    switch (name) {
      case "now":
        return new Instant(f.now);
      case "now_isoweekday":
        return isoWeekday(f.now, f.timezone);
      case "product":
        return f.product;
      case "variation":
        return f.variation;
      case "gate":
        return f.gate;
      case "entries_number":
        return f.entries.length;
      case "entries_today": {
        // pretix: entries at or after midnight of the scan's day in the event's timezone
        const midnight = atWallTime(f.now, f.timezone, 0, 0, 0, 0).ms;
        return f.entries.filter((e) => e >= midnight).length;
      }
      case "entries_days":
        return new Set(f.entries.map((e) => localDate(e, f.timezone))).size;
      case "entry_status":
        // present when the latest check-in on the list (by datetime) is an entry
        return f.entries.length > 0 && latest(f.entries) > latest(f.exits) ? "present" : "absent";
      case "minutes_since_last_entry":
        // -1 without an entry (an int), else whole minutes (a float, as pretix's `// 60`)
        return f.entries.length === 0 ? -1 : new PyFloat(Math.floor((f.now - latest(f.entries)) / MINUTE));
      case "minutes_since_first_entry":
        return f.entries.length === 0 ? -1 : new PyFloat(Math.floor((f.now - earliest(f.entries)) / MINUTE));
    }
  }

  entriesOperation(op: EntriesOperation, cutoff: number): number {
    const { entries, timezone } = this.f;
    const since = op === "entries_since" || op === "entries_days_since";
    const chosen = entries.filter((e) => (since ? e >= cutoff : e < cutoff));
    if (op === "entries_since" || op === "entries_before") return chosen.length;
    return new Set(chosen.map((e) => localDate(e, timezone))).size;
  }

  buildTime(args: Val[]): Instant {
    if (args.length > 2) fail(`"buildTime" takes at most 2 arguments, got ${args.length}`);
    const [t = null, value = null] = args;
    const ev = this.f.event;
    switch (t) {
      case "custom": {
        if (typeof value !== "string" || !OFFSET_RE.test(value.trim())) {
          return fail(`"buildTime": ${describe(value)} is not a datetime with a UTC offset`);
        }
        const ms = parseDateTime(value.trim());
        return ms === null ? fail(`"buildTime": ${describe(value)} is not a datetime`) : new Instant(ms);
      }
      case "customtime": {
        const m = typeof value === "string" ? TIME_RE.exec(value.trim()) : null;
        if (!m) return fail(`"buildTime": ${describe(value)} is not a time of day`);
        const h = Number(m[1]);
        const mi = Number(m[2]);
        const s = m[3] === undefined ? 0 : Number(m[3]);
        if (h > 23 || mi > 59 || s > 59) fail(`"buildTime": ${describe(value)} is not a time of day`);
        const frac = m[4] === undefined ? 0 : Math.floor(Number(`0.${m[4]}`) * 1000);
        return atWallTime(this.f.now, this.f.timezone, h, mi, s, frac);
      }
      case "date_from":
        return new Instant(ev.dateFrom);
      case "date_to":
        return new Instant(ev.dateTo ?? ev.dateFrom);
      case "date_admission":
        return new Instant(ev.dateAdmission ?? ev.dateFrom);
      default:
        return fail(`"buildTime": unknown time ${describe(t)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Structure.

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

type Json = unknown;
type Obj = Record<string, Json>;

function isObj(x: unknown): x is Obj {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** The operator of a logic object: its one key not starting with "__" (pretix skips those). */
function operatorOf(node: Obj): string {
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

function operands(node: Obj, op: string): Json[] {
  const raw = node[op];
  return Array.isArray(raw) ? raw : [raw];
}

/** A literal: JSON data, never logic. */
function literal(x: Json): Val {
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
function validate(rules: Obj): void {
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

function checkVariableName(name: string): Variable {
  const first = name.split(".")[0]!;
  if (first === "") fail('malformed rule: "var" without a name');
  if ((ENTRIES_OPERATIONS as readonly string[]).includes(first)) {
    fail(`${JSON.stringify(first)} is an operation, not a variable`);
  }
  if (!VARIABLE_SET.has(first)) fail(`unknown variable ${JSON.stringify(first)}`);
  return first as Variable;
}

// ---------------------------------------------------------------------------------------------
// Evaluation (pretix's Logic.apply with the check-in environment).

type Scope = { top: true } | { top: false; data: Val };
const TOP: Scope = { top: true };

/** The data of an element scope: pretix's `data = data or {}`. */
function elementScope(v: Val): Scope {
  return { top: false, data: truthy(v) ? v : new PyDict(new Map()) };
}

function getVar(scope: Scope, name: Val, notFound: Val | typeof NOT_FOUND, c: Ctx): Val | typeof NOT_FOUND {
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

function evaluate(node: Json, scope: Scope, c: Ctx): Val {
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

function arrayOperation(op: string, raw: Json[], scope: Scope, c: Ctx): Val {
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

function isBefore(t1: Val, t2: Val, tolerance: Val, c: Ctx): boolean {
  if (truthy(tolerance)) {
    const minutes = pyFloatOrFail(tolerance, "tolerance");
    if (!Number.isFinite(minutes)) fail(`tolerance ${describe(tolerance)} is not a number of minutes`);
    if (!(t2 instanceof Instant)) return fail(`cannot add a tolerance to ${pyType(t2)}`);
    return richLess(t1, plus(t2, minutesToMs(minutes), c.f.timezone));
  }
  return richLess(t1, t2);
}

/** Python's timedelta(minutes=m), in ms (microsecond precision). */
function minutesToMs(minutes: number): number {
  return Math.round(minutes * 60_000_000) / 1000;
}

/** Python's `datetime + timedelta`: on the wall clock for a datetime in the event's zone (the
 * result resolved as fold 0), absolute otherwise. */
function plus(t: Instant, ms: number, tz: string): Instant {
  if (t.wall === null) return new Instant(t.ms + ms);
  const wall = t.wall + ms;
  return new Instant(wallToInstant(tz, wall, 0), wall);
}

function apply(op: string, args: Val[], scope: Scope, c: Ctx): Val {
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

// ---------------------------------------------------------------------------------------------
// The explanation of a refusal (pretix's _logic_explain).

const UNKNOWN_REASON = "Unknown reason";

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
const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

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
function rawBuildTime(bt: Json, c: Ctx): { ms: number; wall: number } {
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

function explain(rules: Obj, c: Ctx): string {
  try {
    return explainOrFail(rules, c);
  } catch {
    return UNKNOWN_REASON;
  }
}

function explainOrFail(rules: Obj, c: Ctx): string {
  const { now, timezone } = c.f;
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
      const when = formatNear(wall, compareTo, now);
      if (operator === "isBefore") texts.set(name, `Only allowed before ${when}`);
      else if (operator === "isAfter") texts.set(name, `Only allowed after ${when}`);
    } else if (variable === "entry_status") {
      weights.set(name, [20, 0]);
      const right = operator === "==" ? (rhs.length > 0 ? rhs[0] : explainFail()) : undefined;
      if (operator === "==" && right === "present") texts.set(name, "Attendee is checked out");
      else if (operator === "==" && right === "absent") texts.set(name, "Attendee is already checked in");
      else texts.set(name, `entry_status not ${operator} ${pyRepr(rhs.map(rawRepresentable))}`);
    } else if (variable === "product" || variable === "variation") {
      weights.set(name, [1000, 0]);
      texts.set(name, "Ticket type not allowed");
    } else if (variable === "gate") {
      weights.set(name, [500, 0]);
      texts.set(name, "Wrong entrance gate");
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
        label = LABEL[key]!.replace("{datetime}", formatNear(cutoff.wall, cutoff.ms, now));
        result = c.entriesOperation(key as EntriesOperation, cutoff.ms);
      } else if (typeof variable === "string" && variable in NUMERIC_WEIGHT && VARIABLE_SET.has(variable)) {
        key = variable;
        label = LABEL[key]!;
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
          ? WEEKDAYS[compareTo - 1]!
          : pyStr(compareRaw);
      if (operator === "==") texts.set(name, `${label} is not ${value}`);
      else if (operator === "<" || operator === "<=") texts.set(name, `Maximum ${label} exceeded`);
      else if (operator === ">" || operator === ">=") texts.set(name, `Minimum ${label} exceeded`);
      else if (operator === "!=") texts.set(name, `${label} is ${value}`);
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

// ---------------------------------------------------------------------------------------------

function checkFacts(f: RuleFacts): void {
  const instant = (x: unknown) => typeof x === "number" && Number.isFinite(x);
  const id = (x: unknown) => typeof x === "number" && Number.isInteger(x);
  if (!instant(f.now)) fail("invalid facts: now");
  if (typeof f.timezone !== "string" || !isValidTimezone(f.timezone)) fail("invalid facts: timezone");
  if (!id(f.product)) fail("invalid facts: product");
  if (f.variation !== null && !id(f.variation)) fail("invalid facts: variation");
  if (f.gate !== null && !id(f.gate)) fail("invalid facts: gate");
  if (!instant(f.event?.dateFrom)) fail("invalid facts: event.dateFrom");
  if (f.event.dateTo !== null && !instant(f.event.dateTo)) fail("invalid facts: event.dateTo");
  if (f.event.dateAdmission !== null && !instant(f.event.dateAdmission)) fail("invalid facts: event.dateAdmission");
  if (!Array.isArray(f.entries) || !f.entries.every(instant)) fail("invalid facts: entries");
  if (!Array.isArray(f.exits) || !f.exits.every(instant)) fail("invalid facts: exits");
}

/**
 * Judges one entry scan by a check-in list's `rules`. `{}` (and null) means no rules: admitted.
 * Anything the service cannot evaluate as pretix's server would is `unsupported`, never admitted.
 */
export function evaluateRules(rules: unknown, facts: RuleFacts): RuleOutcome {
  if (rules === null || rules === undefined || (isObj(rules) && Object.keys(rules).length === 0)) {
    return { ok: true };
  }
  try {
    if (!isObj(rules)) fail("malformed rule: the rules are not an object");
    checkFacts(facts);
    validate(rules);
    const c = new Ctx(facts);
    if (truthy(evaluate(rules, TOP, c))) return { ok: true };
    return { ok: false, reason: "rules", explanation: explain(rules, c) };
  } catch (e) {
    if (e instanceof Unsupported) return { ok: false, reason: "unsupported", detail: e.message };
    // never admit, never fail the request: anything unforeseen refuses the scan
    return {
      ok: false,
      reason: "unsupported",
      detail: `evaluation failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}
