/**
 * Creating, cloning, changing and deleting events (docs/api.md; pretix docs
 * events.rst): the request schemas, the defaults of a new event (and what a clone takes from
 * its source), the checks of related objects, the conditions for going live, and the
 * protection of events with orders. Routes parse, call these and serialize.
 */
import { z } from "zod";
import { isForeignKeyError, isUniqueError } from "../../db/constraints";
import { insertEventClone } from "../../db/event-clone";
import {
  accessibleEventBySlug,
  deleteEventWithoutOrders,
  eventHasOrders,
  eventMetaState,
  eventSlugTaken,
  type EventRecord,
  type EventValues,
  type EventWithMeta,
  findEvent,
  insertEvent,
  liveFacts,
  SLUG_UNIQUE,
  updateEvent,
} from "../../db/events";
import { log } from "../../lib/log";
import { eventObject } from "../../objects/client";
import type { EventContext, OrganizerContext } from "../context";
import {
  checkDateOrder,
  checkMetaData,
  checkSeatCategoryMapping,
  checkSeatingPlan,
  coordinate,
  idInput,
  metaDataInput,
  type MetaValues,
  seatCategoryMappingInput,
} from "./event-common";
import { DEFAULT_PLUGINS, DEFAULT_SALES_CHANNELS, liveIssues, PLUGINS, SALES_CHANNELS } from "../../rules/events";
import { fieldError, inUse, Problems } from "../../lib/failure";
import { currency, dateTime, i18n, i18nRequired, slug, timezone } from "../../rules/fields";
import type { Principal } from "../../rules/permissions";
import { prepareSigningKeyOfCopy } from "../tickets/ticket-secrets";

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

/** The body of POST .../events/ and .../events/{event}/clone/: name, slug and date_from required. */
export const eventCreateInput = eventFields.partial().required({ name: true, slug: true, date_from: true });
export type EventCreateInput = z.output<typeof eventCreateInput>;

/** The body of PATCH .../events/{event}/. */
export const eventPatchInput = eventFields.partial();
export type EventPatchInput = z.output<typeof eventPatchInput>;

const SLUG_TAKEN = "This slug has already been used for a different event.";

/** pretix's answer when the source of `clone_from` is not an event the caller may access. */
const CLONE_SOURCE_NOT_FOUND = "Event to copy from was not found.";

const SERIES_SEATING_PLAN = "Event series should not directly be assigned a seating plan.";

function checkPlugins(plugins: string[] | undefined, problems: Problems) {
  for (const p of plugins ?? []) if (!Object.hasOwn(PLUGINS, p)) problems.add("plugins", `Unknown plugin: '${p}'.`);
}

function checkSalesChannels(channels: string[] | undefined, problems: Problems) {
  if (!channels) return;
  for (const ch of channels)
    if (!Object.hasOwn(SALES_CHANNELS, ch)) problems.add("sales_channels", `Unknown sales channel: '${ch}'.`);
  if (new Set(channels).size !== channels.length)
    problems.add("sales_channels", "Each sales channel may only be listed once.");
}

/** A token's team, when the team is limited to some events (the event it creates joins its list). */
function teamToExtend(by: Principal): number | null {
  return by.kind === "token" && !by.allEvents && by.teamId !== null ? by.teamId : null;
}

/** Runs an event write; the slug taken meanwhile (the unique violation of organizer and slug) is a field error. */
async function slugRace<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueError(err, SLUG_UNIQUE)) throw fieldError("slug", SLUG_TAKEN);
    throw err;
  }
}

