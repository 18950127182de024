/**
 * Date ranges: `<start>/<end>` (ISO dates, either side may be empty) or a named range
 * relative to today in a timezone (`week_this`, `month_next`, ...; weeks start on Monday).
 * Resolved to inclusive calendar dates and to a half-open instant interval.
 */
import { addDays, parseDate, zonedDate, zonedTimeToUtc } from "./datetime";

type Ymd = [number, number, number];
type Frame = (today: Ymd) => [Ymd, Ymd];

const dim = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const weekStart = (d: Ymd): Ymd => addDays(d, -((new Date(Date.UTC(d[0], d[1] - 1, d[2])).getUTCDay() + 6) % 7));
const monthStart = (d: Ymd): Ymd => [d[0], d[1], 1];
const monthEnd = (d: Ymd): Ymd => [d[0], d[1], dim(d[0], d[1])];
const quarterStart = (d: Ymd): Ymd => [d[0], Math.floor((d[1] - 1) / 3) * 3 + 1, 1];
const quarterEnd = (d: Ymd): Ymd => {
  const s = quarterStart(d);
  return [s[0], s[1] + 2, dim(s[0], s[1] + 2)];
};

export const NAMED_RANGES: Record<string, Frame> = {
  days_today: (t) => [t, t],
  days_last7: (t) => [addDays(t, -6), t],
  days_last14: (t) => [addDays(t, -13), t],
  days_tomorrow: (t) => [addDays(t, 1), addDays(t, 1)],
  days_next7: (t) => [addDays(t, 1), addDays(t, 7)],
  days_next14: (t) => [addDays(t, 1), addDays(t, 14)],
  week_this: (t) => [weekStart(t), addDays(weekStart(t), 6)],
  week_to_date: (t) => [weekStart(t), t],
  week_previous: (t) => [addDays(weekStart(t), -7), addDays(weekStart(t), -1)],
  week_next: (t) => [addDays(weekStart(t), 7), addDays(weekStart(t), 13)],
  month_this: (t) => [monthStart(t), monthEnd(t)],
  month_to_date: (t) => [monthStart(t), t],
  month_previous: (t) => {
    const last = addDays(monthStart(t), -1);
    return [monthStart(last), last];
  },
  month_next: (t) => {
    const first = addDays(monthEnd(t), 1);
    return [first, monthEnd(first)];
  },
  quarter_this: (t) => [quarterStart(t), quarterEnd(t)],
  quarter_to_date: (t) => [quarterStart(t), t],
  quarter_previous: (t) => {
    const last = addDays(quarterStart(t), -1);
    return [quarterStart(last), last];
  },
  quarter_next: (t) => {
    const first = addDays(quarterEnd(t), 1);
    return [first, quarterEnd(first)];
  },
  year_this: (t) => [
    [t[0], 1, 1],
    [t[0], 12, 31],
  ],
  year_to_date: (t) => [[t[0], 1, 1], t],
  year_previous: (t) => [
    [t[0] - 1, 1, 1],
    [t[0] - 1, 12, 31],
  ],
  year_next: (t) => [
    [t[0] + 1, 1, 1],
    [t[0] + 1, 12, 31],
  ],
};

export type DateRange = { start: Ymd | null; end: Ymd | null };

/** Parses a date range; null when the text is neither a named range nor `<date>/<date>`. */
export function parseDateRange(text: string, now: number, timeZone: string): DateRange | null {
  const named = NAMED_RANGES[text];
  if (named) {
    const [start, end] = named(zonedDate(now, timeZone));
    return { start, end };
  }
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const a = text.slice(0, slash).trim();
  const b = text.slice(slash + 1).trim();
  const start = a === "" ? null : parseDate(a);
  const end = b === "" ? null : parseDate(b);
  if ((a !== "" && !start) || (b !== "" && !end)) return null;
  if (start && end && Date.UTC(start[0], start[1] - 1, start[2]) > Date.UTC(end[0], end[1] - 1, end[2])) return null;
  return { start, end };
}

/** The instants covered by a range: start inclusive, end exclusive (null = open). */
export function rangeToInstants(range: DateRange, timeZone: string): { from: number | null; until: number | null } {
  const from = range.start ? zonedTimeToUtc(timeZone, ...range.start) : null;
  const until = range.end ? zonedTimeToUtc(timeZone, ...addDays(range.end, 1)) : null;
  return { from, until };
}
