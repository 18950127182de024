/**
 * What a rule can read of one scan (pretix's LazyRuleVars): the facts the caller computed, the
 * variables derived from them in the event's timezone, the `entries_*` operations and `buildTime`.
 */
import { isValidTimezone, parseDateTime } from "../../lib/datetime";
import { atWallTime, isoWeekday, localDate, MINUTE } from "./clock";
import { describe, fail, Instant, PyFloat, type Val } from "./values";

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
  /** The locale the explanation is written in (pretix: the event's, or the order's on request); English when absent. */
  locale?: string | null;
};

/** Facts a caller got wrong make the rule unsupported: never admitted on bad input. */
export function checkFacts(f: RuleFacts): void {
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

/** The scan variables a rule may read with `var`. */
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
export type Variable = (typeof VARIABLES)[number];
export const VARIABLE_SET: ReadonlySet<string> = new Set(VARIABLES);

/** `buildTime`'s `custom`: a datetime with its UTC offset; `customtime`: a time of day. */
const OFFSET_RE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/;

const latest = (xs: number[]) => xs.reduce((m, x) => Math.max(x, m), -Infinity);
const earliest = (xs: number[]) => xs.reduce((m, x) => Math.min(x, m), Infinity);

/** pretix's operations counting the scan's entries before or since a time. */
export const ENTRIES_OPERATIONS = [
  "entries_since",
  "entries_before",
  "entries_days_since",
  "entries_days_before",
] as const;
export type EntriesOperation = (typeof ENTRIES_OPERATIONS)[number];

/** The variables of one scan, each computed once when a rule first reads it. */
export class RuleVars {
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
