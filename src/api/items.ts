/**
 * Items (spec "Item (product)", "Endpoints › Items, variations, categories"; pretix docs
 * items.rst). Reading needs access to the event (devices too); writing needs can_change_items.
 * Items are created with nested `variations`, `addons` and `bundles`; afterwards those change
 * only through their nested endpoints (items-variations.ts, items-addons.ts). An item that was
 * ordered cannot be deleted (403).
 */
import { Hono } from "hono";
import { isForeignKeyError } from "../db/constraints";
import { createItem, deleteItem, findItem, type ItemFilters, type ItemRecord, itemOrdered, itemPage, updateItem } from "../db/items";
import { items } from "../db/schema";
import { MESSAGES } from "../domain/items";
import { notModified } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { fieldError, forbidden, nonFieldError, notFound } from "../domain/failure";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryInt, queryString } from "../http/validation";
import { parseDecimal } from "../lib/money";
import { itemCreate, itemPatch, itemPut, type ItemUpdateInput } from "./items-fields";
import { type Mode, prepareItem } from "./items-input";
import { serializeItem } from "./items-serializers";

export const itemRoutes = new Hono<AppEnv>();
export const itemsBase = "/organizers/:organizer/events/:event/items";
const read = eventScope(null);
const write = eventScope("can_change_items");

/** `tax_rate`: a decimal; `0` (or pretix's `None`) also matches items without a tax rule. */
function taxRateFilter(c: AppContext): number | undefined {
  const raw = queryString(c, "tax_rate");
  if (raw === undefined) return undefined;
  if (raw === "None") return 0;
  const rate = parseDecimal(raw);
  if (rate === null) throw fieldError("tax_rate", "Enter a number.");
  return rate;
}

itemRoutes.get(itemsBase, read, async (c) => {
  const page = pageRequest(c);
  const filters: ItemFilters = {
    active: queryBool(c, "active"),
    category: queryInt(c, "category"),
    admission: queryBool(c, "admission"),
    freePrice: queryBool(c, "free_price"),
    taxRate: taxRateFilter(c),
  };
  const order = ordering(c, { id: items.id, position: items.position }, "position", items.id);
  const result = await itemPage(c.var.db, c.var.event.id, filters, order, page.limit, page.offset);
  const unchanged = notModified(c, result.lastModified);
  if (unchanged) return unchanged;
  return c.json(envelope(c, page, result.total, result.records.map((r) => serializeItem(c, r))));
});

/** Loads the item of the URL within the event; 404 otherwise. */
async function loadItem(c: AppContext): Promise<ItemRecord> {
  const rec = await findItem(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!rec) throw notFound();
  return rec;
}

async function respondWithItem(c: AppContext, id: number, status: 200 | 201) {
  const rec = await findItem(c.var.db, c.var.event.id, id);
  if (!rec) throw notFound();
  return c.json(serializeItem(c, rec), status);
}

/** A write that lost a race against the deletion of an object it refers to. */
export function raced(e: unknown): never {
  if (isForeignKeyError(e)) throw nonFieldError(MESSAGES.raced);
  throw e;
}

itemRoutes.post(itemsBase, write, jsonBody(itemCreate), async (c) => {
  const prepared = await prepareItem(c, c.req.valid("json"), "create", null);
  const id = await createItem(
    c.var.db,
    c.var.event.id,
    c.var.event.organizerId,
    prepared.values as Parameters<typeof createItem>[3],
    prepared.membershipTypeIds ?? [],
    prepared.variations,
    prepared.addons,
    prepared.bundles,
    Date.now(),
  ).catch(raced);
  return respondWithItem(c, id, 201);
});

itemRoutes.get(`${itemsBase}/:id`, read, async (c) => c.json(serializeItem(c, await loadItem(c))));

async function change(c: AppContext, input: ItemUpdateInput, mode: Mode) {
  const current = await loadItem(c);
  const prepared = await prepareItem(c, input, mode, current);
  const ok = await updateItem(
    c.var.db,
    c.var.event.id,
    c.var.event.organizerId,
    current.item.id,
    prepared.values,
    prepared.membershipTypeIds,
    Date.now(),
  ).catch(raced);
  if (!ok) throw notFound();
  return respondWithItem(c, current.item.id, 200);
}

itemRoutes.put(`${itemsBase}/:id`, write, jsonBody(itemPut), (c) => change(c, c.req.valid("json"), "put"));
itemRoutes.patch(`${itemsBase}/:id`, write, jsonBody(itemPatch), (c) => change(c, c.req.valid("json"), "patch"));

itemRoutes.delete(`${itemsBase}/:id`, write, async (c) => {
  const { item } = await loadItem(c);
  if (await itemOrdered(c.var.db, item.id)) throw forbidden(MESSAGES.itemOrdered);
  if (!(await deleteItem(c.var.db, c.var.event.id, item.id, Date.now()))) {
    // ordered (or deleted) between the check and the deletion
    if (await itemOrdered(c.var.db, item.id)) throw forbidden(MESSAGES.itemOrdered);
    throw notFound();
  }
  return c.body(null, 204);
});
