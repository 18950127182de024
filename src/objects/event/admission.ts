/**
 * Admission: a scan decided on one of the event's lists (pretix checkin.rst) from the object's
 * ticket index and passages (checkin-state.ts) and the lists' configuration. A passing scan is
 * recorded with its outbox entry before anything is awaited, so a ticket enters once per list
 * however many gates scan it at once; D1 then gets it, conditionally on the configuration the
 * decision was taken on.
 */
import { runBatch, type Statement } from "../../db/catalog-common";
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
import type { Answer, CheckinReason } from "../../db/schema";
import { revokedSecretQuery } from "../../db/ticket-secrets";
import { log } from "../../lib/log";
import { dispatchWebhooks } from "../../lib/queues";
import {
  chooseTicket,
  decideScan,
  type ListConfig,
  mergeAnswers,
  type RulesFacts,
  type RulesVerdict,
  type TicketFacts,
} from "../../rules/checkin";
import { evaluateRules } from "../../rules/checkin-rules";
import { clearOutbox, handToAlarm, type PassageWrite, unheldEntries, writeOutbox } from "./outbox";
import { drainOutbox } from "./outbox-drain";
import { indexFallback, passageStatements, trackExit } from "./passages";
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
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-scans (issue 36)
function decideAndRecord(s: EventState, req: RedeemRequest, list: ListConfig, found: Candidates): ScanDecision {
  const now = Date.now();
  const candidates = found.tickets;
  const d: ScanDecision = {
    now,
    stamps: { ...s.config.stamps },
    ticket: candidates[0]!,
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
    const choice = chooseTicket(req.raw, candidates, list, req.scan.datetime);
    if (choice.kind === "none") return;
    d.ticket = choice.ticket;
    d.previousAnswers = d.ticket.answers;
    if (choice.kind === "ambiguous") {
      d.reason = "ambiguous";
      return;
    }
    const order = s.ci.order(d.ticket.orderCode);
    if (!order) {
      d.reason = "error";
      return;
    }
    const verdict = decideScan({
      list,
      ticket: d.ticket,
      order,
      questions: s.config.questions,
      passages: s.ci.passages(d.ticket.id, list.id),
      scan: req.scan,
      timezone: s.config.timezone,
      // pretix writes a scan's texts in the event's language, or in the order's on request
      locale: (req.useOrderLocale ? order.locale : null) ?? s.config.locale,
      rules: (facts) => judgeRules(s, facts),
      fromRevokedSecret: found.revoked,
    });
    if (verdict.answers.length || verdict.cleared) {
      d.answers = mergeAnswers(d.ticket.answers, verdict.answers, verdict.cleared);
      s.ci.setAnswers(d.ticket.id, d.answers);
    }
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
        d.passage = {
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
          created: now,
          forced: verdict.forced,
          forceSent: req.scan.force,
          rawBarcode: req.raw,
          rawSourceType: req.sourceType,
        };
        s.ci.addPassage(d.passage);
        if (d.passage.id != null) rememberCheckinIds(s, [{ uid: d.passage.uid, id: d.passage.id }]);
        trackExit(s, d.ticket);
        d.outboxId = writeOutbox(s, { kind: "checkin", passage: d.passage, answers: d.answers }, now);
    }
  });
  return d;
}

/** Takes back what `decideAndRecord` recorded (D1 did not take it). */
function undoScan(s: EventState, d: ScanDecision): void {
  s.storage.transactionSync(() => {
    if (d.answers) s.ci.setAnswers(d.ticket.id, d.previousAnswers);
    if (d.passage) {
      s.ci.removePassage(d.passage.uid);
      trackExit(s, d.ticket);
      clearOutbox(s, d.outboxId);
    }
  });
}

/**
 * The answer of a scan from the object's storage alone (scan-answers.ts), its D1 write left to
 * the outbox's writer (scan-writes.ts), which the object starts once the answer is on its way.
 * null when the object lacks a piece of the answer: the scan is then written and answered
 * after D1 (`writeScan`).
 */
function answerHere(s: EventState, req: RedeemRequest, list: ListConfig, d: ScanDecision): RedeemOutcome | null {
  if (d.passage && d.passage.id == null) return null;
  const position = localPosition(s, d.ticket, list.id, d.answers);
  if (!position) return null;
  const failed =
    d.status === "error" ? failedScan(s, d.ticket.id, list.id, req, d.reason ?? "error", d.explanation, d.now) : null;
  if (!d.passage && (failed || d.answers))
    writeOutbox(s, { kind: "scan", ticketId: d.ticket.id, failed, answers: d.answers }, d.now);
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
  const unchanged = configUnchangedSql(s.eventId, d.stamps);
  const stmts: Statement[] = [checkinStampsQuery(db, s.eventId)];
  if (d.passage) stmts.push(...passageStatements(s, db, d.passage, d.answers, unchanged));
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
  // what the next scans of the order's tickets are answered from
  const readBack = stmts.length;
  stmts.push(scanRowsOfTickets(db, s.eventId, [d.ticket.id]), checkinIdsOfTickets(db, s.eventId, [d.ticket.id]));
  let lease = leaseRefill(s, db, ["checkins"]);
  stmts.push(...lease.statements);
  if (d.passage) s.inflight.add(d.outboxId);
  // what the object answered before (an order whose ticket this is) reaches D1 first
  if (unheldEntries(s).length) await drainOutbox(s);
  let results: unknown[];
  // whether the scan's webhook notification wrote calls (its statement follows the stamps)
  let notified = d.passage?.report !== undefined;
  try {
    results = await runBatch(db, stmts);
    if (notified) notified = (results[1] as unknown[]).length > 0;
  } catch (e) {
    if (!d.passage) {
      undoScan(s, d);
      throw e;
    }
    // Did the check-in commit? D1 tells; unknown → the alarm finishes the write.
    const row = await checkinExists(s.db(), d.passage.uid)
      .get()
      .catch(() => null);
    if (row === null) {
      await handToAlarm(s, d.outboxId);
      throw e;
    }
    if (row === undefined) {
      undoScan(s, d);
      throw e;
    }
    clearOutbox(s, d.outboxId);
    // the reads after the writes, again (the statements before them answer nothing that is still needed)
    const again = s.db();
    const reads = await runBatch(again, [
      checkinPositionsByIds(again, s.eventId, [d.ticket.id], list.id),
      scanRowsOfTickets(again, s.eventId, [d.ticket.id]),
      checkinIdsOfTickets(again, s.eventId, [d.ticket.id]),
    ]);
    results = [...Array.from({ length: readBack - 1 }, () => []), ...reads];
    lease = { statements: [], keep: () => {} };
  }
  s.storage.transactionSync(() => {
    rememberRows(s, results[readBack] as CheckinPositionRow[]);
    rememberCheckinIds(s, results[readBack + 1] as { uid: string; id: number }[]);
    lease.keep(results);
  });
  const stamps = results[0] as { resource: string; modifiedAt: number }[];
  if (mayRetry && stamps.some((st) => st.modifiedAt > (d.stamps[st.resource] ?? 0))) {
    undoScan(s, d);
    return "stale";
  }
  if (d.passage) clearOutbox(s, d.outboxId);
  // the scan's webhook notification was written with it; the queue delivers it
  if (notified && d.passage?.report) dispatchWebhooks(s.env, [{ eventId: s.eventId, code: d.passage.report.code }]);
  const [position] = results[readBack - 1] as CheckinPositionRow[];
  return decided(list, d, position ?? null);
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
  await s.scheduleAlarm();
  return null;
}
