/**
 * On-sale queues of an event (docs/onsale-queue.md "Configuring a queue"): reading needs
 * can_view_orders, changing can_change_event_settings. The checks are in services/waiting-room/rooms.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { listOnsaleQueues, type OnsaleQueueRow } from "../services/waiting-room/room-reads";
import { ARRIVAL_ORDERS } from "../services/stored-values";
import {
  type CountedQueue,
  createOnsaleQueue,
  loadOnsaleQueue,
  onsaleQueueInput,
  onsaleQueuePatch,
  removeOnsaleQueue,
  updateOnsaleQueueOf,
  withCounters,
} from "../services/waiting-room/rooms";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, id, url } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { toIso } from "../lib/datetime";
import { queuePageUrl } from "../rules/urls";

export const onsaleQueueResponse = z
  .object({
    id: id(),
    subevent: id().nullable(),
    active: z.boolean(),
    opens_at: dateTime(),
    arrival_order: z.enum(ARRIVAL_ORDERS),
    admissions_per_minute: z.number().int(),
    admission_minutes: z.number().int(),
    orders_per_admission: z.number().int(),
    bypass_sales_channels: z.array(z.string()),
    bypass_devices: z.boolean(),
    bypass_teams: z.array(id()),
    waiting_page_url: url(),
    joined: z
      .number()
      .int()
      .meta({ description: "Visitors who joined, as of the queue's last step (about a second)." }),
    admitted: z.number().int().meta({ description: "Visitors admitted, as of the queue's last step." }),
  })
  .meta({ id: "OnsaleQueue" });
export type OnsaleQueueResponse = z.infer<typeof onsaleQueueResponse>;

/** Where the hosted waiting page of a queue is: below the event's public URL. */
export type QueuePlace = { baseUrl: string; organizerSlug: string; eventSlug: string };

export function serializeOnsaleQueue(q: CountedQueue, place: QueuePlace): OnsaleQueueResponse {
  return {
    id: q.id,
    subevent: q.subeventId,
    active: q.active,
    opens_at: toIso(q.opensAt)!,
    arrival_order: q.arrivalOrder,
    admissions_per_minute: q.admissionsPerMinute,
    admission_minutes: q.admissionMinutes,
    orders_per_admission: q.ordersPerAdmission,
    bypass_sales_channels: q.bypassSalesChannels,
    bypass_devices: q.bypassDevices,
    bypass_teams: q.bypassTeams,
    waiting_page_url: queuePageUrl(place.baseUrl, place.organizerSlug, place.eventSlug, q.subeventId),
    joined: q.joined,
    admitted: q.admitted,
  };
}

export const onsaleQueueRoutes = new Hono<AppEnv>();
const doc = apiDocs("On-sale queues");
const read = eventScope("can_view_orders");
const write = eventScope("can_change_event_settings");
const base = "/organizers/:organizer/events/:event/onsale_queues";

const DESCRIPTION =
  "While an active queue applies to the event (or its date), creating cart positions and orders needs the header `X-Queue-Admission` with an admission token the queue gave (docs/onsale-queue.md).";

type RouteContext = Parameters<typeof eventContext>[0];

/** The route's serializer, with the place of the waiting page taken from the request. */
function serializer(c: RouteContext) {
  const ctx = eventContext(c);
  const place = { baseUrl: ctx.baseUrl, organizerSlug: ctx.organizer.slug, eventSlug: ctx.event.slug };
  return (q: CountedQueue) => serializeOnsaleQueue(q, place);
}

/** A queue as the resource answers it, its counters read from its coordinator. */
async function answer(c: RouteContext, row: OnsaleQueueRow) {
  const [counted] = await withCounters(eventContext(c), [row]);
  return serializer(c)(counted!);
}

onsaleQueueRoutes.get(
  base,
  read,
  doc.list(onsaleQueueResponse, { summary: "List on-sale queues", description: DESCRIPTION }),
  async (c) => {
    const req = listRequest(c);
    const page = await listOnsaleQueues(eventContext(c), req);
    return respondPage(c, req, { ...page, rows: await withCounters(eventContext(c), page.rows) }, serializer(c));
  },
);

onsaleQueueRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(onsaleQueueResponse, { summary: "On-sale queue detail" }),
  async (c) => c.json(await answer(c, await loadOnsaleQueue(eventContext(c), pathId(c, "id")))),
);

onsaleQueueRoutes.post(
  base,
  write,
  doc.created(onsaleQueueResponse, {
    summary: "Create an on-sale queue",
    description: DESCRIPTION,
  }),
  jsonBody(onsaleQueueInput),
  async (c) => c.json(await answer(c, await createOnsaleQueue(eventContext(c), c.req.valid("json"))), 201),
);

onsaleQueueRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(onsaleQueueResponse, { summary: "Replace an on-sale queue" }),
  jsonBody(onsaleQueueInput),
  async (c) =>
    c.json(await answer(c, await updateOnsaleQueueOf(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put"))),
);

onsaleQueueRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(onsaleQueueResponse, { summary: "Change an on-sale queue" }),
  jsonBody(onsaleQueuePatch),
  async (c) =>
    c.json(await answer(c, await updateOnsaleQueueOf(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch"))),
);

onsaleQueueRoutes.delete(`${base}/:id`, write, doc.noContent({ summary: "Delete an on-sale queue" }), async (c) => {
  await removeOnsaleQueue(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
});
