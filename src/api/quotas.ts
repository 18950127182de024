/** Quotas (spec open point 14: pretix docs quotas.rst), with real availability from the event object. */
import { Hono } from "hono";
import { z } from "zod";
import { quotas } from "../db/schema";
import {
  createQuota,
  deleteQuota,
  eventItems,
  eventVariations,
  findQuota,
  quotaCount,
  quotaFilter,
  quotaPage,
  type QuotaRecord,
  quotasLastChange,
  subeventOfEvent,
  toQuotaRecords,
  updateQuota,
} from "../db/quotas";
import type { Availability } from "../domain/inventory";
import { inventoryStamp, withEventObject } from "../objects/client";
import { notModified } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, notFound } from "../domain/failure";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryInt } from "../http/validation";

export function serializeQuota(q: QuotaRecord, availability?: Availability) {
  return {
    id: q.id,
    name: q.name,
    size: q.size,
    items: q.items,
    variations: q.variations,
    subevent: q.subeventId,
    close_when_sold_out: q.closeWhenSoldOut,
    closed: q.closed,
    release_after_exit: q.releaseAfterExit,
    ignore_for_event_availability: q.ignoreForEventAvailability,
    ...(availability ? { available: availability.available, available_number: availability.available_number } : {}),
  };
}

const quotaFields = z.object({
  name: z.string().trim().min(1).max(200),
  size: z.number().int().min(0).nullable(),
  items: z.array(z.number().int()),
  variations: z.array(z.number().int()),
  subevent: z.number().int().nullable(),
  close_when_sold_out: z.boolean(),
  closed: z.boolean(),
  release_after_exit: z.boolean(),
  ignore_for_event_availability: z.boolean(),
});
type QuotaInput = z.output<typeof quotaFields>;
const quotaFull = quotaFields.partial().required({ name: true });
const quotaPatch = quotaFields.partial();

/** Validates items, variations and sub-event against the event; returns the coverage. */
async function checkCoverage(c: AppContext, input: { items: number[]; variations: number[]; subevent: number | null }) {
  const event = c.var.event;
  const db = c.var.db;
  const errors = new Problems();
  const found = await eventItems(db, event.id, input.items);
  const itemIds = new Set(found.map((i) => i.id));
  for (const id of input.items) if (!itemIds.has(id)) errors.add("items", `Invalid pk "${id}" - object does not exist.`);
  const variations = await eventVariations(db, event.id, input.variations);
  const varIds = new Set(variations.map((v) => v.id));
  for (const id of input.variations) if (!varIds.has(id)) errors.add("variations", `Invalid pk "${id}" - object does not exist.`);
  for (const v of variations) {
    if (!itemIds.has(v.itemId)) errors.add("variations", `Variation ${v.id} does not belong to one of the items of this quota.`);
  }
  for (const i of found) {
    if (i.hasVariations && !variations.some((v) => v.itemId === i.id)) {
      errors.add("variations", `Item ${i.id} has variations, but none of them is in the variations list.`);
    }
  }
  if (event.hasSubevents) {
    if (input.subevent === null) errors.add("subevent", "Subevent cannot be null for event series.");
    else if (!(await subeventOfEvent(db, event.id, input.subevent))) errors.add("subevent", `Invalid pk "${input.subevent}" - object does not exist.`);
  } else if (input.subevent !== null) {
    errors.add("subevent", "You cannot set a subevent if the event is not an event series.");
  }
  errors.throwIfAny();
  // items with variations are covered through their variations only
  const withVariations = new Set(found.filter((i) => i.hasVariations).map((i) => i.id));
  return { itemIds: [...itemIds].filter((id) => !withVariations.has(id)), variations };
}

async function availabilityOf(c: AppContext, ids: number[]): Promise<Record<number, Availability>> {
  if (ids.length === 0) return {};
  const stamp = await inventoryStamp(c.var.db, c.var.event.id);
  return withEventObject<Record<number, Availability>>(c.env, c.var.event.id, (s) => s.quotaAvailability(stamp, ids));
}

async function notifyCatalog(c: AppContext, now: number) {
  // Best effort: the next decision reloads anyway when it sees the newer stamp.
  try {
    await withEventObject(c.env, c.var.event.id, (s) => s.catalogChanged(now));
  } catch {
    /* reloaded on the next call */
  }
}

async function loadQuota(c: AppContext) {
  const q = await findQuota(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!q) throw notFound();
  return q;
}

