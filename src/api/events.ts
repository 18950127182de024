/**
 * Events (spec "Event", "Endpoints › Events"; pretix docs events.rst): list with filters,
 * detail with `valid_keys`, create (also as a clone: `clone_from`, `.../clone/`), PATCH, DELETE.
 * `with_availability_for` adds `best_availability_state` (computed in api/availability.ts).
 */
import { Hono } from "hono";
import { eventObject } from "../objects/client";
import { availabilityChannel, bestAvailability, targetKey } from "./availability";
import { z } from "zod";
import { isForeignKeyError } from "../db/constraints";
import { cloneEvent } from "../db/event-clone";
import {
  accessibleEventBySlug,
  createEvent,
  deleteEventWithoutOrders,
  eventCount,
  eventHasOrders,
  eventMetaState,
  eventPage,
  eventSlugTaken,
  type EventRecord,
  type EventValues,
  type EventWithMeta,
  findEvent,
  liveFacts,
  teamToExtend,
  updateEvent,
} from "../db/events";
import { events } from "../db/schema";
import {
  DEFAULT_PLUGINS,
  DEFAULT_SALES_CHANNELS,
  liveIssues,
  PLUGINS,
  SALES_CHANNELS,
} from "../domain/events";
import { toIso } from "../lib/datetime";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, fieldError, forbidden } from "../domain/failure";
import { currency, dateTime, i18n, i18nRequired, slug, timezone } from "../domain/fields";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope, organizerScope } from "../http/tenancy";
import { eventPublicUrl } from "../domain/urls";
import { publicBase } from "../http/urls";
import { jsonBody, queryBool, queryDateTime, queryString } from "../http/validation";
import {
  attrFilters,
  checkDateOrder,
  checkMetaData,
  checkSeatCategoryMapping,
  checkSeatingPlan,
  coordinate,
  idInput,
  metaDataInput,
  parseMeta,
  seatCategoryMappingInput,
} from "./events-common";

/**
 * Ticket secrets of this service are random strings, not signed: there is no key scheme whose
 * public keys a scanner could use offline, so `valid_keys` is an empty object.
 */
const VALID_KEYS: Record<string, string[]> = {};

export function serializeEvent(c: AppContext, { event: e, metaData }: EventWithMeta, detail: boolean) {
  const out: Record<string, unknown> = {
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
    public_url: eventPublicUrl(publicBase(c), c.var.organizer.slug, e.slug),
  };
  if (detail) out.valid_keys = VALID_KEYS;
  return out;
}

const eventFields = z.object({
  name: i18nRequired(),
  slug: slug(),
  live: z.boolean(),
  testmode: z.boolean(),
  currency: currency(),
  date_from: dateTime(),
  date_to: dateTime().nullable(),
  date_admission: dateTime().nullable(),
  is_public: z.boolean(),
  presale_start: dateTime().nullable(),
  presale_end: dateTime().nullable(),
  location: i18n().nullable(),
  geo_lat: coordinate(90).nullable(),
  geo_lon: coordinate(180).nullable(),
  has_subevents: z.boolean(),
  meta_data: metaDataInput(),
  plugins: z.array(z.string()),
  seating_plan: idInput().nullable(),
  seat_category_mapping: seatCategoryMappingInput(),
  timezone: timezone(),
  item_meta_properties: z.record(z.string().min(1).max(50), z.string().max(2000)),
  sales_channels: z.array(z.string()),
});
type EventInput = z.output<typeof eventFields>;

const eventCreate = eventFields.partial().required({ name: true, slug: true, date_from: true });
type EventCreateInput = z.output<typeof eventCreate>;
const eventPatch = eventFields.partial();

function checkPlugins(plugins: string[] | undefined, errors: Problems) {
  for (const p of plugins ?? []) if (!Object.hasOwn(PLUGINS, p)) errors.add("plugins", `Unknown plugin: '${p}'.`);
}

function checkSalesChannels(channels: string[] | undefined, errors: Problems) {
  if (!channels) return;
  for (const ch of channels) if (!Object.hasOwn(SALES_CHANNELS, ch)) errors.add("sales_channels", `Unknown sales channel: '${ch}'.`);
  if (new Set(channels).size !== channels.length) errors.add("sales_channels", "Each sales channel may only be listed once.");
}

