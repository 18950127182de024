import { describe, expect, it } from "vitest";
import { evaluateRules, type RuleFacts } from "../../src/rules/checkin-rules";

// pretix's own tests (src/tests/base/test_checkin.py) run in Europe/Berlin; so do these.
const TZ = "Europe/Berlin";

function at(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad test datetime ${iso}`);
  return ms;
}

function facts(over: Partial<RuleFacts> = {}): RuleFacts {
  return {
    now: at("2020-01-01T10:00:00Z"),
    timezone: TZ,
    product: 1,
    variation: null,
    gate: null,
    event: { dateFrom: at("2020-01-01T11:00:00Z"), dateTo: null, dateAdmission: null },
    entries: [],
    exits: [],
    ...over,
  };
}

/** true: admitted; false: refused by the rules; throws when the rule is unsupported. */
function admits(rules: unknown, over: Partial<RuleFacts> = {}): boolean {
  const r = evaluateRules(rules, facts(over));
  if (r.ok) return true;
  if (r.reason === "rules") return false;
  throw new Error(`unsupported: ${r.detail}`);
}

/** The explanation of a refusal by the rules (fails the test on anything else). */
function explanation(rules: unknown, over: Partial<RuleFacts> = {}): string {
  const r = evaluateRules(rules, facts(over));
  if (r.ok || r.reason !== "rules") throw new Error(`expected a refusal by the rules, got ${JSON.stringify(r)}`);
  return r.explanation;
}

/** The detail of an unsupported rule (fails the test on anything else). */
function unsupported(rules: unknown, over: Partial<RuleFacts> = {}): string {
  const r = evaluateRules(rules, facts(over));
  if (r.ok || r.reason !== "unsupported") throw new Error(`expected unsupported, got ${JSON.stringify(r)}`);
  return r.detail;
}

/** Whether an expression's value has the type and value given (JsonLogic `===`). */
const is = (expr: unknown, expected: unknown) => admits({ "===": [expr, expected] });
/** Whether an expression's value equals the value given (JsonLogic `==`). */
const eq = (expr: unknown, expected: unknown) => admits({ "==": [expr, expected] });

// The shapes pretix's rule editor (checkinrules.js / checkin-rule.vue) produces.
const inListOf = (variable: string, ids: (string | number)[]) => ({
  inList: [{ var: variable }, { objectList: ids.map((id) => ({ lookup: [variable, id, `${variable} ${id}`] })) }],
});
const now = { var: "now" };
const tenOClock = at("2020-01-01T10:00:00Z");
const time = (type: string, value?: string) => ({ buildTime: value === undefined ? [type] : [type, value] });

describe("check-in rules: no rules, unknown and malformed rules", () => {
  it("admits without rules: {} and null", () => {
    expect(evaluateRules({}, facts())).toEqual({ ok: true });
    expect(evaluateRules(null, facts())).toEqual({ ok: true });
    expect(evaluateRules(undefined, facts())).toEqual({ ok: true });
  });

  it("refuses rules that are not an object", () => {
    for (const rules of [[], true, false, 0, "", "x", [{ "==": [1, 1] }]]) {
      expect(unsupported(rules)).toBe("malformed rule: the rules are not an object");
    }
  });

  it("refuses an unknown operator, even where it would not decide the result", () => {
    expect(unsupported({ foo: [1] })).toBe('unknown operator "foo"');
    expect(unsupported({ or: [true, { foo: [] }] })).toBe('unknown operator "foo"');
    expect(unsupported({ map: [[], { customer_has_membership: [] }] })).toBe(
      'unknown operator "customer_has_membership"',
    );
    // the editor's empty condition ("Add condition" not filled in)
    expect(unsupported({ and: [{ "<": [{ var: "entries_number" }, 3] }, { "": [] }] })).toBe('unknown operator ""');
  });

  it("refuses an unknown variable, read directly or computed", () => {
    expect(unsupported({ var: "customer" })).toBe('unknown variable "customer"');
    expect(unsupported({ "==": [{ var: "attendee_email" }, "x"] })).toBe('unknown variable "attendee_email"');
    expect(unsupported({ "==": [{ var: ["_position", 1] }, 1] })).toBe('unknown variable "_position"');
    expect(unsupported({ "!!": [{ var: { cat: ["cus", "tomer"] } }] })).toBe('unknown variable "customer"');
    expect(unsupported({ missing: ["customer"] })).toBe('unknown variable "customer"');
    // pretix's operations are no variables
    expect(unsupported({ var: "entries_since" })).toBe('"entries_since" is an operation, not a variable');
    // a computed name of a known variable works
    expect(is({ var: { cat: ["entries_", "number"] } }, 0)).toBe(true);
  });

  it("refuses malformed rules", () => {
    expect(unsupported({ "==": [1, 1], "!=": [1, 2] })).toBe(
      'malformed rule: an object with several operators ("==", "!=")',
    );
    expect(unsupported({ and: [{}] })).toBe("malformed rule: an object without an operator");
    expect(unsupported({ in: [1, [{ var: "product" }]] })).toBe(
      "malformed rule: a literal list containing an operation (use objectList)",
    );
    expect(unsupported({ var: [] })).toBe('malformed rule: "var" without a name');
    expect(unsupported({ "==": [1] })).toBe('"==" takes 2 arguments, got 1');
    expect(unsupported({ "!": [] })).toBe('"!" takes 1 argument, got 0');
    expect(unsupported({ ">": [3, 2, 1] })).toBe('">" takes 2 arguments, got 3');
    expect(unsupported({ inList: [{ var: "product" }, 5] })).toBe('"inList" needs a list on the right, got int');
    expect(unsupported({ inList: [{ var: "product" }, { objectList: [{ lookup: ["product", "abc", "x"] }] }] })).toBe(
      "\"lookup\": 'abc' is not an integer",
    );
    expect(unsupported({ inList: [{ var: "product" }, { objectList: [{ lookup: ["product", "1"] }] }] })).toBe(
      '"lookup" takes 3 arguments, got 2',
    );
    // pretix keys starting with "__" are annotations, not operators
    expect(admits({ "==": [1, 1], __result: false })).toBe(true);
  });

  it("refuses time rules it cannot evaluate", () => {
    expect(unsupported({ isAfter: [now, time("next_week")] })).toBe("\"buildTime\": unknown time 'next_week'");
    // the editor's placeholder before a time is chosen
    expect(unsupported({ isAfter: [now, { buildTime: [null, null] }] })).toBe('"buildTime": unknown time None');
    expect(unsupported({ "!!": [{ entries_since: [{ buildTime: [null, null] }] }] })).toBe(
      '"buildTime": unknown time None',
    );
    // a datetime without an offset is naive in pretix and cannot be compared
    expect(unsupported({ isAfter: [now, time("custom", "2020-01-01T10:00:00")] })).toBe(
      "\"buildTime\": '2020-01-01T10:00:00' is not a datetime with a UTC offset",
    );
    expect(unsupported({ isAfter: [now, time("customtime", "25:00")] })).toBe(
      "\"buildTime\": '25:00' is not a time of day",
    );
    expect(unsupported({ isAfter: [5, time("date_from")] })).toBe("cannot compare datetime with int");
    expect(unsupported({ isAfter: [now, time("date_from"), "soon"] })).toBe("tolerance: 'soon' is not a number");
    expect(unsupported({ "<": [{ entries_since: [5] }, 1] })).toBe('"entries_since" needs a datetime, got int');
    expect(unsupported({ "==": [{ var: "now" }, "2020-01-01"] })).toBe("a datetime cannot be used as text");
  });

  it("refuses values pretix's evaluation fails on", () => {
    expect(unsupported({ "/": [1, 0] })).toBe('"/": division by zero');
    expect(unsupported({ "%": [1, 0] })).toBe('"%": division by zero');
    expect(unsupported({ "+": ["abc"] })).toBe("'abc' is not an integer");
    expect(unsupported({ "+": [null] })).toBe('"+": cannot compute int + NoneType');
    expect(unsupported({ "<": [null, null] })).toBe("cannot compare NoneType with NoneType");
    expect(unsupported({ min: [] })).toBe('"min" takes at least 1 argument, got 0');
    expect(unsupported({ min: [1, "a"] })).toBe("cannot compare str with int");
    expect(unsupported({ in: [1, "abc"] })).toBe('"in" needs text on the left of text, got int');
    expect(unsupported({ var: "entry_status.9" })).toBe('"var": index 9 out of range');
  });

  it("refuses rules nested too deeply and invalid facts", () => {
    let deep: unknown = true;
    for (let i = 0; i < 300; i++) deep = { "!!": [deep] };
    expect(unsupported(deep)).toBe("rule nested too deeply");
    expect(unsupported({ "==": [1, 1] }, { timezone: "Mars/Olympus_Mons" })).toBe("invalid facts: timezone");
    expect(unsupported({ "==": [1, 1] }, { entries: [Number.NaN] })).toBe("invalid facts: entries");
  });
});

describe("check-in rules: JsonLogic as pretix's server evaluates it", () => {
  it("== coerces through text and truthiness, === does not", () => {
    expect(is({ "==": [1, "1"] }, true)).toBe(true);
    expect(is({ "==": [0, false] }, true)).toBe(true);
    expect(is({ "==": [null, false] }, true)).toBe(true); // pretix: bool(None) is bool(False)
    expect(is({ "==": ["1.0", 1] }, true)).toBe(false); // compared as text: "1.0" and "1"
    expect(is({ "==": [2, { "/": [4, 2] }] }, true)).toBe(true);
    expect(is({ "==": [null, null] }, true)).toBe(true);
    expect(is({ "==": [null, 0] }, true)).toBe(false);
    expect(is({ "===": [1, 1] }, true)).toBe(true);
    expect(is({ "===": [1, "1"] }, true)).toBe(false);
    expect(is({ "===": [1, true] }, true)).toBe(false);
    expect(is({ "===": [{ "/": [4, 2] }, 2] }, true)).toBe(false); // float 2.0 is not int 2
    expect(is({ "!=": [1, "1"] }, false)).toBe(true);
    expect(is({ "!==": [1, "1"] }, true)).toBe(true);
  });

  it("compares numbers, numeric text, text, and between-forms of < and <=", () => {
    expect(admits({ "<": [1, 2] })).toBe(true);
    expect(admits({ "<": [2, 1] })).toBe(false);
    expect(admits({ "<": [1, 2, 3] })).toBe(true);
    expect(admits({ "<": [1, 1, 3] })).toBe(false);
    expect(admits({ "<": [1, 3, 3] })).toBe(false);
    expect(admits({ "<=": [1, 1, 3] })).toBe(true);
    expect(admits({ "<=": [1, 3, 3] })).toBe(true);
    expect(admits({ "<=": [1, 4, 3] })).toBe(false);
    expect(admits({ ">": [2, 1] })).toBe(true);
    expect(admits({ ">": [1, 1] })).toBe(false);
    expect(admits({ ">=": [1, 1] })).toBe(true);
    expect(admits({ ">=": ["1", 1] })).toBe(true);
    expect(admits({ "<": ["1", 2] })).toBe(true);
    expect(admits({ "<": ["a", "b"] })).toBe(true);
    expect(admits({ "<": ["abc", 2] })).toBe(false); // not a number: false, as pretix's port
    expect(admits({ "<": [null, 1] })).toBe(false); // the editor's empty number field is null
    expect(admits({ ">=": [{ var: "entries_number" }, null] })).toBe(false);
  });

  it("uses JsonLogic truthiness", () => {
    expect(admits({ "!": [[]] })).toBe(true);
    expect(admits({ "!": [""] })).toBe(true);
    expect(admits({ "!": [0] })).toBe(true);
    expect(admits({ "!": [null] })).toBe(true);
    expect(admits({ "!": ["0"] })).toBe(false);
    expect(admits({ "!!": [[0]] })).toBe(true);
    expect(admits({ "!!": ["false"] })).toBe(true);
    expect(admits({ "!!": [] })).toBe(false);
    expect(admits({ "!": { var: "variation" } })).toBe(true); // unary operand without a list
    expect(admits({ var: "product" })).toBe(true); // the rule's value decides by truthiness
  });

  it("and/or return an operand; if and ?: choose", () => {
    expect(is({ and: [1, "a"] }, "a")).toBe(true);
    expect(is({ and: [1, 0, 2] }, 0)).toBe(true);
    expect(is({ or: [0, "", "b"] }, "b")).toBe(true);
    expect(is({ or: [0, ""] }, "")).toBe(true);
    expect(is({ and: [] }, true)).toBe(true);
    expect(is({ or: [] }, false)).toBe(true);
    expect(is({ if: [true, "yes", "no"] }, "yes")).toBe(true);
    expect(is({ if: [false, "yes", "no"] }, "no")).toBe(true);
    expect(is({ if: [false, 1, 0, 2, 3] }, 3)).toBe(true);
    expect(is({ if: [false, 1, "x", 2, 3] }, 2)).toBe(true);
    expect(is({ if: [false, 1] }, null)).toBe(true);
    expect(is({ if: [] }, null)).toBe(true);
    expect(is({ "?:": [0, "a", "b"] }, "b")).toBe(true);
  });

  it("reads variables with defaults and dotted paths", () => {
    expect(is({ var: ["product"] }, 1)).toBe(true);
    expect(is({ var: "product" }, 1)).toBe(true);
    expect(is({ var: ["variation", 5] }, null)).toBe(true); // present, though null: no default
    expect(is({ var: ["variation", 5] }, 5)).toBe(false);
    expect(is({ var: ["product.id", "none"] }, "none")).toBe(true); // nothing below a number
    expect(is({ var: "entry_status.0" }, "a")).toBe(true); // "absent"[0]
  });

  it("computes as Python does: ints, floats, numeric text", () => {
    expect(is({ "+": [1, 2] }, 3)).toBe(true);
    expect(is({ "+": [1, "2"] }, 3)).toBe(true);
    expect(eq({ "+": [1, "2", 3.5] }, 6.5)).toBe(true);
    expect(is({ "+": [] }, 0)).toBe(true);
    expect(is({ "-": [5] }, -5)).toBe(true);
    expect(is({ "-": [5, 2] }, 3)).toBe(true);
    expect(eq({ "*": [2, "3"] }, 6)).toBe(true);
    expect(is({ "*": [2, 3] }, 6)).toBe(false); // a float
    expect(eq({ "/": [7, 2] }, 3.5)).toBe(true);
    expect(is({ "/": [7] }, 7)).toBe(true);
    expect(is({ "%": [-7, 3] }, 2)).toBe(true); // floored, as Python
    expect(is({ "%": [7, -3] }, -2)).toBe(true);
    expect(is({ min: [3, 1, 2] }, 1)).toBe(true);
    expect(is({ max: [3, 1, 2] }, 3)).toBe(true);
    expect(is({ max: ["a", "b"] }, "b")).toBe(true);
    expect(is({ count: [1, 0, "a", "", null, [1]] }, 3)).toBe(true);
  });

  it("handles text and lists: in, cat, substr, merge, missing, log", () => {
    expect(admits({ in: ["Spring", "Springfield"] })).toBe(true);
    expect(admits({ in: ["Fall", "Springfield"] })).toBe(false);
    expect(admits({ in: [2, [1, 2]] })).toBe(true);
    expect(admits({ in: ["2", [1, 2]] })).toBe(false); // no coercion in lists
    expect(admits({ in: [1, 5] })).toBe(false); // no container
    expect(is({ cat: ["I love", " pie"] }, "I love pie")).toBe(true);
    expect(is({ cat: [1, null, true, 2.5] }, "1NoneTrue2.5")).toBe(true);
    expect(is({ cat: [{ "*": [2, 3] }] }, "6.0")).toBe(true);
    expect(is({ substr: ["jsonlogic", 4] }, "logic")).toBe(true);
    expect(is({ substr: ["jsonlogic", -5] }, "logic")).toBe(true);
    expect(is({ substr: ["jsonlogic", 1, 3] }, "son")).toBe(true);
    expect(is({ substr: ["jsonlogic", 4, -2] }, "log")).toBe(true);
    expect(is({ merge: [[1, 2], 3, [4]] }, [1, 2, 3, 4])).toBe(true);
    // pretix: a variable that is null (no variation) is not missing
    expect(is({ missing: ["product", "variation"] }, [])).toBe(true);
    expect(is({ missing_some: [1, ["product", "gate"]] }, [])).toBe(true);
    expect(is({ log: ["a"] }, "a")).toBe(true);
  });

  it("runs array operations on elements", () => {
    expect(is({ map: [[1, 2, 3], { "*": [{ var: "" }, 2] }] }, [2, 4, 6])).toBe(true);
    expect(is({ map: [null, { var: "" }] }, [])).toBe(true);
    expect(is({ filter: [[1, 2, 3, 4], { "==": [{ "%": [{ var: "" }, 2] }, 0] }] }, [2, 4])).toBe(true);
    expect(is({ reduce: [[1, 2, 3], { "+": [{ var: "current" }, { var: "accumulator" }] }, 10] }, 16)).toBe(true);
    expect(
      is(
        {
          reduce: [
            [
              [1, 2],
              [3, 4],
            ],
            { "+": [{ var: "current.1" }, { var: "accumulator" }] },
            0,
          ],
        },
        6,
      ),
    ).toBe(true);
    expect(admits({ all: [[1, 2], { ">": [{ var: "" }, 0] }] })).toBe(true);
    expect(admits({ all: [[1, -2], { ">": [{ var: "" }, 0] }] })).toBe(false);
    expect(admits({ all: [[], true] })).toBe(false);
    expect(admits({ none: [[1, 2], { ">": [{ var: "" }, 5] }] })).toBe(true);
    expect(admits({ some: [[1, 7], { ">": [{ var: "" }, 5] }] })).toBe(true);
    expect(admits({ some: [[1, 2], { ">": [{ var: "" }, 5] }] })).toBe(false);
    // the scan's variables are not the elements' data, and vice versa
    expect(admits({ some: [[1, 7], { "==": [{ var: "" }, { var: "product" }] }] })).toBe(false);
    expect(admits({ some: [{ objectList: [{ var: "product" }] }, { "==": [{ var: "" }, 1] }] })).toBe(true);
  });
});

describe("check-in rules: product, variation and gate lists (the editor's shapes)", () => {
  it("admits listed products and refuses others with pretix's text", () => {
    // pretix's tests write the ids as text (str(pk)); select2 may hand numbers: both are ids
    expect(admits(inListOf("product", ["2"]), { product: 2 })).toBe(true);
    expect(admits(inListOf("product", [1, 2]), { product: 2 })).toBe(true);
    expect(admits(inListOf("product", ["2"]), { product: 1 })).toBe(false);
    expect(explanation(inListOf("product", ["2"]), { product: 1 })).toBe("Ticket type not allowed");
    // the editor's shape right after choosing the variable
    expect(admits({ "!!": [{ var: "product" }] })).toBe(true);
  });

  it("admits listed variations; a position without variation is not in any list", () => {
    expect(admits(inListOf("variation", ["3", "4"]), { variation: 4 })).toBe(true);
    expect(explanation(inListOf("variation", ["3"]), { variation: 4 })).toBe("Ticket type not allowed");
    expect(explanation(inListOf("variation", ["3"]), { variation: null })).toBe("Ticket type not allowed");
  });

  it("admits at listed gates; a device without a gate is at none", () => {
    expect(admits(inListOf("gate", ["1", "2"]), { gate: 2 })).toBe(true);
    expect(explanation(inListOf("gate", ["1"]), { gate: 2 })).toBe("Wrong entrance gate");
    expect(explanation(inListOf("gate", ["1"]), { gate: null })).toBe("Wrong entrance gate");
  });
});

describe("check-in rules: time windows relative to the event", () => {
  // event start 2020-01-01 12:00 in Berlin (11:00Z)
  it("isAfter date_admission with tolerance; admission falls back to the start", () => {
    const rule = { isAfter: [now, time("date_admission"), 10] };
    expect(explanation(rule, { now: at("2020-01-01T10:45:00Z") })).toBe("Only allowed after 11:50");
    expect(admits(rule, { now: at("2020-01-01T10:50:00Z") })).toBe(false); // strictly after
    expect(admits(rule, { now: at("2020-01-01T10:50:00.001Z") })).toBe(true);
    const withAdmission = {
      event: { dateFrom: at("2020-01-01T11:00:00Z"), dateTo: null, dateAdmission: at("2020-01-01T10:30:00Z") },
    };
    expect(admits(rule, { now: at("2020-01-01T10:21:00Z"), ...withAdmission })).toBe(true);
    expect(explanation(rule, { now: at("2020-01-01T10:19:00Z"), ...withAdmission })).toBe("Only allowed after 11:20");
  });

  it("isAfter without tolerance (the editor writes null for an empty field) and a tolerance as text", () => {
    const rule = { isAfter: [now, time("date_admission"), null] };
    expect(explanation(rule, { now: at("2020-01-01T10:51:00Z") })).toBe("Only allowed after 12:00");
    expect(admits(rule, { now: at("2020-01-01T11:01:00Z") })).toBe(true);
    expect(admits({ isAfter: [now, time("date_from")] }, { now: at("2020-01-01T11:01:00Z") })).toBe(true);
    expect(admits({ isAfter: [now, time("date_from"), "10"] }, { now: at("2020-01-01T10:51:00Z") })).toBe(true);
    expect(admits({ isAfter: [now, time("date_from"), 0] }, { now: at("2020-01-01T10:51:00Z") })).toBe(false);
  });

  it("isBefore date_to with tolerance; the end falls back to the start", () => {
    const rule = { isBefore: [now, time("date_to"), 10] };
    expect(admits(rule, { now: at("2020-01-01T11:09:00Z") })).toBe(true);
    expect(explanation(rule, { now: at("2020-01-01T11:11:00Z") })).toBe("Only allowed before 12:10");
    const withEnd = {
      event: { dateFrom: at("2020-01-01T11:00:00Z"), dateTo: at("2020-01-01T16:00:00Z"), dateAdmission: null },
    };
    expect(admits(rule, { now: at("2020-01-01T16:05:00Z"), ...withEnd })).toBe(true);
    expect(explanation(rule, { now: at("2020-01-01T16:11:00Z"), ...withEnd })).toBe("Only allowed before 17:10");
  });

  it("uses the sub-event's dates the caller passes", () => {
    const rule = { isAfter: [now, time("date_admission")] };
    const subevent = { event: { dateFrom: at("2020-02-01T11:00:00Z"), dateTo: null, dateAdmission: null } };
    expect(explanation(rule, { now: at("2020-02-01T10:51:00Z"), ...subevent })).toBe("Only allowed after 12:00");
    expect(admits(rule, { now: at("2020-02-01T11:01:00Z"), ...subevent })).toBe(true);
  });

  it("custom datetimes; far times show the date", () => {
    const rule = { isAfter: [now, time("custom", "2020-01-01T23:00:00.000+01:00"), 0] };
    expect(explanation(rule, { now: at("2020-01-01T21:55:00Z") })).toBe("Only allowed after 23:00");
    expect(admits(rule, { now: at("2020-01-01T22:05:00Z") })).toBe(true);
    expect(explanation(rule, { now: at("2019-12-30T10:00:00Z") })).toBe("Only allowed after 2020-01-01 23:00");
    // what the editor's date picker writes (toISOString)
    expect(
      admits({ isBefore: [now, time("custom", "2020-01-01T22:00:00.000Z")] }, { now: at("2020-01-01T21:59:00Z") }),
    ).toBe(true);
  });

  it("custom times of day on the scan's day in the event's timezone", () => {
    const rule = { isAfter: [now, time("customtime", "22:00:00"), null] };
    expect(explanation(rule, { now: at("2020-01-01T20:55:00Z") })).toBe("Only allowed after 22:00");
    expect(admits(rule, { now: at("2020-01-01T21:05:00Z") })).toBe(true);
    // 14:00 in Tokyo is 05:00Z
    const tokyo = { isAfter: [now, time("customtime", "14:00")] };
    expect(admits(tokyo, { timezone: "Asia/Tokyo", now: at("2020-01-01T04:50:00Z") })).toBe(false);
    expect(admits(tokyo, { timezone: "Asia/Tokyo", now: at("2020-01-01T05:01:00Z") })).toBe(true);
  });

  it("a time that does not exist on the day clocks go forward is read with the offset before (Python's fold 0)", () => {
    // 2021-03-28 in Berlin: 02:00 CET becomes 03:00 CEST (01:00Z); "02:30" means 02:30+01:00 = 01:30Z,
    // which pretix's text shows as the wall time it was built from
    const rule = { isAfter: [now, time("customtime", "02:30:00")] };
    expect(explanation(rule, { now: at("2021-03-28T01:20:00Z") })).toBe("Only allowed after 02:30");
    expect(admits(rule, { now: at("2021-03-28T01:31:00Z") })).toBe(true);
  });

  it("a time that occurs twice on the day clocks go back follows the scan's pass (Python's fold)", () => {
    // 2021-10-31 in Berlin: 03:00 CEST becomes 02:00 CET (01:00Z); 02:30 is 00:30Z and 01:30Z
    const rule = { isAfter: [now, time("customtime", "02:30:00")] };
    expect(admits(rule, { now: at("2021-10-31T00:40:00Z") })).toBe(true); // 02:40 CEST, first pass
    expect(explanation(rule, { now: at("2021-10-31T01:20:00Z") })).toBe("Only allowed after 02:30"); // 02:20 CET
    expect(admits(rule, { now: at("2021-10-31T01:31:00Z") })).toBe(true);
  });

  it("a tolerance across the DST change: exact in the decision, on the wall clock in pretix's text", () => {
    // admission 2021-03-28 03:30 CEST (01:30Z), 60 minutes early: from 00:30Z (01:30 CET)
    const ev = { event: { dateFrom: at("2021-03-28T01:30:00Z"), dateTo: null, dateAdmission: null } };
    const rule = { isAfter: [now, time("date_admission"), 60] };
    expect(admits(rule, { now: at("2021-03-28T00:31:00Z"), ...ev })).toBe(true);
    // pretix subtracts the tolerance from 03:30 on the wall clock and shows 02:30
    expect(explanation(rule, { now: at("2021-03-28T00:20:00Z"), ...ev })).toBe("Only allowed after 02:30");
  });
});

describe("check-in rules: entries", () => {
  it("entries_number counts earlier entries, not exits", () => {
    const rule = { "<": [{ var: "entries_number" }, 3] };
    expect(admits(rule, { entries: [tenOClock, tenOClock + 1], exits: [tenOClock + 2, tenOClock + 3] })).toBe(true);
    expect(explanation(rule, { entries: [tenOClock, tenOClock + 1, tenOClock + 2] })).toBe(
      "Maximum number of entries exceeded",
    );
    expect(explanation({ "==": [{ var: "entries_number" }, 0] }, { entries: [tenOClock] })).toBe(
      "number of entries is not 0",
    );
    expect(explanation({ "!=": [{ var: "entries_number" }, 2] }, { entries: [tenOClock, tenOClock] })).toBe(
      "number of entries is 2",
    );
    expect(explanation({ ">": [{ var: "entries_number" }, 0] })).toBe("Minimum number of entries exceeded");
  });

  it("entries_today counts from midnight in the event's timezone", () => {
    const rule = { "<": [{ var: "entries_today" }, 1] };
    // 2021-07-02 00:30 in Berlin (22:30Z on the 1st); midnight is 22:00Z
    const scan = at("2021-07-01T22:30:00Z");
    expect(admits(rule, { now: scan, entries: [at("2021-07-01T21:59:59Z")] })).toBe(true);
    expect(explanation(rule, { now: scan, entries: [at("2021-07-01T22:00:00Z")] })).toBe(
      "Maximum number of entries today exceeded",
    );
    // on the day clocks go forward, midnight was still CET (23:00Z the day before)
    const dstDay = at("2021-03-28T10:00:00Z");
    expect(admits(rule, { now: dstDay, entries: [at("2021-03-27T22:59:59Z")] })).toBe(true);
    expect(admits(rule, { now: dstDay, entries: [at("2021-03-27T23:00:00Z")] })).toBe(false);
  });

  it("entries_today: three entries a day (pretix's test)", () => {
    const rule = { "<": [{ var: "entries_today" }, 3] };
    const morning = [at("2020-01-01T10:00:00Z"), at("2020-01-01T10:00:01Z"), at("2020-01-01T10:00:02Z")];
    expect(
      admits(rule, {
        now: at("2020-01-01T10:01:00Z"),
        entries: morning.slice(0, 2),
        exits: [at("2020-01-01T10:00:01.5Z")],
      }),
    ).toBe(true);
    expect(explanation(rule, { now: at("2020-01-01T22:50:00Z"), entries: morning })).toBe(
      "Maximum number of entries today exceeded",
    );
    // 23:10Z is 00:10 on the 2nd in Berlin
    expect(admits(rule, { now: at("2020-01-01T23:10:00Z"), entries: morning })).toBe(true);
  });

  it("entries_days counts days in the event's timezone (pretix's test)", () => {
    const rule = { or: [{ ">": [{ var: "entries_today" }, 0] }, { "<": [{ var: "entries_days" }, 2] }] };
    const day1 = [at("2020-01-01T10:00:00Z")];
    const day3 = [at("2020-01-03T10:00:00Z")];
    expect(admits(rule, { now: at("2020-01-03T10:00:00Z"), entries: day1 })).toBe(true);
    expect(admits(rule, { now: at("2020-01-03T22:50:00Z"), entries: [...day1, ...day3] })).toBe(true);
    // 23:50Z is the 4th in Berlin
    expect(explanation(rule, { now: at("2020-01-03T23:50:00Z"), entries: [...day1, ...day3] })).toBe(
      "Maximum number of days with an entry exceeded",
    );
    // 23:30 and 00:30 in Berlin are two days, one day in UTC
    const twoLocalDays = [at("2021-07-01T21:30:00Z"), at("2021-07-01T22:30:00Z")];
    expect(
      admits({ "<": [{ var: "entries_days" }, 2] }, { now: at("2021-07-02T10:00:00Z"), entries: twoLocalDays }),
    ).toBe(false);
  });

  it("minutes_since_last_entry: -1 before the first entry, whole minutes after (pretix's test)", () => {
    const rule = {
      or: [{ "<=": [{ var: "minutes_since_last_entry" }, -1] }, { ">": [{ var: "minutes_since_last_entry" }, 180] }],
    };
    const entries = [tenOClock];
    expect(admits(rule, { now: tenOClock })).toBe(true);
    expect(explanation(rule, { now: at("2020-01-01T12:55:00Z"), entries })).toBe(
      "Minimum time since last entry exceeded",
    );
    expect(admits(rule, { now: at("2020-01-01T13:01:00Z"), entries })).toBe(true);
    expect(admits(rule, { now: at("2020-01-01T13:00:59Z"), entries })).toBe(false); // 180 whole minutes
    expect(eq({ var: "minutes_since_last_entry" }, 175)).toBe(false);
    expect(
      admits({ "==": [{ var: "minutes_since_last_entry" }, 175] }, { now: at("2020-01-01T12:55:59Z"), entries }),
    ).toBe(true);
    expect(
      admits(
        { "==": [{ var: "minutes_since_last_entry" }, 175] },
        { now: at("2020-01-01T12:55:59Z"), entries: [at("2020-01-01T09:00:00Z"), tenOClock] },
      ),
    ).toBe(true);
    expect(is({ var: "minutes_since_last_entry" }, -1)).toBe(true);
  });

  it("minutes_since_first_entry (pretix's test)", () => {
    const rule = {
      or: [{ "<=": [{ var: "minutes_since_first_entry" }, -1] }, { "<": [{ var: "minutes_since_first_entry" }, 180] }],
    };
    const entries = [tenOClock, at("2020-01-01T12:55:00Z")];
    expect(admits(rule, { now: at("2020-01-01T12:55:00Z"), entries: entries.slice(0, 1) })).toBe(true);
    expect(explanation(rule, { now: at("2020-01-01T13:01:00Z"), entries })).toBe(
      "Maximum time since first entry exceeded",
    );
  });

  it("entries_since / entries_before a time (libpretixsync's scenario)", () => {
    const cutoff = time("custom", "2020-01-01T23:00:00.000+01:00"); // 22:00Z
    const rule = {
      or: [
        { "<=": [{ var: "entries_number" }, 0] },
        { and: [{ isAfter: [now, cutoff, 0] }, { "<=": [{ entries_since: [cutoff] }, 0] }] },
      ],
    };
    expect(admits(rule, { now: at("2020-01-01T21:00:00Z") })).toBe(true);
    expect(admits(rule, { now: at("2020-01-01T21:00:00Z"), entries: [at("2020-01-01T21:00:00Z")] })).toBe(false);
    expect(admits(rule, { now: at("2020-01-01T22:10:00Z"), entries: [at("2020-01-01T21:00:00Z")] })).toBe(true);
    expect(
      explanation(rule, {
        now: at("2020-01-01T22:11:00Z"),
        entries: [at("2020-01-01T21:00:00Z"), at("2020-01-01T22:10:00Z")],
      }),
    ).toBe("Maximum number of entries since 23:00 exceeded");
    // an entry exactly at the cutoff is "since", not "before"
    const before = { ">=": [{ entries_before: [cutoff] }, 1] };
    expect(admits(before, { now: at("2020-01-01T22:30:00Z"), entries: [at("2020-01-01T21:59:59Z")] })).toBe(true);
    expect(explanation(before, { now: at("2020-01-01T22:30:00Z"), entries: [at("2020-01-01T22:00:00Z")] })).toBe(
      "Minimum number of entries before 23:00 exceeded",
    );
    expect(is({ entries_since: [cutoff] }, 1)).toBe(false);
    expect(admits({ "==": [{ entries_since: [cutoff] }, 1] }, { entries: [at("2020-01-01T22:00:00Z")] })).toBe(true);
  });

  it("entries_days_since / entries_days_before count days in the event's timezone", () => {
    const cutoff = time("custom", "2020-01-01T23:00:00.000+01:00"); // 22:00Z
    const since = { "<": [{ entries_days_since: [cutoff] }, 2] };
    // 23:30 on the 1st and 00:30 on the 2nd in Berlin: both on the 1st in UTC
    const late = [at("2020-01-01T22:30:00Z"), at("2020-01-01T23:30:00Z")];
    expect(explanation(since, { now: at("2020-01-02T08:00:00Z"), entries: late })).toBe(
      "Maximum number of days with an entry since 23:00 exceeded",
    );
    expect(explanation(since, { now: at("2020-01-03T08:00:00Z"), entries: late })).toBe(
      "Maximum number of days with an entry since 2020-01-01 23:00 exceeded",
    );
    const before = { ">=": [{ entries_days_before: [cutoff] }, 2] };
    const twoDays = [at("2019-12-30T10:00:00Z"), at("2019-12-31T10:00:00Z"), at("2019-12-31T11:00:00Z")];
    expect(admits(before, { now: at("2020-01-02T08:00:00Z"), entries: [...twoDays, ...late] })).toBe(true);
    expect(explanation(before, { now: at("2020-01-02T08:00:00Z"), entries: [twoDays[1]!, ...late] })).toBe(
      "Minimum number of days with an entry before 23:00 exceeded",
    );
  });

  it("entry_status: present when the latest check-in on the list is an entry", () => {
    const rule = { or: [{ "==": [{ var: "entry_status" }, "absent"] }, { "<": [{ var: "entries_number" }, 1] }] };
    const t = tenOClock;
    expect(admits(rule)).toBe(true);
    expect(explanation(rule, { entries: [t] })).toBe("Attendee is already checked in");
    expect(admits(rule, { entries: [t], exits: [t + 60_000] })).toBe(true);
    expect(admits(rule, { entries: [t + 120_000, t], exits: [t + 60_000] })).toBe(false);
    expect(admits(rule, { entries: [t], exits: [t] })).toBe(true); // same time: not inside
    expect(explanation({ "==": [{ var: "entry_status" }, "present"] })).toBe("Attendee is checked out");
    expect(explanation({ "!=": [{ var: "entry_status" }, "present"] }, { entries: [t] })).toBe(
      "entry_status not != ['present']",
    );
  });

  it("now_isoweekday is the week day in the event's timezone", () => {
    const rule = { "==": [{ var: "now_isoweekday" }, 6] };
    // 2022-04-08 22:30Z is Saturday 00:30 in Berlin, still Friday in UTC
    expect(admits(rule, { now: at("2022-04-08T22:30:00Z") })).toBe(true);
    expect(explanation(rule, { now: at("2022-04-08T21:30:00Z") })).toBe("week day is not Saturday");
    expect(explanation({ ">=": [{ var: "now_isoweekday" }, 6] }, { now: at("2022-04-06T21:55:00Z") })).toBe(
      "Minimum week day exceeded",
    );
  });
});

describe("check-in rules: pretix's choice of explanation", () => {
  it("prefers the closest time window (pretix's test)", () => {
    const window = (day: string) => ({
      and: [
        { isAfter: [now, time("custom", `${day}T10:00:00.000Z`), null] },
        { isBefore: [now, time("custom", `${day}T18:00:00.000Z`), null] },
      ],
    });
    const rule = { or: [window("2020-01-01"), window("2020-01-02")] };
    expect(explanation(rule, { now: at("2020-01-01T09:00:00Z") })).toBe("Only allowed after 11:00");
    expect(explanation(rule, { now: at("2020-01-01T20:00:00Z") })).toBe("Only allowed before 19:00");
    expect(explanation(rule, { now: at("2020-01-02T09:00:00Z") })).toBe("Only allowed after 11:00");
    expect(explanation(rule, { now: at("2020-01-03T18:00:00Z") })).toBe("Only allowed before 2020-01-02 19:00");
  });

  it("prefers a time over the ticket type (pretix's test)", () => {
    const rule = {
      or: [
        inListOf("product", ["2"]),
        {
          and: [
            { isAfter: [now, time("custom", "2020-01-02T10:00:00.000Z"), null] },
            { isBefore: [now, time("custom", "2020-01-02T18:00:00.000Z"), null] },
          ],
        },
      ],
    };
    expect(explanation(rule, { now: at("2020-01-02T20:00:00Z") })).toBe("Only allowed before 19:00");
  });

  it("names every false condition of the chosen path (pretix's test)", () => {
    const rule = {
      and: [
        { isAfter: [now, time("custom", "2020-01-02T10:00:00.000Z"), null] },
        { isBefore: [now, time("custom", "2020-01-02T18:00:00.000Z"), null] },
        { ">": [{ var: "entries_today" }, 3] },
      ],
    };
    expect(explanation(rule, { now: at("2020-01-01T20:00:00Z") })).toBe(
      "Only allowed after 2020-01-02 11:00, Minimum number of entries today exceeded",
    );
  });

  it("distributes AND over OR to find the paths", () => {
    // (product 1 or product 2) and (gate 5 or entries < 1): the lightest path is product 1 at gate 5
    const rule = {
      and: [
        { or: [inListOf("product", ["1"]), inListOf("product", ["2"])] },
        { or: [inListOf("gate", ["5"]), { "<": [{ var: "entries_number" }, 1] }] },
      ],
    };
    expect(explanation(rule, { product: 1, gate: 6, entries: [tenOClock] })).toBe("Maximum number of entries exceeded");
    expect(explanation(rule, { product: 3, gate: 5 })).toBe("Ticket type not allowed");
  });

  it("prefers the shorter explanation among equally weighted paths", () => {
    const rule = { or: [{ and: [inListOf("product", ["2"]), inListOf("gate", ["5"])] }, inListOf("product", ["3"])] };
    expect(explanation(rule, { product: 1, gate: null })).toBe("Ticket type not allowed");
  });

  it("explains comparisons with -1 (no entry yet) last", () => {
    const rule = { or: [{ "<": [{ var: "minutes_since_last_entry" }, 0] }, { "<": [{ var: "entries_number" }, 1] }] };
    expect(explanation(rule, { now: at("2020-01-01T10:30:00Z"), entries: [tenOClock] })).toBe(
      "Maximum number of entries exceeded",
    );
  });

  it("constant conditions and conditions it cannot explain", () => {
    expect(explanation({ and: [false, true] })).toBe("Always false");
    // a comparison without a variable on its left
    expect(explanation({ "<": [3, { var: "entries_number" }] }, { entries: [1, 2, 3] })).toBe("Unknown reason");
    expect(explanation({ "==": [{ var: "now" }, 5] })).toBe("Unknown reason");
    expect(explanation({ "!": { or: [{ var: "product" }] } })).toBe("Unknown reason");
    expect(explanation({ or: [] })).toBe("Unknown reason");
    // ...and the scan is refused all the same
    expect(evaluateRules({ or: [] }, facts())).toEqual({ ok: false, reason: "rules", explanation: "Unknown reason" });
  });
});
