/**
 * Events (docs/api.md; pretix docs events.rst): list with filters,
 * detail with `valid_keys`, create (also as a clone: `clone_from`, `.../clone/`), PATCH, DELETE.
 * The routes parse, scope, call the event services (services/events/event-changes.ts) and serialize.
 * `with_availability_for` adds `best_availability_state` (./events-availability.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { EVENT_ORDERING, type EventWithMeta, findEvent, listEvents } from "../services/events/event-reads";
import {
  changeEvent,
  cloneEvent,
  createEvent,
  deleteEvent,
  eventCreateInput,
  eventPatchInput,
} from "../services/events/event-changes";
import { eventPublicUrl } from "../rules/urls";
import { type AppContext, type AppEnv, eventContext, organizerContext, publicBase } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, i18n, id, url } from "../http/responses";
import { eventScope, organizerScope } from "../http/tenancy";
import { jsonBody, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";
import { availabilityParam, bestAvailabilityState, withAvailability } from "./events-availability";
import { attrFilters, attrParam, metaDataResponse, parseMeta, seatCategoryMappingResponse } from "./events-common";

export const eventResponse = z
  .object({
    name: i18n(),
    slug: z.string(),
    live: z.boolean(),
    testmode: z.boolean(),
    currency: z.string(),
    date_from: dateTime(),
    date_to: dateTime().nullable(),
    date_admission: dateTime().nullable(),
    is_public: z.boolean(),
    presale_start: dateTime().nullable(),
    presale_end: dateTime().nullable(),
    location: i18n().nullable(),
    geo_lat: z.number().nullable(),
    geo_lon: z.number().nullable(),
    has_subevents: z.boolean(),
    meta_data: metaDataResponse(),
    plugins: z.array(z.string()),
    seating_plan: id().nullable(),
    seat_category_mapping: seatCategoryMappingResponse(),
    timezone: z.string(),
    item_meta_properties: z.record(z.string(), z.string()),
    sales_channels: z.array(z.string()),
    public_url: url(),
  })
  .meta({ id: "Event" });
export type EventResponse = z.infer<typeof eventResponse>;

/** The detail view: with `valid_keys` (key-scheme name → public keys). */
export const eventDetailResponse = eventResponse
  .extend({ valid_keys: z.record(z.string(), z.array(z.string())) })
  .meta({ id: "EventDetail" });
export type EventDetailResponse = z.infer<typeof eventDetailResponse>;

/** An event of the list; with `with_availability_for`, with `best_availability_state`. */
export const eventListResponse = eventResponse.extend({ best_availability_state: bestAvailabilityState().optional() });

/** Where the organizer's events' customer-facing pages are. */
export type EventLocation = { baseUrl: string; organizerSlug: string };

/**
 * `valid_keys`: the public keys scanners verify signed ticket secrets with, offline, by scheme
 * (pretix: `pretix_sig1`, base64 of the PEM text). An event that never used signed secrets has
 * none: `{}`. The key stays listed after switching back to random secrets, since tickets sold
 * meanwhile keep their signed secrets.
 */
function validKeys(r: EventWithMeta): Record<string, string[]> {
  return r.sig1Key ? { pretix_sig1: [r.sig1Key] } : {};
}

export function serializeEvent(at: EventLocation, { event: e, metaData }: EventWithMeta): EventResponse {
  return {
    name: e.name,
    slug: e.slug,
    live: e.live,
    testmode: e.testmode,
    currency: e.currency,
    date_from: toIso(e.dateFrom),
    date_to: toIso(e.dateTo),
    date_admission: toIso(e.dateAdmission),
    is_public: e.isPublic,
    presale_start: toIso(e.presaleStart),
    presale_end: toIso(e.presaleEnd),
    location: e.location ?? null,
    geo_lat: e.geoLat,
    geo_lon: e.geoLon,
    has_subevents: e.hasSubevents,
    meta_data: parseMeta(metaData),
    plugins: e.plugins,
    seating_plan: e.seatingPlanId,
    seat_category_mapping: e.seatCategoryMapping,
    timezone: e.timezone,
    item_meta_properties: e.itemMetaProperties,
    sales_channels: e.salesChannels,
    public_url: eventPublicUrl(at.baseUrl, at.organizerSlug, e.slug),
  };
}