/** Input fields → columns (only the fields present). */
function eventValues(input: Partial<EventInput>): Partial<EventValues> {
  const v: Partial<EventValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.slug !== undefined) v.slug = input.slug;
  if (input.live !== undefined) v.live = input.live;
  if (input.testmode !== undefined) v.testmode = input.testmode;
  if (input.currency !== undefined) v.currency = input.currency;
  if (input.date_from !== undefined) v.dateFrom = input.date_from;
  if (input.date_to !== undefined) v.dateTo = input.date_to;
  if (input.date_admission !== undefined) v.dateAdmission = input.date_admission;
  if (input.is_public !== undefined) v.isPublic = input.is_public;
  if (input.presale_start !== undefined) v.presaleStart = input.presale_start;
  if (input.presale_end !== undefined) v.presaleEnd = input.presale_end;
  if (input.location !== undefined) v.location = input.location;
  if (input.geo_lat !== undefined) v.geoLat = input.geo_lat;
  if (input.geo_lon !== undefined) v.geoLon = input.geo_lon;
  if (input.has_subevents !== undefined) v.hasSubevents = input.has_subevents;
  if (input.plugins !== undefined) v.plugins = [...new Set(input.plugins)];
  if (input.seating_plan !== undefined) v.seatingPlanId = input.seating_plan;
  if (input.seat_category_mapping !== undefined) v.seatCategoryMapping = input.seat_category_mapping;
  if (input.timezone !== undefined) v.timezone = input.timezone;
  if (input.item_meta_properties !== undefined) v.itemMetaProperties = input.item_meta_properties;
  if (input.sales_channels !== undefined) v.salesChannels = input.sales_channels;
  return v;
}

export const eventRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events";

eventRoutes.get(base, organizerScope("event:read"), async (c) => {
  const page = pageRequest(c);
  const filter = {
    isPublic: queryBool(c, "is_public"),
    live: queryBool(c, "live"),
    hasSubevents: queryBool(c, "has_subevents"),
    isFuture: queryBool(c, "is_future"),
    isPast: queryBool(c, "is_past"),
    endsAfter: queryDateTime(c, "ends_after"),
    salesChannel: queryString(c, "sales_channel"),
    search: queryString(c, "search"),
    attrs: await attrFilters(c),
    now: Date.now(),
  };
  const order = ordering(c, { date_from: events.dateFrom, slug: events.slug }, "slug", events.id);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const principal = c.var.principal;
  const channel = availabilityChannel(c);
  const [[total], rows] = await db.batch([
    eventCount(db, orgId, principal, filter),
    eventPage(db, orgId, principal, filter, order, page.limit, page.offset),
  ]);
  const results = rows.map((r) => serializeEvent(c, r, false));
  if (channel !== undefined) {
    const states = await bestAvailability(c, rows.map((r) => ({ eventId: r.event.id, subeventId: null, series: r.event.hasSubevents })), channel);
    results.forEach((res, i) => Object.assign(res, { best_availability_state: states.get(targetKey({ eventId: rows[i]!.event.id, subeventId: null })) ?? null }));
  }
  return c.json(envelope(c, page, total?.n ?? 0, results));
});

eventRoutes.get(`${base}/:event`, eventScope("event:read"), async (c) => {
  const record = await findEvent(c.var.db, c.var.organizer.id, c.var.event.id);
  return c.json(serializeEvent(c, record!, true));
});

const SLUG_TAKEN = "This slug has already been used for a different event.";

/** pretix's answer when the source of `clone_from` is not an event the caller may access. */
const CLONE_SOURCE_NOT_FOUND = "Event to copy from was not found.";

/**
 * The source named by `clone_from`: `<event>` of this organizer or `<organizer>/<event>`. A
 * token belongs to one organizer, so an event of another organizer is never found; neither is
 * one the caller's team cannot access. Both answer as a missing event does.
 */
async function cloneFromSource(c: AppContext, value: string): Promise<EventRecord | undefined> {
  const parts = value.split("/");
  if (parts.length > 2) return undefined;
  const [orgSlug, eventSlug] = parts.length === 2 ? [parts[0]!, parts[1]!] : [c.var.organizer.slug, parts[0]!];
  if (orgSlug !== c.var.organizer.slug || eventSlug === "") return undefined;
  return accessibleEventBySlug(c.var.db, c.var.organizer.id, c.var.principal, eventSlug);
}

