/**
 * A visitor's state, decided from its shard's row and the coordinator's last push, and its wire
 * form (`QueueStatus`, docs/onsale-queue.md), which the Worker answers and the shard's sockets send.
 */
import { toIso } from "../../lib/datetime";
import { estimateBelow, placeOf, pollSeconds, type ShardSummary } from "../../rules/queue-order";
import type { VisitorRow } from "./shard-store";
import type { QueueSettings, VisitorStatus } from "./types";

export type QueueStatusBody = {
  queue: number;
  state: VisitorStatus["state"];
  opens_at: string;
  position: number | null;
  ahead: number | null;
  estimated_wait_seconds: number | null;
  poll_seconds: number;
  admission: { token: string; expires: string; orders_allowed: number } | null;
};

export function queueStatusBody(queueId: number, s: VisitorStatus): QueueStatusBody {
  return {
    queue: queueId,
    state: s.state,
    opens_at: toIso(s.opensAt),
    position: s.position,
    ahead: s.ahead,
    estimated_wait_seconds: s.estimatedWaitSeconds,
    poll_seconds: s.pollSeconds,
    admission: s.admission
      ? { token: s.admission.token, expires: toIso(s.admission.expires), orders_allowed: s.admission.ordersAllowed }
      : null,
  };
}

/** When an admission given at `admittedAt` expires. */
export function admissionExpiry(settings: QueueSettings, admittedAt: number): number {
  return admittedAt + settings.admissionMinutes * 60_000;
}

/**
 * The state of a visitor who is not (or no longer) admitted, or whose admission `token` is
 * known: `ownBefore` counts this shard's visitors ahead, `others` the other shards' summaries.
 */
export function visitorStatus(input: {
  settings: QueueSettings;
  closed: boolean;
  row: VisitorRow;
  token: string | null;
  ownBefore: number;
  others: ShardSummary[];
  admitted: number;
  now: number;
}): VisitorStatus {
  const { settings, row, now } = input;
  const base = { opensAt: settings.opensAt, position: null, ahead: null, estimatedWaitSeconds: null };
  if (row.admitted_at !== null) {
    const expires = admissionExpiry(settings, row.admitted_at);
    if (now >= expires) return { ...base, state: "expired", pollSeconds: 60, admission: null };
    if (input.token !== null) {
      const admission = { token: input.token, expires, ordersAllowed: settings.ordersPerAdmission };
      return { ...base, state: "admitted", pollSeconds: 60, admission };
    }
  }
  if (input.closed) return { ...base, state: "closed", pollSeconds: 60, admission: null };
  const before = input.ownBefore + input.others.reduce((n, s) => n + estimateBelow(s, row.key), 0);
  const place = placeOf({
    order: settings.arrivalOrder,
    opensAt: settings.opensAt,
    rate: settings.admissionsPerMinute,
    now,
    before,
    admitted: input.admitted,
  });
  return {
    ...place,
    opensAt: settings.opensAt,
    state: "waiting",
    pollSeconds: pollSeconds(place.estimatedWaitSeconds),
    admission: null,
  };
}
