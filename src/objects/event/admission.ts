/**
 * Admission: a scan decided on one of the event's lists (pretix checkin.rst) from the object's
 * ticket index and passages (checkin-state.ts) and the lists' configuration. A passing scan is
 * recorded with its outbox entry before anything is awaited, so a ticket enters once per list
 * however many gates scan it at once; D1 then gets it, conditionally on the configuration the
 * decision was taken on.
 */
import { runBatch, type Statement } from "../../db/batch";
import { passageStatements } from "../../db/checkin/passages";
import {
  checkinStampsQuery,
  configUnchangedSql,
  ticketMatchSql,
  ticketOrderQuery,
  type TicketOrderRow,
} from "../../db/checkin/object-reads";
import { checkinIdsOfTickets, scanRowsMatching, scanRowsOfTickets } from "../../db/checkin/scan-rows";
import { checkinExists, insertCheckinIf, setPositionAnswers } from "../../db/checkin/passages";
import { type CheckinPositionRow, checkinPositionsByIds } from "../../db/checkin/ticket-rows";
import type { DB } from "../../db/client";
import type { Answer, CheckinReason } from "../../db/schema";
import { revokedSecretQuery } from "../../db/ticket-secrets";
import { log } from "../../lib/log";
import { dispatchWebhooks } from "../../lib/queues";
import {
  chooseTicket,
  decideScan,
  type ListConfig,
  mergeAnswers,
  type OrderFacts,
  type RulesFacts,
  type RulesVerdict,
  type ScanVerdict,
  type TicketFacts,
} from "../../rules/checkin";
import { evaluateRules } from "../../rules/checkin-rules";
import type { PassageWrite } from "./outbox";
import { scheduleAlarm } from "./schedule";
import { drainOutbox } from "./writer";
import { writeOwn } from "./write-own";
import { indexFallback, trackExit } from "./passages";
import { leaseRefill, takeIds } from "./id-leases";
import { localPosition, rememberCheckinIds, rememberRows } from "./scan-answers";
import type { EventState } from "./state";
import type { RedeemOutcome, RedeemRequest } from "./types";

/** What `decideAndRecord` decided and recorded, for writing (or undoing) it. */
type ScanDecision = {
  now: number;
  /** The configuration's change stamps the decision was taken on. */
  stamps: Record<string, number>;
  ticket: TicketFacts;
  status: "ok" | "error" | "incomplete";
  reason: CheckinReason | null;
  explanation: string | null;
  questions: number[];
  passage: PassageWrite | null;
  answers: Answer[] | null;
  previousAnswers: Answer[];
  outboxId: number;
};

/** The tickets a scan may mean; `revoked`: the code is a revoked secret of the first of them. */
type Candidates = { tickets: TicketFacts[]; revoked: boolean };

/**
 * Decides a scan on one of the event's lists, and records a passing one before anything is
 * awaited. The ticket comes from the object's index; a ticket it has never seen is read from
 * D1 once (its whole order) and indexed. The check-in is then written to D1 in one batch that
 * also reads the ticket back for the answer; should the object die first, the alarm writes it
 * from the outbox (once: the check-in's own `uid`); should D1 refuse it, the passage is
 * undone and the scan fails, so the next scan decides afresh.
 */
