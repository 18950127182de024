/**
 * Datetimes are stored as integer milliseconds since the epoch (UTC) and written on the
 * wire as ISO 8601 in UTC ("Z"). Input accepts offsets and fractional seconds.
 */

const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function validYmd(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const dim = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= dim;
}

/**
 * Parses an ISO 8601 datetime. Without an offset the value is read in `defaultTimezone`
 * (UTC unless given). Returns epoch milliseconds, or null when the text is not a datetime.
 */
export function parseDateTime(text: string, defaultTimezone = "UTC"): number | null {
  const m = ISO_DATETIME.exec(text.trim());
  if (!m) return null;
  const [, ys, mos, ds, hs, mis, ss, frac, off] = m;
  const y = Number(ys),
    mo = Number(mos),
    d = Number(ds),
    h = Number(hs),
    mi = Number(mis);
  const s = ss ? Number(ss) : 0;
  if (!validYmd(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000 + 1e-9) : 0;
  const local = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  if (off === undefined) return local - tzOffsetMs(defaultTimezone, local);
  if (off === "Z" || off === "z") return local;
  const sign = off[0] === "-" ? -1 : 1;
  const digits = off.slice(1).replace(":", "");
  const oh = Number(digits.slice(0, 2));
  const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (oh > 23 || om > 59) return null;
  return local - sign * (oh * 60 + om) * 60_000;
}

/** Parses an ISO 8601 date ("2026-11-22") into [year, month, day], or null. */
export function parseDate(text: string): [number, number, number] | null {
  const m = ISO_DATE.exec(text.trim());
  if (!m) return null;
  const y = Number(m[1]),
    mo = Number(m[2]),
    d = Number(m[3]);
  return validYmd(y, mo, d) ? [y, mo, d] : null;
}

export function formatDate([y, m, d]: [number, number, number]): string {
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** ISO 8601 in UTC; fractional seconds only when present. */
export function toIso(ms: number): string;
export function toIso(ms: number | null | undefined): string | null;
export function toIso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** RFC 7231 HTTP-date, for Last-Modified. */
export function toHttpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ( \d|\d{2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * An HTTP-date (RFC 7231: IMF-fixdate, or the obsolete RFC 850 and asctime forms), as HTTP
 * servers read If-Modified-Since; anything else (another date format) is no date: null.
 */
export function parseHttpDate(text: string): number | null {
  const t = text.trim();
  let y: number, mo: number, d: number, h: number, mi: number, s: number;
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(t)))
    [d, mo, y, h, mi, s] = [
      Number(m[1]),
      MONTHS.indexOf(m[2]!),
      Number(m[3]),
      Number(m[4]),
      Number(m[5]),
      Number(m[6]),
    ];
  else if ((m = RFC850_DATE.exec(t))) {
    const yy = Number(m[3]);
    [d, mo, y, h, mi, s] = [
      Number(m[1]),
      MONTHS.indexOf(m[2]!),
      yy < 70 ? 2000 + yy : 1900 + yy,
      Number(m[4]),
      Number(m[5]),
      Number(m[6]),
    ];
  } else if ((m = ASCTIME_DATE.exec(t)))
    [mo, d, h, mi, s, y] = [
      MONTHS.indexOf(m[1]!),
      Number(m[2]!.trim()),
      Number(m[3]),
      Number(m[4]),
      Number(m[5]),
      Number(m[6]),
    ];
  else return null;
  if (mo < 0 || !validYmd(y, mo + 1, d) || h > 23 || mi > 59 || s > 60) return null;
  return Date.UTC(y, mo, d, h, mi, s);
}

const dtfCache = new Map<string, Intl.DateTimeFormat>();
function dtf(timeZone: string): Intl.DateTimeFormat {
  let f = dtfCache.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    dtfCache.set(timeZone, f);
  }
  return f;
}

export function isValidTimezone(timeZone: string): boolean {
  try {
    dtf(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock parts of an instant in a timezone. */
export function zonedParts(ms: number, timeZone: string) {
  const parts: Record<string, number> = {};
  for (const p of dtf(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** Offset of `timeZone` from UTC at the instant `ms`, in milliseconds. */
export function tzOffsetMs(timeZone: string, ms: number): number {
  if (timeZone === "UTC") return 0;
  const p = zonedParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (ms - (ms % 1000));
}

/** The instant at which the wall clock in `timeZone` shows the given local time. */
export function zonedTimeToUtc(timeZone: string, y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const guess = Date.UTC(y, mo - 1, d, h, mi, s);
  // Two passes settle DST transitions.
  let ms = guess - tzOffsetMs(timeZone, guess);
  ms = guess - tzOffsetMs(timeZone, ms);
  return ms;
}

/** The calendar date of an instant in a timezone. */
export function zonedDate(ms: number, timeZone: string): [number, number, number] {
  const p = zonedParts(ms, timeZone);
  return [p.year, p.month, p.day];
}

/** Adds days to a calendar date. */
export function addDays([y, m, d]: [number, number, number], days: number): [number, number, number] {
  const t = new Date(Date.UTC(y, m - 1, d + days));
  return [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()];
}

/** Days in a month (1–12) of a year. */
export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}
