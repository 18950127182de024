/**
 * `GET /api/v1/device/eventselection` (docs/api.md; pretix docs devices.rst):
 * 200 with a suggested event, date and check-in list, 304 when the device's current selection
 * is fine, 404 when there is nothing to suggest (the service's `not_found`). Devices only (a
 * team key is refused with 401, as pretix authenticates this endpoint by device alone).
 */
import { Hono } from "hono";
import { z } from "zod";
import { eventSelection } from "../services/checkin/event-selection";
import { Failure } from "../lib/failure";
import type { AppEnv } from "../http/context";
import { apiDocs } from "../http/openapi";
import { id } from "../http/responses";
import { authenticatedScope } from "../http/tenancy";
import { q, queryParams } from "../http/validation";

export const eventSelectionResponse = z
  .object({
    event: z.object({ slug: z.string(), name: z.string() }),
    subevent: id().nullable(),
    checkinlist: id().nullable(),
  })
  .meta({ id: "EventSelection" });

export const deviceEventSelectionRoutes = new Hono<AppEnv>();

const selectionQuery = queryParams({
  current_event: q.string("the slug of the event the device is set to"),
  current_subevent: q.int("the date it is set to"),
  current_checkinlist: q.int("the check-in list it is set to"),
});

deviceEventSelectionRoutes.get(
  "/device/eventselection",
  authenticatedScope(),
  apiDocs("Device authentication").ok(eventSelectionResponse, {
    summary: "The event, date and check-in list a device should switch to",
    deviceOnly: true,
    failures: ["not_found"],
    answers: { 304: { description: "The device's current selection is still right; no body." } },
  }),
  selectionQuery,
  async (c) => {
    const principal = c.var.principal;
    if (principal.kind !== "device")
      throw new Failure("unauthenticated", "This endpoint is only available to devices.");
    const f = c.req.valid("query");
    const r = await eventSelection(
      c.var.db,
      principal,
      { currentEvent: f.current_event, currentSubevent: f.current_subevent, currentCheckinlist: f.current_checkinlist },
      Date.now(),
    );
    if (r.kind === "current") return c.body(null, 304);
    const body: z.infer<typeof eventSelectionResponse> = r.body;
    return c.json(body);
  },
);
