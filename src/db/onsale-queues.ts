/**
 * On-sale queues of an event; every query is scoped by the event. The queue that applies to a sale
 * of a date is the date's own queue when it has one, else the event-wide one (docs/onsale-queue.md).
 */
import { and, asc, eq, isNull, ne, or, type SQL } from "drizzle-orm";
import { runBatch } from "./batch";
import type { DB } from "./client";
import { fixed, inList, listValue, p } from "./fixed";
import { fetchPage, type ListRequest } from "./paging";
import { events, onsaleQueues, subevents, teams } from "./schema";
import { inIntegers } from "./util";

export type OnsaleQueueRow = typeof onsaleQueues.$inferSelect;
export type OnsaleQueueValues = Omit<typeof onsaleQueues.$inferInsert, "id" | "eventId" | "organizerId">;

function byId(eventId: number, id: number): SQL {
  return and(eq(onsaleQueues.eventId, eventId), eq(onsaleQueues.id, id))!;
}

/** A page of the event's queues, by id. */
export function listOnsaleQueues(db: DB, eventId: number, req: ListRequest) {
  const where = eq(onsaleQueues.eventId, eventId);
  return fetchPage(
    db,
    {
      rows: db.select().from(onsaleQueues).where(where).orderBy(asc(onsaleQueues.id)).$dynamic(),
      count: { from: onsaleQueues, where },
    },
    req,
  );
}

/** A queue by id within its event. */
export function findOnsaleQueue(db: DB, eventId: number, id: number): Promise<OnsaleQueueRow | undefined> {
  return db.select().from(onsaleQueues).where(byId(eventId, id)).get();
}

/**
 * The statement that reads the queues that can apply to sales of `subeventIds` (null: the event
 * itself): the event-wide queue and those dates' own, active or not; for a batch of the caller's.
 */
const QUEUES_OF_DATES = fixed((db) =>
  db
    .select()
    .from(onsaleQueues)
    .where(
      and(
        eq(onsaleQueues.eventId, p("eventId")),
        or(isNull(onsaleQueues.subeventId), inList(onsaleQueues.subeventId, "dates")),
      ),
    ),
);

export function queuesOfDatesQuery(db: DB, eventId: number, subeventIds: readonly (number | null)[]) {
  const dates = subeventIds.filter((s): s is number => s !== null);
  return QUEUES_OF_DATES.bind(db, { eventId, dates: listValue(dates) });
}

/** Of the queues `queuesOfDatesQuery` read, the one that applies to a sale of `subeventId` (active or not). */
export function applicableOf(queues: readonly OnsaleQueueRow[], subeventId: number | null): OnsaleQueueRow | undefined {
  return (
    (subeventId !== null ? queues.find((q) => q.subeventId === subeventId) : undefined) ??
    queues.find((q) => q.subeventId === null)
  );
}

/**
 * The queue that applies to an event and date (null: the event itself): the date's own before the
 * event-wide one, active or not (an inactive one that applies means no queue for that date).
 */
export async function applicableQueue(
  db: DB,
  eventId: number,
  subeventId: number | null,
): Promise<OnsaleQueueRow | undefined> {
  return applicableOf(await queuesOfDatesQuery(db, eventId, [subeventId]), subeventId);
}

/** What a queue's input refers to, as found: the date's event, the organizer's teams among `teamIds`, another queue of the same event and date. */
export type QueueReferences = {
  subeventEventId: number | null | undefined;
  teamIds: Set<number>;
  otherQueue: number | null;
};

/**
 * The facts a queue's input is checked against, in one batch: the event of `subeventId` (undefined:
 * no such date of the organizer), which of `teamIds` are the organizer's teams, and the id of a queue of the event
 * for the same date (null: the whole event) other than `exceptId`.
 */
export async function queueReferences(
  db: DB,
  organizerId: number,
  eventId: number,
  subeventId: number | null,
  teamIds: readonly number[],
  exceptId: number | null,
): Promise<QueueReferences> {
  const sameDate = and(
    eq(onsaleQueues.eventId, eventId),
    subeventId === null ? isNull(onsaleQueues.subeventId) : eq(onsaleQueues.subeventId, subeventId),
    exceptId === null ? undefined : ne(onsaleQueues.id, exceptId),
  );
  const [dates, found, others] = (await runBatch(db, [
    db
      .select({ eventId: subevents.eventId })
      .from(subevents)
      .innerJoin(events, eq(events.id, subevents.eventId))
      .where(and(eq(subevents.id, subeventId ?? 0), eq(events.organizerId, organizerId))),
    db
      .select({ id: teams.id })
      .from(teams)
      .where(and(eq(teams.organizerId, organizerId), inIntegers(teams.id, teamIds))),
    db.select({ id: onsaleQueues.id }).from(onsaleQueues).where(sameDate).limit(1),
  ])) as [{ eventId: number }[], { id: number }[], { id: number }[]];
  return {
    subeventEventId: subeventId === null ? null : dates[0]?.eventId,
    teamIds: new Set(found.map((t) => t.id)),
    otherQueue: others[0]?.id ?? null,
  };
}

/** Creates a queue and reads it back; a second queue for the same event and date throws a UNIQUE error. */
export async function insertOnsaleQueue(
  db: DB,
  organizerId: number,
  eventId: number,
  values: OnsaleQueueValues,
): Promise<OnsaleQueueRow> {
  const [row] = await db
    .insert(onsaleQueues)
    .values({ ...values, organizerId, eventId })
    .returning();
  return row!;
}

/** Updates a queue and reads it back; undefined when it is gone. */
export async function updateOnsaleQueue(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<OnsaleQueueValues>,
): Promise<OnsaleQueueRow | undefined> {
  const [row] = await db.update(onsaleQueues).set(values).where(byId(eventId, id)).returning();
  return row;
}

/** Deletes a queue of the event; false when there is none. */
export async function deleteOnsaleQueue(db: DB, eventId: number, id: number): Promise<boolean> {
  const deleted = await db.delete(onsaleQueues).where(byId(eventId, id)).returning({ id: onsaleQueues.id });
  return deleted.length > 0;
}
