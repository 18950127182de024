/**
 * The check-in decision: which ticket a scan means, and whether it may pass a check-in list now
 * (pretix docs checkin.rst, checkinlists.rst; the order of the checks follows pretix's
 * `perform_checkin`, which its scanners mirror offline). Everything here is pure and
 * synchronous: the event's Durable Object calls it between reading its state and recording the
 * check-in, without yielding (ARCHITECTURE invariant 1).
 *
 * pretix's reasons are the result codes: `canceled`, `blocked`, `unpaid`, `unapproved`, `invalid_time`,
 * `product`, `rules`, `already_redeemed`, `ambiguous`, `incomplete` (questions to answer first),
 * `invalid` (unknown code, decided by the caller).
 */
import type { Answer, CheckinReason, CheckinType, OrderStatus } from "../db/schema";
import { addDays, zonedParts, zonedTimeToUtc } from "../lib/datetime";
import { i18nText, type I18n } from "../lib/i18n";

/** A check-in list as the decision reads it. */
export type ListConfig = {
  id: number;
  eventId: number;
  name: string;
  allProducts: boolean;
  limitProducts: number[];
  subeventId: number | null;
  includePending: boolean;
  allowMultipleEntries: boolean;
  allowEntryAfterExit: boolean;
  addonMatch: boolean;
  rules: Record<string, unknown>;
  exitAllAt: number | null;
  autoCheckinSalesChannels: string[];
};

/** What the decision knows of a ticket (an order position). */
export type TicketFacts = {
  id: number;
  secret: string;
  orderCode: string;
  addonTo: number | null;
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  canceled: boolean;
  validFrom: number | null;
  validUntil: number | null;
  answers: Answer[];
  /** pretix `blocked`: the ticket may not be used (forced scans pass). */
  blocked: boolean;
};

/** What the decision knows of the ticket's order. */
export type OrderFacts = {
  code: string;
  status: OrderStatus;
  requireApproval: boolean;
  validIfPending: boolean;
  checkinAttention: boolean;
  salesChannel: string;
};

/** A question asked during check-in (pretix: `ask_during_checkin`), as far as answers are checked. */
export type CheckinQuestion = {
  id: number;
  identifier: string;
  type: string;
  /** pretix's default: not required (an empty answer then answers it). */
  required?: boolean;
  items: number[];
  options: { id: number; identifier: string; answer: I18n }[];
};

/** One successful check-in of a ticket on a list. */
export type Passage = {
  type: CheckinType;
  datetime: number;
  nonce: string | null;
  deviceId: number | null;
  auto: boolean;
};

/** The scan as the client sent it. */
export type ScanRequest = {
  type: CheckinType;
  datetime: number;
  force: boolean;
  ignoreUnpaid: boolean;
  nonce: string | null;
  questionsSupported: boolean;
  canceledSupported: boolean;
  answers: Record<string, string>;
  /**
   * File questions answered with an upload (`file:<id>` in `answers`): question id → the stored
   * file's answer, which the Worker resolved (checked and stored) before the decision.
   */
  files?: Record<string, string>;
  deviceId: number | null;
};

export type RulesVerdict = { ok: true } | { ok: false; explanation: string | null };

/** What the rules of a list see (pretix's rule variables are computed from these). */
export type RulesFacts = { list: ListConfig; ticket: TicketFacts; passages: readonly Passage[]; now: number };

/**
 * What the door's answers change on the ticket, in every verdict: `answers` replace earlier
 * answers to their questions; `cleared` (present when not empty) are optional questions answered
 * empty, whose earlier answers are removed (pretix).
 */
type DoorChange = { answers: Answer[]; cleared?: number[] };

export type ScanVerdict =
  /** Record a check-in (`forced`: it passed only because the scan was forced). */
  | ({ kind: "pass"; forced: boolean } & DoorChange)
  /** The same nonce was already recorded: success, nothing new is recorded. */
  | ({ kind: "repeat" } & DoorChange)
  | ({ kind: "refuse"; reason: CheckinReason; explanation: string | null } & DoorChange)
  | ({ kind: "incomplete"; questions: number[] } & DoorChange);