/**
 * The columns of a new event: the body's fields with creation defaults; with a source (a
 * clone), fields the body leaves out that the copy covers come from the source: `is_public`,
 * `testmode`, `has_subevents`, `plugins` (spec), the `timezone` (a setting in pretix),
 * `sales_channels`, `item_meta_properties` (the copied items' meta data refer to them), the
 * seating plan (not for a series) and `date_admission` at the same distance from the new
 * `date_from` as in the source (as pretix copies it).
 */
function newEventValues(input: EventCreateInput, source: EventRecord | null, now: number): EventValues {
  const hasSubevents = input.has_subevents ?? source?.hasSubevents ?? false;
  let dateAdmission = input.date_admission ?? null;
  if (input.date_admission === undefined && source?.dateAdmission != null) dateAdmission = input.date_from + (source.dateAdmission - source.dateFrom);
  let seatingPlanId = input.seating_plan ?? null;
  if (input.seating_plan === undefined && source && !hasSubevents) seatingPlanId = source.seatingPlanId;
  return {
    name: input.name,
    slug: input.slug,
    live: false,
    testmode: input.testmode ?? source?.testmode ?? false,
    currency: input.currency ?? "EUR",
    dateFrom: input.date_from,
    dateTo: input.date_to ?? null,
    dateAdmission,
    isPublic: input.is_public ?? source?.isPublic ?? true,
    presaleStart: input.presale_start ?? null,
    presaleEnd: input.presale_end ?? null,
    location: input.location ?? null,
    geoLat: input.geo_lat ?? null,
    geoLon: input.geo_lon ?? null,
    hasSubevents,
    plugins: input.plugins ? [...new Set(input.plugins)] : source ? [...source.plugins] : [...DEFAULT_PLUGINS],
    seatingPlanId,
    seatCategoryMapping: {},
    timezone: input.timezone ?? source?.timezone ?? "UTC",
    itemMetaProperties: input.item_meta_properties ?? source?.itemMetaProperties ?? {},
    salesChannels: input.sales_channels ?? (source ? [...source.salesChannels] : [...DEFAULT_SALES_CHANNELS]),
    createdAt: now,
    lastModified: now,
  };
}

/**
 * Creates an event from the body, as a clone of `source` when given (see db/event-clone.ts
 * for what is copied). `errors` may already hold errors of the request (e.g. `clone_from`).
 */
async function createNewEvent(c: AppContext, input: EventCreateInput, source: EventRecord | null, errors: Problems) {
  const db = c.var.db;
  const org = c.var.organizer;
  if (input.live === true) {
    errors.add("live", "Events cannot be created as 'live'. Quotas and payment must be added to the event before sales can go live.");
  }
  checkDateOrder(
    { date_from: input.date_from, date_to: input.date_to ?? null, presale_start: input.presale_start ?? null, presale_end: input.presale_end ?? null },
    errors,
  );
  checkPlugins(input.plugins, errors);
  checkSalesChannels(input.sales_channels, errors);
  if (input.seat_category_mapping && Object.keys(input.seat_category_mapping).length > 0) {
    errors.add("seat_category_mapping", "You cannot specify seat category mappings on event creation.");
  }
  if ((input.has_subevents ?? source?.hasSubevents) && input.seating_plan != null) {
    errors.add("seating_plan", "Event series should not directly be assigned a seating plan.");
  }
  await checkSeatingPlan(c, input.seating_plan, errors);
  // a clone copies the source's meta data unless the body sets its own (as pretix does)
  const meta = input.meta_data !== undefined || !source ? await checkMetaData(c, input.meta_data ?? {}, {}, errors) : null;
  if (!errors.has("slug") && (await eventSlugTaken(db, org.id, input.slug))) {
    errors.add("slug", SLUG_TAKEN);
  }
  errors.throwIfAny();

  const now = Date.now();
  const values = newEventValues(input, source, now);
  const addToTeam = teamToExtend(c.var.principal);
  const id = source
    ? await cloneEvent(db, org.id, values, {
        sourceId: source.id,
        meta,
        copySeatCategoryMapping: input.seating_plan === undefined && values.seatingPlanId !== null,
        addToTeam,
        now,
      })
    : await createEvent(db, org.id, values, meta ?? [], addToTeam);
  if (id === null) throw fieldError("slug", SLUG_TAKEN);
  return c.json(serializeEvent(c, (await findEvent(db, org.id, id))!, true), 201);
}

