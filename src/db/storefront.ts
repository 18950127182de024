/**
 * Reads of the customer-facing pages (organizer page, event page, order and payment pages).
 * Everything is looked up by public slugs and, for orders, by code and secret together.
 */
import { and, asc, desc, eq, gte, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { disabledOnDates } from "./availability";
import type { DB } from "./client";
import {
  events,
  itemCategories,
  itemVariations,
  items,
  organizers,
  quotaItems,
  quotas,
  subeventItems,
  subeventItemVariations,
  subevents,
} from "./schema";
import type { I18n } from "../lib/i18n";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type OrganizerRecord = typeof organizers.$inferSelect;
export type EventRecord = typeof events.$inferSelect;

export async function organizerBySlug(db: DB, slug: string): Promise<OrganizerRecord | undefined> {
  return db.select().from(organizers).where(eq(organizers.slug, slug)).get();
}

/** An organizer and one of its events by their slugs, in one query. */
export async function organizerEventBySlugs(db: DB, orgSlug: string, eventSlug: string) {
  return db
    .select({ organizer: organizers, event: events })
    .from(events)
    .innerJoin(organizers, eq(organizers.id, events.organizerId))
    .where(and(eq(organizers.slug, orgSlug), eq(events.slug, eventSlug)))
    .get();
}

/** Events customers may see: live and public. */
const shown = (organizerId: number): SQL =>
  and(eq(events.organizerId, organizerId), eq(events.live, true), eq(events.isPublic, true))!;

/** Not over yet: ends (or, without an end, starts) now or later. */
function notOver(
  dateFrom: typeof events.dateFrom | typeof subevents.dateFrom,
  dateTo: typeof events.dateTo | typeof subevents.dateTo,
  now: number,
): SQL {
  return sql`coalesce(${dateTo}, ${dateFrom}) >= ${now}`;
}

/** The organizer's upcoming (first 100, soonest first) and past (latest 20) public events. */
export async function publicEvents(db: DB, organizerId: number, now: number) {
  const [upcoming, past] = await db.batch([
    db
      .select()
      .from(events)
      .where(and(shown(organizerId), notOver(events.dateFrom, events.dateTo, now)))
      .orderBy(asc(events.dateFrom), asc(events.id))
      .limit(100),
    db
      .select()
      .from(events)
      .where(and(shown(organizerId), sql`coalesce(${events.dateTo}, ${events.dateFrom}) < ${now}`))
      .orderBy(desc(events.dateFrom), desc(events.id))
      .limit(20),
  ]);
  return { upcoming, past };
}

export type ShopItem = {
  id: number;
  name: I18n;
  description: I18n | null;
  price: number;
  freePrice: boolean;
  requireVoucher: boolean;
  /** pretix `show_quota_left`: the shop shows how many are left (null: the event's default, off). */
  showQuotaLeft: boolean;
  category: { id: number; name: I18n; position: number } | null;
  variations: { id: number; value: I18n; price: number }[];
};

/** A date customers see: active, public, not over yet. */
function dateShown(now: number): SQL {
  return and(
    eq(subevents.active, true),
    eq(subevents.isPublic, true),
    notOver(subevents.dateFrom, subevents.dateTo, now),
  )!;
}

/**
 * Whether a quota covers the item (`variation` null) or the variation: pretix sells nothing
 * without one. In a series, a quota of a date customers see (active, public, not over) on
 * which the product is not disabled.
 */
function hasQuota(series: boolean, now: number, variation: typeof itemVariations | null): SQL {
  const itemId = variation ? variation.itemId : items.id;
  const covers = and(
    eq(quotaItems.itemId, itemId),
    variation ? eq(quotaItems.variationId, variation.id) : isNull(quotaItems.variationId),
  );
  if (!series) {
    return sql`EXISTS (SELECT 1 FROM ${quotaItems} INNER JOIN ${quotas} ON ${quotas.id} = ${quotaItems.quotaId} WHERE ${covers} AND ${isNull(quotas.subeventId)})`;
  }
  const disabled = sql`EXISTS (SELECT 1 FROM ${subeventItems} WHERE ${subeventItems.subeventId} = ${subevents.id} AND ${subeventItems.itemId} = ${itemId} AND ${eq(subeventItems.disabled, true)})`;
  const variationDisabled = variation
    ? sql` OR EXISTS (SELECT 1 FROM ${subeventItemVariations} WHERE ${subeventItemVariations.subeventId} = ${subevents.id} AND ${subeventItemVariations.variationId} = ${variation.id} AND ${eq(subeventItemVariations.disabled, true)})`
    : sql``;
  return sql`EXISTS (SELECT 1 FROM ${quotaItems} INNER JOIN ${quotas} ON ${quotas.id} = ${quotaItems.quotaId} INNER JOIN ${subevents} ON ${subevents.id} = ${quotas.subeventId} WHERE ${covers} AND ${dateShown(now)} AND NOT (${disabled}${variationDisabled}))`;
}

/**
 * The items the event page lists (what pretix's shop front shows without a voucher): active,
 * sold in the online shop, not hidden without a voucher, not add-on-only, not past their
 * availability, with a quota (in a series: on a date customers see, `series`); with their
 * active variations that have a quota. Ordered by category, then position.
 */
export async function shopItems(db: DB, eventId: number, now: number, series: boolean): Promise<ShopItem[]> {
  const visibleNow = (t: typeof items | typeof itemVariations) =>
    and(
      eq(t.active, true),
      eq(t.hideWithoutVoucher, false),
      sql`EXISTS (SELECT 1 FROM json_each(${t.salesChannels}) WHERE value = 'web')`,
      or(isNull(t.availableUntil), gte(t.availableUntil, now)),
    );
  // two queries side by side, not one batch: drizzle maps joined rows of a D1 batch by column
  // name, which the item and category columns share
  const [itemRows, variationRows] = await Promise.all([
    db
      .select({ item: items, category: itemCategories })
      .from(items)
      .leftJoin(itemCategories, eq(itemCategories.id, items.categoryId))
      .where(
        and(
          eq(items.eventId, eventId),
          visibleNow(items),
          or(isNull(itemCategories.id), eq(itemCategories.isAddon, false)),
          // an item with variations is listed when one of its variations has a quota (below)
          or(eq(items.hasVariations, true), hasQuota(series, now, null)),
        ),
      )
      .orderBy(
        sql`${itemCategories.position} IS NULL`,
        asc(itemCategories.position),
        asc(itemCategories.id),
        asc(items.position),
        asc(items.id),
      ),
    db
      .select({ variation: itemVariations })
      .from(itemVariations)
      .innerJoin(items, eq(items.id, itemVariations.itemId))
      .where(and(eq(items.eventId, eventId), visibleNow(itemVariations), hasQuota(series, now, itemVariations)))
      .orderBy(asc(itemVariations.position), asc(itemVariations.id)),
  ]);
  const byItem = new Map<number, ShopItem["variations"]>();
  const prices = new Map(itemRows.map((r) => [r.item.id, r.item.defaultPrice]));
  for (const { variation: v } of variationRows) {
    const list = byItem.get(v.itemId) ?? [];
    list.push({ id: v.id, value: v.value, price: v.defaultPrice ?? prices.get(v.itemId) ?? 0 });
    byItem.set(v.itemId, list);
  }
  return itemRows
    .filter((r) => !r.item.hasVariations || (byItem.get(r.item.id)?.length ?? 0) > 0)
    .map(({ item, category }) => ({
      id: item.id,
      name: item.name,
      description: item.description,
      price: item.defaultPrice,
      freePrice: item.freePrice,
      requireVoucher: item.requireVoucher,
      showQuotaLeft: item.showQuotaLeft === true,
      category: category ? { id: category.id, name: category.name, position: category.position } : null,
      variations: byItem.get(item.id) ?? [],
    }));
}

/** Upcoming active, public dates of a series (first 100). */
export async function publicSubevents(db: DB, eventId: number, now: number) {
  return db
    .select()
    .from(subevents)
    .where(and(eq(subevents.eventId, eventId), dateShown(now)))
    .orderBy(asc(subevents.dateFrom), asc(subevents.id))
    .limit(100);
}

/** One date of a series if customers see it (active, public, not over). */
export async function publicSubevent(db: DB, eventId: number, id: number, now: number) {
  return db
    .select({ id: subevents.id })
    .from(subevents)
    .where(and(eq(subevents.eventId, eventId), eq(subevents.id, id), dateShown(now)))
    .get();
}

/**
 * Names of the items, variations and dates an order refers to, in one batch (id lists chunked
 * within D1's parameter limit).
 */
export async function orderLabels(
  db: DB,
  eventId: number,
  itemIds: number[],
  variationIds: number[],
  subeventIds: number[],
) {
  const size = MAX_PARAMS - 2;
  const statements: BatchItem<"sqlite">[] = [
    ...chunks(itemIds, size).map((part) =>
      db
        .select({ id: items.id, name: items.name })
        .from(items)
        .where(and(eq(items.eventId, eventId), inArray(items.id, part))),
    ),
    ...chunks(variationIds, size).map((part) =>
      db
        .select({ id: itemVariations.id, name: itemVariations.value })
        .from(itemVariations)
        .innerJoin(items, eq(items.id, itemVariations.itemId))
        .where(and(eq(items.eventId, eventId), inArray(itemVariations.id, part))),
    ),
  ];
  const nItemParts = chunks(itemIds, size).length;
  const nVariationParts = chunks(variationIds, size).length;
  for (const part of chunks(subeventIds, size)) {
    statements.push(
      db
        .select({ id: subevents.id, name: subevents.name, dateFrom: subevents.dateFrom })
        .from(subevents)
        .where(and(eq(subevents.eventId, eventId), inArray(subevents.id, part))),
    );
  }
  const [first, ...rest] = statements;
  const results = first ? ((await db.batch([first, ...rest])) as unknown[][]) : [];
  const itemRows = results.slice(0, nItemParts).flat() as { id: number; name: I18n }[];
  const variationRows = results.slice(nItemParts, nItemParts + nVariationParts).flat() as { id: number; name: I18n }[];
  const subeventRows = results.slice(nItemParts + nVariationParts).flat() as {
    id: number;
    name: I18n;
    dateFrom: number;
  }[];
  return {
    items: new Map(itemRows.map((r) => [r.id, r.name])),
    variations: new Map(variationRows.map((r) => [r.id, r.name])),
    subevents: new Map(subeventRows.map((r) => [r.id, r])),
  };
}

/** A product of the event page as the live availability reports it, with the dates it is switched off on. */
export type ShowcaseProduct = {
  item: number;
  variation: number | null;
  showQuotaLeft: boolean;
  requireVoucher: boolean;
  disabledOn: Set<number>;
};

/**
 * What the event page shows, for the live availability: its products and variations
 * (`shopItems`) and, for a series, its dates (`publicSubevents`; `[null]` for a single event).
 */
export async function eventShowcase(db: DB, eventId: number, now: number) {
  const event = await db.select({ series: events.hasSubevents }).from(events).where(eq(events.id, eventId)).get();
  const series = event?.series ?? false;
  const [shown, dates] = await Promise.all([
    event ? shopItems(db, eventId, now, series) : Promise.resolve([]),
    series ? publicSubevents(db, eventId, now) : Promise.resolve([]),
  ]);
  const disabled = series
    ? await disabledOnDates(
        db,
        dates.map((d) => d.id),
      )
    : new Set<string>();
  const products: ShowcaseProduct[] = [];
  const off = (tag: string) => new Set(dates.filter((d) => disabled.has(`${d.id}:${tag}`)).map((d) => d.id));
  for (const i of shown) {
    const base = { item: i.id, showQuotaLeft: i.showQuotaLeft, requireVoucher: i.requireVoucher };
    if (i.variations.length === 0) products.push({ ...base, variation: null, disabledOn: off(`i${i.id}`) });
    for (const v of i.variations) {
      const itemOff = off(`i${i.id}`);
      products.push({ ...base, variation: v.id, disabledOn: new Set([...itemOff, ...off(`v${v.id}`)]) });
    }
  }
  return { dates: series ? dates.map((d) => d.id) : [null], products };
}
