/**
 * Sales behind an on-sale queue (docs/onsale-queue.md "Sales behind the queue"): while an active
 * queue applies to a sale's date, creating cart positions and orders needs an admission token of
 * that queue in `X-Queue-Admission`, unless the sale's channel, the device or the team skips the
 * queue. The Worker checks the token here; the event object counts its orders with the sale.
 */
import { applicableOf, type OnsaleQueueRow } from "../../db/onsale-queues";
import { Failure } from "../../lib/failure";
import { readAdmission } from "../../lib/waiting-room-tokens";
import type { AdmissionClaim } from "../../objects/event/types";
import type { EventContext } from "../context";
import { NO_QUEUE_SECRET } from "./visitors";
import { deploymentSecret } from "../tickets/ticket-secrets";

/** The request header that carries the admission token. */
export const ADMISSION_HEADER = "X-Queue-Admission";

/** Who asks for a sale: the credential's kind and team, and the admission token it sent (or null). */
export type SaleCaller = { kind: "token" | "device"; teamId: number | null; admission: string | null };

/** One sale the gate decides on: its date (null: the event itself) and its sales channel. */
export type GatedSale = { subeventId: number | null; channel: string };

/** The 403 of a sale without a valid admission: the body names the queue. */
export function queueRequired(queueId: number, detail: string): Failure {
  return new Failure("queue_required", detail, { body: { detail, queue: queueId } });
}

function skips(q: OnsaleQueueRow, sale: GatedSale, caller: SaleCaller): boolean {
  return (
    q.bypassSalesChannels.includes(sale.channel) ||
    (caller.kind === "device" && q.bypassDevices) ||
    (caller.teamId !== null && q.bypassTeams.includes(caller.teamId))
  );
}

/**
 * Lets the sales pass, or throws `queue_required`: null when no active queue applies to any of
 * them (or all skip it), else the admission the order counts against. `queues`: the event's
 * queues for the sales' dates (`queuesOfDatesQuery`, read with the catalog).
 */
export async function passSaleGate(
  ctx: EventContext,
  queues: readonly OnsaleQueueRow[],
  sales: readonly GatedSale[],
  caller: SaleCaller,
): Promise<AdmissionClaim | null> {
  const gated = new Map<number, OnsaleQueueRow>();
  for (const sale of sales) {
    const q = applicableOf(queues, sale.subeventId);
    if (q?.active && !skips(q, sale, caller)) gated.set(q.id, q);
  }
  const [q, other] = gated.values();
  if (!q) return null;
  const named = `Sales of this event are behind its on-sale queue ${q.id}`;
  if (!caller.admission)
    throw queueRequired(q.id, `${named}: send the admission token the queue gave in ${ADMISSION_HEADER}.`);
  if (other)
    throw queueRequired(
      other.id,
      `This request buys for dates behind two on-sale queues (${q.id} and ${other.id}); an admission admits to one: buy for each date on its own.`,
    );
  const secret = deploymentSecret(ctx.env);
  if (!secret) throw new Failure("unavailable", NO_QUEUE_SECRET);
  const a = await readAdmission(secret, caller.admission);
  if (!a) throw queueRequired(q.id, `${named}: the admission token in ${ADMISSION_HEADER} is not valid.`);
  if (a.q !== q.id || a.e !== ctx.event.id || a.s !== q.subeventId)
    throw queueRequired(q.id, `${named}: the admission token is of another queue (another event or date).`);
  if (a.x <= ctx.now) throw queueRequired(q.id, `${named}: the admission token has expired.`);
  return { queueId: q.id, admissionId: a.a, ordersAllowed: a.o, expires: a.x };
}

/** The refusal of an order whose admission has placed all the orders it allows (or expired meanwhile). */
export function admissionUsedUp(claim: AdmissionClaim): Failure {
  return queueRequired(
    claim.queueId,
    `This admission of on-sale queue ${claim.queueId} has placed the ${claim.ordersAllowed === 1 ? "order" : `${claim.ordersAllowed} orders`} it allows.`,
  );
}