export async function redeem(s: EventState, req: RedeemRequest): Promise<RedeemOutcome> {
  if (s.configLoading) await s.configLoading;
  if (!s.config.lists.has(req.listId)) await s.reloadCheckinConfig();
  if (!s.config.lists.has(req.listId)) return { kind: "no_list" };
  const known = candidates(s, req, s.config.lists.get(req.listId)!.addonMatch);
  // a ticket the index has never seen, or whose order's language it lacks when the scan asks for it
  if (known === null || (req.useOrderLocale && known.tickets.some((t) => s.ci.order(t.orderCode)?.locale === null))) {
    const db = s.db();
    const lease = leaseRefill(s, db, ["checkins"]);
    const results = await runBatch(db, [
      ticketOrderQuery(db, s.eventId, req.raw, req.id),
      revokedSecretQuery(db, s.eventId, req.raw),
      scanRowsMatching(db, s.eventId, ticketMatchSql(s.eventId, req.raw, req.id)),
      ...lease.statements,
    ]);
    const [rows, revoked, scanRows] = results as [TicketOrderRow[], { positionId: number }[], CheckinPositionRow[]];
    if (rows.length || revoked.length)
      indexFallback(
        s,
        rows,
        revoked.map((r) => ({ secret: req.raw, ticketId: r.positionId })),
      );
    s.storage.transactionSync(() => {
      rememberRows(s, scanRows);
      lease.keep(results);
    });
  }
  // A decision taken on a configuration that D1 says changed meanwhile writes nothing (its
  // statements carry the condition); it is undone and taken again on the new configuration.
  for (let attempt = 0; ; attempt++) {
    const list = s.config.lists.get(req.listId);
    if (!list) return { kind: "no_list" };
    const found = candidates(s, req, list.addonMatch);
    if (found === null) return { kind: "unknown" };
    const d = decideAndRecord(s, req, list, found);
    const here = answerHere(s, req, list, d);
    if (here) return here;
    const outcome = await writeScan(s, req, list, d, attempt < 2);
    if (outcome !== "stale") return outcome;
    await s.reloadCheckinConfig();
  }
}

/**
 * The tickets a scan may mean: the one of the code (or id), and with `addon_match` its
 * add-ons; failing that, the ticket whose revoked secret the code is (pretix looks revoked
 * secrets up only when no ticket has the code). null: not in the index.
 */
function candidates(s: EventState, req: RedeemRequest, addonMatch: boolean): Candidates | null {
  const bySecret = s.ci.ticketBySecret(req.raw);
  const byId = req.id !== null ? s.ci.ticketById(req.id) : undefined;
  const found = [bySecret, byId].filter(
    (t, i, all): t is TicketFacts => t !== undefined && all.findIndex((x) => x?.id === t.id) === i,
  );
  let base = bySecret;
  let revoked = false;
  if (found.length === 0) {
    const revokedId = s.ci.revokedTicket(req.raw);
    const t = revokedId === undefined ? undefined : s.ci.ticketById(revokedId);
    if (!t) return null;
    found.push(t);
    base = t;
    revoked = true;
  }
  const out = [...found];
  if (addonMatch && base) for (const a of s.ci.addonsOf(base.id)) if (!out.some((t) => t.id === a.id)) out.push(a);
  // base tickets first (pretix orders candidates by addon_to, nulls first)
  return { tickets: out.sort((a, b) => (a.addonTo === null ? 0 : 1) - (b.addonTo === null ? 0 : 1)), revoked };
}

/**
 * A list's check-in rules judged as pretix's server does (rules/checkin-rules/); a rule the
 * service cannot evaluate refuses the scan (pretix: "Evaluation of custom rules has failed",
 * no explanation), never admits it.
 */
function judgeRules(s: EventState, facts: RulesFacts): RulesVerdict {
  const t = facts.ticket;
  const outcome = evaluateRules(facts.list.rules, {
    now: facts.now,
    timezone: s.config.timezone,
    product: t.itemId,
    variation: t.variationId,
    gate: null,
    event: (t.subeventId !== null ? s.config.subeventDates.get(t.subeventId) : undefined) ?? s.config.eventDates,
    entries: facts.passages.filter((p) => p.type === "entry").map((p) => p.datetime),
    exits: facts.passages.filter((p) => p.type === "exit").map((p) => p.datetime),
    locale: facts.locale,
  });
  if (outcome.ok) return { ok: true };
  if (outcome.reason === "rules") return { ok: false, explanation: outcome.explanation };
  log.error("check-in rules cannot be evaluated; the scan is refused", {
    event_id: s.eventId,
    list_id: facts.list.id,
    detail: outcome.detail,
  });
  return { ok: false, explanation: null };
}

