/**
 * Sub-events, the dates of an event series (spec "Sub-event", "Endpoints › Sub-events";
 * pretix docs subevents.rst): list with filters and list-level conditional fetching, CRUD with
 * item and variation overrides and meta data, and the organizer-level list across all series.
 * `with_availability_for` adds `best_availability_state` (computed in api/availability.ts).
 */
import { Hono } from "hono";
import { availabilityChannel, bestAvailability, targetKey } from "./availability";
import { z } from "zod";
import { lastChangeQuery, eventScopeKey } from "../db/changes";
import { isForeignKeyError } from "../db/constraints";
import { existingItemIds } from "../db/catalog-common";
import { variationsOfEvent } from "../db/items";
import { subevents } from "../db/schema";
import {
  createSubevent,
  deleteSubevent,
  findSubevent,
  type ItemOverride,
  organizerSubeventCount,
  organizerSubeventPage,
  subeventCount,
  subeventMetaState,
  type SubeventFilter,
  subeventPage,
  type SubeventValues,
  type SubeventWithDetails,
  SUBEVENTS_RESOURCE,
  updateSubevent,
  type VariationOverride,
} from "../db/subevents";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";
import { notModified, setPageGenerated } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, forbidden, nonFieldError, notFound } from "../domain/failure";
import { dateTime, decimal, i18n, i18nRequired } from "../domain/fields";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope, organizerScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryDateTime, queryString } from "../http/validation";
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

type StoredOverride = { price: number | null; disabled: number; available_from: number | null; available_until: number | null };

function overrideOut(o: StoredOverride) {
  return {
    price: formatMoney(o.price),
    disabled: Boolean(o.disabled),
    available_from: toIso(o.available_from),
    available_until: toIso(o.available_until),
  };
}

