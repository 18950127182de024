/**
 * Admission: a passage as the ledger counts it (a ticket whose last passage is an exit frees
 * quota with `release_after_exit`), and what a D1 fallback read returned, indexed. Its D1
 * statements: db/checkin/passages.ts `passageStatements`.
 */
import type { TicketFacts } from "../../rules/checkin";
import { keyOf } from "../../rules/inventory";
import type { TicketOrderRow } from "../../db/checkin/object-reads";
import { rememberCheckinIds } from "./scan-answers";
import type { EventState } from "./state";

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
