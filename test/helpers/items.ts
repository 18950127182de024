/**
 * Helpers for the catalog tests (items, variations, add-ons, bundles, categories, membership
 * types). Objects whose API belongs to other areas (tax rules, quotas, orders, event meta
 * properties) are seeded straight into D1 with only the columns this area relies on.
 */
import { and, eq } from "drizzle-orm";
import { changeStamps, events, quotas, taxRules } from "../../src/db/schema";
import {
  type Client,
  db,
  seedOrderPosition as seedPosition,
  seedOrderRow,
  seedEventRow,
  seedOrganizer,
  unique,
} from "../harness";

export type World = Awaited<ReturnType<typeof seedOrganizer>> & {
  event: Awaited<ReturnType<typeof seedEventRow>>;
  /** `/api/v1/organizers/<org>/events/<event>` */
  ev: string;
};

/** An organizer with an all-permission client and one event. */
export async function world(): Promise<World> {
  const org = await seedOrganizer();
  const event = await seedEventRow(org.id);
  return { ...org, event, ev: `/api/v1/organizers/${org.slug}/events/${event.slug}` };
}

/** Another event of the same organizer, with its URL base. */
export async function otherEvent(w: World) {
  const event = await seedEventRow(w.id);
  return { event, ev: `/api/v1/organizers/${w.slug}/events/${event.slug}` };
}

export async function seedTaxRule(eventId: number, rate: number) {
  const [row] = await db()
    .insert(taxRules)
    .values({ eventId, name: { en: `VAT ${rate}` }, rate })
    .returning();
  return row!;
}

export async function seedQuota(eventId: number) {
  const [row] = await db()
    .insert(quotas)
    .values({ eventId, name: unique("quota"), size: 10 })
    .returning();
  return row!;
}

/** An order of the event with one position of the item (and variation). */
export async function seedOrderPosition(eventId: number, itemId: number, variationId: number | null = null) {
  const order = await seedOrderRow(eventId, { status: "p" });
  await seedPosition(order, { itemId, variationId });
  return order;
}

export async function setItemMetaProperties(eventId: number, props: Record<string, string>) {
  await db().update(events).set({ itemMetaProperties: props }).where(eq(events.id, eventId));
}

export async function setEventSalesChannels(eventId: number, channels: string[]) {
  await db().update(events).set({ salesChannels: channels }).where(eq(events.id, eventId));
}

/** Moves a change stamp of the event into the past (to see a later write move it again). */
export async function ageStamp(eventId: number, resource: string, to: number) {
  await db()
    .update(changeStamps)
    .set({ modifiedAt: to })
    .where(and(eq(changeStamps.scope, `event:${eventId}`), eq(changeStamps.resource, resource)));
}

export async function stamp(eventId: number, resource: string): Promise<number | undefined> {
  const row = await db()
    .select()
    .from(changeStamps)
    .where(and(eq(changeStamps.scope, `event:${eventId}`), eq(changeStamps.resource, resource)))
    .get();
  return row?.modifiedAt;
}

/** The smallest valid PNG. */
export const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
  (ch) => ch.charCodeAt(0),
);

export async function upload(client: Client, type: string, filename: string, body: Uint8Array = PNG): Promise<string> {
  const res = await client.request("POST", "/api/v1/upload", undefined, {
    raw: body,
    headers: { "Content-Type": type, "Content-Disposition": `attachment; filename=${filename}` },
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

/** Creates an item through the API and returns its JSON. */
export async function createItem(w: World, body: Record<string, unknown> = {}) {
  const res = await w.client.post(`${w.ev}/items/`, {
    name: { en: unique("Ticket ") },
    default_price: "10.00",
    ...body,
  });
  if (res.status !== 201) throw new Error(`item creation failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function createCategory(w: World, body: Record<string, unknown> = {}) {
  const res = await w.client.post(`${w.ev}/categories/`, { name: { en: unique("Category ") }, ...body });
  if (res.status !== 201) throw new Error(`category creation failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function createMembershipType(w: { slug: string; client: Client }, body: Record<string, unknown> = {}) {
  const res = await w.client.post(`/api/v1/organizers/${w.slug}/membershiptypes/`, {
    name: { en: unique("Pass ") },
    ...body,
  });
  if (res.status !== 201) throw new Error(`membership type creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A variation input with only its name. */
export const variation = (name: string, extra: Record<string, unknown> = {}) => ({ value: { en: name }, ...extra });
