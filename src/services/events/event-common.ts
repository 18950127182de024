/**
 * Pieces shared by the event and sub-event services: input fields (geo coordinates, meta data,
 * seat category mappings, ids), `attr[...]` filters resolved against the organizer's meta
 * properties, and the checks of related objects (meta properties, seating plans, the event's
 * items). Checks add field errors to the caller's `Problems`.
 */
import { z } from "zod";
import { existingItemIds } from "../../db/catalog-common";
import { metaPropertiesNamed, organizerMetaProperties } from "../../db/event-meta";
import { type AttrFilter, seatingPlanOfOrganizer } from "../../db/events";
import type { OrganizerContext } from "../context";
import { checkMetaDataValues, type MetaProperty } from "../../rules/events";
import { invalidPk, type Problems } from "../../lib/failure";
import { hasPermission, type Principal } from "../../rules/permissions";

export { checkDateOrder } from "../../rules/events";

/** A coordinate: a JSON number (or numeric string, as pretix accepts) within ±limit. */
export const coordinate = (limit: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\s*-?\d+(\.\d+)?\s*$/, { message: "A valid number is required." })
        .transform(Number),
    ])
    .pipe(z.number().min(-limit).max(limit));

/** `meta_data`: an object of property name to string value. */
export const metaDataInput = () =>
  z.record(z.string(), z.string({ error: "meta_data needs to be an object (str -> str)." }).max(2000), {
    error: "meta_data needs to be an object (str -> str).",
  });

/** `seat_category_mapping`: seating-plan category → item id or null. */
export const seatCategoryMappingInput = () =>
  z.record(
    z.string().min(1).max(190),
    z
      .number()
      .int()
      .positive()
      .max(2 ** 53 - 1)
      .nullable(),
  );

/** A positive id (seating plan, item, variation). */
export const idInput = () =>
  z
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1);

/** Meta data values to store: property id and value. */
export type MetaValues = { propertyId: number; value: string }[];

/**
 * `attr[<name>]=<value>` filters (name and value pairs), resolved against the organizer's
 * properties. Names that are no property are ignored, as pretix does.
 */
export async function resolveAttrFilters(
  ctx: OrganizerContext,
  pairs: readonly [string, string][],
): Promise<AttrFilter[]> {
  if (pairs.length === 0) return [];
  const props = new Map(
    (
      await metaPropertiesNamed(
        ctx.db,
        ctx.organizer.id,
        pairs.map(([n]) => n),
      )
    ).map((p) => [p.name, p]),
  );
  const out: AttrFilter[] = [];
  for (const [name, value] of pairs) {
    const p = props.get(name);
    if (p) out.push({ propertyId: p.id, defaultValue: p.defaultValue, value });
  }
  return out;
}

/**
 * Checks `meta_data` input against the organizer's properties (read unless given): known
 * keys, allowed values, protected values changed only by a caller who may change organizer
 * settings. Returns the values to store (for the known keys).
 */
export async function checkMetaData(
  ctx: OrganizerContext,
  by: Principal,
  input: Record<string, string>,
  current: Record<string, string>,
  problems: Problems,
  properties?: MetaProperty[],
): Promise<MetaValues> {
  const props = properties ?? (await organizerMetaProperties(ctx.db, ctx.organizer.id));
  const mayChangeProtected = hasPermission(by, "can_change_organizer_settings");
  checkMetaDataValues(input, props, current, mayChangeProtected, problems);
  const byName = new Map(props.map((p) => [p.name, p.id]));
  return Object.entries(input)
    .filter(([k]) => byName.has(k))
    .map(([k, value]) => ({ propertyId: byName.get(k)!, value }));
}

/** The seating plan must be one of the organizer's. */
export async function checkSeatingPlan(
  ctx: OrganizerContext,
  planId: number | null | undefined,
  problems: Problems,
): Promise<void> {
  if (planId === null || planId === undefined) return;
  if (!(await seatingPlanOfOrganizer(ctx.db, ctx.organizer.id, planId)))
    problems.add("seating_plan", invalidPk(planId));
}

/** Items named by a seat category mapping must be items of the event. */
export async function checkSeatCategoryMapping(
  ctx: OrganizerContext,
  eventId: number,
  mapping: Record<string, number | null> | undefined,
  problems: Problems,
): Promise<void> {
  if (!mapping) return;
  const ids = Object.values(mapping).filter((v): v is number => v !== null);
  if (ids.length === 0) return;
  const found = await existingItemIds(ctx.db, eventId, ids);
  for (const id of ids) if (!found.has(id)) problems.add("seat_category_mapping", `Item '${id}' does not exist.`);
}
