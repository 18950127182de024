/**
 * Joining and waiting in an on-sale queue (docs/onsale-queue.md): no credential, cheap, and
 * spread over the queue's shard objects. A join goes to a random shard and gets a signed queue
 * ticket naming it; status and the live socket go to that shard. The Worker remembers for a
 * moment which queue applies to an event (and its slugs' event), so joins and status requests
 * cost no D1 round trip when the same isolate served the event a moment ago.
 */
import type { DB } from "../../db/client";
import { applicableQueue, type OnsaleQueueRow } from "../../db/onsale-queues";
import { organizerEventBySlugs } from "../../db/storefront";
import { currentGroup } from "../../lib/data-groups";
import type { Env } from "../../lib/env";
import { Failure } from "../../lib/failure";
import { type QueueTicket, readQueueTicket, signQueueTicket } from "../../lib/waiting-room-tokens";
import { settingsOf } from "../../objects/waiting-room/coordinator";
import { queueCoordinator, queueShard, queueShardCount } from "../../objects/waiting-room/names";
import { type QueueStatusBody, queueStatusBody } from "../../objects/waiting-room/status";
import type { QueueCounters } from "../../objects/waiting-room/types";
import { deploymentSecret } from "../tickets/ticket-secrets";

/** How long the Worker trusts what it read of an event's queue (a closed queue's shards refuse joins at once). */
const REMEMBER_MS = 2_000;
const REMEMBERED_MAX = 1_000;

export type QueueSlugs = { organizer: string; event: string };

type Remembered<T> = { at: number; value: T };
const eventIds = new Map<string, Remembered<number | null>>();
const queues = new Map<string, Remembered<OnsaleQueueRow | null>>();

async function remembered<T>(map: Map<string, Remembered<T>>, key: string, now: number, read: () => Promise<T>) {
  const hit = map.get(key);
  if (hit && now - hit.at < REMEMBER_MS) return hit.value;
  const value = await read();
  if (map.size >= REMEMBERED_MAX) map.clear();
  map.set(key, { at: now, value });
  return value;
}

const NO_QUEUE = "No on-sale queue is open for this event.";

export const NO_QUEUE_SECRET =
  "An active on-sale queue needs the deployment secret TICKET_SIGNING_KEY_SECRET (at least 32 characters), which is not configured: its tokens are signed with it.";

/** The secret the queue's tokens are signed with: the deployment secret, as signed ticket secrets take it. */
function secretOf(env: Env): string {
  const secret = deploymentSecret(env);
  if (!secret) throw new Failure("unavailable", NO_QUEUE_SECRET);
  return secret;
}

async function eventIdOf(db: DB, slugs: QueueSlugs, now: number): Promise<number | null> {
  return remembered(eventIds, `${slugs.organizer}\n${slugs.event}`, now, async () => {
    return (await organizerEventBySlugs(db, slugs.organizer, slugs.event))?.event.id ?? null;
  });
}

/** Joins the active queue that applies to the event (or date); 404 when none does. */
export async function joinQueue(
  env: Env,
  db: DB,
  slugs: QueueSlugs,
  subeventId: number | null,
  now: number,
): Promise<QueueStatusBody & { ticket: string }> {
  const secret = secretOf(env);
  const eventId = await eventIdOf(db, slugs, now);
  if (eventId === null) throw new Failure("not_found", NO_QUEUE);
  const queue = await remembered(queues, `${eventId}\n${subeventId}`, now, async () => {
    return (await applicableQueue(db, eventId, subeventId)) ?? null;
  });
  if (!queue?.active) throw new Failure("not_found", NO_QUEUE);
  const shard = Math.floor(Math.random() * queueShardCount(env));
  const joined = await queueShard(env, queue.id, shard).join(settingsOf(queue), shard);
  if (!joined) throw new Failure("not_found", NO_QUEUE);
  const ticket = await signQueueTicket(secret, {
    q: queue.id,
    e: eventId,
    j: joined.joinedAt,
    n: joined.nonce,
    s: shard,
  });
  return { ...queueStatusBody(queue.id, joined.status), ticket };
}

/** The visitor's ticket, checked: 400 when malformed or forged, 404 when of another event. */
async function ticketOf(env: Env, db: DB, slugs: QueueSlugs, token: string | undefined, now: number) {
  const ticket = token ? await readQueueTicket(secretOf(env), token) : null;
  if (!ticket) throw new Failure("invalid", "The queue ticket is missing, malformed or forged.");
  if ((await eventIdOf(db, slugs, now)) !== ticket.e)
    throw new Failure("not_found", "The queue ticket is of another event.");
  return ticket;
}

function shardOf(env: Env, t: QueueTicket) {
  return queueShard(env, t.q, t.s);
}

export async function queueStatus(
  env: Env,
  db: DB,
  slugs: QueueSlugs,
  token: string | undefined,
  now: number,
): Promise<QueueStatusBody> {
  const ticket = await ticketOf(env, db, slugs, token, now);
  const status = await shardOf(env, ticket).status(ticket.n);
  if (!status) throw new Failure("not_found", "The queue no longer knows this ticket.");
  return queueStatusBody(ticket.q, status);
}

/** The live socket: the upgrade request goes on to the visitor's shard, which accepts it. */
export async function openLiveSocket(
  env: Env,
  db: DB,
  slugs: QueueSlugs,
  token: string | undefined,
  request: Request,
  now: number,
): Promise<Response> {
  if (request.headers.get("Upgrade")?.toLowerCase() !== "websocket") {
    throw new Failure("invalid", "Expected a WebSocket upgrade (Upgrade: websocket).");
  }
  const ticket = await ticketOf(env, db, slugs, token, now);
  const headers = new Headers(request.headers);
  headers.set("X-Queue-Visitor", ticket.n);
  const answer = await shardOf(env, ticket).fetch(new Request(request.url, { headers }));
  if (answer.status === 404) throw new Failure("not_found", "The queue no longer knows this ticket.");
  // only the socket is relayed: any other answer of the shard leaves as a failure
  if (answer.status !== 101 || !answer.webSocket)
    throw new Failure("unavailable", "The queue could not open the live socket. Retry in a moment.");
  // a new answer around the socket: the app's middleware adds its headers
  return new Response(null, { status: 101, headers: answer.headers, webSocket: answer.webSocket });
}

/** The organizer resource's counters `joined` and `admitted` (as of the coordinator's last step). */
export function queueCounters(env: Env, queue: Pick<OnsaleQueueRow, "id" | "eventId">): Promise<QueueCounters> {
  return queueCoordinator(env, queue.id).counters();
}

/** A queue was changed, deactivated or deleted: its coordinator steps now and tells the shards. */
export async function queueChanged(env: Env, queue: Pick<OnsaleQueueRow, "id" | "eventId">): Promise<void> {
  await queueCoordinator(env, queue.id).changed(queue.id, queue.eventId, currentGroup(env));
}