/** Whether a ticket belongs on a list by product and date (not by order status). */
export function onList(
  list: Pick<ListConfig, "allProducts" | "limitProducts" | "subeventId">,
  t: Pick<TicketFacts, "itemId" | "subeventId">,
): boolean {
  return (
    (list.allProducts || list.limitProducts.includes(t.itemId)) &&
    (list.subeventId === null || list.subeventId === t.subeventId)
  );
}

/**
 * Which ticket a scanned code means (pretix checkin.rst, `addon_match`): the ticket with that
 * secret, or with `addon_match` one of its add-ons whose product is on the list. `candidates`
 * are the ticket of the secret and (with addon_match) its add-ons, base first.
 */
export function chooseTicket(
  raw: string,
  candidates: readonly TicketFacts[],
  list: ListConfig,
  now: number,
): { kind: "one"; ticket: TicketFacts } | { kind: "ambiguous"; ticket: TicketFacts } | { kind: "none" } {
  if (candidates.length === 0) return { kind: "none" };
  if (candidates.length === 1) return { kind: "one", ticket: candidates[0]! };
  let matching = candidates.filter(
    (t) => (list.addonMatch || t.secret === raw) && (list.allProducts || list.limitProducts.includes(t.itemId)),
  );
  if (matching.length > 1) {
    matching = matching.filter(
      (t) => (t.validFrom === null || t.validFrom < now) && (t.validUntil === null || t.validUntil > now),
    );
  }
  if (matching.length === 0) return { kind: "one", ticket: candidates[0]! };
  if (matching.length > 1) return { kind: "ambiguous", ticket: candidates[0]! };
  return { kind: "one", ticket: matching[0]! };
}

/**
 * Answers given at the door (question id → text; choice questions: comma-separated options, each
 * by id or identifier; file questions: the upload the Worker stored, `files`), for the questions
 * asked during check-in of the ticket's product. Answers that do not fit their question are
 * ignored, as pretix does; an empty answer is no answer (see `clearedAtDoor`).
 */
export function checkinAnswers(
  questions: readonly CheckinQuestion[],
  given: Record<string, string>,
  locale: string,
  files: Record<string, string> = {},
): Answer[] {
  const out: Answer[] = [];
  for (const q of questions) {
    const raw = given[String(q.id)];
    if (raw === undefined || raw === null || String(raw).trim() === "") continue;
    const text = String(raw).trim();
    const base = { question: q.id, question_identifier: q.identifier };
    if (q.type === "C" || q.type === "M") {
      const parts = text.split(",").map((s) => s.trim());
      const options = parts.map((p) => q.options.find((o) => String(o.id) === p || o.identifier === p));
      if (options.some((o) => o === undefined) || (q.type === "C" && options.length !== 1)) continue;
      const chosen = options as CheckinQuestion["options"];
      out.push({
        ...base,
        answer: chosen.map((o) => i18nText(o.answer, locale)).join(", "),
        options: chosen.map((o) => o.id),
        option_identifiers: chosen.map((o) => o.identifier),
      });
    } else if (q.type === "B") {
      const yes = ["true", "True", "1", "yes"].includes(text);
      const no = ["false", "False", "0", "no"].includes(text);
      if (!yes && !no) continue;
      out.push({ ...base, answer: yes ? "True" : "False", options: [], option_identifiers: [] });
    } else if (q.type === "N") {
      if (!/^-?\d+(\.\d+)?$/.test(text)) continue;
      out.push({ ...base, answer: text, options: [], option_identifiers: [] });
    } else if (q.type === "F") {
      const file = files[String(q.id)];
      if (file !== undefined) out.push({ ...base, answer: file, options: [], option_identifiers: [] });
    } else {
      out.push({ ...base, answer: text.slice(0, 10000), options: [], option_identifiers: [] });
    }
  }
  return out;
}

/**
 * The optional questions answered empty at the door: pretix counts them as answered (the scan is
 * not held for them) and removes the ticket's earlier answer. An empty answer to a required
 * question is no answer.
 */
export function clearedAtDoor(questions: readonly CheckinQuestion[], given: Record<string, string>): number[] {
  return questions
    .filter((q) => !q.required && given[String(q.id)] !== undefined && String(given[String(q.id)]).trim() === "")
    .map((q) => q.id);
}

