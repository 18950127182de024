/**
 * Seating plans of an organizer (spec "Seating plan"; pretix docs seatingplans.rst). Reading
 * and writing need can_change_organizer_settings, as in pretix. `layout` is stored and
 * returned exactly as sent; its seats are read as pretix defines them (domain/seating.ts)
 * and kept for selling. A plan used by an event or sub-event cannot be changed or deleted (403).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  createSeatingPlan,
  deleteSeatingPlanIfUnused,
  findSeatingPlan,
  type SeatingPlanRow,
  seatingPlanCount,
  seatingPlanPage,
  updateSeatingPlanIfUnused,
} from "../db/seatingplans";
import { type PlanSeat, readSeatingLayout } from "../domain/seating";
import type { AppContext, AppEnv } from "../http/context";
import { forbidden, notFound, validationError } from "../domain/failure";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { name } from "../domain/catalog-fields";

export function serializeSeatingPlan(p: SeatingPlanRow) {
  return { id: p.id, name: p.name, layout: p.layout };
}

const planFields = z.object({
  name: name(190),
  layout: z.record(z.string(), z.unknown()),
});
type PlanInput = z.output<typeof planFields>;

const planFull = planFields;
const planPatch = planFields.partial();

function seatsOf(layout: Record<string, unknown>): PlanSeat[] {
  const result = readSeatingLayout(layout);
  if (!result.ok) throw validationError({ layout: result.errors });
  return result.seats;
}

async function loadPlan(c: AppContext): Promise<SeatingPlanRow> {
  const plan = await findSeatingPlan(c.var.db, c.var.organizer.id, pathId(c, "id"));
  if (!plan) throw notFound();
  return plan;
}

export const seatingPlanRoutes = new Hono<AppEnv>();
const perm = organizerScope("can_change_organizer_settings");
const base = "/organizers/:organizer/seatingplans";

seatingPlanRoutes.get(base, perm, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const [[total], rows] = await db.batch([seatingPlanCount(db, orgId), seatingPlanPage(db, orgId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeSeatingPlan)));
});

seatingPlanRoutes.get(`${base}/:id`, perm, async (c) => c.json(serializeSeatingPlan(await loadPlan(c))));

seatingPlanRoutes.post(base, perm, jsonBody(planFull), async (c) => {
  const input = c.req.valid("json");
  const seats = seatsOf(input.layout);
  const plan = await createSeatingPlan(c.var.db, c.var.organizer.id, input.name, input.layout, seats);
  return c.json(serializeSeatingPlan(plan), 201);
});

async function changePlan(c: AppContext, input: Partial<PlanInput>) {
  const current = await loadPlan(c);
  const seats = input.layout === undefined ? undefined : seatsOf(input.layout);
  const values: { name?: string; layout?: Record<string, unknown> } = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.layout !== undefined) values.layout = input.layout;
  const plan = await updateSeatingPlanIfUnused(c.var.db, c.var.organizer.id, current.id, values, seats);
  if (!plan) throw forbidden("This plan can not be changed while it is in use for an event.");
  return c.json(serializeSeatingPlan(plan));
}

seatingPlanRoutes.put(`${base}/:id`, perm, jsonBody(planFull), (c) => changePlan(c, c.req.valid("json")));
seatingPlanRoutes.patch(`${base}/:id`, perm, jsonBody(planPatch), (c) => changePlan(c, c.req.valid("json")));

seatingPlanRoutes.delete(`${base}/:id`, perm, async (c) => {
  const plan = await loadPlan(c);
  if (!(await deleteSeatingPlanIfUnused(c.var.db, c.var.organizer.id, plan.id))) {
    throw forbidden("This plan can not be deleted while it is in use for an event.");
  }
  return c.body(null, 204);
});
