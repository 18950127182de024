/**
 * Seating plans of an organizer and the seats read from their layouts; every query is
 * scoped by organizer. A plan used by an event or sub-event cannot be changed or deleted:
 * the condition is part of the writing statements, so a plan assigned meanwhile stays intact.
 */
import { and, asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { lastInsertedId } from "./catalog-common";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { seatingPlanSeats, seatingPlans } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

/** A seat of a plan, as read from its layout (services/catalog/seating.ts). */
export type PlanSeat = {
  seatGuid: string;
  zoneName: string;
  rowName: string;
  rowLabel: string | null;
  seatNumber: string;
  seatLabel: string | null;
  category: string;
  sortingRank: number;
  x: number | null;
  y: number | null;
};

export type SeatingPlanRow = typeof seatingPlans.$inferSelect;
export type SeatRow = typeof seatingPlanSeats.$inferSelect;

/** Seats per insert statement (they travel as one JSON parameter). */
const SEATS_PER_STATEMENT = 500;

/** A page of the organizer's plans, by name. */
export function listSeatingPlans(db: DB, organizerId: number, req: ListRequest) {
  const where = eq(seatingPlans.organizerId, organizerId);
  const rows = db
    .select()
    .from(seatingPlans)
    .where(where)
    .orderBy(asc(seatingPlans.name), asc(seatingPlans.id))
    .$dynamic();
  return fetchPage(db, { rows, count: { from: seatingPlans, where } }, req);
}

export async function findSeatingPlan(db: DB, organizerId: number, id: number): Promise<SeatingPlanRow | undefined> {
  return db
    .select()
    .from(seatingPlans)
    .where(and(eq(seatingPlans.organizerId, organizerId), eq(seatingPlans.id, id)))
    .get();
}

/** SQL condition: no event or sub-event of the organizer uses the plan. */
function notInUse(organizerId: number, planId: number | SQL): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM events e WHERE e.organizer_id = ${organizerId} AND e.seating_plan_id = ${planId})
    AND NOT EXISTS (SELECT 1 FROM subevents s JOIN events e ON e.id = s.event_id WHERE e.organizer_id = ${organizerId} AND s.seating_plan_id = ${planId})`;
}

function seatInserts(db: DB, plan: number | SQL, seats: PlanSeat[], condition?: SQL): Statement[] {
  const planSql = typeof plan === "number" ? sql`${plan}` : plan;
  return chunks(seats, SEATS_PER_STATEMENT).map((part) => {
    const json = JSON.stringify(
      part.map((s) => [
        s.seatGuid,
        s.zoneName,
        s.rowName,
        s.rowLabel,
        s.seatNumber,
        s.seatLabel,
        s.category,
        s.sortingRank,
        s.x,
        s.y,
      ]),
    );
    // columns in table order: id (NULL: assigned), plan_id, then the seat's fields
    return db.insert(seatingPlanSeats).select(
      sql`SELECT NULL, ${planSql}, json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'),
          json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]'), json_extract(j.value, '$[5]'), json_extract(j.value, '$[6]'),
          json_extract(j.value, '$[7]'), json_extract(j.value, '$[8]'), json_extract(j.value, '$[9]')
        FROM json_each(${json}) j WHERE ${condition ?? sql`1`}`,
    );
  });
}

/** Creates a plan and its seats in one transaction. */
export async function insertSeatingPlan(
  db: DB,
  organizerId: number,
  name: string,
  layout: Record<string, unknown>,
  seats: PlanSeat[],
): Promise<SeatingPlanRow> {
  const [rows] = (await runBatch(db, [
    db.insert(seatingPlans).values({ organizerId, name, layout }).returning(),
    ...seatInserts(db, lastInsertedId("seating_plans"), seats),
  ])) as [SeatingPlanRow[]];
  return rows[0]!;
}

/**
 * Changes a plan (and replaces its seats when a layout is given) unless it is in use.
 * Returns the updated row, or undefined when the plan is in use.
 */
export async function updateSeatingPlanIfUnused(
  db: DB,
  organizerId: number,
  id: number,
  values: { name?: string; layout?: Record<string, unknown> },
  seats: PlanSeat[] | undefined,
): Promise<SeatingPlanRow | undefined> {
  const free = notInUse(organizerId, id);
  const statements: Statement[] = [
    db
      .update(seatingPlans)
      .set(Object.keys(values).length ? values : { id })
      .where(and(eq(seatingPlans.organizerId, organizerId), eq(seatingPlans.id, id), free))
      .returning(),
  ];
  if (seats) {
    statements.push(db.delete(seatingPlanSeats).where(and(eq(seatingPlanSeats.planId, id), free)));
    statements.push(...seatInserts(db, id, seats, free));
  }
  const [rows] = (await runBatch(db, statements)) as [SeatingPlanRow[]];
  return rows[0];
}

/** Deletes a plan (with its seats) unless it is in use; false when in use. */
export async function deleteSeatingPlanIfUnused(db: DB, organizerId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(seatingPlans)
    .where(and(eq(seatingPlans.organizerId, organizerId), eq(seatingPlans.id, id), notInUse(organizerId, id)))
    .returning({ id: seatingPlans.id });
  return rows.length > 0;
}

// ---- seats, for selling ----

function ownPlan(organizerId: number, planId: number): SQL {
  return sql`${seatingPlanSeats.planId} IN (SELECT id FROM seating_plans WHERE id = ${planId} AND organizer_id = ${organizerId})`;
}

/** Every seat of the organizer's plan, in pretix's sorting order (rank, then guid). */
export async function planSeats(db: DB, organizerId: number, planId: number): Promise<SeatRow[]> {
  return db
    .select()
    .from(seatingPlanSeats)
    .where(and(eq(seatingPlanSeats.planId, planId), ownPlan(organizerId, planId)))
    .orderBy(asc(seatingPlanSeats.sortingRank), asc(seatingPlanSeats.seatGuid));
}

/** The seats of the organizer's plan with the given `seat_guid`s, by guid (unknown guids are missing). */
export async function planSeatsByGuid(
  db: DB,
  organizerId: number,
  planId: number,
  guids: readonly string[],
): Promise<Map<string, SeatRow>> {
  const found = new Map<string, SeatRow>();
  for (const part of chunks([...new Set(guids)], MAX_PARAMS - 5)) {
    const rows = await db
      .select()
      .from(seatingPlanSeats)
      .where(
        and(
          eq(seatingPlanSeats.planId, planId),
          ownPlan(organizerId, planId),
          inArray(seatingPlanSeats.seatGuid, part),
        ),
      );
    for (const r of rows) found.set(r.seatGuid, r);
  }
  return found;
}
