/**
 * `with_availability_for=<sales channel>` on event and date lists: `best_availability_state`
 * is the best state among the products the public can buy on that channel — 100 available,
 * 20 sold out but reserved in carts, 10 sold out with pending orders, 0 gone — as the
 * event object counts it; null when nothing is on sale (unknown).
 */
import { disabledOnDates, openSubevents, sellableProducts } from "../../db/availability";
import { inventoryStamps } from "../../db/inventory";
import { withEventObject } from "../../objects/client";
import type { OrganizerContext } from "../context";
import { SALES_CHANNELS } from "../../rules/events";
import { fieldError } from "../../lib/failure";

/** An event (the event itself, or every open date of a series) or one date of a series. */
export type AvailabilityTarget = { eventId: number; subeventId: number | null; series: boolean };

export const targetKey = (t: { eventId: number; subeventId: number | null }) => `${t.eventId}:${t.subeventId ?? ""}`;

/** The sales channel of `with_availability_for` (given as `field`); an unknown channel is invalid input. */
export function checkAvailabilityChannel(field: string, channel: string | undefined): string | undefined {
  if (channel !== undefined && !Object.hasOwn(SALES_CHANNELS, channel)) {
    throw fieldError(field, `"${channel}" is not a valid sales channel.`);
  }
  return channel;
}

/** The best availability state of each target on `channel`, by `targetKey` (null: nothing on sale). */
export async function bestAvailability(
  ctx: OrganizerContext,
  targets: AvailabilityTarget[],
  channel: string,
): Promise<Map<string, number | null>> {
  const result = new Map<string, number | null>();
  if (targets.length === 0) return result;
  const db = ctx.db;
  const eventIds = [...new Set(targets.map((t) => t.eventId))];
  const seriesIds = [...new Set(targets.filter((t) => t.series && t.subeventId === null).map((t) => t.eventId))];
  const [products, dates, stamps] = await Promise.all([
    sellableProducts(db, eventIds, channel),
    seriesIds.length ? openSubevents(db, seriesIds, ctx.now) : Promise.resolve([]),
    inventoryStamps(db, eventIds),
  ]);
  // the dates each target stands for
  const datesOf = new Map<string, (number | null)[]>();
  for (const t of targets) {
    datesOf.set(
      targetKey(t),
      t.subeventId !== null
        ? [t.subeventId]
        : t.series
          ? dates.filter((d) => d.eventId === t.eventId).map((d) => d.id)
          : [null],
    );
  }
  const allDates = [...new Set([...datesOf.values()].flat().filter((d): d is number => d !== null))];
  const disabled = await disabledOnDates(db, allDates);

  await Promise.all(
    eventIds.map(async (eventId) => {
      const eventDates = [
        ...new Set(targets.filter((t) => t.eventId === eventId).flatMap((t) => datesOf.get(targetKey(t))!)),
      ];
      const demands: { itemId: number; variationId: number | null; subeventId: number | null }[] = [];
      for (const sub of eventDates) {
        for (const item of products.items.filter((i) => i.eventId === eventId)) {
          if (sub !== null && disabled.has(`${sub}:i${item.id}`)) continue;
          if (!item.hasVariations) demands.push({ itemId: item.id, variationId: null, subeventId: sub });
          else
            for (const v of products.variations.filter((x) => x.itemId === item.id)) {
              if (sub === null || !disabled.has(`${sub}:v${v.id}`))
                demands.push({ itemId: item.id, variationId: v.id, subeventId: sub });
            }
        }
      }
      const states = demands.length
        ? await withEventObject<(number | null)[]>(ctx.env, eventId, (s, call) =>
            s.availabilityStates(call, stamps.get(eventId) ?? 0, demands),
          )
        : [];
      const bySub = new Map<number | null, number | null>();
      demands.forEach((d, i) => {
        const st = states[i] ?? null;
        if (st === null) return;
        bySub.set(d.subeventId, Math.max(bySub.get(d.subeventId) ?? -1, st));
      });
      for (const t of targets.filter((x) => x.eventId === eventId)) {
        const values = datesOf
          .get(targetKey(t))!
          .map((d) => bySub.get(d))
          .filter((v): v is number => v !== undefined && v !== null);
        result.set(targetKey(t), values.length ? Math.max(...values) : null);
      }
    }),
  );
  return result;
}
