/**
 * Sub-events, the dates of an event series (docs/api.md; pretix docs subevents.rst):
 * the request schemas, the defaults of POST and PUT and the merge of PATCH, the checks of
 * related objects (items and variations of the event, seating plan, meta properties), and the
 * protection of dates used in orders. Routes parse, call these and serialize.
 */
import { z } from "zod";
import { existingItemIds } from "../../db/catalog-common";
import { isForeignKeyError } from "../../db/constraints";
import { variationsOfEvent } from "../../db/catalog-references";
import {
  deleteSubeventUnlessUsed,
  findSubevent,
  insertSubevent,
  type ItemOverride,
  type SubeventChildren,
  subeventMetaState,
  type SubeventValues,
  type SubeventWithDetails,
  updateSubevent,
  type VariationOverride,
} from "../../db/subevents";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import {
  checkDateOrder,
  checkMetaData,
  checkSeatCategoryMapping,
  checkSeatingPlan,
  coordinate,
  idInput,
  metaDataInput,
  seatCategoryMappingInput,
} from "./event-common";
import { inUse, nonFieldError, notFound, Problems } from "../../lib/failure";
import { dateTime, decimal, i18n, i18nRequired } from "../../rules/fields";
import type { Principal } from "../../rules/permissions";

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
export const subeventFullInput = subeventFields.partial().required({ name: true, date_from: true });
export type SubeventFullInput = z.output<typeof subeventFullInput>;

/** PATCH: the fields sent change. */
export const subeventPatchInput = subeventFields.partial();
export type SubeventPatchInput = z.output<typeof subeventPatchInput>;

type OverrideInput = {
  price?: number | null;
  disabled?: boolean;
  available_from?: number | null;
  available_until?: number | null;
};

function override(o: OverrideInput) {
  return {
    price: o.price ?? null,
    disabled: o.disabled ?? false,
    availableFrom: o.available_from ?? null,
    availableUntil: o.available_until ?? null,
  };
}

function checkOverrideWindows(field: string, list: OverrideInput[] | undefined, problems: Problems) {
  for (const o of list ?? []) {
    if (o.available_from != null && o.available_until != null && o.available_until < o.available_from) {
      problems.add(field, "available_until has to be later than available_from.");
      return;
    }
  }
}

