/**
 * Variations of an item (spec "Item variation"; pretix docs item_variations.rst). `id` and
 * `price` (the effective price: the variation's `default_price`, else the item's) are
 * read-only. Only items created with variations take new ones; the last variation of an item
 * and variations that were ordered cannot be deleted (403).
 */
import { Hono } from "hono";
import {
  createVariation,
  deleteVariation,
  findItemRow,
  findVariation,
  type ItemRow,
  updateVariation,
  variationDeleteBlockers,
  variationPage,
  type VariationValues,
} from "../db/items";
import { itemVariations } from "../db/schema";
import { MESSAGES } from "../domain/items";
import type { AppContext, AppEnv } from "../http/context";
import { forbidden, notFound } from "../domain/failure";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool } from "../http/validation";
import { type VariationInput, variationFull, variationPatch } from "./items-fields";
import { type Mode, prepareVariation } from "./items-input";
import { itemsBase, raced } from "./items";
import { serializeVariation } from "./items-serializers";

export const variationRoutes = new Hono<AppEnv>();
const base = `${itemsBase}/:item/variations`;
const read = eventScope(null);
const write = eventScope("can_change_items");

/** The item of the URL within the event; 404 otherwise. */
export async function loadItemRow(c: AppContext): Promise<ItemRow> {
  const item = await findItemRow(c.var.db, c.var.event.id, pathId(c, "item"));
  if (!item) throw notFound();
  return item;
}

variationRoutes.get(base, read, async (c) => {
  const item = await loadItemRow(c);
  const page = pageRequest(c);
  const order = ordering(c, { id: itemVariations.id, position: itemVariations.position }, "id", itemVariations.id);
  const result = await variationPage(c.var.db, item.id, queryBool(c, "active"), order, page.limit, page.offset);
  return c.json(envelope(c, page, result.total, result.records.map((v) => serializeVariation(c, item, v))));
});

variationRoutes.post(base, write, jsonBody(variationFull), async (c) => {
  const item = await loadItemRow(c);
  if (!item.hasVariations) throw forbidden(MESSAGES.noVariations);
  const prepared = await prepareVariation(c, item, c.req.valid("json"), "create", null);
  const id = await createVariation(
    c.var.db,
    c.var.event.id,
    c.var.event.organizerId,
    item.id,
    { values: prepared.values as VariationValues, membershipTypeIds: prepared.membershipTypeIds ?? [] },
    Date.now(),
  ).catch(raced);
  const rec = await findVariation(c.var.db, item.id, id);
  if (!rec) throw notFound();
  return c.json(serializeVariation(c, item, rec), 201);
});

variationRoutes.get(`${base}/:id`, read, async (c) => {
  const item = await loadItemRow(c);
  const rec = await findVariation(c.var.db, item.id, pathId(c, "id"));
  if (!rec) throw notFound();
  return c.json(serializeVariation(c, item, rec));
});

async function change(c: AppContext, input: VariationInput, mode: Mode) {
  const item = await loadItemRow(c);
  const current = await findVariation(c.var.db, item.id, pathId(c, "id"));
  if (!current) throw notFound();
  const prepared = await prepareVariation(c, item, input, mode, current);
  const ok = await updateVariation(
    c.var.db,
    c.var.event.id,
    c.var.event.organizerId,
    item.id,
    current.variation.id,
    prepared.values,
    prepared.membershipTypeIds,
    Date.now(),
  ).catch(raced);
  const rec = ok ? await findVariation(c.var.db, item.id, current.variation.id) : undefined;
  if (!rec) throw notFound();
  return c.json(serializeVariation(c, item, rec));
}

variationRoutes.put(`${base}/:id`, write, jsonBody(variationFull), (c) => change(c, c.req.valid("json"), "put"));
variationRoutes.patch(`${base}/:id`, write, jsonBody(variationPatch), (c) => change(c, c.req.valid("json"), "patch"));

variationRoutes.delete(`${base}/:id`, write, async (c) => {
  const item = await loadItemRow(c);
  const rec = await findVariation(c.var.db, item.id, pathId(c, "id"));
  if (!rec) throw notFound();
  const id = rec.variation.id;
  const refuse = async () => {
    const blockers = await variationDeleteBlockers(c.var.db, item.id, id, Date.now());
    if (blockers.ordered) throw forbidden(MESSAGES.variationOrdered);
    if (blockers.inCart) throw forbidden("This variation cannot be deleted while it is reserved in a cart.");
    if (blockers.variations <= 1) throw forbidden(MESSAGES.onlyVariation);
  };
  await refuse();
  if (!(await deleteVariation(c.var.db, c.var.event.id, item.id, id, Date.now()))) {
    // something changed between the checks and the deletion
    await refuse();
    throw notFound();
  }
  return c.body(null, 204);
});