export const quotaRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/quotas";
const read = eventScope(null);
const write = eventScope("can_change_items");

quotaRoutes.get(base, read, async (c) => {
  const db = c.var.db;
  const page = pageRequest(c);
  const where = quotaFilter(c.var.event.id, { subeventId: queryInt(c, "subevent") });
  const withAvailability = queryBool(c, "with_availability") ?? false;
  const order = ordering(c, { id: quotas.id }, "id", quotas.id);
  const [[total], rows, stamp] = await db.batch([quotaCount(db, where), quotaPage(db, where, order, page.limit, page.offset), quotasLastChange(db, c.var.event.id)]);
  const cached = notModified(c, stamp[0]?.modifiedAt);
  if (cached && !withAvailability) return cached;
  const records = toQuotaRecords(rows);
  const availability = withAvailability ? await availabilityOf(c, records.map((q) => q.id)) : {};
  return c.json(envelope(c, page, total?.n ?? 0, records.map((q) => serializeQuota(q, withAvailability ? availability[q.id] : undefined))));
});

quotaRoutes.get(`${base}/:id`, read, async (c) => {
  const q = await loadQuota(c);
  const withAvailability = queryBool(c, "with_availability") ?? false;
  const availability = withAvailability ? (await availabilityOf(c, [q.id]))[q.id] : undefined;
  return c.json(serializeQuota(q, availability));
});

quotaRoutes.get(`${base}/:id/availability`, read, async (c) => {
  const q = await loadQuota(c);
  const a = (await availabilityOf(c, [q.id]))[q.id];
  if (!a) throw notFound();
  return c.json(a);
});

quotaRoutes.post(base, write, jsonBody(quotaFull), async (c) => {
  const input = c.req.valid("json");
  const coverage = await checkCoverage(c, { items: input.items ?? [], variations: input.variations ?? [], subevent: input.subevent ?? null });
  const now = Date.now();
  const id = await createQuota(c.var.db, c.var.event.id, quotaValues(input, true), coverage.itemIds, coverage.variations, now);
  await notifyCatalog(c, now);
  return c.json(serializeQuota((await findQuota(c.var.db, c.var.event.id, id))!), 201);
});

function quotaValues(input: Partial<QuotaInput>, full: boolean) {
  const v: Record<string, unknown> = {};
  const set = (key: string, value: unknown, fallback: unknown) => {
    if (value !== undefined) v[key] = value;
    else if (full) v[key] = fallback;
  };
  set("name", input.name, undefined);
  set("size", input.size, null);
  set("subeventId", input.subevent, null);
  set("closeWhenSoldOut", input.close_when_sold_out, false);
  set("closed", input.closed, false);
  set("releaseAfterExit", input.release_after_exit, false);
  set("ignoreForEventAvailability", input.ignore_for_event_availability, false);
  if (v.name === undefined) delete v.name;
  return v as { name: string } & Record<string, unknown>;
}

async function changeQuota(c: AppContext, input: Partial<QuotaInput>, full: boolean) {
  const q = await loadQuota(c);
  const merged = {
    items: input.items ?? (full ? [] : q.items),
    variations: input.variations ?? (full ? [] : q.variations),
    subevent: input.subevent !== undefined ? input.subevent : full ? null : q.subeventId,
  };
  const touchesCoverage = full || input.items !== undefined || input.variations !== undefined || input.subevent !== undefined;
  const coverage = touchesCoverage ? await checkCoverage(c, merged) : null;
  const now = Date.now();
  await updateQuota(c.var.db, c.var.event.id, q.id, quotaValues(input, full), coverage, now);
  await notifyCatalog(c, now);
  return c.json(serializeQuota((await findQuota(c.var.db, c.var.event.id, q.id))!));
}

quotaRoutes.put(`${base}/:id`, write, jsonBody(quotaFull), (c) => changeQuota(c, c.req.valid("json"), true));
quotaRoutes.patch(`${base}/:id`, write, jsonBody(quotaPatch), (c) => changeQuota(c, c.req.valid("json"), false));

async function removeQuota(c: AppContext) {
  const q = await loadQuota(c);
  const now = Date.now();
  await deleteQuota(c.var.db, c.var.event.id, q.id, now);
  await notifyCatalog(c, now);
  return c.body(null, 204);
}
quotaRoutes.delete(`${base}/:id`, write, removeQuota);
// pretix documents the delete path in the singular too
quotaRoutes.delete("/organizers/:organizer/events/:event/quota/:id", write, removeQuota);
