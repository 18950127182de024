/** Seeding helpers for the catalog tests (rows straight into D1 where another area owns the API). */
import { and, eq } from "drizzle-orm";
import { changeStamps, items, subevents } from "../../src/db/schema";
import { eventScopeKey } from "../../src/db/changes";
import { db, seedEventRow, seedOrderPosition as seedPosition, seedOrderRow, seedOrganizer, unique } from "../harness";

/** An organizer with an event; `path` is the event's API path. */
export async function seedCatalogEvent() {
  const org = await seedOrganizer();
  const event = await seedEventRow(org.id);
  return { org, event, client: org.client, path: `/api/v1/organizers/${org.slug}/events/${event.slug}` };
}

/** An item row of the event. */
export async function seedItem(eventId: number, opts: { taxRuleId?: number; name?: string } = {}) {
  const [row] = await db()
    .insert(items)
    .values({
      eventId,
      name: { en: opts.name ?? unique("Ticket ") },
      defaultPrice: 1000,
      taxRuleId: opts.taxRuleId ?? null,
      salesChannels: ["web"],
      metaData: {},
    })
    .returning();
  return row!;
}

/** Many item rows of the event at once; returns their ids. */
export async function seedItems(eventId: number, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i += 4) {
    const rows = await db()
      .insert(items)
      .values(
        Array.from({ length: Math.min(4, n - i) }, (_, k) => ({
          eventId,
          name: { en: `Item ${i + k}` },
          defaultPrice: 0,
          salesChannels: ["web"],
          metaData: {},
        })),
      )
      .returning({ id: items.id });
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** A paid order with one position of the item, optionally taxed by a tax rule. */
export async function seedOrderPosition(eventId: number, itemId: number, taxRuleId: number | null) {
  const order = await seedOrderRow(eventId, { status: "p" });
  const position = await seedPosition(order, { itemId, taxRuleId });
  return { order, position };
}

/** A sub-event of the event (optionally using a seating plan). */
export async function seedSubevent(eventId: number, seatingPlanId: number | null = null) {
  const now = Date.now();
  const [row] = await db()
    .insert(subevents)
    .values({ eventId, name: { en: "Date" }, dateFrom: now + 86400_000, seatingPlanId, lastModified: now })
    .returning();
  return row!;
}

/** Sets the list-level change stamp of a resource of the event to `ms` (to test 304 without waiting). */
export async function setStamp(eventId: number, resource: string, ms: number) {
  await db()
    .update(changeStamps)
    .set({ modifiedAt: ms })
    .where(and(eq(changeStamps.scope, eventScopeKey(eventId)), eq(changeStamps.resource, resource)));
}

/** Uploads a file through the API and returns its `file:<id>`. */
export async function upload(
  client: { request: (m: string, p: string, b?: unknown, o?: object) => Promise<{ status: number; body: any }> },
  contentType: string,
  body: string,
  filename = "file.pdf",
) {
  const res = await client.request("POST", "/api/v1/upload", undefined, {
    raw: body,
    headers: { "Content-Type": contentType, "Content-Disposition": `attachment; filename=${filename}` },
  });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export const OLD_HTTP_DATE = "Wed, 01 Jan 2020 00:00:00 GMT";
export const OLD_MS = Date.UTC(2020, 0, 1);

/** An identifier the service generates for a question or an option. */
export const GENERATED_IDENTIFIER = /^[ABCDEFGHJKLMNPQRSTUVWXYZ3789]{8}$/;

/** A choice question with three options, sent as answers only. */
export const SHIRT_QUESTION = {
  question: { en: "T-Shirt size" },
  type: "C",
  options: [{ answer: { en: "S" } }, { answer: { en: "M" } }, { answer: { en: "L" } }],
};
