/**
 * Relative datetimes and dates: `RELDATE/<days>/<HH:MM:SS|->/<base point>/` (days before the
 * base point, at a time of day in the event's timezone or the base point's own time),
 * `RELDATE/minutes/<minutes>/<base point>/` (minutes before the base point), each with an
 * optional trailing `after` to count forward instead. Base points are event dates; a base
 * point that is not set falls back to the event's `date_from`.
 */
import { addDays, parseDate, parseDateTime, zonedDate, zonedParts, zonedTimeToUtc, formatDate } from "./datetime";

export const BASE_POINTS = ["date_from", "date_to", "date_admission", "presale_start", "presale_end"] as const;
export type BasePoint = (typeof BASE_POINTS)[number];

export type RelativeSpec =
  | { kind: "days"; days: number; time: [number, number, number] | null; base: BasePoint; after: boolean }
  | { kind: "minutes"; minutes: number; base: BasePoint; after: boolean };

export type EventDates = { timezone: string } & { [K in BasePoint]?: number | null } & { date_from: number };

const DAYS = /^RELDATE\/(\d+)\/(-|(\d{2}):(\d{2})(?::(\d{2}))?)\/([a-z_]+)\/(after)?$/;
const MINUTES = /^RELDATE\/minutes\/(\d+)\/([a-z_]+)\/(after)?$/;

function isBase(x: string): x is BasePoint {
  return (BASE_POINTS as readonly string[]).includes(x);
}

export function parseRelative(text: string): RelativeSpec | null {
  let m = DAYS.exec(text);
  if (m) {
    const base = m[6]!;
    if (!isBase(base)) return null;
    let time: [number, number, number] | null = null;
    if (m[2] !== "-") {
      time = [Number(m[3]), Number(m[4]), m[5] ? Number(m[5]) : 0];
      if (time[0] > 23 || time[1] > 59 || time[2] > 59) return null;
    }
    return { kind: "days", days: Number(m[1]), time, base, after: m[7] === "after" };
  }
  m = MINUTES.exec(text);
  if (m) {
    const base = m[2]!;
    if (!isBase(base)) return null;
    return { kind: "minutes", minutes: Number(m[1]), base, after: m[3] === "after" };
  }
  return null;
}

function baseInstant(spec: RelativeSpec, ev: EventDates): number {
  return ev[spec.base] ?? ev.date_from;
}

/** Resolves a relative datetime against an event. */
export function resolveRelativeDateTime(spec: RelativeSpec, ev: EventDates): number {
  const base = baseInstant(spec, ev);
  if (spec.kind === "minutes") return base + (spec.after ? 1 : -1) * spec.minutes * 60_000;
  const day = addDays(zonedDate(base, ev.timezone), (spec.after ? 1 : -1) * spec.days);
  if (spec.time) return zonedTimeToUtc(ev.timezone, day[0], day[1], day[2], ...spec.time);
  const p = zonedParts(base, ev.timezone);
  return zonedTimeToUtc(ev.timezone, day[0], day[1], day[2], p.hour, p.minute, p.second);
}

/** Resolves a relative date against an event (the time part, if any, is ignored). */
export function resolveRelativeDate(spec: RelativeSpec, ev: EventDates): string {
  if (spec.kind === "minutes") return formatDate(zonedDate(resolveRelativeDateTime(spec, ev), ev.timezone));
  const day = addDays(zonedDate(baseInstant(spec, ev), ev.timezone), (spec.after ? 1 : -1) * spec.days);
  return formatDate(day);
}

/** True when `text` is an ISO datetime or a relative datetime. */
export function isRelativeDateTimeValue(text: string): boolean {
  return parseDateTime(text) !== null || parseRelative(text) !== null;
}

/** True when `text` is an ISO date or a relative date (`RELDATE/<days>/-/<base>/`). */
export function isRelativeDateValue(text: string): boolean {
  if (parseDate(text) !== null) return true;
  const spec = parseRelative(text);
  return spec !== null && spec.kind === "days" && spec.time === null;
}
