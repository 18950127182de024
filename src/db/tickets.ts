/**
 * What ticket PDFs are rendered from, in one batch: the event's items, variations and
 * categories, the order's dates and seats, the layouts that may apply (assigned to the order's
 * items on its sales channel, and the default), the organizer, the stored settings and the
 * event's meta data with the organizer's defaults. Every statement is scoped by event.
 */
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { I18n } from "../lib/i18n";
import type { DB } from "./client";
import {
  eventMetaProperties,
  eventMetaValues,
  eventSettings,
  itemCategories,
  itemVariations,
  items,
  organizerSettings,
  organizers,
  seatingPlanSeats,
  subevents,
  ticketLayoutItems,
  ticketLayouts,
} from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type TicketFactsRequest = {
  organizerId: number;
  eventId: number;
  itemIds: number[];
  subeventIds: number[];
  seatIds: number[];
  salesChannel: string;
};

export async function ticketRenderFacts(db: DB, r: TicketFactsRequest) {
  const part = (ids: number[]) => chunks([...new Set(ids)], MAX_PARAMS - 10);
  const subeventStatements = part(r.subeventIds).map((ids) => subeventsQuery(db, r.eventId, ids));
  const seatStatements = part(r.seatIds).map((ids) => seatsQuery(db, ids));
  const results = (await db.batch([
    ...catalogQueries(db, r.eventId),
    ...layoutQueries(db, r),
    ...surroundingQueries(db, r),
    ...subeventStatements,
    ...seatStatements,
  ])) as unknown[];
  return factsOfRows(results, subeventStatements.length);
}

/** The event's items, variations and categories (9 first results: these 3, layouts 2, surroundings 4). */
function catalogQueries(db: DB, eventId: number) {
  return [
    db
      .select({
        id: items.id,
        name: items.name,
        description: items.description,
        categoryId: items.categoryId,
        metaData: items.metaData,
      })
      .from(items)
      .where(eq(items.eventId, eventId)),
    db
      .select({
        id: itemVariations.id,
        value: itemVariations.value,
        description: itemVariations.description,
        metaData: itemVariations.metaData,
      })
      .from(itemVariations)
      .where(sql`${itemVariations.itemId} IN (SELECT id FROM items WHERE event_id = ${eventId})`),
    db
      .select({ id: itemCategories.id, name: itemCategories.name })
      .from(itemCategories)
      .where(eq(itemCategories.eventId, eventId)),
  ] as const;
}

/**
 * The layouts that may apply (the default, those assigned to the order's items on its sales
 * channel) and the assignments.
 */
function layoutQueries(db: DB, r: TicketFactsRequest) {
  const itemIds = [...new Set(r.itemIds)].slice(0, MAX_PARAMS - 10);
  const assigned = itemIds.length
    ? sql`${ticketLayouts.id} IN (SELECT layout_id FROM ticket_layout_items WHERE sales_channel = ${r.salesChannel} AND item_id IN (${sql.join(
        itemIds.map((i) => sql`${i}`),
        sql`, `,
      )}))`
    : sql`0`;
  return [
    db
      .select({
        id: ticketLayouts.id,
        isDefault: ticketLayouts.isDefault,
        layout: ticketLayouts.layout,
        background: ticketLayouts.background,
        name: ticketLayouts.name,
      })
      .from(ticketLayouts)
      .where(and(eq(ticketLayouts.eventId, r.eventId), or(eq(ticketLayouts.isDefault, true), assigned))),
    db
      .select({ itemId: ticketLayoutItems.itemId, layoutId: ticketLayoutItems.layoutId })
      .from(ticketLayoutItems)
      .where(
        and(
          eq(ticketLayoutItems.salesChannel, r.salesChannel),
          itemIds.length ? inArray(ticketLayoutItems.itemId, itemIds) : sql`0`,
        ),
      ),
  ] as const;
}