eventRoutes.post(base, organizerScope("can_create_events"), jsonBody(eventCreate), async (c) => {
  const errors = new Problems();
  const cloneFrom = c.req.query("clone_from");
  let source: EventRecord | null = null;
  if (cloneFrom !== undefined) {
    source = (await cloneFromSource(c, cloneFrom)) ?? null;
    if (!source) errors.add("clone_from", CLONE_SOURCE_NOT_FOUND);
  }
  return createNewEvent(c, c.req.valid("json"), source, errors);
});

/** The source is the event of the path (same organizer only; the scope checks access to it). */
eventRoutes.post(`${base}/:event/clone`, eventScope("can_create_events"), jsonBody(eventCreate), async (c) =>
  createNewEvent(c, c.req.valid("json"), c.var.event, new Problems()),
);

eventRoutes.patch(`${base}/:event`, eventScope("can_change_event_settings"), jsonBody(eventPatch), async (c) => {
  const input = c.req.valid("json");
  const db = c.var.db;
  const org = c.var.organizer;
  const ev = c.var.event;
  const errors = new Problems();

  if (input.slug !== undefined && input.slug !== ev.slug) errors.add("slug", "The slug of an event cannot be changed.");
  if (input.has_subevents !== undefined && input.has_subevents !== ev.hasSubevents) {
    errors.add("has_subevents", "Once created an event cannot change between an series and a single event.");
  }
  checkDateOrder(
    {
      date_from: input.date_from ?? ev.dateFrom,
      date_to: input.date_to !== undefined ? input.date_to : ev.dateTo,
      presale_start: input.presale_start !== undefined ? input.presale_start : ev.presaleStart,
      presale_end: input.presale_end !== undefined ? input.presale_end : ev.presaleEnd,
    },
    errors,
  );
  checkPlugins(input.plugins, errors);
  checkSalesChannels(input.sales_channels, errors);
  if (ev.hasSubevents && input.seating_plan != null) {
    errors.add("seating_plan", "Event series should not directly be assigned a seating plan.");
  }
  if (input.seating_plan !== ev.seatingPlanId) await checkSeatingPlan(c, input.seating_plan, errors);
  await checkSeatCategoryMapping(c, ev.id, input.seat_category_mapping, errors);
  if (input.currency !== undefined && input.currency !== ev.currency && (await eventHasOrders(db, ev.id))) {
    errors.add("currency", "The currency cannot be changed once the event has orders.");
  }

  const { properties, current: currentMeta } = await eventMetaState(db, org.id, ev.id);
  let meta: { propertyId: number; value: string }[] | undefined;
  if (input.meta_data !== undefined) meta = await checkMetaData(c, input.meta_data, currentMeta, errors, properties);

  if (input.live === true && !ev.live && !errors.has()) {
    const facts = await liveFacts(db, ev.id);
    const issues = liveIssues({
      ...facts,
      plugins: input.plugins ?? ev.plugins,
      properties,
      metaData: input.meta_data ?? currentMeta,
    });
    for (const issue of issues) errors.add("live", issue);
  }
  errors.throwIfAny();

  const values = eventValues(input);
  delete values.slug;
  await updateEvent(db, org.id, ev.id, { ...values, lastModified: Date.now() }, meta);
  return c.json(serializeEvent(c, (await findEvent(db, org.id, ev.id))!, true));
});

eventRoutes.delete(`${base}/:event`, eventScope("can_change_event_settings"), async (c) => {
  let deleted: boolean;
  try {
    deleted = await deleteEventWithoutOrders(c.var.db, c.var.organizer.id, c.var.event.id);
  } catch (err) {
    if (!isForeignKeyError(err)) throw err;
    throw forbidden("The event can not be deleted as other data of the organizer still refers to it.");
  }
  if (!deleted) {
    throw forbidden(
      "The event can not be deleted as it already contains orders. Please set 'live' to false to hide the event and take the shop offline instead.",
    );
  }
  // one door: the event object forgets the event's holds (carts) and state
  try {
    await eventObject(c.env, c.var.event.id).eventDeleted();
  } catch (e) {
    console.error(`event ${c.var.event.id} deleted, but its event object could not be cleared`, e);
  }
  return c.body(null, 204);
});