export function serializeSubevent(r: SubeventWithDetails) {
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

const MAX_PRICE = 99_999_999_999_99;

const overrideFields = {
  price: decimal({ min: 0, max: MAX_PRICE }).nullable().optional(),
  disabled: z.boolean().optional(),
  available_from: dateTime().nullable().optional(),
  available_until: dateTime().nullable().optional(),
};

const subeventFields = z.object({
  name: i18nRequired(),
  active: z.boolean(),
  is_public: z.boolean(),
  date_from: dateTime(),
  date_to: dateTime().nullable(),
  date_admission: dateTime().nullable(),
  presale_start: dateTime().nullable(),
  presale_end: dateTime().nullable(),
  frontpage_text: i18n().nullable(),
  location: i18n().nullable(),
  geo_lat: coordinate(90).nullable(),
  geo_lon: coordinate(180).nullable(),
  item_price_overrides: z.array(z.object({ item: idInput(), ...overrideFields })),
  variation_price_overrides: z.array(z.object({ variation: idInput(), ...overrideFields })),
  meta_data: metaDataInput(),
  seating_plan: idInput().nullable(),
  seat_category_mapping: seatCategoryMappingInput(),
});
type SubeventInput = z.output<typeof subeventFields>;

/** POST and PUT: name and date_from required; omitted fields reset to their defaults. */
const subeventFull = subeventFields.partial().required({ name: true, date_from: true });
const subeventPatch = subeventFields.partial();

type OverrideInput = { price?: number | null; disabled?: boolean; available_from?: number | null; available_until?: number | null };

function override(o: OverrideInput) {
  return { price: o.price ?? null, disabled: o.disabled ?? false, availableFrom: o.available_from ?? null, availableUntil: o.available_until ?? null };
}

function checkOverrideWindows(field: string, list: OverrideInput[] | undefined, errors: Problems) {
  for (const o of list ?? []) {
    if (o.available_from != null && o.available_until != null && o.available_until < o.available_from) {
      errors.add(field, "available_until has to be later than available_from.");
      return;
    }
  }
}

/** Input → columns; `full` resets omitted fields (POST, PUT). */
function subeventValues(input: Partial<SubeventInput>, full: boolean): Partial<SubeventValues> {
  const v: Partial<SubeventValues> = {};
  const pick = <K extends keyof SubeventInput, C extends keyof SubeventValues>(key: K, col: C, def: SubeventValues[C]) => {
    if (input[key] !== undefined) (v as Record<string, unknown>)[col] = input[key];
    else if (full) v[col] = def;
  };
  if (input.name !== undefined) v.name = input.name;
  if (input.date_from !== undefined) v.dateFrom = input.date_from;
  pick("active", "active", false);
  pick("is_public", "isPublic", true);
  pick("date_to", "dateTo", null);
  pick("date_admission", "dateAdmission", null);
  pick("presale_start", "presaleStart", null);
  pick("presale_end", "presaleEnd", null);
  pick("frontpage_text", "frontpageText", null);
  pick("location", "location", null);
  pick("geo_lat", "geoLat", null);
  pick("geo_lon", "geoLon", null);
  pick("seating_plan", "seatingPlanId", null);
  pick("seat_category_mapping", "seatCategoryMapping", {});
  return v;
}

/**
 * Validates a write (create, PUT, PATCH) against the event and the stored date; returns the
 * children (overrides, meta values) to replace.
 */
async function checkSubevent(c: AppContext, input: Partial<SubeventInput>, full: boolean, current: SubeventWithDetails | null) {
  const ev = c.var.event;
  const db = c.var.db;
  const errors = new Problems();
  const s = current?.subevent;
  const pickDate = (v: number | null | undefined, old: number | null | undefined) => (v !== undefined ? v : full ? null : (old ?? null));
  checkDateOrder(
    {
      date_from: input.date_from ?? s!.dateFrom,
      date_to: pickDate(input.date_to, s?.dateTo),
      presale_start: pickDate(input.presale_start, s?.presaleStart),
      presale_end: pickDate(input.presale_end, s?.presaleEnd),
    },
    errors,
  );

  let items: ItemOverride[] | undefined;
  if (input.item_price_overrides !== undefined || full) {
    const list = input.item_price_overrides ?? [];
    const ids = list.map((o) => o.item);
    if (new Set(ids).size !== ids.length) errors.add("item_price_overrides", "Each item may only be listed once.");
    const found = ids.length ? await existingItemIds(db, ev.id, ids) : new Set<number>();
    if (ids.some((id) => !found.has(id))) errors.add("item_price_overrides", "One or more items do not belong to this event.");
    checkOverrideWindows("item_price_overrides", list, errors);
    items = list.map((o) => ({ item: o.item, ...override(o) }));
  }
  let variations: VariationOverride[] | undefined;
  if (input.variation_price_overrides !== undefined || full) {
    const list = input.variation_price_overrides ?? [];
    const ids = list.map((o) => o.variation);
    if (new Set(ids).size !== ids.length) errors.add("variation_price_overrides", "Each variation may only be listed once.");
    const found = ids.length ? await variationsOfEvent(db, ev.id, ids) : new Map<number, unknown>();
    if (ids.some((id) => !found.has(id))) errors.add("variation_price_overrides", "One or more variations do not belong to this event.");
    checkOverrideWindows("variation_price_overrides", list, errors);
    variations = list.map((o) => ({ variation: o.variation, ...override(o) }));
  }

  if (input.seating_plan !== undefined && input.seating_plan !== s?.seatingPlanId) await checkSeatingPlan(c, input.seating_plan, errors);
  await checkSeatCategoryMapping(c, ev.id, input.seat_category_mapping, errors);

  let meta: { propertyId: number; value: string }[] | undefined;
  if (input.meta_data !== undefined || full) {
    const state = s ? await subeventMetaState(db, c.var.organizer.id, s.id) : undefined;
    meta = await checkMetaData(c, input.meta_data ?? {}, state?.current ?? {}, errors, state?.properties);
  }
  errors.throwIfAny();
  return { items, variations, meta };
}

async function loadSubevent(c: AppContext): Promise<SubeventWithDetails> {
  const row = await findSubevent(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!row) throw notFound();
  return row;
}

function subeventFilter(c: AppContext, attrs: SubeventFilter["attrs"]): SubeventFilter {
  return {
    active: queryBool(c, "active"),
    isFuture: queryBool(c, "is_future"),
    isPast: queryBool(c, "is_past"),
    endsAfter: queryDateTime(c, "ends_after"),
    attrs,
    now: Date.now(),
  };
}

const orderFields = { date_from: subevents.dateFrom, id: subevents.id, last_modified: subevents.lastModified };

export const subeventRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/subevents";

subeventRoutes.get(base, eventScope(null), async (c) => {
  const page = pageRequest(c);
  const filter: SubeventFilter = {
    ...subeventFilter(c, await attrFilters(c)),
    search: queryString(c, "search"),
    modifiedSince: queryDateTime(c, "modified_since"),
  };
  const order = ordering(c, orderFields, "date_from", subevents.id);
  const db = c.var.db;
  const eventId = c.var.event.id;
  // the server time before reading: a client passes it back as modified_since
  setPageGenerated(c, Date.now());
  const [stamp, [total], rows] = await db.batch([
    lastChangeQuery(db, eventScopeKey(eventId), SUBEVENTS_RESOURCE),
    subeventCount(db, eventId, filter),
    subeventPage(db, eventId, filter, order, page.limit, page.offset),
  ]);
  const channel = availabilityChannel(c);
  const unchanged = channel === undefined ? notModified(c, stamp[0]?.modifiedAt) : null;
  if (unchanged) return unchanged;
  return c.json(envelope(c, page, total?.n ?? 0, await withAvailability(c, rows, channel)));
});

subeventRoutes.get(`${base}/:id`, eventScope(null), async (c) => c.json(serializeSubevent(await loadSubevent(c))));

subeventRoutes.post(base, eventScope("can_create_events"), jsonBody(subeventFull), async (c) => {
  const ev = c.var.event;
  if (!ev.hasSubevents) {
    throw nonFieldError("This event is not an event series (has_subevents is false); sub-events can only be created for event series.");
  }
  const input = c.req.valid("json");
  const children = await checkSubevent(c, input, true, null);
  const values = { ...subeventValues(input, true), lastModified: Date.now() } as SubeventValues;
  const id = await createSubevent(c.var.db, ev.id, values, children);
  return c.json(serializeSubevent((await findSubevent(c.var.db, ev.id, id))!), 201);
});

async function changeSubevent(c: AppContext, input: Partial<SubeventInput>, full: boolean) {
  const current = await loadSubevent(c);
  const children = await checkSubevent(c, input, full, current);
  const values = { ...subeventValues(input, full), lastModified: Date.now() };
  await updateSubevent(c.var.db, c.var.event.id, current.subevent.id, values, children);
  return c.json(serializeSubevent((await findSubevent(c.var.db, c.var.event.id, current.subevent.id))!));
}

const change = eventScope("can_change_event_settings");
subeventRoutes.put(`${base}/:id`, change, jsonBody(subeventFull), (c) => changeSubevent(c, c.req.valid("json"), true));
subeventRoutes.patch(`${base}/:id`, change, jsonBody(subeventPatch), (c) => changeSubevent(c, c.req.valid("json"), false));

subeventRoutes.delete(`${base}/:id`, change, async (c) => {
  const current = await loadSubevent(c);
  let deleted: boolean;
  try {
    deleted = await deleteSubevent(c.var.db, c.var.event.id, current.subevent.id);
  } catch (err) {
    if (!isForeignKeyError(err)) throw err;
    deleted = false;
  }
  if (!deleted) {
    throw forbidden("The sub-event can not be deleted as it has already been used in orders. Please set 'active' to false instead to hide it from users.");
  }
  return c.body(null, 204);
});

// ---- all dates of the organizer's series ----

subeventRoutes.get("/organizers/:organizer/subevents", organizerScope(null), async (c) => {
  const page = pageRequest(c);
  const filter: SubeventFilter = {
    ...subeventFilter(c, await attrFilters(c)),
    search: queryString(c, "search"),
    eventLive: queryBool(c, "event__live"),
    salesChannel: queryString(c, "sales_channel"),
  };
  const order = ordering(c, orderFields, "date_from", subevents.id);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const principal = c.var.principal;
  const channel = availabilityChannel(c);
  const [[total], rows] = await db.batch([
    organizerSubeventCount(db, orgId, principal, filter),
    organizerSubeventPage(db, orgId, principal, filter, order, page.limit, page.offset),
  ]);
  return c.json(envelope(c, page, total?.n ?? 0, await withAvailability(c, rows, channel)));
});

/** Serializes dates, with best_availability_state when with_availability_for was given. */
async function withAvailability(c: AppContext, rows: SubeventWithDetails[], channel: string | undefined) {
  const results = rows.map(serializeSubevent);
  if (channel === undefined) return results;
  const targets = rows.map((r) => ({ eventId: r.subevent.eventId, subeventId: r.subevent.id, series: true }));
  const states = await bestAvailability(c, targets, channel);
  return results.map((res, i) => ({ ...res, best_availability_state: states.get(targetKey(targets[i]!)) ?? null }));
}