/**
 * The ticket's answers after the door's answers: the door's replace earlier ones of the same
 * question; `cleared` questions lose theirs.
 */
export function mergeAnswers(
  existing: readonly Answer[],
  given: readonly Answer[],
  cleared: readonly number[] = [],
): Answer[] {
  const replaced = new Set([...given.map((a) => a.question), ...cleared]);
  return [...existing.filter((a) => !replaced.has(a.question)), ...given];
}

const fmt = (ms: number, timeZone: string) => {
  const p = zonedParts(ms, timeZone);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${p.year}-${two(p.month)}-${two(p.day)} ${two(p.hour)}:${two(p.minute)}`;
};

/**
 * Whether the scan passes: pretix's checks in pretix's order. `force` (offline scans that
 * already happened) passes every check but the ones that cannot be forced, and marks the
 * check-in as forced. `passages` are the ticket's successful check-ins on this list, oldest
 * first.
 */
export function decideScan(input: {
  list: ListConfig;
  ticket: TicketFacts;
  order: OrderFacts;
  questions: readonly CheckinQuestion[];
  passages: readonly Passage[];
  scan: ScanRequest;
  timezone: string;
  locale: string;
  rules: (facts: RulesFacts) => RulesVerdict;
  /** The scanned code is a revoked secret of the ticket (only forced scans get this far). */
  fromRevokedSecret?: boolean;
}): ScanVerdict {
  const { list, ticket, order, scan } = input;
  const dt = scan.datetime;
  let forcedPast = false;
  // optional questions the door answered empty (set with the door's answers below)
  let cleared: number[] = [];
  const door = (answers: Answer[]): DoorChange => ({ answers, ...(cleared.length ? { cleared } : {}) });
  const refuse = (reason: CheckinReason, explanation: string | null = null, answers: Answer[] = []): ScanVerdict => ({
    kind: "refuse",
    reason,
    explanation,
    ...door(answers),
  });

  if (ticket.canceled || (order.status !== "p" && order.status !== "n")) {
    if (!scan.force) return refuse(scan.canceledSupported ? "canceled" : "unpaid");
    forcedPast = true;
  }
  if (ticket.blocked) {
    if (!scan.force) return refuse("blocked");
    forcedPast = true;
  }
  if (scan.type !== "exit" && ticket.validFrom !== null && ticket.validFrom > dt) {
    if (!scan.force)
      return refuse("invalid_time", `This ticket is only valid after ${fmt(ticket.validFrom, input.timezone)}.`);
    forcedPast = true;
  }
  if (scan.type !== "exit" && ticket.validUntil !== null && ticket.validUntil < dt) {
    if (!scan.force)
      return refuse("invalid_time", `This ticket was only valid before ${fmt(ticket.validUntil, input.timezone)}.`);
    forcedPast = true;
  }

  // questions asked at the door: answers given now are kept even if the scan fails later
  let given: Answer[] = [];
  const missing: number[] = [];
  if (scan.type !== "exit") {
    const asked = input.questions.filter((q) => q.items.includes(ticket.itemId));
    given = checkinAnswers(asked, scan.answers, input.locale, scan.files);
    cleared = clearedAtDoor(asked, scan.answers).filter((id) => !given.some((a) => a.question === id));
    const answered = new Set([...ticket.answers.map((a) => a.question), ...given.map((a) => a.question), ...cleared]);
    for (const q of asked) if (!answered.has(q.id)) missing.push(q.id);
  }

  if (!list.allProducts && !list.limitProducts.includes(ticket.itemId)) {
    if (!scan.force) return refuse("product", null, given);
    forcedPast = true;
  }
  if (list.subeventId !== null && ticket.subeventId !== list.subeventId) {
    if (!scan.force) return refuse("product", null, given);
    forcedPast = true;
  }
  if (order.status !== "p" && order.requireApproval) {
    if (!scan.force) return refuse("unapproved", null, given);
    forcedPast = true;
  } else if (
    order.status !== "p" &&
    !order.validIfPending &&
    !(scan.ignoreUnpaid && list.includePending && order.status === "n")
  ) {
    if (!scan.force) return refuse("unpaid", null, given);
    forcedPast = true;
  }
  if (scan.type === "entry" && Object.keys(list.rules).length > 0) {
    const verdict = input.rules({ list, ticket, passages: input.passages, now: dt });
    if (!verdict.ok) {
      if (!scan.force) return refuse("rules", verdict.explanation, given);
      forcedPast = true;
    }
  }
  if (missing.length && !scan.force && scan.questionsSupported)
    return { kind: "incomplete", questions: missing, ...door(given) };

  const last = input.passages.at(-1);
  if (scan.nonce !== null) {
    const seen =
      (last !== undefined && last.nonce === scan.nonce) ||
      input.passages.some((p) => p.type === scan.type && p.deviceId === scan.deviceId && p.nonce === scan.nonce);
    if (seen) return { kind: "repeat", ...door(given) };
  }
  const entryAllowed =
    scan.type === "exit" ||
    list.allowMultipleEntries ||
    input.passages.length === 0 ||
    input.passages.every((p) => p.type === "exit") ||
    (list.allowEntryAfterExit && last?.type === "exit");
  if (entryAllowed || scan.force)
    return {
      kind: "pass",
      forced: scan.force && (!entryAllowed || forcedPast || (input.fromRevokedSecret ?? false)),
      ...door(given),
    };
  return refuse("already_redeemed", null, given);
}

/** Passages in the order the decision reads them: by time of the scan, then as recorded. */
export function orderPassages<P extends { datetime: number }>(passages: P[]): P[] {
  return passages
    .map((p, i) => [p, i] as const)
    .sort((a, b) => a[0].datetime - b[0].datetime || a[1] - b[1])
    .map(([p]) => p);
}

/** Whether the last passage (at or before `at`) is an entry: the ticket is inside. */
export function insideAt(passages: readonly Passage[], at: number): boolean {
  let inside = false;
  for (const p of passages) if (p.datetime <= at) inside = p.type === "entry";
  return inside;
}

/**
 * The list's next automatic exit after one at `at`: the same wall-clock time on the next day in
 * the event's timezone (pretix moves `exit_all_at` exactly one day ahead; across a daylight
 * saving change the local time is kept).
 */
export function nextExitAllAt(at: number, timeZone: string): number {
  const p = zonedParts(at, timeZone);
  const [y, m, d] = addDays([p.year, p.month, p.day], 1);
  return zonedTimeToUtc(timeZone, y, m, d, p.hour, p.minute, p.second) + (at % 1000);
}

/** The item fields that set a ticket's validity (pretix items.rst `validity_*`). */
export type ValiditySource = {
  validityMode: "fixed" | "dynamic" | null;
  validityFixedFrom: number | null;
  validityFixedUntil: number | null;
  validityDynamicDurationMinutes: number | null;
  validityDynamicDurationHours: number | null;
  validityDynamicDurationDays: number | null;
  validityDynamicDurationMonths: number | null;
};

/**
 * A new ticket's validity window, fixed when it is sold (as pretix stores `valid_from` /
 * `valid_until` on the position): `fixed` copies the item's window; `dynamic` starts at the
 * purchase (order creation offers no start of the customer's choice) and lasts the item's
 * duration (months and days on the calendar, then hours and minutes); null mode: the event's
 * dates apply and the ticket carries no window.
 */
export function ticketValidity(
  item: ValiditySource,
  purchase: number,
): { validFrom: number | null; validUntil: number | null } {
  if (item.validityMode === "fixed") return { validFrom: item.validityFixedFrom, validUntil: item.validityFixedUntil };
  if (item.validityMode !== "dynamic") return { validFrom: null, validUntil: null };
  const d = new Date(purchase);
  if (item.validityDynamicDurationMonths) d.setUTCMonth(d.getUTCMonth() + item.validityDynamicDurationMonths);
  if (item.validityDynamicDurationDays) d.setUTCDate(d.getUTCDate() + item.validityDynamicDurationDays);
  const until =
    d.getTime() + ((item.validityDynamicDurationHours ?? 0) * 60 + (item.validityDynamicDurationMinutes ?? 0)) * 60_000;
  return { validFrom: purchase, validUntil: until === purchase ? null : until };
}
