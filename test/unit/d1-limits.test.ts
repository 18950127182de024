/**
 * The suite's D1 binding holds every statement to D1's production limits (test/helpers/d1-guard.ts,
 * installed by test/setup.ts): the largest statement each limit allows runs, one more is refused
 * with D1's own error text.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { d1LimitViolation } from "../helpers/d1-limits";
import { guardedStatements } from "../helpers/d1-guard";

const params = (n: number) => Array.from({ length: n }, (_, i) => i);
const marks = (n: number) =>
  params(n)
    .map(() => "?")
    .join(", ");

describe("D1's limits in the tests", () => {
  it("bound parameters: 100 run, 101 are refused", async () => {
    await expect(
      env.DB.prepare(`SELECT 1 IN (${marks(100)}) AS x`)
        .bind(...params(100))
        .first(),
    ).resolves.toEqual({ x: 1 });
    await expect(
      env.DB.prepare(`SELECT 1 IN (${marks(101)}) AS x`)
        .bind(...params(101))
        .first(),
    ).rejects.toThrow(/^D1_ERROR: too many SQL variables at offset \d+: SQLITE_ERROR$/);
    // in a batch too
    await expect(
      env.DB.batch([env.DB.prepare("SELECT 1"), env.DB.prepare(`SELECT 1 IN (${marks(101)})`).bind(...params(101))]),
    ).rejects.toThrow(/too many SQL variables/);
  });

  it("LIKE and GLOB patterns: 50 bytes run, 51 are refused (bytes, not characters)", async () => {
    await expect(env.DB.prepare("SELECT 'a' LIKE ? AS x").bind("%".repeat(50)).first()).resolves.toEqual({ x: 1 });
    await expect(env.DB.prepare("SELECT 'a' LIKE ? AS x").bind("%".repeat(51)).first()).rejects.toThrow(
      "D1_ERROR: LIKE or GLOB pattern too complex: SQLITE_ERROR",
    );
    await expect(env.DB.prepare("SELECT 'a' GLOB ? AS x").bind("é".repeat(26)).first()).rejects.toThrow(
      "LIKE or GLOB pattern too complex",
    );
    expect(d1LimitViolation(`SELECT 'a' LIKE '%' || ? || '%'`, ["x".repeat(49)])).toMatch(/pattern too complex/);
    expect(d1LimitViolation(`SELECT 'a' NOT LIKE '${"x".repeat(51)}'`, [])).toMatch(/pattern too complex/);
    expect(d1LimitViolation(`SELECT 'a' LIKE '%' || ? || '%'`, ["x".repeat(48)])).toBeNull();
  });

  it("statements: 100,000 bytes run, one more is refused", async () => {
    const sized = (bytes: number) => `SELECT '${"x".repeat(bytes - "SELECT '' AS x".length)}' AS x`;
    expect(new TextEncoder().encode(sized(100_000)).length).toBe(100_000);
    await expect(env.DB.prepare(sized(100_000)).first()).resolves.toBeTruthy();
    await expect(env.DB.prepare(sized(100_001)).first()).rejects.toThrow("D1_ERROR: statement too long: SQLITE_TOOBIG");
  });

  it("function arguments: 32 run, 33 are refused; column lists and IN lists are not function calls", async () => {
    await expect(env.DB.prepare(`SELECT coalesce(${params(32).join(", ")}) AS x`).first()).resolves.toEqual({ x: 0 });
    await expect(
      env.DB.prepare(
        `SELECT json_object(${params(17)
          .map((i) => `'k${i}', ${i}`)
          .join(", ")}) AS x`,
      ).first(),
    ).rejects.toThrow(/^D1_ERROR: too many arguments on function json_object at offset \d+: SQLITE_ERROR$/);
    // nested calls count their own arguments
    expect(
      d1LimitViolation(
        `SELECT max(${params(20)
          .map((i) => `abs(${i})`)
          .join(", ")})`,
        [],
      ),
    ).toBeNull();
    expect(
      d1LimitViolation(
        `INSERT INTO "t" (${params(40)
          .map((i) => `"c${i}"`)
          .join(", ")}) VALUES (${marks(40)})`,
        params(40),
      ),
    ).toBeNull();
    expect(
      d1LimitViolation(
        `CREATE TABLE IF NOT EXISTS holds (${params(40)
          .map((i) => `c${i} TEXT`)
          .join(", ")})`,
        [],
      ),
    ).toBeNull();
    expect(d1LimitViolation(`SELECT 1 WHERE x IN (${params(60).join(", ")})`, [])).toBeNull();
    // commas inside strings and nested parentheses are not arguments
    expect(d1LimitViolation(`SELECT coalesce('${",".repeat(40)}', (SELECT 1), 2)`, [])).toBeNull();
  });

  it("checks every statement the Worker sends", async () => {
    const before = guardedStatements();
    const { seedOrganizer } = await import("../harness");
    const org = await seedOrganizer();
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/events/`)).status).toBe(200);
    expect(guardedStatements()).toBeGreaterThan(before + 1);
  });
});
