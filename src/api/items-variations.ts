/**
 * Variations of an item (docs/api.md; pretix docs item_variations.rst). `id` and
 * `price` (the effective price: the variation's `default_price`, else the item's) are
 * read-only. Only items created with variations take new ones; the last variation of an item
 * and variations that were ordered cannot be deleted (403). The rules live in
 * src/services/catalog/item-variations.ts.
 */
import { Hono } from "hono";
import { listVariations, VARIATION_ORDERING } from "../services/catalog/catalog-reads";
import { variationFull, variationPatch } from "../services/catalog/item-input";
import { changeVariation, createVariation, deleteVariation, loadVariation } from "../services/catalog/item-variations";
import { loadItemRow } from "../services/catalog/items";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { itemsBase, viewOf } from "./items";
import { serializeVariation, variationResponse } from "./items-serializers";

export const variationRoutes = new Hono<AppEnv>();
const doc = apiDocs("Item variations");
const variationFilters = queryParams({ active: q.bool() });
const base = `${itemsBase}/:item/variations`;
const read = eventScope(null);
const write = eventScope("can_change_items");

variationRoutes.get(
  base,
  read,
  doc.list(variationResponse, { summary: "List an item's variations", ordering: VARIATION_ORDERING }),
  variationFilters,
  async (c) => {
    const item = await loadItemRow(eventContext(c), pathId(c, "item"));
    const req = listRequest(c);
    const page = await listVariations(eventContext(c), item.id, c.req.valid("query").active, req);
    const view = viewOf(c);
    return respondPage(c, req, page, (v) => serializeVariation(view, item, v));
  },
);

variationRoutes.post(
  base,
  write,
  doc.created(variationResponse, { summary: "Create a variation" }),
  jsonBody(variationFull),
  async (c) => {
    const r = await createVariation(eventContext(c), pathId(c, "item"), c.req.valid("json"));
    return c.json(serializeVariation(viewOf(c), r.item, r.variation), 201);
  },
);

variationRoutes.get(`${base}/:id`, read, doc.ok(variationResponse, { summary: "Variation detail" }), async (c) => {
  const ctx = eventContext(c);
  const item = await loadItemRow(ctx, pathId(c, "item"));
  return c.json(serializeVariation(viewOf(c), item, await loadVariation(ctx, item.id, pathId(c, "id"))));
});

variationRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(variationResponse, { summary: "Replace a variation" }),
  jsonBody(variationFull),
  async (c) => {
    const r = await changeVariation(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "put");
    return c.json(serializeVariation(viewOf(c), r.item, r.variation));
  },
);

variationRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(variationResponse, { summary: "Change a variation" }),
  jsonBody(variationPatch),
  async (c) => {
    const r = await changeVariation(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "patch");
    return c.json(serializeVariation(viewOf(c), r.item, r.variation));
  },
);

variationRoutes.delete(
  `${base}/:id`,
  write,
  doc.noContent({
    summary: "Delete a variation",
    description: "Not the last variation of an item, nor one that was ordered or is in a cart (403).",
  }),
  async (c) => {
    await deleteVariation(eventContext(c), pathId(c, "item"), pathId(c, "id"));
    return c.body(null, 204);
  },
);
