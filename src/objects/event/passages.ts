/**
 * Admission: a passage (an entry or an exit, scanned or automatic) as D1 gets it, and as the
 * ledger counts it (a ticket whose last passage is an exit frees quota with `release_after_exit`).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Statement } from "../../db/batch";
import {
  checkinMissingSql,
  insertCheckinIf,
  setPositionAnswers,
  touchOrderOfPosition,
} from "../../db/checkin/passages";
import type { DB } from "../../db/client";
import type { Answer } from "../../db/schema";
import { checkinNotificationStatement } from "../../db/webhooks";
import type { TicketFacts } from "../../rules/checkin";
import { keyOf } from "../../rules/inventory";
import type { TicketOrderRow } from "../../db/checkin/object-reads";
import type { PassageWrite } from "./outbox";
import { rememberCheckinIds } from "./scan-answers";
import type { EventState } from "./state";

/**
 * The D1 statements of a check-in: its webhook notification (a scan's; only while the row is
 * not stored yet, so a replay reports nothing twice), the row (once, by uid), answers given
 * at the door, and the order's last_modified (other scanners' incremental sync).
 */
export function passageStatements(
  s: EventState,
  db: DB,
  p: PassageWrite,
  answers: Answer[] | null,
  condition: SQL = sql`1`,
): Statement[] {
  const stmts: Statement[] = [];
  if (p.report) {
    const c = p.report;
    stmts.push(
      checkinNotificationStatement(db, {
        eventId: s.eventId,
        code: c.code,
        positionId: p.ticketId,
        listId: p.listId,
        type: p.type,
        firstCheckin: c.first,
        now: p.created,
        condition: sql`${condition} AND ${checkinMissingSql(p.uid)}`,
      }),
    );
  }
  stmts.push(
    insertCheckinIf(
      db,
      {
        id: p.id ?? undefined,
        uid: p.uid,
        eventId: s.eventId,
        listId: p.listId,
        positionId: p.ticketId,
        type: p.type,
        datetime: p.datetime,
        created: p.created,
        successful: true,
        autoCheckedIn: p.auto,
        forced: p.forced,
        forceSent: p.forceSent ?? false,
        deviceId: p.deviceId,
        nonce: p.nonce,
        rawBarcode: p.rawBarcode,
        rawSourceType: p.rawSourceType,
      },
      condition,
    ),
    touchOrderOfPosition(db, p.ticketId, p.created, condition),
  );
  if (answers) stmts.push(setPositionAnswers(db, p.ticketId, answers, condition));
  return stmts;
}

/** Records in the ledger whether a ticket's last passage on any list is an exit (quotas with release_after_exit). */
export function trackExit(
  s: EventState,
  t: Pick<TicketFacts, "id" | "itemId" | "variationId" | "subeventId" | "orderCode">,
): void {
  s.ledger.setExited(
    t.id,
    keyOf(t.itemId, t.variationId, t.subeventId),
    t.orderCode,
    s.ci.lastTypeAnywhere(t.id) === "exit",
  );
}

/** Indexes what a D1 fallback read returned (orders, and the tickets of a revoked secret). */
export function indexFallback(
  s: EventState,
  rows: TicketOrderRow[],
  revoked: { secret: string; ticketId: number }[],
): void {
  s.storage.transactionSync(() => {
    for (const r of revoked) s.ci.addRevoked(r.secret, r.ticketId);
    for (const row of rows) {
      rememberCheckinIds(s, JSON.parse(row.passages) as { uid: string; id: number }[]);
      const added = s.ci.indexFromD1(row);
      for (const tid of new Set(added.map((p) => p.ticketId))) {
        const t = s.ci.ticketById(tid);
        if (t) trackExit(s, t);
      }
    }
  });
}
