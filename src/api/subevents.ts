/**
 * Sub-events, the dates of an event series (docs/api.md;
 * pretix docs subevents.rst): list with filters and list-level conditional fetching, CRUD with
 * item and variation overrides and meta data (services/events/subevents.ts), and the organizer-level
 * list across all series. `with_availability_for` adds `best_availability_state`
 * (./events-availability.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  listOrganizerSubevents,
  listSubevents,
  SUBEVENT_ORDERING,
  type SubeventFilter,
  type SubeventWithDetails,
} from "../services/events/event-reads";
import type { OrganizerContext } from "../services/context";
import {
  changeSubevent,
  createSubevent,
  deleteSubevent,
  loadSubevent,
  subeventFullInput,
  subeventPatchInput,
} from "../services/events/subevents";
import { modifiedSinceParam, notModified, setPageGenerated } from "../http/conditional";
import { type AppEnv, eventContext, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, i18n, id, money } from "../http/responses";
import { eventScope, organizerScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";
import { availabilityParam, bestAvailabilityState, withAvailability } from "./events-availability";
import { attrFilters, attrParam, metaDataResponse, parseMeta, seatCategoryMappingResponse } from "./events-common";

const overrideResponse = {
  price: money().nullable(),
  disabled: z.boolean(),
  available_from: dateTime().nullable(),
  available_until: dateTime().nullable(),
};

export const subeventResponse = z
  .object({
    id: id(),
    name: i18n(),
    event: z.string(),
    active: z.boolean(),
    is_public: z.boolean(),
    date_from: dateTime(),
    date_to: dateTime().nullable(),
    date_admission: dateTime().nullable(),
    presale_start: dateTime().nullable(),
    presale_end: dateTime().nullable(),
    frontpage_text: i18n().nullable(),
    location: i18n().nullable(),
    geo_lat: z.number().nullable(),
    geo_lon: z.number().nullable(),
    item_price_overrides: z.array(z.object({ item: id(), ...overrideResponse })),
    variation_price_overrides: z.array(z.object({ variation: id(), ...overrideResponse })),
    meta_data: metaDataResponse(),
    seating_plan: id().nullable(),
    seat_category_mapping: seatCategoryMappingResponse(),
    last_modified: dateTime(),
  })
  .meta({ id: "SubEvent" });
export type SubeventResponse = z.infer<typeof subeventResponse>;

/** A date of a list; with `with_availability_for`, with `best_availability_state`. */
export const subeventListResponse = subeventResponse.extend({
  best_availability_state: bestAvailabilityState().optional(),
});

type StoredOverride = {
  price: number | null;
  disabled: number;
  available_from: number | null;
  available_until: number | null;
};

function overrideOut(o: StoredOverride) {
  return {
    price: formatMoney(o.price),
    disabled: Boolean(o.disabled),
    available_from: toIso(o.available_from),
    available_until: toIso(o.available_until),
  };
}

export function serializeSubevent(r: SubeventWithDetails): SubeventResponse {
  const s = r.subevent;
  const items = JSON.parse(r.itemOverrides ?? "[]") as (StoredOverride & { item: number })[];
  const variations = JSON.parse(r.variationOverrides ?? "[]") as (StoredOverride & { variation: number })[];
  return {
    id: s.id,
    name: s.name,
    event: r.eventSlug,
    active: s.active,
    is_public: s.isPublic,
    date_from: toIso(s.dateFrom),
    date_to: toIso(s.dateTo),
    date_admission: toIso(s.dateAdmission),
    presale_start: toIso(s.presaleStart),
    presale_end: toIso(s.presaleEnd),
    frontpage_text: s.frontpageText ?? null,
    location: s.location ?? null,
    geo_lat: s.geoLat,
    geo_lon: s.geoLon,
    item_price_overrides: items.map((o) => ({ item: o.item, ...overrideOut(o) })),
    variation_price_overrides: variations.map((o) => ({ variation: o.variation, ...overrideOut(o) })),
    meta_data: parseMeta(r.metaData),
    seating_plan: s.seatingPlanId,
    seat_category_mapping: s.seatCategoryMapping,
    last_modified: toIso(s.lastModified),
  };
}

/** The filters both date lists share (pretix docs subevents.rst). */
const dateFilters = {
  active: q.bool(),
  is_future: q.bool("date_to (or date_from) is in the future"),
  is_past: q.bool("date_to (or date_from) is in the past"),
  ends_after: q.dateTime(),
  attr: attrParam,
  search: q.string("text in the name"),
};

const subeventFilters = queryParams({
  ...dateFilters,
  modified_since: modifiedSinceParam,
  with_availability_for: availabilityParam,
});

const organizerSubeventFilters = queryParams({
  ...dateFilters,
  event__live: q.bool("the series is live"),
  sales_channel: q.string(),
  with_availability_for: availabilityParam,
});

