/**
 * The check-in decision: which ticket a scan means, and whether it may pass a check-in list now
 * (pretix docs checkin.rst, checkinlists.rst; checks in the order of pretix's `perform_checkin`, which
 * its scanners mirror offline). Pure and synchronous: the event object calls it between reading its
 * state and recording the check-in, without yielding. pretix's reasons are the result codes
 * (`canceled`, `blocked`, `unpaid`, ...); `invalid`, an unknown code, is decided by the caller.
 */
import type { Answer, CheckinReason, CheckinType, OrderStatus } from "../db/schema";
import { addDays, daysInMonth, zonedParts } from "../lib/datetime";
import { wallLocal, wallToInstant } from "./checkin-rules/clock";
import { shortDateTime, text, textLanguage } from "./checkin-texts";
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
  /** The order's language (pretix `locale`); null where the ticket index does not know it yet. */
  locale: string | null;
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
export type RulesFacts = {
  list: ListConfig;
  ticket: TicketFacts;
  passages: readonly Passage[];
  now: number;
  /** The language of the explanation (`decideScan`'s `locale`). */
  locale: string;
};

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
 * secret, or with `addon_match` one of its add-ons whose product is on the list; of several,
 * those valid at the scan's time `at` (the window `decideScan` then holds the ticket to, so a
 * ticket chosen for its validity is never refused for it). `candidates` are the ticket of the
 * secret and (with addon_match) its add-ons, base first.
 */
