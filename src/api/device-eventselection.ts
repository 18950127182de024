/**
 * `GET /api/v1/device/eventselection` (spec "Device authentication"; pretix docs devices.rst):
 * 200 with a suggested event, date and check-in list, 304 when the device's current selection
 * is fine, 404 when there is nothing to suggest. Devices only (a team key is refused with 401,
 * as pretix authenticates this endpoint by device alone).
 */
import { Hono } from "hono";
import { z } from "zod";
import { eventSelection } from "../domain/event-selection";
import { Failure } from "../domain/failure";
import { type AppEnv } from "../http/context";
import { id } from "../http/responses";
import { authenticatedScope } from "../http/tenancy";
import { queryInt, queryString } from "../http/validation";

export const eventSelectionResponse = z.object({
  event: z.object({ slug: z.string(), name: z.string() }),
  subevent: id().nullable(),
  checkinlist: id().nullable(),
});

export const deviceEventSelectionRoutes = new Hono<AppEnv>();

deviceEventSelectionRoutes.get("/device/eventselection", authenticatedScope(), async (c) => {
  const principal = c.var.principal;
  if (principal.kind !== "device") throw new Failure("unauthenticated", "This endpoint is only available to devices.");
  const r = await eventSelection(
    c.var.db,
    principal,
    { currentEvent: queryString(c, "current_event"), currentSubevent: queryInt(c, "current_subevent"), currentCheckinlist: queryInt(c, "current_checkinlist") },
    Date.now(),
  );
  if (r.kind === "current") return c.body(null, 304);
  if (r.kind === "none") return c.json({ detail: "No event found." }, 404);
  const body: z.infer<typeof eventSelectionResponse> = r.body;
  return c.json(body);
});
