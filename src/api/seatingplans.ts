/**
 * Seating plans of an organizer (docs/api.md; pretix docs seatingplans.rst). Reading
 * and writing need can_change_organizer_settings, as in pretix. `layout` is stored and
 * returned exactly as sent; its seats are read as pretix defines them and kept for selling
 * (services/catalog/seating.ts). A plan used by an event or sub-event cannot be changed or deleted (403).
 */
import { Hono } from "hono";
import { z } from "zod";
import { listSeatingPlans, type SeatingPlanRow } from "../services/catalog/catalog-reads";
import {
  changeSeatingPlan,
  createSeatingPlan,
  deleteSeatingPlan,
  loadSeatingPlan,
  seatingPlanFullInput,
  seatingPlanPatchInput,
} from "../services/catalog/seating";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { id, object } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";

export const seatingPlanResponse = z
  .object({
    id: id(),
    name: z.string(),
    /** The layout exactly as sent (its schema is an open point (docs/open-points.md)). */
    layout: object(),
  })
  .meta({ id: "SeatingPlan" });
export type SeatingPlanResponse = z.infer<typeof seatingPlanResponse>;

export function serializeSeatingPlan(p: SeatingPlanRow): SeatingPlanResponse {
  return { id: p.id, name: p.name, layout: p.layout };
}

export const seatingPlanRoutes = new Hono<AppEnv>();
const doc = apiDocs("Seating plans");
const perm = organizerScope("can_change_organizer_settings");
const base = "/organizers/:organizer/seatingplans";

seatingPlanRoutes.get(base, perm, doc.list(seatingPlanResponse, { summary: "List seating plans" }), async (c) => {
  const req = listRequest(c);
  return respondPage(c, req, await listSeatingPlans(organizerContext(c), req), serializeSeatingPlan);
});

seatingPlanRoutes.get(`${base}/:id`, perm, doc.ok(seatingPlanResponse, { summary: "Seating plan detail" }), async (c) =>
  c.json(serializeSeatingPlan(await loadSeatingPlan(organizerContext(c), pathId(c, "id")))),
);

seatingPlanRoutes.post(
  base,
  perm,
  doc.created(seatingPlanResponse, { summary: "Create a seating plan" }),
  jsonBody(seatingPlanFullInput),
  async (c) => c.json(serializeSeatingPlan(await createSeatingPlan(organizerContext(c), c.req.valid("json"))), 201),
);

seatingPlanRoutes.put(
  `${base}/:id`,
  perm,
  doc.ok(seatingPlanResponse, {
    summary: "Replace a seating plan",
    description: "Not while an event or sub-event uses it (403).",
  }),
  jsonBody(seatingPlanFullInput),
  async (c) =>
    c.json(serializeSeatingPlan(await changeSeatingPlan(organizerContext(c), pathId(c, "id"), c.req.valid("json")))),
);

seatingPlanRoutes.patch(
  `${base}/:id`,
  perm,
  doc.ok(seatingPlanResponse, {
    summary: "Change a seating plan",
    description: "Not while an event or sub-event uses it (403).",
  }),
  jsonBody(seatingPlanPatchInput),
  async (c) =>
    c.json(serializeSeatingPlan(await changeSeatingPlan(organizerContext(c), pathId(c, "id"), c.req.valid("json")))),
);

seatingPlanRoutes.delete(
  `${base}/:id`,
  perm,
  doc.noContent({ summary: "Delete a seating plan", description: "Not while an event or sub-event uses it (403)." }),
  async (c) => {
    await deleteSeatingPlan(organizerContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
