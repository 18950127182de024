/**
 * On-sale queue tests: a queue row straight in D1, visitors joining through HTTP, and the
 * coordinator's step run at once (its alarm) instead of waiting for it.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import { events, onsaleQueues } from "../../src/db/schema/index";
import type { Env } from "../../src/lib/env";
import { readQueueTicket } from "../../src/lib/waiting-room-tokens";
import { queueCoordinator } from "../../src/objects/waiting-room/names";
import { anonymous, db, HARNESS_GROUP, type Json } from "../harness";
import { shop } from "./sales";

export type QueueValues = Partial<typeof onsaleQueues.$inferInsert>;

export const SECRET = () => (env as unknown as Env).TICKET_SIGNING_KEY_SECRET!;

/** A shop (organizer, event) with a queue in front of it. */
export async function queuedShop(values: QueueValues = {}, opts: Parameters<typeof shop>[0] = {}) {
  const s = await shop(opts);
  const event = await db()
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.organizerId, s.org.id), eq(events.slug, s.eventSlug)))
    .get();
  const eventId = event!.id;
  const now = Date.now();
  const [row] = await db()
    .insert(onsaleQueues)
    .values({
      organizerId: s.org.id,
      eventId,
      opensAt: now + 3_600_000,
      arrivalOrder: "first_come",
      admissionsPerMinute: 10,
      bypassSalesChannels: [],
      bypassTeams: [],
      createdAt: now,
      updatedAt: now,
      ...values,
    })
    .returning();
  const queue = row!;
  const base = `${s.path}/queue`;
  return {
    ...s,
    eventId,
    queue,
    base,
    async join(body?: Json): Promise<Visitor> {
      const res = await anonymous.post(`${base}/join/`, body ?? {});
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const ticket = await readQueueTicket(SECRET(), res.body.ticket);
      expect(ticket).not.toBeNull();
      return { token: res.body.ticket, ticket: ticket!, joined: res.body };
    },
    status(token: string) {
      return anonymous.get(`${base}/status/`, { headers: { "X-Queue-Ticket": token } });
    },
    /** Changes the queue's row (as the organizer's resource would) and runs the coordinator's step. */
    async change(values: QueueValues) {
      await db().update(onsaleQueues).set(values).where(eq(onsaleQueues.id, queue.id));
      await this.step();
    },
    /** One coordinator step, now. */
    async step() {
      const stub = queueCoordinator(env, queue.id);
      await stub.changed(queue.id, eventId, HARNESS_GROUP);
      await runDurableObjectAlarm(stub);
    },
    counters() {
      return queueCoordinator(env, queue.id).counters();
    },
  };
}

export type Visitor = {
  token: string;
  ticket: NonNullable<Awaited<ReturnType<typeof readQueueTicket>>>;
  joined: Json;
};

/** Visitors in the order the queue serves them first come: joined-at time, then nonce. */
export function byArrival(visitors: Visitor[]): Visitor[] {
  return [...visitors].sort((a, b) =>
    a.ticket.j !== b.ticket.j ? a.ticket.j - b.ticket.j : a.ticket.n < b.ticket.n ? -1 : 1,
  );
}