/** Input fields → columns (only the fields present). */
function eventValues(input: EventPatchInput): Partial<EventValues> {
  const v: Partial<EventValues> = {};
  if (input.name !== undefined) v.name = input.name;
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

/**
 * The columns of a new event: the body's fields with creation defaults; with a source (a
 * clone), fields the body leaves out that the copy covers come from the source: `is_public`,
 * `testmode`, `has_subevents`, `plugins` (docs/api.md), the `timezone` (a setting in pretix),
 * `sales_channels`, `item_meta_properties` (the copied items' meta data refer to them), the
 * seating plan (not for a series) and `date_admission` at the same distance from the new
 * `date_from` as in the source (as pretix copies it).
 */
function newEventValues(input: EventCreateInput, source: EventRecord | null, now: number): EventValues {
  const hasSubevents = input.has_subevents ?? source?.hasSubevents ?? false;
  let dateAdmission = input.date_admission ?? null;
  if (input.date_admission === undefined && source?.dateAdmission != null)
    dateAdmission = input.date_from + (source.dateAdmission - source.dateFrom);
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
 * The source named by `clone_from`: `<event>` of this organizer or `<organizer>/<event>`. A
 * token belongs to one organizer, so an event of another organizer is never found; neither is
 * one the caller's team cannot access. Both answer as a missing event does.
 */
async function cloneFromSource(ctx: OrganizerContext, by: Principal, value: string): Promise<EventRecord | undefined> {
  const parts = value.split("/");
  if (parts.length > 2) return undefined;
  const [orgSlug, eventSlug] = parts.length === 2 ? [parts[0]!, parts[1]!] : [ctx.organizer.slug, parts[0]!];
  if (orgSlug !== ctx.organizer.slug || eventSlug === "") return undefined;
  return accessibleEventBySlug(ctx.db, ctx.organizer.id, by, eventSlug);
}

/**
 * Creates an event from the body, as a clone of `source` when given (see db/event-clone.ts
 * for what is copied). `problems` may already hold problems of the request (`clone_from`).
 * Returns the new event as read back.
 */
async function createNewEvent(
  ctx: OrganizerContext,
  by: Principal,
  input: EventCreateInput,
  source: EventRecord | null,
  problems: Problems,
) {
  const db = ctx.db;
  const org = ctx.organizer;
  if (input.live === true) {
    problems.add(
      "live",
      "Events cannot be created as 'live'. Quotas and payment must be added to the event before sales can go live.",
    );
  }
  checkDateOrder(
    {
      date_from: input.date_from,
      date_to: input.date_to ?? null,
      presale_start: input.presale_start ?? null,
      presale_end: input.presale_end ?? null,
    },
    problems,
  );
  checkPlugins(input.plugins, problems);
  checkSalesChannels(input.sales_channels, problems);
  if (input.seat_category_mapping && Object.keys(input.seat_category_mapping).length > 0) {
    problems.add("seat_category_mapping", "You cannot specify seat category mappings on event creation.");
  }
  if ((input.has_subevents ?? source?.hasSubevents) && input.seating_plan != null)
    problems.add("seating_plan", SERIES_SEATING_PLAN);
  await checkSeatingPlan(ctx, input.seating_plan, problems);
  // a clone copies the source's meta data unless the body sets its own (as pretix does)
  const meta =
    input.meta_data !== undefined || !source ? await checkMetaData(ctx, by, input.meta_data ?? {}, {}, problems) : null;
  if (!problems.has("slug") && (await eventSlugTaken(db, org.id, input.slug))) problems.add("slug", SLUG_TAKEN);
  problems.throwIfAny();

  const values = newEventValues(input, source, ctx.now);
  const addToTeam = teamToExtend(by);
  const id = await slugRace(() =>
    source
      ? insertEventClone(db, org.id, values, {
          sourceId: source.id,
          meta,
          copySeatCategoryMapping: input.seating_plan === undefined && values.seatingPlanId !== null,
          addToTeam,
          now: ctx.now,
        })
      : insertEvent(db, org.id, values, meta ?? [], addToTeam),
  );
  if (source) await prepareSigningKeyOfCopy(ctx.env, db, org.id, id, ctx.now);
  return (await findEvent(db, org.id, id))!;
}

/**
 * Creates an event (POST .../events/); with `cloneFrom` (the `clone_from` query parameter,
 * `<event>` or `<organizer>/<event>`) as a copy of that event.
 */
export async function createEvent(
  ctx: OrganizerContext,
  by: Principal,
  input: EventCreateInput,
  cloneFrom?: string,
): Promise<EventWithMeta> {
  const problems = new Problems();
  let source: EventRecord | null = null;
  if (cloneFrom !== undefined) {
    source = (await cloneFromSource(ctx, by, cloneFrom)) ?? null;
    if (!source) problems.add("clone_from", CLONE_SOURCE_NOT_FOUND);
  }
  return createNewEvent(ctx, by, input, source, problems);
}

/** Creates a copy of the context's event (POST .../events/{event}/clone/; same organizer only). */
export async function cloneEvent(ctx: EventContext, by: Principal, input: EventCreateInput): Promise<EventWithMeta> {
  return createNewEvent(ctx, by, input, ctx.event, new Problems());
}

/**
 * Changes the event (PATCH): the slug and the series flag are fixed, dates in order, plugins
 * and sales channels known, the seating plan the organizer's (none for a series), mapped
 * items the event's, the currency fixed once orders exist, meta data valid, and going live
 * only when nothing stands against it (pretix's live_issues). Returns the event as read back.
 */
export async function changeEvent(ctx: EventContext, by: Principal, input: EventPatchInput): Promise<EventWithMeta> {
  const db = ctx.db;
  const org = ctx.organizer;
  const ev = ctx.event;
  const problems = new Problems();

  if (input.slug !== undefined && input.slug !== ev.slug)
    problems.add("slug", "The slug of an event cannot be changed.");
  if (input.has_subevents !== undefined && input.has_subevents !== ev.hasSubevents) {
    problems.add("has_subevents", "Once created an event cannot change between an series and a single event.");
  }
  checkDateOrder(
    {
      date_from: input.date_from ?? ev.dateFrom,
      date_to: input.date_to !== undefined ? input.date_to : ev.dateTo,
      presale_start: input.presale_start !== undefined ? input.presale_start : ev.presaleStart,
      presale_end: input.presale_end !== undefined ? input.presale_end : ev.presaleEnd,
    },
    problems,
  );
  checkPlugins(input.plugins, problems);
  checkSalesChannels(input.sales_channels, problems);
  if (ev.hasSubevents && input.seating_plan != null) problems.add("seating_plan", SERIES_SEATING_PLAN);
  if (input.seating_plan !== ev.seatingPlanId) await checkSeatingPlan(ctx, input.seating_plan, problems);
  await checkSeatCategoryMapping(ctx, ev.id, input.seat_category_mapping, problems);
  if (input.currency !== undefined && input.currency !== ev.currency && (await eventHasOrders(db, ev.id))) {
    problems.add("currency", "The currency cannot be changed once the event has orders.");
  }

  const { properties, current: currentMeta } = await eventMetaState(db, org.id, ev.id);
  let meta: MetaValues | undefined;
  if (input.meta_data !== undefined)
    meta = await checkMetaData(ctx, by, input.meta_data, currentMeta, problems, properties);

  if (input.live === true && !ev.live && !problems.has()) {
    const facts = await liveFacts(db, ev.id);
    const issues = liveIssues({
      ...facts,
      plugins: input.plugins ?? ev.plugins,
      properties,
      metaData: input.meta_data ?? currentMeta,
    });
    for (const issue of issues) problems.add("live", issue);
  }
  problems.throwIfAny();

  await updateEvent(db, org.id, ev.id, { ...eventValues(input), lastModified: ctx.now }, meta);
  return (await findEvent(db, org.id, ev.id))!;
}

/**
 * Deletes the event unless it has orders (or other data of the organizer still refers to
 * it), then lets the event object forget the event's holds (carts) and state.
 */
export async function deleteEvent(ctx: EventContext): Promise<void> {
  let deleted: boolean;
  try {
    deleted = await deleteEventWithoutOrders(ctx.db, ctx.organizer.id, ctx.event.id);
  } catch (err) {
    if (!isForeignKeyError(err)) throw err;
    throw inUse("The event can not be deleted as other data of the organizer still refers to it.");
  }
  if (!deleted) {
    throw inUse(
      "The event can not be deleted as it already contains orders. Please set 'live' to false to hide the event and take the shop offline instead.",
    );
  }
  // one door: the event object forgets the event's holds (carts) and state
  try {
    await eventObject(ctx.env, ctx.event.id).eventDeleted();
  } catch (e) {
    log.error("event deleted, but its event object could not be cleared", { event_id: ctx.event.id, error: e });
  }
}