/** Decides a scan and records a passing one, without yielding (the object's own storage and the outbox). */
function decideAndRecord(s: EventState, req: RedeemRequest, list: ListConfig, found: Candidates): ScanDecision {
  const now = Date.now();
  const d: ScanDecision = {
    now,
    stamps: { ...s.config.stamps },
    ticket: found.tickets[0]!,
    status: "error",
    reason: null,
    explanation: null,
    questions: [],
    passage: null,
    answers: null,
    previousAnswers: [],
    outboxId: 0,
  };
  // a revoked secret: refused; forced (an offline scan that already happened), its ticket is checked in
  if (found.revoked && !req.scan.force) {
    d.reason = "revoked";
    return d;
  }
  s.storage.transactionSync(() => {
    const order = chosenOrder(s, req, list, found, d);
    if (!order) return;
    const verdict = judgeScan(s, req, list, found, d.ticket, order);
    if (verdict.answers.length || verdict.cleared) {
      d.answers = mergeAnswers(d.ticket.answers, verdict.answers, verdict.cleared);
      s.ci.setAnswers(d.ticket.id, d.answers);
    }
    applyVerdict(s, req, list, d, verdict);
  });
  return d;
}

/**
 * Which ticket the scan means (set on `d`) and its order; null, with `d`'s reason where there
 * is one, when the scan is decided here: no ticket on the list, several, or an order the index lacks.
 */
function chosenOrder(
  s: EventState,
  req: RedeemRequest,
  list: ListConfig,
  found: Candidates,
  d: ScanDecision,
): OrderFacts | null {
  const choice = chooseTicket(req.raw, found.tickets, list, req.scan.datetime);
  if (choice.kind === "none") return null;
  d.ticket = choice.ticket;
  d.previousAnswers = d.ticket.answers;
  if (choice.kind === "ambiguous") {
    d.reason = "ambiguous";
    return null;
  }
  const order = s.ci.order(d.ticket.orderCode);
  if (!order) d.reason = "error";
  return order ?? null;
}

/** pretix's checks of the scan (rules/checkin.ts) on the ticket, its order and its passages on the list. */
function judgeScan(
  s: EventState,
  req: RedeemRequest,
  list: ListConfig,
  found: Candidates,
  ticket: TicketFacts,
  order: OrderFacts,
): ScanVerdict {
  return decideScan({
    list,
    ticket,
    order,
    questions: s.config.questions,
    passages: s.ci.passages(ticket.id, list.id),
    scan: req.scan,
    timezone: s.config.timezone,
    // pretix writes a scan's texts in the event's language, or in the order's on request
    locale: (req.useOrderLocale ? order.locale : null) ?? s.config.locale,
    rules: (facts) => judgeRules(s, facts),
    fromRevokedSecret: found.revoked,
  });
}

/** The verdict on `d`; a passage is recorded in the index with its outbox entry. */
function applyVerdict(
  s: EventState,
  req: RedeemRequest,
  list: ListConfig,
  d: ScanDecision,
  verdict: ScanVerdict,
): void {
  switch (verdict.kind) {
    case "refuse":
      d.reason = verdict.reason;
      d.explanation = verdict.explanation;
      return;
    case "incomplete":
      d.status = "incomplete";
      d.questions = verdict.questions;
      return;
    case "repeat":
      d.status = "ok";
      return;
    case "pass":
      d.status = "ok";
      d.passage = newPassage(s, req, list, d, verdict.forced);
      s.ci.addPassage(d.passage);
      if (d.passage.id != null) rememberCheckinIds(s, [{ uid: d.passage.uid, id: d.passage.id }]);
      trackExit(s, d.ticket);
      d.outboxId = s.outbox.write({ kind: "checkin", passage: d.passage, answers: d.answers }, d.now);
  }
}

/** The passage of a passing scan, as the index and the outbox keep it. */
function newPassage(
  s: EventState,
  req: RedeemRequest,
  list: ListConfig,
  d: ScanDecision,
  forced: boolean,
): PassageWrite {
  return {
    // its D1 id from the object's leased block (none left: D1 gives it one)
    id: takeIds(s, "checkins", 1)?.[0] ?? null,
    // pretix's `first_checkin`: the ticket's first passage on this list
    report: { code: d.ticket.orderCode, first: s.ci.passages(d.ticket.id, list.id).length === 0 },
    uid: crypto.randomUUID(),
    listId: list.id,
    ticketId: d.ticket.id,
    type: req.scan.type,
    datetime: req.scan.datetime,
    nonce: req.scan.nonce,
    deviceId: req.scan.deviceId,
    auto: false,
    created: d.now,
    forced,
    forceSent: req.scan.force,
    rawBarcode: req.raw,
    rawSourceType: req.sourceType,
  };
}

