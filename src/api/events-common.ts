/**
 * HTTP pieces shared by the event and sub-event routes: the `attr[...]` query filters, where
 * an event's customer-facing pages are, and the response pieces of both.
 */
import { z } from "zod";
import type { AttrFilter } from "../services/events/event-reads";
import type { OrganizerContext } from "../services/context";
import { resolveAttrFilters } from "../services/events/event-common";
import { fieldError } from "../lib/failure";
import { id } from "../http/responses";
import type { QueryParam } from "../http/validation";

const MAX_ATTR_FILTERS = 20;

/**
 * The `attr[<name>]=<value>` query parameters (at most 20): the raw pairs; `attrFilters`
 * resolves them against the organizer's properties (names that are no property are ignored,
 * as pretix does).
 */
export const attrParam: QueryParam<[string, string][]> = {
  description: `Meta data filters: \`attr[<property>]=<value>\` (at most ${MAX_ATTR_FILTERS}; unknown properties are ignored).`,
  schema: { type: "object", additionalProperties: { type: "string" } },
  style: "deepObject",
  read(c, name) {
    const pairs: [string, string][] = [];
    const pattern = new RegExp(`^${name}\\[(.+)\\]$`);
    for (const [key, value] of new URL(c.req.url).searchParams) {
      const m = pattern.exec(key);
      if (m) pairs.push([m[1]!, value]);
    }
    if (pairs.length > MAX_ATTR_FILTERS)
      throw fieldError(name, `At most ${MAX_ATTR_FILTERS} attr[...] filters can be combined.`);
    return pairs;
  },
};

/** The filters of `attrParam`'s pairs, resolved against the organizer's properties. */
export function attrFilters(ctx: OrganizerContext, pairs: [string, string][] | undefined): Promise<AttrFilter[]> {
  return resolveAttrFilters(ctx, pairs ?? []);
}

/** `meta_data` in responses: the values set on the object itself, property name → value. */
export const metaDataResponse = () => z.record(z.string(), z.string());

/** `seat_category_mapping` in responses: seating-plan category → item id or null. */
export const seatCategoryMappingResponse = () => z.record(z.string(), id().nullable());

/** Parses the stored JSON object of meta values (json_group_object; null without rows). */
export function parseMeta(json: string | null): Record<string, string> {
  if (!json) return {};
  const parsed = JSON.parse(json) as Record<string, string> | null;
  return parsed ?? {};
}
