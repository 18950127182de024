/**
 * Check-in rules: pretix's rule language for check-in lists (the list's `rules` field), evaluated
 * as pretix's server evaluates it when a ticket is redeemed, and explained as pretix explains a
 * refusal (`reason_explanation`). Pure and synchronous; docs/checkin-rules.md lists what is and
 * what is not evaluated.
 *
 * The language is JsonLogic as pretix's server runs it (its Python port of json-logic-js) plus
 * pretix's own operations and scan variables. Where the server's evaluation would fail (a Python
 * exception: pretix then refuses the scan with "Evaluation of custom rules has failed."), and
 * wherever a rule uses something this module does not know, the outcome is `unsupported`: the
 * caller refuses the scan. Nothing unknown is ever admitted.
 *
 * The parts: values.ts and value-ops.ts (Python's values and operations), clock.ts (the event's
 * timezone), variables.ts (what a rule reads of the scan), validate.ts (a rule's structure),
 * evaluate.ts, explain.ts.
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