/** Takes back what `decideAndRecord` recorded (D1 did not take it). */
function undoScan(s: EventState, d: ScanDecision): void {
  s.storage.transactionSync(() => {
    if (d.answers) s.ci.setAnswers(d.ticket.id, d.previousAnswers);
    if (d.passage) {
      s.ci.removePassage(d.passage.uid);
      trackExit(s, d.ticket);
      s.outbox.remove(d.outboxId);
    }
  });
}

/**
 * The answer of a scan from the object's storage alone (scan-answers.ts), its D1 write left to
 * the outbox's writer (scan-writes.ts), which the object starts once the answer is on its way.
 * null when the object lacks a piece of the answer, or when the backpressure rule holds
 * (outbox.ts `behind`): the scan is then written and answered after D1 (`writeScan`).
 */
function answerHere(s: EventState, req: RedeemRequest, list: ListConfig, d: ScanDecision): RedeemOutcome | null {
  // no leased id left, or D1 too far behind (outbox.ts `AHEAD_LIMIT`): D1 first
  if ((d.passage && d.passage.id == null) || s.outbox.behind()) return null;
  const position = localPosition(s, d.ticket, list.id, d.answers);
  if (!position) return null;
  const failed =
    d.status === "error" ? failedScan(s, d.ticket.id, list.id, req, d.reason ?? "error", d.explanation, d.now) : null;
  if (!d.passage && (failed || d.answers))
    s.outbox.write({ kind: "scan", ticketId: d.ticket.id, failed, answers: d.answers }, d.now);
  return decided(list, d, position);
}

/** The answer of a decided scan. */
function decided(list: ListConfig, d: ScanDecision, position: CheckinPositionRow | null): RedeemOutcome {
  return {
    kind: "decided",
    status: d.status,
    reason: d.status === "error" ? (d.reason ?? "error") : null,
    explanation: d.explanation,
    questions: d.questions,
    list: { id: list.id, name: list.name, subevent: list.subeventId, include_pending: list.includePending },
    position,
  };
}

/**
 * Makes a decision durable: one D1 batch writes it (conditionally on an unchanged
 * configuration) and reads the ticket back for the answer. "stale": the configuration changed,
 * nothing was written, the decision is undone.
 */
async function writeScan(
  s: EventState,
  req: RedeemRequest,
  list: ListConfig,
  d: ScanDecision,
  mayRetry: boolean,
): Promise<RedeemOutcome | "stale"> {
  const db = s.db();
  const stmts = scanStatements(s, db, req, list, d);
  // what the next scans of the order's tickets are answered from
  const readBack = stmts.length;
  stmts.push(scanRowsOfTickets(db, s.eventId, [d.ticket.id]), checkinIdsOfTickets(db, s.eventId, [d.ticket.id]));
  const lease = leaseRefill(s, db, ["checkins"]);
  stmts.push(...lease.statements);
  const { results, again } = await (d.passage
    ? writePassage(s, list, d, stmts, readBack)
    : writeRefused(s, d, stmts).then((results) => ({ results, again: false })));
  s.storage.transactionSync(() => {
    rememberRows(s, results[readBack] as CheckinPositionRow[]);
    rememberCheckinIds(s, results[readBack + 1] as { uid: string; id: number }[]);
    if (!again) lease.keep(results);
  });
  const stamps = results[0] as { resource: string; modifiedAt: number }[];
  if (mayRetry && stamps.some((st) => st.modifiedAt > (d.stamps[st.resource] ?? 0))) {
    undoScan(s, d);
    return "stale";
  }
  // the scan's webhook notification was written with it (its statement follows the stamps): the queue delivers it
  if (d.passage?.report && (again || (results[1] as unknown[]).length > 0))
    dispatchWebhooks(s.env, [{ eventId: s.eventId, code: d.passage.report.code }]);
  const [position] = results[readBack - 1] as CheckinPositionRow[];
  return decided(list, d, position ?? null);
}

