import { describe, expect, it } from "vitest";
import { parseDateRange, rangeToInstants } from "../../src/lib/daterange";
import { parseDate, parseDateTime, toIso, zonedTimeToUtc } from "../../src/lib/datetime";
import { divRound, formatDecimal, parseDecimal, percentOf, roundToCurrency } from "../../src/lib/money";
import { parseRelative, resolveRelativeDate, resolveRelativeDateTime } from "../../src/lib/reldate";
import { randomString, sha256Hex } from "../../src/lib/crypto";

describe("money", () => {
  it("parses decimal strings and JSON numbers into hundredths without floats", () => {
    expect(parseDecimal("23.42")).toBe(2342);
    expect(parseDecimal("23.4")).toBe(2340);
    expect(parseDecimal("23")).toBe(2300);
    expect(parseDecimal("-0.05")).toBe(-5);
    expect(parseDecimal("0.10")).toBe(10);
    expect(parseDecimal("1.230")).toBe(123);
    expect(parseDecimal(12.5)).toBe(1250);
    expect(parseDecimal(0.1 + 0.2)).toBeNull(); // 0.30000000000000004 has too many places
    expect(parseDecimal("1.234")).toBeNull();
    expect(parseDecimal("abc")).toBeNull();
    expect(parseDecimal("1e3")).toBeNull();
    expect(parseDecimal("")).toBeNull();
    expect(parseDecimal(null)).toBeNull();
    expect(parseDecimal("9999999999999999")).toBeNull();
  });

  it("formats hundredths as decimal strings", () => {
    expect(formatDecimal(2342)).toBe("23.42");
    expect(formatDecimal(5)).toBe("0.05");
    expect(formatDecimal(-5)).toBe("-0.05");
    expect(formatDecimal(0)).toBe("0.00");
    expect(formatDecimal(100000)).toBe("1000.00");
  });

  it("rounds half away from zero, exactly", () => {
    expect(divRound(5, 2)).toBe(3);
    expect(divRound(-5, 2)).toBe(-3);
    expect(divRound(4, 3)).toBe(1);
    expect(percentOf(1999, 1900)).toBe(380); // 19 % of 19.99 = 3.7981
    expect(percentOf(9_000_000_000_000, 1900)).toBe(1_710_000_000_000); // beyond float-safe products
  });

  it("rounds to what the currency can express", () => {
    expect(roundToCurrency(1050, "JPY")).toBe(1100);
    expect(roundToCurrency(1049, "JPY")).toBe(1000);
    expect(roundToCurrency(1049, "EUR")).toBe(1049);
  });
});

describe("datetimes", () => {
  it("accepts offsets and fractional seconds", () => {
    expect(parseDateTime("2017-12-27T10:00:00Z")).toBe(Date.UTC(2017, 11, 27, 10));
    expect(parseDateTime("2017-12-27T10:00:00.596934Z")).toBe(Date.UTC(2017, 11, 27, 10, 0, 0, 596));
    expect(parseDateTime("2017-12-27T10:00:00+02:00")).toBe(Date.UTC(2017, 11, 27, 8));
    expect(parseDateTime("2017-12-27T10:00:00-0130")).toBe(Date.UTC(2017, 11, 27, 11, 30));
    expect(parseDateTime("2017-12-27T10:00")).toBe(Date.UTC(2017, 11, 27, 10));
    expect(parseDateTime("2017-12-27T10:00:00", "Europe/Berlin")).toBe(Date.UTC(2017, 11, 27, 9));
    expect(parseDateTime("2017-02-30T10:00:00Z")).toBeNull();
    expect(parseDateTime("2017-12-27T25:00:00Z")).toBeNull();
    expect(parseDateTime("yesterday")).toBeNull();
    expect(parseDate("2024-02-29")).toEqual([2024, 2, 29]);
    expect(parseDate("2023-02-29")).toBeNull();
  });

  it("writes UTC with fractional seconds only when present", () => {
    expect(toIso(Date.UTC(2017, 11, 27, 10))).toBe("2017-12-27T10:00:00Z");
    expect(toIso(Date.UTC(2017, 11, 27, 10, 0, 0, 596))).toBe("2017-12-27T10:00:00.596Z");
    expect(toIso(null)).toBeNull();
  });

  it("converts wall-clock times across DST", () => {
    expect(zonedTimeToUtc("Europe/Berlin", 2026, 7, 1, 12)).toBe(Date.UTC(2026, 6, 1, 10));
    expect(zonedTimeToUtc("Europe/Berlin", 2026, 12, 1, 12)).toBe(Date.UTC(2026, 11, 1, 11));
  });
});