/** The organizer's name, the stored settings and the event's meta data with the organizer's defaults. */
function surroundingQueries(db: DB, r: TicketFactsRequest) {
  return [
    db.select({ name: organizers.name }).from(organizers).where(eq(organizers.id, r.organizerId)),
    db.select().from(eventSettings).where(eq(eventSettings.eventId, r.eventId)),
    db.select().from(organizerSettings).where(eq(organizerSettings.organizerId, r.organizerId)),
    db
      .select({
        name: eventMetaProperties.name,
        defaultValue: eventMetaProperties.defaultValue,
        value: eventMetaValues.value,
      })
      .from(eventMetaProperties)
      .leftJoin(
        eventMetaValues,
        and(eq(eventMetaValues.propertyId, eventMetaProperties.id), eq(eventMetaValues.eventId, r.eventId)),
      )
      .where(eq(eventMetaProperties.organizerId, r.organizerId)),
  ] as const;
}

function subeventsQuery(db: DB, eventId: number, ids: number[]) {
  return db
    .select({
      id: subevents.id,
      name: subevents.name,
      dateFrom: subevents.dateFrom,
      dateTo: subevents.dateTo,
      dateAdmission: subevents.dateAdmission,
      location: subevents.location,
    })
    .from(subevents)
    .where(and(eq(subevents.eventId, eventId), inArray(subevents.id, ids)));
}

function seatsQuery(db: DB, ids: number[]) {
  return db
    .select({
      id: seatingPlanSeats.id,
      zoneName: seatingPlanSeats.zoneName,
      rowName: seatingPlanSeats.rowName,
      seatNumber: seatingPlanSeats.seatNumber,
    })
    .from(seatingPlanSeats)
    .where(inArray(seatingPlanSeats.id, ids));
}

/** The facts the batch's results describe; after the 9 fixed results come the dates', then the seats'. */
function factsOfRows(results: unknown[], subeventStatementCount: number) {
  const [
    itemRows,
    variationRows,
    categoryRows,
    layoutRows,
    assignmentRows,
    organizerRows,
    eventRows,
    organizerSettingRows,
    metaRows,
  ] = results as [
    { id: number; name: I18n; description: I18n | null; categoryId: number | null; metaData: Record<string, string> }[],
    { id: number; value: I18n; description: I18n | null; metaData: Record<string, string> }[],
    { id: number; name: I18n }[],
    { id: number; isDefault: boolean; layout: unknown[]; background: string | null; name: string }[],
    { itemId: number; layoutId: number }[],
    { name: string }[],
    { key: string; value: unknown }[],
    { key: string; value: unknown }[],
    { name: string; defaultValue: string; value: string | null }[],
  ];
  const rest = results.slice(9);
  const subeventRows = rest.slice(0, subeventStatementCount).flat() as {
    id: number;
    name: I18n;
    dateFrom: number;
    dateTo: number | null;
    dateAdmission: number | null;
    location: I18n | null;
  }[];
  const seatRows = rest.slice(subeventStatementCount).flat() as {
    id: number;
    zoneName: string;
    rowName: string;
    seatNumber: string;
  }[];
  return {
    items: new Map(itemRows.map((x) => [x.id, x])),
    variations: new Map(variationRows.map((x) => [x.id, x])),
    categories: new Map(categoryRows.map((x) => [x.id, x.name])),
    layouts: new Map(layoutRows.map((x) => [x.id, x])),
    defaultLayoutId: layoutRows.find((x) => x.isDefault)?.id ?? null,
    assignments: new Map(assignmentRows.map((x) => [x.itemId, x.layoutId])),
    organizerName: organizerRows[0]?.name ?? "",
    eventSettings: Object.fromEntries(eventRows.map((x) => [x.key, x.value])) as Record<string, unknown>,
    organizerSettings: Object.fromEntries(organizerSettingRows.map((x) => [x.key, x.value])) as Record<string, unknown>,
    meta: Object.fromEntries(metaRows.map((m) => [m.name, m.value ?? m.defaultValue])) as Record<string, string>,
    subevents: new Map(subeventRows.map((x) => [x.id, x])),
    seats: new Map(seatRows.map((x) => [x.id, x])),
  };
}

export type TicketRenderFacts = Awaited<ReturnType<typeof ticketRenderFacts>>;