/** The statements of a decided scan, after the configuration's stamps and before the ticket's reads. */
function scanStatements(s: EventState, db: DB, req: RedeemRequest, list: ListConfig, d: ScanDecision): Statement[] {
  const unchanged = configUnchangedSql(s.eventId, d.stamps);
  const stmts: Statement[] = [checkinStampsQuery(db, s.eventId)];
  if (d.passage) stmts.push(...passageStatements(db, s.eventId, d.passage, d.answers, unchanged));
  else {
    if (d.status === "error")
      stmts.push(
        insertCheckinIf(
          db,
          failedScan(s, d.ticket.id, list.id, req, d.reason ?? "error", d.explanation, d.now),
          unchanged,
        ),
      );
    if (d.answers) stmts.push(setPositionAnswers(db, d.ticket.id, d.answers, unchanged));
  }
  stmts.push(checkinPositionsByIds(db, s.eventId, [d.ticket.id], list.id));
  return stmts;
}

/**
 * A passing scan waits for its own entry (write-own.ts), after what the object answered before
 * (an order whose ticket this is). Should the write fail, D1 is asked whether it has the
 * check-in: no → the decision is undone; yes → the reads after the writes are made again
 * (their results, and nothing of the statements before them, which answer nothing still needed).
 */
async function writePassage(
  s: EventState,
  list: ListConfig,
  d: ScanDecision,
  stmts: Statement[],
  readBack: number,
): Promise<{ results: unknown[]; again: boolean }> {
  const outcome = await writeOwn(
    s,
    d.outboxId,
    async () => {
      if (s.outbox.hasWaiting()) await drainOutbox(s);
      return runBatch(s.db(), stmts);
    },
    () => checkinExists(s.db(), d.passage!.uid).get(),
  );
  if ("written" in outcome) return { results: outcome.written, again: false };
  if (outcome.asked === undefined) {
    undoScan(s, d);
    throw outcome.error;
  }
  s.outbox.remove(d.outboxId);
  const again = s.db();
  const reads = await runBatch(again, [
    checkinPositionsByIds(again, s.eventId, [d.ticket.id], list.id),
    scanRowsOfTickets(again, s.eventId, [d.ticket.id]),
    checkinIdsOfTickets(again, s.eventId, [d.ticket.id]),
  ]);
  return { results: [...Array.from({ length: readBack - 1 }, () => []), ...reads], again: true };
}

/** A scan that admitted no one (no entry: nothing to keep but statistics): written after what the object answered before. */
async function writeRefused(s: EventState, d: ScanDecision, stmts: Statement[]): Promise<unknown[]> {
  if (s.outbox.hasWaiting()) await drainOutbox(s);
  try {
    return await runBatch(s.db(), stmts);
  } catch (e) {
    undoScan(s, d);
    throw e;
  }
}

/** A refused scan as D1 keeps it (statistics). */
function failedScan(
  s: EventState,
  ticketId: number | null,
  listId: number,
  req: RedeemRequest,
  reason: CheckinReason,
  explanation: string | null,
  now: number,
) {
  return {
    uid: crypto.randomUUID(),
    eventId: s.eventId,
    listId,
    positionId: ticketId,
    type: req.scan.type,
    datetime: req.scan.datetime,
    created: now,
    successful: false,
    errorReason: reason,
    errorExplanation: explanation,
    forced: req.scan.force,
    forceSent: req.scan.force,
    deviceId: req.scan.deviceId,
    nonce: req.scan.nonce,
    rawBarcode: req.raw,
    rawSourceType: req.sourceType,
  };
}

/** A check-in list was created, changed or deleted (its D1 write is done): the object reads the configuration again. */
export async function checkinListChanged(s: EventState, listId: number, deleted: boolean): Promise<null> {
  if (deleted) s.storage.transactionSync(() => s.ci.forgetList(listId));
  await s.reloadCheckinConfig();
  await scheduleAlarm(s);
  return null;
}