export function serializeEventDetail(at: EventLocation, r: EventWithMeta): EventDetailResponse {
  return { ...serializeEvent(at, r), valid_keys: validKeys(r) };
}

function location(c: AppContext): EventLocation {
  return { baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug };
}

export const eventRoutes = new Hono<AppEnv>();
const doc = apiDocs("Events");

/** The filters of the event list (pretix docs events.rst). */
const eventFilters = queryParams({
  is_public: q.bool(),
  live: q.bool(),
  has_subevents: q.bool(),
  is_future: q.bool("date_to (or date_from) is in the future"),
  is_past: q.bool("date_to (or date_from) is in the past"),
  ends_after: q.dateTime(),
  sales_channel: q.string(),
  search: q.string("text in the name or slug"),
  attr: attrParam,
  with_availability_for: availabilityParam,
});

const eventCreateQuery = queryParams({
  clone_from: q.string("the event to copy: `<event>` of this organizer or `<organizer>/<event>`", { keepEmpty: true }),
});
const base = "/organizers/:organizer/events";

eventRoutes.get(
  base,
  organizerScope("event:read"),
  doc.list(eventListResponse, { summary: "List events", ordering: EVENT_ORDERING, failures: ["unavailable"] }),
  eventFilters,
  async (c) => {
    const req = listRequest(c);
    const ctx = organizerContext(c);
    const f = c.req.valid("query");
    const filter = {
      isPublic: f.is_public,
      live: f.live,
      hasSubevents: f.has_subevents,
      isFuture: f.is_future,
      isPast: f.is_past,
      endsAfter: f.ends_after,
      salesChannel: f.sales_channel,
      search: f.search,
      attrs: await attrFilters(ctx, f.attr),
      now: ctx.now,
    };
    const channel = f.with_availability_for;
    const page = await listEvents(ctx, c.var.principal, filter, req);
    const at = location(c);
    const serialize = await withAvailability(
      ctx,
      page.rows,
      channel,
      (r) => ({ eventId: r.event.id, subeventId: null, series: r.event.hasSubevents }),
      (r) => serializeEvent(at, r),
    );
    return respondPage(c, req, page, (r): z.infer<typeof eventListResponse> => serialize(r));
  },
);

eventRoutes.get(
  `${base}/:event`,
  eventScope("event:read"),
  doc.ok(eventDetailResponse, { summary: "Event detail" }),
  async (c) => {
    const record = await findEvent(organizerContext(c), c.var.event.id);
    return c.json(serializeEventDetail(location(c), record!));
  },
);

eventRoutes.post(
  base,
  organizerScope("can_create_events"),
  doc.created(eventDetailResponse, {
    summary: "Create an event",
    description: "With `clone_from`, a copy of that event's settings, products and quotas.",
  }),
  eventCreateQuery,
  jsonBody(eventCreateInput),
  async (c) => {
    const created = await createEvent(
      organizerContext(c),
      c.var.principal,
      c.req.valid("json"),
      c.req.valid("query").clone_from,
    );
    return c.json(serializeEventDetail(location(c), created), 201);
  },
);

/** The source is the event of the path (same organizer only; the scope checks access to it). */
eventRoutes.post(
  `${base}/:event/clone`,
  eventScope("can_create_events"),
  doc.created(eventDetailResponse, { summary: "Create an event as a copy of this one" }),
  jsonBody(eventCreateInput),
  async (c) => {
    const created = await cloneEvent(eventContext(c), c.var.principal, c.req.valid("json"));
    return c.json(serializeEventDetail(location(c), created), 201);
  },
);

eventRoutes.patch(
  `${base}/:event`,
  eventScope("can_change_event_settings"),
  doc.ok(eventDetailResponse, { summary: "Change an event" }),
  jsonBody(eventPatchInput),
  async (c) => {
    const changed = await changeEvent(eventContext(c), c.var.principal, c.req.valid("json"));
    return c.json(serializeEventDetail(location(c), changed));
  },
);

eventRoutes.delete(
  `${base}/:event`,
  eventScope("can_change_event_settings"),
  doc.noContent({ summary: "Delete an event", description: "Only an event without orders (403 otherwise)." }),
  async (c) => {
    await deleteEvent(eventContext(c));
    return c.body(null, 204);
  },
);