export function chooseTicket(
  raw: string,
  candidates: readonly TicketFacts[],
  list: ListConfig,
  at: number,
): { kind: "one"; ticket: TicketFacts } | { kind: "ambiguous"; ticket: TicketFacts } | { kind: "none" } {
  if (candidates.length === 0) return { kind: "none" };
  if (candidates.length === 1) return { kind: "one", ticket: candidates[0]! };
  let matching = candidates.filter(
    (t) => (list.addonMatch || t.secret === raw) && (list.allProducts || list.limitProducts.includes(t.itemId)),
  );
  if (matching.length > 1) matching = matching.filter((t) => validAt(t, at));
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

/** pretix's short date and time of an instant in the event's timezone, in the explanation's language. */
const fmt = (ms: number, timeZone: string, locale: string) =>
  shortDateTime(wallLocal(ms, timeZone), textLanguage(locale));

/**
 * Whether the scan passes: pretix's checks in pretix's order. `force` (offline scans that
 * already happened) passes every check but the ones that cannot be forced, and marks the
 * check-in as forced. `passages` are the ticket's successful check-ins on this list, oldest
 * first.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-scans (issue 36)
export function decideScan(input: {
  list: ListConfig;
  ticket: TicketFacts;
  order: OrderFacts;
  questions: readonly CheckinQuestion[];
  passages: readonly Passage[];
  scan: ScanRequest;
  timezone: string;
  /** The language of the texts the scan writes: choice answers and the explanation (the event's, or the order's on request). */
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
  // the window as `chooseTicket` reads it (`validAt`): both bounds belong to it
  const language = textLanguage(input.locale);
  if (scan.type !== "exit" && !validAt({ validFrom: ticket.validFrom, validUntil: null }, dt)) {
    const datetime = fmt(ticket.validFrom!, input.timezone, input.locale);
    if (!scan.force)
      return refuse("invalid_time", text(language, "This ticket is only valid after {datetime}.", { datetime }));
    forcedPast = true;
  }
  if (scan.type !== "exit" && !validAt({ validFrom: null, validUntil: ticket.validUntil }, dt)) {
    const datetime = fmt(ticket.validUntil!, input.timezone, input.locale);
    if (!scan.force)
      return refuse("invalid_time", text(language, "This ticket was only valid before {datetime}.", { datetime }));
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
    const verdict = input.rules({ list, ticket, passages: input.passages, now: dt, locale: input.locale });
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

/** Whether the last passage (at or before `at`) is an entry: the ticket is inside. */
export function insideAt(passages: readonly Passage[], at: number): boolean {
  let inside = false;
  for (const p of passages) if (p.datetime <= at) inside = p.type === "entry";
  return inside;
}

/** A wall-clock time as the UTC fields of a number (`Date.UTC(y, m - 1, d, h, mi, s, ms)`): no instant. */
export type WallClock = number;

/**
 * The instant a wall-clock time names in a timezone, as pretix resolves its datetimes: of two
 * (the hour clocks go back) the first with `fold` 0, the second with 1 (Python's `fold`); a
 * time the clocks skip is taken an hour later (pretix's `datetime_exists` check).
 */
export function instantOfWallClock(wall: WallClock, timeZone: string, fold: 0 | 1): number {
  const at = wallToInstant(timeZone, wall, fold);
  return wallLocal(at, timeZone) === wall ? at : wallToInstant(timeZone, wall + 3_600_000, fold);
}

/**
 * The wall-clock time of a list's next automatic exit after one at `at`: the same time on the
 * next day in the event's timezone. `meant`: the wall-clock time the firing at `at` stood for,
 * when that time did not exist on its day (pretix then fires an hour later that day, and goes
 * back to the configured time the day after).
 */
export function nextExitAllWall(at: number, timeZone: string, meant: WallClock | null = null): WallClock {
  return (meant ?? wallLocal(at, timeZone)) + 86_400_000;
}

/**
 * The list's next automatic exit after one at `at`: pretix moves `exit_all_at` exactly one day
 * ahead in the event's timezone, keeping the local time across a daylight saving change; a local
 * time the next day skips fires an hour later, one it repeats at its second occurrence.
 */
export function nextExitAllAt(at: number, timeZone: string, meant: WallClock | null = null): number {
  return instantOfWallClock(nextExitAllWall(at, timeZone, meant), timeZone, 1);
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
  validityDynamicStartChoice: boolean;
  validityDynamicStartChoiceDayLimit: number | null;
};

export type Validity = { validFrom: number | null; validUntil: number | null };

/**
 * When a new dynamic ticket starts: at the purchase, or at the start the buyer asked for when
 * the product lets them choose (never in the past, and at most the product's day limit ahead).
 */
export function validityStart(item: ValiditySource, purchase: number, requested: number | null): number {
  let start = item.validityDynamicStartChoice && requested !== null ? Math.max(requested, purchase) : purchase;
  if (item.validityDynamicStartChoiceDayLimit !== null)
    start = Math.min(start, purchase + item.validityDynamicStartChoiceDayLimit * 86_400_000);
  return start;
}

/**
 * A new ticket's validity window, fixed when it is sold (pretix stores `valid_from` /
 * `valid_until` on the position). `fixed` copies the item's window; without a mode the event's
 * dates apply and the ticket carries none. `dynamic` starts at `start` (`validityStart`) and is
 * counted on the calendar of the event's timezone, as pretix's `Item.compute_validity` counts:
 * months end on the day before the same day of the month (the last day of a month runs to the
 * last day of the target month, a day the target month lacks is its last), at 23:59:59, plus
 * the days; days alone end at 23:59:59 of the last of them (one day: the day of the start);
 * hours and minutes are then added to the wall clock. An end the clocks skip is an hour later;
 * without any duration the ticket ends where it starts.
 */
export function ticketValidity(item: ValiditySource, start: number, timeZone: string): Validity {
  if (item.validityMode === "fixed") return { validFrom: item.validityFixedFrom, validUntil: item.validityFixedUntil };
  if (item.validityMode !== "dynamic") return { validFrom: null, validUntil: null };
  const months = item.validityDynamicDurationMonths ?? 0;
  const days = item.validityDynamicDurationDays ?? 0;
  const minutes = (item.validityDynamicDurationHours ?? 0) * 60 + (item.validityDynamicDurationMinutes ?? 0);
  if (!months && !days && !minutes) return { validFrom: start, validUntil: start };
  let wall = wallLocal(start, timeZone);
  const p = zonedParts(start, timeZone);
  const endOfDay = ([y, m, d]: [number, number, number]) => Date.UTC(y, m - 1, d, 23, 59, 59);
  if (months) {
    const [y, m, d] = addDays([p.year, p.month, p.day], -1);
    const day = d === daysInMonth(y, m) ? 31 : d;
    const total = m - 1 + months;
    const [ty, tm] = [y + Math.floor(total / 12), (total % 12) + 1];
    wall = endOfDay(addDays([ty, tm, Math.min(day, daysInMonth(ty, tm))], days));
  } else if (days) {
    wall = endOfDay(addDays([p.year, p.month, p.day], days - 1));
  }
  return { validFrom: start, validUntil: instantOfWallClock(wall + minutes * 60_000, timeZone, 0) };
}

/** Whether a ticket's validity window holds `at` (pretix: refused before `valid_from` and after `valid_until`). */
export function validAt(t: Pick<TicketFacts, "validFrom" | "validUntil">, at: number): boolean {
  return (t.validFrom === null || t.validFrom <= at) && (t.validUntil === null || t.validUntil >= at);
}