type DateFilterValues = {
  active?: boolean;
  is_future?: boolean;
  is_past?: boolean;
  ends_after?: number;
  attr?: [string, string][];
  search?: string;
};

async function subeventFilter(ctx: OrganizerContext, f: DateFilterValues): Promise<SubeventFilter> {
  return {
    active: f.active,
    isFuture: f.is_future,
    isPast: f.is_past,
    endsAfter: f.ends_after,
    attrs: await attrFilters(ctx, f.attr),
    search: f.search,
    now: ctx.now,
  };
}

/** The serializer of a page of dates (with best_availability_state when a channel was asked for). */
function serializer(ctx: OrganizerContext, rows: SubeventWithDetails[], channel: string | undefined) {
  return withAvailability(
    ctx,
    rows,
    channel,
    (r) => ({ eventId: r.subevent.eventId, subeventId: r.subevent.id, series: true }),
    serializeSubevent,
  );
}

type SubeventListItem = z.infer<typeof subeventListResponse>;

export const subeventRoutes = new Hono<AppEnv>();
const doc = apiDocs("Sub-events");
const base = "/organizers/:organizer/events/:event/subevents";

subeventRoutes.get(
  base,
  eventScope(null),
  doc.list(subeventListResponse, {
    summary: "List an event series' dates",
    ordering: SUBEVENT_ORDERING,
    conditional: true,
    failures: ["unavailable"],
  }),
  subeventFilters,
  async (c) => {
    const req = listRequest(c);
    // the server time before reading: a client passes it back as modified_since (the reads go to the primary)
    setPageGenerated(c, Date.now());
    const ctx = eventContext(c);
    const f = c.req.valid("query");
    const filter: SubeventFilter = { ...(await subeventFilter(ctx, f)), modifiedSince: f.modified_since };
    const page = await listSubevents(ctx, filter, req);
    const channel = f.with_availability_for;
    const unchanged = channel === undefined ? notModified(c, page.lastModified) : null;
    if (unchanged) return unchanged;
    const serialize = await serializer(ctx, page.rows, channel);
    return respondPage(c, req, page, (r): SubeventListItem => serialize(r));
  },
);

subeventRoutes.get(
  `${base}/:id`,
  eventScope(null),
  doc.ok(subeventResponse, { summary: "Sub-event detail" }),
  async (c) => c.json(serializeSubevent(await loadSubevent(eventContext(c), pathId(c, "id")))),
);

subeventRoutes.post(
  base,
  eventScope("can_create_events"),
  doc.created(subeventResponse, { summary: "Create a sub-event" }),
  jsonBody(subeventFullInput),
  async (c) => {
    const created = await createSubevent(eventContext(c), c.var.principal, c.req.valid("json"));
    return c.json(serializeSubevent(created), 201);
  },
);

const change = eventScope("can_change_event_settings");

subeventRoutes.put(
  `${base}/:id`,
  change,
  doc.ok(subeventResponse, { summary: "Replace a sub-event" }),
  jsonBody(subeventFullInput),
  async (c) =>
    c.json(
      serializeSubevent(
        await changeSubevent(eventContext(c), c.var.principal, pathId(c, "id"), c.req.valid("json"), "put"),
      ),
    ),
);

subeventRoutes.patch(
  `${base}/:id`,
  change,
  doc.ok(subeventResponse, { summary: "Change a sub-event" }),
  jsonBody(subeventPatchInput),
  async (c) =>
    c.json(
      serializeSubevent(
        await changeSubevent(eventContext(c), c.var.principal, pathId(c, "id"), c.req.valid("json"), "patch"),
      ),
    ),
);

subeventRoutes.delete(
  `${base}/:id`,
  change,
  doc.noContent({
    summary: "Delete a sub-event",
    description: "Not one that was ordered (403): set `active` to false instead.",
  }),
  async (c) => {
    await deleteSubevent(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);

// ---- all dates of the organizer's series ----

subeventRoutes.get(
  "/organizers/:organizer/subevents",
  organizerScope(null),
  doc.list(subeventListResponse, {
    summary: "List the dates of all of the organizer's event series",
    ordering: SUBEVENT_ORDERING,
    failures: ["unavailable"],
  }),
  organizerSubeventFilters,
  async (c) => {
    const req = listRequest(c);
    const ctx = organizerContext(c);
    const f = c.req.valid("query");
    const filter: SubeventFilter = {
      ...(await subeventFilter(ctx, f)),
      eventLive: f.event__live,
      salesChannel: f.sales_channel,
    };
    const channel = f.with_availability_for;
    const page = await listOrganizerSubevents(ctx, c.var.principal, filter, req);
    const serialize = await serializer(ctx, page.rows, channel);
    return respondPage(c, req, page, (r): SubeventListItem => serialize(r));
  },
);
