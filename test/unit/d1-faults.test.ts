/**
 * What the services treat as a D1 fault (answered 503, retryable) and what they do not: a
 * constraint is an answer, a statement over one of D1's limits is a defect a retry cannot cure,
 * and errors that do not come from D1 pass through.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isConstraintError, isDatabaseFault, isLimitError } from "../../src/db/constraints";
import { confirmedWrite, D1_UNAVAILABLE, D1_UNCONFIRMED, survivingD1Faults } from "../../src/services/faults";
import { Failure } from "../../src/lib/failure";
import { groupD1, seedOrganizer } from "../harness";
import { INJECTED_D1_ERROR } from "../helpers/faults";

const wrapped = (e: Error) => Object.assign(new Error(`Failed query: insert ...`), { cause: e });
const caught = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe("D1 faults", () => {
  it("connection faults are faults, wrapped by drizzle or not", () => {
    for (const m of [
      INJECTED_D1_ERROR,
      "D1_ERROR: Network connection lost.",
      "D1 DB is overloaded. Requests queued for too long.",
      "D1_ERROR: internal error",
    ]) {
      expect(isDatabaseFault(new Error(m)), m).toBe(true);
      expect(isDatabaseFault(wrapped(new Error(m))), m).toBe(true);
    }
  });

  it("constraints, limit violations and other errors are not", async () => {
    const org = await seedOrganizer();
    const unique = await caught(
      groupD1().prepare("INSERT INTO organizers (slug, name, created_at) VALUES (?, 'x', 0)").bind(org.slug).run(),
    );
    expect(String(unique), String(unique)).toMatch(/constraint failed/);
    expect(isConstraintError(unique)).toBe(true);
    expect(isDatabaseFault(unique)).toBe(false);
    const tooMany = await caught(
      env.DB.prepare(`SELECT 1 IN (${Array(101).fill("?").join(",")})`)
        .bind(...Array(101).fill(1))
        .first(),
    );
    expect(isLimitError(tooMany)).toBe(true);
    expect(isDatabaseFault(tooMany)).toBe(false);
    expect(isDatabaseFault(wrapped(new Error("D1_ERROR: LIKE or GLOB pattern too complex: SQLITE_ERROR")))).toBe(false);
    expect(isDatabaseFault(new TypeError("Cannot read properties of undefined"))).toBe(false);
  });

  it("survivingD1Faults: a fault is a 503 Failure; anything else passes through unchanged", async () => {
    const fault = await caught(survivingD1Faults(async () => Promise.reject(wrapped(new Error(INJECTED_D1_ERROR))))());
    expect(fault).toBeInstanceOf(Failure);
    expect(fault).toMatchObject({ code: "unavailable", message: D1_UNAVAILABLE });
    const bug = new TypeError("x is undefined");
    expect(await caught(survivingD1Faults(async () => Promise.reject(bug))())).toBe(bug);
    expect(await survivingD1Faults(async (a: number) => a + 1)(1)).toBe(2);
  });

  it("confirmedWrite: found after a fault is a success; not found, or the check failing, is a 503 saying which", async () => {
    const fail = () => Promise.reject(new Error(INJECTED_D1_ERROR));
    expect(await confirmedWrite(fail, async () => "there")).toBe("there");
    expect(await caught(confirmedWrite(fail, async () => null))).toMatchObject({
      code: "unavailable",
      message: D1_UNAVAILABLE,
    });
    expect(await caught(confirmedWrite(fail, fail))).toMatchObject({ code: "unavailable", message: D1_UNCONFIRMED });
    // not a fault: no check, the error as it was
    let checked = false;
    const refused = new Error("UNIQUE constraint failed: customers.identifier");
    expect(
      await caught(
        confirmedWrite(
          () => Promise.reject(refused),
          async () => {
            checked = true;
            return "x";
          },
        ),
      ),
    ).toBe(refused);
    expect(checked).toBe(false);
  });
});
