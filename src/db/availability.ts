/** What is on sale for the availability of events and dates (with_availability_for). */
import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { DB } from "./client";
import { itemVariations, items, subeventItems, subeventItemVariations, subevents } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

const onChannel = (column: string, channel: string) =>
  sql`EXISTS (SELECT 1 FROM json_each(${sql.raw(column)}) WHERE value = ${channel})`;

/** Items and variations of the events that the public can buy on `channel`. */
export async function sellableProducts(db: DB, eventIds: number[], channel: string) {
  const itemRows: { id: number; eventId: number; hasVariations: boolean }[] = [];
  for (const part of chunks(eventIds, MAX_PARAMS - 10)) {
    itemRows.push(
      ...(await db
        .select({ id: items.id, eventId: items.eventId, hasVariations: items.hasVariations })
        .from(items)
        .where(
          and(
            inArray(items.eventId, part),
            eq(items.active, true),
            eq(items.requireVoucher, false),
            eq(items.hideWithoutVoucher, false),
            onChannel('"items"."sales_channels"', channel),
          ),
        )),
    );
  }
  const withVariations = itemRows.filter((i) => i.hasVariations).map((i) => i.id);
  const variationRows: { id: number; itemId: number }[] = [];
  for (const part of chunks(withVariations, MAX_PARAMS - 10)) {
    variationRows.push(
      ...(await db
        .select({ id: itemVariations.id, itemId: itemVariations.itemId })
        .from(itemVariations)
        .where(
          and(
            inArray(itemVariations.itemId, part),
            eq(itemVariations.active, true),
            eq(itemVariations.hideWithoutVoucher, false),
            onChannel('"item_variations"."sales_channels"', channel),
          ),
        )),
    );
  }
  return { items: itemRows, variations: variationRows };
}

/** Active dates of series that have not ended. */
export async function openSubevents(db: DB, eventIds: number[], now: number) {
  const out: { id: number; eventId: number }[] = [];
  for (const part of chunks(eventIds, MAX_PARAMS - 10)) {
    out.push(
      ...(await db
        .select({ id: subevents.id, eventId: subevents.eventId })
        .from(subevents)
        .where(
          and(
            inArray(subevents.eventId, part),
            eq(subevents.active, true),
            gte(sql`coalesce(${subevents.dateTo}, ${subevents.dateFrom})`, now),
          ),
        )),
    );
  }
  return out;
}

/** Products switched off on particular dates. */
export async function disabledOnDates(db: DB, subeventIds: number[]) {
  const out = new Set<string>();
  for (const part of chunks(subeventIds, MAX_PARAMS - 10)) {
    const [itemRows, variationRows] = await db.batch([
      db
        .select({ s: subeventItems.subeventId, i: subeventItems.itemId })
        .from(subeventItems)
        .where(and(inArray(subeventItems.subeventId, part), eq(subeventItems.disabled, true))),
      db
        .select({ s: subeventItemVariations.subeventId, v: subeventItemVariations.variationId })
        .from(subeventItemVariations)
        .where(and(inArray(subeventItemVariations.subeventId, part), eq(subeventItemVariations.disabled, true))),
    ]);
    for (const r of itemRows) out.add(`${r.s}:i${r.i}`);
    for (const r of variationRows) out.add(`${r.s}:v${r.v}`);
  }
  return out;
}
