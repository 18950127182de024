/**
 * Pieces shared by events and sub-events: input fields (geo coordinates, meta data, seat
 * category mappings), `attr[...]` filters, and the checks against the organizer's meta
 * properties, seating plans and the event's items.
 */
import { z } from "zod";
import { existingItemIds } from "../db/catalog-common";
import { seatingPlanOfOrganizer, type AttrFilter } from "../db/events";
import { metaPropertiesNamed, organizerMetaProperties } from "../db/event-meta";
import { type DateFields, dateOrderErrors, metaDataErrors, type MetaProperty } from "../domain/events";
import { hasPermission } from "../domain/permissions";
import type { AppContext } from "../http/context";
import { type Problems, fieldError } from "../domain/failure";

/** A coordinate: a JSON number (or numeric string, as pretix accepts) within ±limit. */
export const coordinate = (limit: number) =>
  z
    .union([z.number(), z.string().regex(/^\s*-?\d+(\.\d+)?\s*$/, { message: "A valid number is required." }).transform(Number)])
    .pipe(z.number().min(-limit).max(limit));

/** `meta_data`: an object of property name to string value. */
export const metaDataInput = () =>
  z.record(z.string(), z.string({ error: "meta_data needs to be an object (str -> str)." }).max(2000), {
    error: "meta_data needs to be an object (str -> str).",
  });

/** `seat_category_mapping`: seating-plan category → item id or null. */
export const seatCategoryMappingInput = () => z.record(z.string().min(1).max(190), z.number().int().positive().max(2 ** 53 - 1).nullable());

/** A positive id (seating plan, item, variation). */
export const idInput = () => z.number().int().positive().max(2 ** 53 - 1);

const MAX_ATTR_FILTERS = 20;

/**
 * The `attr[<name>]=<value>` query parameters, resolved against the organizer's properties.
 * Names that are no property are ignored, as pretix does.
 */
export async function attrFilters(c: AppContext): Promise<AttrFilter[]> {
  const pairs: [string, string][] = [];
  for (const [key, value] of new URL(c.req.url).searchParams) {
    const m = /^attr\[(.+)\]$/.exec(key);
    if (m) pairs.push([m[1]!, value]);
  }
  if (pairs.length === 0) return [];
  if (pairs.length > MAX_ATTR_FILTERS) throw fieldError("attr", `At most ${MAX_ATTR_FILTERS} attr[...] filters can be combined.`);
  const props = new Map((await metaPropertiesNamed(c.var.db, c.var.organizer.id, pairs.map(([n]) => n))).map((p) => [p.name, p]));
  const out: AttrFilter[] = [];
  for (const [name, value] of pairs) {
    const p = props.get(name);
    if (p) out.push({ propertyId: p.id, defaultValue: p.defaultValue, value });
  }
  return out;
}

/**
 * Validates `meta_data` input against the organizer's properties; returns the values to store
 * (property id and value) or undefined when the input is invalid (errors collected).
 */
export async function checkMetaData(
  c: AppContext,
  input: Record<string, string>,
  current: Record<string, string>,
  errors: Problems,
  properties?: MetaProperty[],
): Promise<{ propertyId: number; value: string }[]> {
  const props = properties ?? (await organizerMetaProperties(c.var.db, c.var.organizer.id));
  const mayChangeProtected = hasPermission(c.var.principal, "can_change_organizer_settings");
  for (const m of metaDataErrors(input, props, current, mayChangeProtected)) errors.add("meta_data", m);
  const byName = new Map(props.map((p) => [p.name, p.id]));
  return Object.entries(input)
    .filter(([k]) => byName.has(k))
    .map(([k, value]) => ({ propertyId: byName.get(k)!, value }));
}

/** Dates in order: an event's or date's end after its start, and the presale's. */
export function checkDateOrder(d: DateFields, errors: Problems): void {
  for (const [field, message] of Object.entries(dateOrderErrors(d))) errors.add(field, message);
}

/** The seating plan must be one of the organizer's. */
export async function checkSeatingPlan(c: AppContext, planId: number | null | undefined, errors: Problems): Promise<void> {
  if (planId === null || planId === undefined) return;
  if (!(await seatingPlanOfOrganizer(c.var.db, c.var.organizer.id, planId))) {
    errors.add("seating_plan", `Invalid pk "${planId}" - object does not exist.`);
  }
}

/** Items named by a seat category mapping must be items of the event. */
export async function checkSeatCategoryMapping(
  c: AppContext,
  eventId: number,
  mapping: Record<string, number | null> | undefined,
  errors: Problems,
): Promise<void> {
  if (!mapping) return;
  const ids = Object.values(mapping).filter((v): v is number => v !== null);
  if (ids.length === 0) return;
  const found = await existingItemIds(c.var.db, eventId, ids);
  for (const id of ids) if (!found.has(id)) errors.add("seat_category_mapping", `Item '${id}' does not exist.`);
}

/** Parses the stored JSON object of meta values (json_group_object; null without rows). */
export function parseMeta(json: string | null): Record<string, string> {
  if (!json) return {};
  const parsed = JSON.parse(json) as Record<string, string> | null;
  return parsed ?? {};
}