/** Input → columns; omitted fields take their defaults unless the mode is `patch`. */
function subeventValues(input: Partial<SubeventInput>, mode: WriteMode): Partial<SubeventValues> {
  const full = mode !== "patch";
  const v: Partial<SubeventValues> = {};
  const pick = <K extends keyof SubeventInput, C extends keyof SubeventValues>(
    key: K,
    col: C,
    def: SubeventValues[C],
  ) => {
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
 * Checks a write (create, PUT, PATCH) against the event and the stored date; returns the
 * children (overrides, meta values) to replace.
 */
async function checkSubevent(
  ctx: EventContext,
  by: Principal,
  input: Partial<SubeventInput>,
  mode: WriteMode,
  current: SubeventWithDetails | null,
): Promise<SubeventChildren> {
  const full = mode !== "patch";
  const ev = ctx.event;
  const db = ctx.db;
  const problems = new Problems();
  const s = current?.subevent;
  const pickDate = (v: number | null | undefined, old: number | null | undefined) =>
    v !== undefined ? v : full ? null : (old ?? null);
  checkDateOrder(
    {
      date_from: input.date_from ?? s!.dateFrom,
      date_to: pickDate(input.date_to, s?.dateTo),
      presale_start: pickDate(input.presale_start, s?.presaleStart),
      presale_end: pickDate(input.presale_end, s?.presaleEnd),
    },
    problems,
  );

  let items: ItemOverride[] | undefined;
  if (input.item_price_overrides !== undefined || full) {
    const list = input.item_price_overrides ?? [];
    const ids = list.map((o) => o.item);
    if (new Set(ids).size !== ids.length) problems.add("item_price_overrides", "Each item may only be listed once.");
    const found = ids.length ? await existingItemIds(db, ev.id, ids) : new Set<number>();
    if (ids.some((id) => !found.has(id)))
      problems.add("item_price_overrides", "One or more items do not belong to this event.");
    checkOverrideWindows("item_price_overrides", list, problems);
    items = list.map((o) => ({ item: o.item, ...override(o) }));
  }
  let variations: VariationOverride[] | undefined;
  if (input.variation_price_overrides !== undefined || full) {
    const list = input.variation_price_overrides ?? [];
    const ids = list.map((o) => o.variation);
    if (new Set(ids).size !== ids.length)
      problems.add("variation_price_overrides", "Each variation may only be listed once.");
    const found = ids.length ? await variationsOfEvent(db, ev.id, ids) : new Map<number, unknown>();
    if (ids.some((id) => !found.has(id)))
      problems.add("variation_price_overrides", "One or more variations do not belong to this event.");
    checkOverrideWindows("variation_price_overrides", list, problems);
    variations = list.map((o) => ({ variation: o.variation, ...override(o) }));
  }

  if (input.seating_plan !== undefined && input.seating_plan !== s?.seatingPlanId)
    await checkSeatingPlan(ctx, input.seating_plan, problems);
  await checkSeatCategoryMapping(ctx, ev.id, input.seat_category_mapping, problems);

  let meta: SubeventChildren["meta"];
  if (input.meta_data !== undefined || full) {
    const state = s ? await subeventMetaState(db, ctx.organizer.id, s.id) : undefined;
    meta = await checkMetaData(ctx, by, input.meta_data ?? {}, state?.current ?? {}, problems, state?.properties);
  }
  problems.throwIfAny();
  return { items, variations, meta };
}

/** A date of the context's series (404 when there is none with this id). */
export async function loadSubevent(ctx: EventContext, id: number): Promise<SubeventWithDetails> {
  const row = await findSubevent(ctx.db, ctx.event.id, id);
  if (!row) throw notFound();
  return row;
}

/** Creates a date of the series (POST); only a series has dates. Returns it as read back. */
export async function createSubevent(
  ctx: EventContext,
  by: Principal,
  input: SubeventFullInput,
): Promise<SubeventWithDetails> {
  if (!ctx.event.hasSubevents) {
    throw nonFieldError(
      "This event is not an event series (has_subevents is false); sub-events can only be created for event series.",
    );
  }
  const children = await checkSubevent(ctx, by, input, "create", null);
  const values = { ...subeventValues(input, "create"), lastModified: ctx.now } as SubeventValues;
  const id = await insertSubevent(ctx.db, ctx.event.id, values, children);
  return (await findSubevent(ctx.db, ctx.event.id, id))!;
}

/** Changes a date: PUT (`put`: omitted fields reset to their defaults) or PATCH (the fields sent). */
export async function changeSubevent(
  ctx: EventContext,
  by: Principal,
  id: number,
  input: SubeventPatchInput,
  mode: ChangeMode,
): Promise<SubeventWithDetails> {
  const current = await loadSubevent(ctx, id);
  const children = await checkSubevent(ctx, by, input, mode, current);
  const values = { ...subeventValues(input, mode), lastModified: ctx.now };
  await updateSubevent(ctx.db, ctx.event.id, current.subevent.id, values, children);
  return (await findSubevent(ctx.db, ctx.event.id, current.subevent.id))!;
}

/** Deletes a date unless orders use it. */
export async function deleteSubevent(ctx: EventContext, id: number): Promise<void> {
  const current = await loadSubevent(ctx, id);
  let deleted: boolean;
  try {
    deleted = await deleteSubeventUnlessUsed(ctx.db, ctx.event.id, current.subevent.id, ctx.now);
  } catch (err) {
    if (!isForeignKeyError(err)) throw err;
    deleted = false;
  }
  if (!deleted) {
    throw inUse(
      "The sub-event can not be deleted as it has already been used in orders. Please set 'active' to false instead to hide it from users.",
    );
  }
}
