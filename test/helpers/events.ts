/**
 * Helpers for the event and sub-event tests: request bodies, and rows of other areas (items,
 * variations, quotas, seating plans, orders) seeded straight into D1 with their minimal
 * columns, since those areas' APIs live elsewhere.
 */
import { expect } from "vitest";
import { itemVariations, items, quotas, seatingPlans } from "../../src/db/schema";
import { type Client, db, type Json, seedOrderPosition, seedOrderRow, unique } from "../harness";

export const DAY = 86_400_000;

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

export function eventBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: { en: "Sample Conference" },
    slug: unique("ev"),
    currency: "EUR",
    date_from: "2030-12-27T10:00:00Z",
    ...overrides,
  };
}

/** Creates an event through the API; returns the response body. */
export async function createEvent(
  client: Client,
  orgSlug: string,
  overrides: Record<string, unknown> = {},
): Promise<Json> {
  const res = await client.post(`/api/v1/organizers/${orgSlug}/events/`, eventBody(overrides));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The event's row id (for seeding rows of other areas). */
export async function eventId(orgId: number, slug: string): Promise<number> {
  const row = await db().query.events.findFirst({
    where: (e, { and, eq }) => and(eq(e.organizerId, orgId), eq(e.slug, slug)),
  });
  return row!.id;
}

export async function seedItem(evId: number, opts: { price?: number } = {}): Promise<number> {
  const [row] = await db()
    .insert(items)
    .values({
      eventId: evId,
      name: { en: "Ticket" },
      defaultPrice: opts.price ?? 0,
      salesChannels: ["web"],
      metaData: {},
    })
    .returning({ id: items.id });
  return row!.id;
}

export async function seedVariation(itemId: number, opts: { price?: number | null } = {}): Promise<number> {
  const [row] = await db()
    .insert(itemVariations)
    .values({
      itemId,
      value: { en: "Variant" },
      defaultPrice: opts.price ?? null,
      salesChannels: ["web"],
      metaData: {},
    })
    .returning({ id: itemVariations.id });
  return row!.id;
}

export async function seedQuota(evId: number, subeventId: number | null = null): Promise<number> {
  const [row] = await db()
    .insert(quotas)
    .values({ eventId: evId, subeventId, name: "Tickets", size: 100 })
    .returning({ id: quotas.id });
  return row!.id;
}

export async function seedSeatingPlan(orgId: number): Promise<number> {
  const [row] = await db()
    .insert(seatingPlans)
    .values({ organizerId: orgId, name: "Hall", layout: {} })
    .returning({ id: seatingPlans.id });
  return row!.id;
}

/** An order of the event with one position (optionally for a date). */
export async function seedOrder(evId: number, itemId: number, subeventId: number | null = null): Promise<number> {
  const order = await seedOrderRow(evId);
  await seedOrderPosition(order, { itemId, subeventId });
  return order.id;
}

export async function createMetaProperty(
  client: Client,
  orgSlug: string,
  body: Record<string, unknown>,
): Promise<Json> {
  const res = await client.post(`/api/v1/organizers/${orgSlug}/event_meta_properties/`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
