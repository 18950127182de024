/**
 * Check-in rules: pretix's rule language for check-in lists (JsonLogic as pretix's server runs it, plus
 * pretix's operations and scan variables), evaluated when a ticket is redeemed and explained as pretix
 * explains a refusal. Pure and synchronous. Whatever would fail in pretix or is unknown here is
 * `unsupported`, and the caller refuses the scan: nothing unknown is admitted (docs/checkin-rules.md).
 * Parts: values.ts, value-ops.ts, clock.ts, variables.ts, validate.ts, evaluate.ts, explain.ts.
 */
import { evaluate, TOP } from "./evaluate";
import { explain } from "./explain";
import { isObj, validate } from "./validate";
import { Unsupported, fail, truthy } from "./values";
import { checkFacts, type RuleFacts, RuleVars } from "./variables";

export type { RuleFacts } from "./variables";

export type RuleOutcome =
  | { ok: true }
  /** Refused by the rules; `explanation` is pretix's `reason_explanation` text. */
  | { ok: false; reason: "rules"; explanation: string }
  /** The rule cannot be evaluated here (unknown operator or variable, malformed, or a value the
   * server's evaluation fails on): the caller refuses the scan. */
  | { ok: false; reason: "unsupported"; detail: string };

/**
 * Judges one entry scan by a check-in list's `rules`. `{}` (and null) means no rules: admitted.
 * Anything the service cannot evaluate as pretix's server would is `unsupported`, never admitted.
 */
export function evaluateRules(rules: unknown, facts: RuleFacts): RuleOutcome {
  if (rules === null || rules === undefined || (isObj(rules) && Object.keys(rules).length === 0)) {
    return { ok: true };
  }
  try {
    if (!isObj(rules)) fail("malformed rule: the rules are not an object");
    checkFacts(facts);
    validate(rules);
    const c = new RuleVars(facts);
    if (truthy(evaluate(rules, TOP, c))) return { ok: true };
    return { ok: false, reason: "rules", explanation: explain(rules, c) };
  } catch (e) {
    if (e instanceof Unsupported) return { ok: false, reason: "unsupported", detail: e.message };
    // never admit, never fail the request: anything unforeseen refuses the scan
    return {
      ok: false,
      reason: "unsupported",
      detail: `evaluation failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}
