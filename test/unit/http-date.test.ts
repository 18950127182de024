/**
 * If-Modified-Since is read as an HTTP-date only (RFC 7231): pretixSCAN sends a Java date text
 * to force a full answer after switching dates, which must not read as a date (or the list
 * would answer 304 and the scanner keep another date's lists).
 */
import { describe, expect, it } from "vitest";
import { nextExitAllAt } from "../../src/rules/checkin";
import { parseHttpDate, toHttpDate } from "../../src/lib/datetime";

describe("parseHttpDate", () => {
  it("reads the three HTTP-date forms", () => {
    const at = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT")).toBe(at);
    expect(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT")).toBe(at);
    expect(parseHttpDate("Sun Nov  6 08:49:37 1994")).toBe(at);
    expect(parseHttpDate(toHttpDate(Date.UTC(2030, 0, 2, 3, 4, 5)))).toBe(Date.UTC(2030, 0, 2, 3, 4, 5));
  });

  it("anything else is no date", () => {
    expect(parseHttpDate("Tue Nov 24 07:10:00 UTC 2026")).toBeNull();
    expect(parseHttpDate("2026-11-24T07:10:00Z")).toBeNull();
    expect(parseHttpDate("Sun, 31 Feb 1994 08:49:37 GMT")).toBeNull();
    expect(parseHttpDate("")).toBeNull();
  });
});

describe("nextExitAllAt", () => {
  it("moves exactly one day ahead, keeping the event's wall-clock time across a daylight saving change", () => {
    expect(nextExitAllAt(Date.parse("2030-06-01T01:00:00Z"), "UTC")).toBe(Date.parse("2030-06-02T01:00:00Z"));
    // Berlin, 03:30 local on the day before summer time starts → 03:30 local the next day (one hour less in UTC)
    expect(nextExitAllAt(Date.parse("2030-03-30T02:30:00Z"), "Europe/Berlin")).toBe(Date.parse("2030-03-31T01:30:00Z"));
  });
});