describe("relative dates", () => {
  const event = {
    timezone: "Europe/Berlin",
    date_from: Date.UTC(2026, 11, 10, 18), // 19:00 in Berlin
    presale_start: null,
  };

  it("parses the days and minutes forms", () => {
    expect(parseRelative("RELDATE/3/12:00:00/presale_start/")).toEqual({
      kind: "days",
      days: 3,
      time: [12, 0, 0],
      base: "presale_start",
      after: false,
    });
    expect(parseRelative("RELDATE/1/-/date_from/")).toEqual({
      kind: "days",
      days: 1,
      time: null,
      base: "date_from",
      after: false,
    });
    expect(parseRelative("RELDATE/minutes/90/date_from/after")).toEqual({
      kind: "minutes",
      minutes: 90,
      base: "date_from",
      after: true,
    });
    expect(parseRelative("RELDATE/3/12:00:00/nonsense/")).toBeNull();
    expect(parseRelative("RELDATE/x/-/date_from/")).toBeNull();
  });

  it("resolves against the event in its timezone, falling back to date_from", () => {
    expect(resolveRelativeDateTime(parseRelative("RELDATE/3/12:00:00/date_from/")!, event)).toBe(
      Date.UTC(2026, 11, 7, 11),
    );
    expect(resolveRelativeDateTime(parseRelative("RELDATE/1/-/date_from/")!, event)).toBe(Date.UTC(2026, 11, 9, 18));
    expect(resolveRelativeDateTime(parseRelative("RELDATE/minutes/30/presale_start/")!, event)).toBe(
      Date.UTC(2026, 11, 10, 17, 30),
    );
    expect(resolveRelativeDate(parseRelative("RELDATE/2/-/date_from/after")!, event)).toBe("2026-12-12");
  });
});

describe("date ranges", () => {
  const now = Date.UTC(2026, 10, 22, 12); // Sunday 22 November 2026
  it("resolves named ranges in a timezone (weeks start on Monday)", () => {
    expect(parseDateRange("week_this", now, "UTC")).toEqual({ start: [2026, 11, 16], end: [2026, 11, 22] });
    expect(parseDateRange("week_next", now, "UTC")).toEqual({ start: [2026, 11, 23], end: [2026, 11, 29] });
    expect(parseDateRange("month_this", now, "UTC")).toEqual({ start: [2026, 11, 1], end: [2026, 11, 30] });
    expect(parseDateRange("month_previous", now, "UTC")).toEqual({ start: [2026, 10, 1], end: [2026, 10, 31] });
    expect(parseDateRange("quarter_this", now, "UTC")).toEqual({ start: [2026, 10, 1], end: [2026, 12, 31] });
    expect(parseDateRange("days_today", Date.UTC(2026, 10, 22, 23, 30), "Europe/Berlin")).toEqual({
      start: [2026, 11, 23],
      end: [2026, 11, 23],
    });
  });

  it("accepts open sides and rejects nonsense", () => {
    expect(parseDateRange("2026-01-01/", now, "UTC")).toEqual({ start: [2026, 1, 1], end: null });
    expect(parseDateRange("/2026-01-31", now, "UTC")).toEqual({ start: null, end: [2026, 1, 31] });
    expect(parseDateRange("2026-02-01/2026-01-01", now, "UTC")).toBeNull();
    expect(parseDateRange("month_sometimes", now, "UTC")).toBeNull();
    expect(rangeToInstants({ start: [2026, 1, 1], end: [2026, 1, 31] }, "Europe/Berlin")).toEqual({
      from: Date.UTC(2025, 11, 31, 23),
      until: Date.UTC(2026, 0, 31, 23),
    });
  });
});

describe("secrets", () => {
  it("are random over the alphabet and hashes are SHA-256 hex", async () => {
    const a = randomString(64);
    expect(a).toMatch(/^[a-z0-9]{64}$/);
    expect(randomString(64)).not.toBe(a);
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
