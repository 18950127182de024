/**
 * `with_availability_for=<sales channel>` on the event and date lists: the query parameter and
 * the `best_availability_state` field those lists then carry (computed by
 * services/events/availability.ts through the event object).
 */
import { z } from "zod";
import {
  type AvailabilityTarget,
  bestAvailability,
  checkAvailabilityChannel,
  targetKey,
} from "../services/events/availability";
import type { OrganizerContext } from "../services/context";
import { SALES_CHANNELS } from "../rules/events";
import { q, type QueryParam } from "../http/validation";

/** 100 available, below 100 sold out or reserved (20 in carts, 10 pending orders, 0 gone), null unknown. */
export const bestAvailabilityState = () => z.number().int().nullable();

/** `with_availability_for`: the channel asked for, or undefined; an unknown channel is a 400. */
export const availabilityParam: QueryParam<string> = {
  description: "A sales channel: adds `best_availability_state` to each result.",
  schema: { type: "string", enum: Object.keys(SALES_CHANNELS) },
  read: (c, name) => checkAvailabilityChannel(name, q.string().read(c, name)),
};

/**
 * The serializer of a page's rows: `serialize`, plus `best_availability_state` (one target per
 * row) when a channel was asked for.
 */
export async function withAvailability<R, J extends object>(
  ctx: OrganizerContext,
  rows: R[],
  channel: string | undefined,
  target: (row: R) => AvailabilityTarget,
  serialize: (row: R) => J,
): Promise<(row: R) => J & { best_availability_state?: number | null }> {
  if (channel === undefined) return serialize;
  const states = await bestAvailability(ctx, rows.map(target), channel);
  return (r) => ({ ...serialize(r), best_availability_state: states.get(targetKey(target(r))) ?? null });
}
