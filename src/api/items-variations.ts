/**
 * Variations of an item (spec "Item variation"; pretix docs item_variations.rst). `id` and
 * `price` (the effective price: the variation's `default_price`, else the item's) are
 * read-only. Only items created with variations take new ones; the last variation of an item
 * and variations that were ordered cannot be deleted (403). The rules live in
 * src/domain/item-variations.ts.
 */
import { Hono } from "hono";
import { listVariations } from "../db/items";
import { variationFull, variationPatch } from "../domain/item-input";
import { changeVariation, createVariation, deleteVariation, loadVariation } from "../domain/item-variations";
import { loadItemRow } from "../domain/items";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool } from "../http/validation";
import { itemsBase, viewOf } from "./items";
import { serializeVariation } from "./items-serializers";

export const variationRoutes = new Hono<AppEnv>();
const base = `${itemsBase}/:item/variations`;
const read = eventScope(null);
const write = eventScope("can_change_items");

variationRoutes.get(base, read, async (c) => {
  const item = await loadItemRow(eventContext(c), pathId(c, "item"));
  const req = listRequest(c);
  const page = await listVariations(c.var.db, item.id, queryBool(c, "active"), req);
  const view = viewOf(c);
  return respondPage(c, req, page, (v) => serializeVariation(view, item, v));
});

variationRoutes.post(base, write, jsonBody(variationFull), async (c) => {
  const r = await createVariation(eventContext(c), pathId(c, "item"), c.req.valid("json"));
  return c.json(serializeVariation(viewOf(c), r.item, r.variation), 201);
});

variationRoutes.get(`${base}/:id`, read, async (c) => {
  const ctx = eventContext(c);
  const item = await loadItemRow(ctx, pathId(c, "item"));
  return c.json(serializeVariation(viewOf(c), item, await loadVariation(ctx, item.id, pathId(c, "id"))));
});

variationRoutes.put(`${base}/:id`, write, jsonBody(variationFull), async (c) => {
  const r = await changeVariation(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "put");
  return c.json(serializeVariation(viewOf(c), r.item, r.variation));
});

variationRoutes.patch(`${base}/:id`, write, jsonBody(variationPatch), async (c) => {
  const r = await changeVariation(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "patch");
  return c.json(serializeVariation(viewOf(c), r.item, r.variation));
});

variationRoutes.delete(`${base}/:id`, write, async (c) => {
  await deleteVariation(eventContext(c), pathId(c, "item"), pathId(c, "id"));
  return c.body(null, 204);
});
