/**
 * Time in the event's timezone as Python's zoneinfo handles it (wall clocks, `fold` in repeated
 * and skipped hours, `datetime + timedelta`), and the times an explanation shows.
 */
import { tzOffsetMs, zonedParts } from "../../lib/datetime";
import { shortDateTime, shortTime, type TextLanguage } from "../checkin-texts";
import { Instant } from "./values";

export const MINUTE = 60_000;
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
export function wallToInstant(tz: string, local: number, fold: 0 | 1): number {
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
export function wallLocal(ms: number, tz: string): number {
  const { wall } = wallOf(ms, tz);
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.ms);
}

/** Python's `dt.astimezone(tz).replace(hour=h, minute=m, second=s, microsecond=...)`. */
export function atWallTime(ms: number, tz: string, h: number, mi: number, s: number, frac: number): Instant {
  const { wall, fold } = wallOf(ms, tz);
  const local = Date.UTC(wall.year, wall.month - 1, wall.day, h, mi, s, frac);
  return new Instant(wallToInstant(tz, local, fold), local);
}

/** The calendar day of an instant in `tz`, as a key (days with an entry). */
export function localDate(ms: number, tz: string): string {
  const p = zonedParts(ms, tz);
  return `${p.year}-${p.month}-${p.day}`;
}

/** Python's `isoweekday()` of an instant in `tz`: 1 Monday to 7 Sunday. */
export function isoWeekday(ms: number, tz: string): number {
  const p = zonedParts(ms, tz);
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
  return d === 0 ? 7 : d;
}

/** A time of the explanation (`wall`: its wall clock in the event's timezone, `ms`: the moment):
 * the time alone within 12 hours of the scan, else date and time, in the explanation's language. */
export function formatNear(wall: number, ms: number, now: number, language: TextLanguage = "en"): string {
  return Math.abs(now - ms) < 12 * HOUR ? shortTime(wall) : shortDateTime(wall, language);
}

/** Python's timedelta(minutes=m), in ms (microsecond precision). */
export function minutesToMs(minutes: number): number {
  return Math.round(minutes * 60_000_000) / 1000;
}

/** Python's `datetime + timedelta`: on the wall clock for a datetime in the event's zone (the
 * result resolved as fold 0), absolute otherwise. */
export function plus(t: Instant, ms: number, tz: string): Instant {
  if (t.wall === null) return new Instant(t.ms + ms);
  const wall = t.wall + ms;
  return new Instant(wallToInstant(tz, wall, 0), wall);
}
